//! Connect Four itself, with no BDDs: board sizes, explicit positions, and
//! the explicit enumerator that serves as the oracle for the symbolic code.

pub mod alphabeta;
pub mod board;
pub mod explicit;
pub mod layout;

pub use board::{BoardSize, Player, Position, MAX_SIDE};

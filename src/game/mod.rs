//! Connect Four itself, with no BDDs: board sizes, explicit positions, and
//! the explicit enumerator that serves as the oracle for the symbolic code.

pub mod alphabeta;
mod bits;
pub mod board;
pub mod explicit;
pub mod layout;
mod negamax;
mod table;

pub use board::{BoardSize, Player, Position, MAX_SIDE};

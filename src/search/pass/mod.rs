//! The passes over a [`StateSpace`](crate::encoding::StateSpace): the
//! forward pass (counting), the retrograde pass (solving), and the proof of
//! a stored solution from the game's rules.

pub mod backward;
pub mod forward;
pub mod prove;

//! Symbolic search passes over a [`StateSpace`](crate::encoding::StateSpace).

pub mod forward;

pub use forward::{
    forward, step, ForwardOptions, ForwardSummary, ImageStrategy, PlyRecord, TerminalStrategy,
    Transition,
};

//! Symbolic search passes over a [`StateSpace`](crate::encoding::StateSpace):
//! the forward pass (counting), the retrograde pass (solving), and solutions
//! stored on disk (c4bdd's and the paper's artifact's, read in place).

pub mod artifact;
pub mod backward;
pub mod book;
pub mod checkpoint;
pub(crate) mod files;
pub mod forward;
mod options;
pub mod partition;
pub mod parts;
pub mod phases;
pub mod prove;
mod records;
pub mod solution;
pub mod solve_checkpoint;
mod split;
pub mod table;
pub mod transition;

pub use backward::{solve, SolvePly, SolveSummary, Value};
pub use checkpoint::Checkpoint;
pub use forward::{
    forward, forward_from, forward_with, step, ForwardOptions, ForwardSummary, Hooks, ImageSoFar, ImageStrategy,
    PlyRecord, Resume, TerminalStrategy, MAX_IMAGE_SPLIT,
};
pub(crate) use options::is_zero;
pub use options::MAX_SPLIT_PARTS;
#[cfg(unix)]
pub use phases::write_allocation_failure;
pub use phases::{Phase, Phases};
pub use solution::{Manifest, Solution, SolutionWriter};
pub use solve_checkpoint::{SolveCheckpoint, SolveResume, TakeUp};
pub use table::{open_table, SolutionTable, TableProbe};
pub use transition::{Step, StepOf, Transition};

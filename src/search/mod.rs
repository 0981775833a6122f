//! Symbolic search over a [`StateSpace`](crate::encoding::StateSpace), by
//! concern:
//! - [`files`]: the file handling they share (atomic writes, locks, labels);
//! - [`ply`]: what every pass is made of (options, transition relations and
//!   steps, the split of a ply, records, phases);
//! - [`resume`]: what a pass takes up, and the checkpoints of counts and solves;
//! - [`pass`]: the forward pass (counting), the retrograde pass (solving) and
//!   the proof of a stored solution from the rules;
//! - [`partition`]: the retrograde pass part by part (a ply cut on cell
//!   variables, each part from the parts above it reaches);
//! - [`stored`]: solutions on disk (c4bdd's, partitioned, the paper's
//!   artifact's), read in place;
//! - [`book`]: opening books by searches that probe a stored solution.
//!
//! Each group uses only the groups listed before it.

pub mod book;
pub mod files;
pub mod partition;
pub mod pass;
pub mod ply;
pub mod resume;
pub mod stored;

pub use pass::backward::{solve, SolveSummary};
pub use pass::forward::{forward, forward_from, forward_with, step, ForwardSummary, Hooks};
pub(crate) use ply::options::is_zero;
pub use ply::options::{ForwardOptions, ImageStrategy, TerminalStrategy, MAX_IMAGE_SPLIT, MAX_SPLIT_PARTS};
#[cfg(unix)]
pub use ply::phases::write_allocation_failure;
pub use ply::phases::{Phase, Phases};
pub use ply::records::{PlyRecord, SolvePly, Value};
pub use ply::transition::{Step, StepOf, Transition};
pub use resume::forward::Checkpoint;
pub use resume::solve::{SolveCheckpoint, SolveResume, TakeUp};
pub use resume::{ImageSoFar, Resume};
pub use stored::open_table;
pub use stored::solution::{Manifest, Solution, SolutionWriter};
pub use stored::table::{SolutionTable, TableProbe};

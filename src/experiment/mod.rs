//! Experiments: TOML specs expanded into runs, each run in a child process,
//! results archived under `results/<experiment>/<run-id>/` as `runs.csv`,
//! `plies.csv` and `meta.json`.

mod child;
pub mod meta;
pub mod record;
pub mod run_spec;
pub mod runner;
pub mod spec;
pub mod worker;

pub use runner::{list, merge, parse_shard, sweep, RunState, SweepOptions, SweepReport};
pub use spec::{ExperimentSpec, Pass, RunSpec, SpecError};

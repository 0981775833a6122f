//! Experiments: TOML specs expanded into runs, each run in a child process,
//! results archived under `results/<experiment>/<run-id>/` as `runs.csv`,
//! `plies.csv` and `meta.json`.
//!
//! The data flows one way: a spec ([`spec`]) expands into runs
//! ([`crate::run::RunSpec`]); the sweep ([`runner`]) starts each in a child
//! process (`child.rs`) whose [`worker`] runs it with the executor
//! ([`crate::run::execute`]) and streams JSON lines (one per ply, then the
//! totals) back; the parent writes them as rows ([`record`]), and the report
//! reads only those rows.
//!
//! To add a result column:
//! 1. add the field to [`record::RunRow`] (or [`record::PlyRow`]), typed (an
//!    enum for a fixed set of values), as an `Option` with `#[serde(default)]`
//!    so that archives without it still read, and list its name in
//!    `record`'s `ADDED_COLUMNS` so that a resumed older file is upgraded;
//! 2. compute it in the executor (`run/exec.rs`: a field of
//!    [`crate::run::Totals`], or of the ply records) and fill the row's field
//!    in `child.rs`, where the parent makes the row;
//! 3. read it in the report from `Run::row` (`report/data.rs`).

mod chained_model;
mod child;
pub mod meta;
pub mod record;
pub mod runner;
pub mod spec;
pub mod worker;

pub use runner::{list, merge, parse_shard, sweep, RunState, SweepOptions, SweepReport};
pub use spec::{ExperimentSpec, Pass, RunSpec, SpecError};

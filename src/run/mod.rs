//! A run: its description ([`RunSpec`], checked by [`RunSpec::validate`])
//! and its executor ([`execute`]), which streams each finished ply to a
//! [`Sink`] and returns the run's [`Totals`].
//!
//! The data flows one way: a sweep's spec or the command line builds a
//! `RunSpec`; the executor builds the state space (`encoding`) and runs the
//! passes (`search`) on the BDD core (`bdd`); its rows go to the sink, and
//! from a sweep to the archive that the report reads.

mod exec;
mod spec;

pub use exec::{execute, Finished, Resumed, Sink, Stopped, Totals};
pub(crate) use spec::one_repeat;
pub use spec::{
    count_config, solve_config, Limits, ManagerSettings, Pass, RunSpec, Swept, COUNT_GC_MIN_LIVE,
    COUNT_MIN_CACHE_ENTRIES, MAX_CACHE_RATIO, MIN_MAX_NODES, SOLVE_BREADTH_FIRST_CACHE_RATIO,
    SOLVE_BREADTH_FIRST_MAX_CACHE_ENTRIES, SOLVE_BREADTH_FIRST_SPLIT3_CACHE_RATIO,
};

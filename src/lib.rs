//! c4bdd: symbolic search on Connect Four with binary decision diagrams.
//!
//! The crate counts every reachable position of a w×h board ply by ply and
//! solves boards by retrograde analysis, on its own BDD core, the crate
//! `c4bdd-core`, re-exported here as [`bdd`].
//!
//! The `c4bdd` binary, its benchmarks and its integration tests install
//! [`bdd::HugePageAlloc`] as their allocator, which maps the large tables in
//! huge pages.

pub use c4bdd_core as bdd;
pub mod encoding;
pub mod error;
pub mod experiment;
pub mod game;
pub mod measure;
pub mod named;
pub mod order_search;
pub mod report;
pub mod run;
pub mod search;

pub use error::{Error, InputError, Result};

//! The integration test binary: every test of the crate's public behaviour.

mod bdd_gc;
mod bdd_io;
mod bdd_laws;
mod bdd_random;
mod best;
mod checkpoint;
mod cli;
mod common;
mod count;
mod fuzz;
mod parallel;
mod report;
mod solve;
mod sweep;
mod tree;

//! The integration test binary: every test of the crate's public behaviour.

/// The binary's allocator, so that BDDs built in the tests live as the binary's do.
#[global_allocator]
static ALLOCATOR: c4bdd::bdd::HugePageAlloc = c4bdd::bdd::HugePageAlloc;

mod artifact;
mod best;
mod book;
mod checkpoint;
mod cli;
mod common;
mod count;
mod down_to;
mod fuzz;
mod image_resume;
mod integrity;
mod newcomer;
mod orders;
mod parallel;
mod partition;
mod parts;
mod positions;
mod prove;
mod report;
mod solve;
mod sweep;
mod tamper;
mod traversal;
mod tree;
mod verify;

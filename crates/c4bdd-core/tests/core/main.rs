//! The core's tests: algebraic laws on every function of three variables,
//! seeded random formulas against truth tables, collections, and files.

mod common;
mod example;
mod families;
mod gc;
mod io;
mod laws;
mod parallel;
mod props;
mod random;
mod traversal;

//! c4bdd: symbolic search on Connect Four with binary decision diagrams.
//!
//! The crate counts every reachable position of a w×h board ply by ply and
//! solves boards by retrograde analysis, on its own BDD core ([`bdd`]).
//!
//! ```
//! use c4bdd::bdd::{Config, Manager};
//!
//! let mut m = Manager::new(Config::default());
//! let x = m.add_vars(3).unwrap();
//! let a = m.literal(x[0], true).unwrap();
//! let b = m.literal(x[1], true).unwrap();
//! let f = m.or(a, b).unwrap();
//! let all = m.var_set(&x).unwrap();
//! assert_eq!(m.sat_count(f, all), 6); // 3 of 4 assignments to x0,x1, times 2 for x2
//! ```
//!
//! A program that links the crate chooses its own allocator. The `c4bdd`
//! binary, its benchmarks and its integration tests install
//! [`bdd::HugePageAlloc`], which maps the large tables in huge pages:
//!
//! ```
//! #[global_allocator]
//! static ALLOCATOR: c4bdd::bdd::HugePageAlloc = c4bdd::bdd::HugePageAlloc;
//! # fn main() {}
//! ```

pub mod bdd;
pub mod cli;
pub mod commands;
pub mod encoding;
pub mod error;
pub mod experiment;
pub mod game;
pub mod measure;
pub mod order_search;
pub mod report;
pub mod run;
pub mod search;

pub use error::{Error, InputError, Result};

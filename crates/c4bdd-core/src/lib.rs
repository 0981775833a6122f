//! Reduced ordered binary decision diagrams (BDDs) in one manager, built
//! for symbolic search: in-place images over paired variables, operations
//! on one thread or several, a garbage collector run at the caller's safe
//! points with statistics, and checksummed files.
//!
//! A [`Manager`] owns the nodes; a [`Bdd`] is a handle to one of them.
//! Variables are created with [`Manager::add_vars`] and ordered (top to
//! bottom) in the order of creation, or by [`Manager::set_order`].
//!
//! ```
//! use c4bdd_core::{Config, Manager};
//!
//! let mut m = Manager::new(Config::default());
//! let x = m.add_vars(3).unwrap();
//! let a = m.literal(x[0], true).unwrap();
//! let b = m.literal(x[1], true).unwrap();
//! let f = m.or(a, b).unwrap();
//! let all = m.var_set(&x).unwrap();
//! assert_eq!(m.sat_count(f, all), 6); // 3 of 4 assignments to x0,x1, times 2 for x2
//! assert_eq!(m.node_count(f), 2);
//! ```
//!
//! **Images in place.** A [`Pairing`] couples each state variable `x` with a
//! variable `y` directly below it; a relation `R(x, y)` relates a state to
//! its successor. [`Manager::image`] and [`Manager::preimage`] give the
//! successors and predecessors of a set over `x` again, with no renaming;
//! where the relation leaves the remaining pairs unchanged the result shares
//! the input's nodes. A two-bit counter that counts up by one:
//!
//! ```
//! use c4bdd_core::{Bdd, Config, Manager};
//!
//! let mut m = Manager::new(Config::default());
//! let v = m.add_vars(4).unwrap(); // x1 y1 x0 y0: each x directly above its y
//! let (x1, y1, x0, y0) = (v[0], v[1], v[2], v[3]);
//! let pairing = m.pairing(&[(x1, y1), (x0, y0)]).unwrap();
//! // y = x + 1 (mod 4): y0 = not x0, y1 = x1 xor x0.
//! let (lx0, ly0, lx1, ly1) = (m.literal(x0, true).unwrap(), m.literal(y0, true).unwrap(),
//!     m.literal(x1, true).unwrap(), m.literal(y1, true).unwrap());
//! let low = m.xor(ly0, lx0).unwrap();
//! let carry = m.xor(lx1, lx0).unwrap();
//! let high = m.iff(ly1, carry).unwrap();
//! let step = m.and(low, high).unwrap();
//! let one = m.cube(&[(x1, false), (x0, true)]).unwrap();
//! let two = m.cube(&[(x1, true), (x0, false)]).unwrap();
//! assert_eq!(m.image(one, step, pairing).unwrap(), two);
//! assert_eq!(m.preimage(two, step, pairing).unwrap(), one);
//! # let _ = Bdd::FALSE;
//! ```
//!
//! **Collection.** Nothing is freed until [`Manager::gc`] (or
//! [`Manager::maybe_gc`], under the policy of [`Config`]) runs; it keeps
//! every BDD pinned ([`Manager::pin`]) and the roots it is given, and frees
//! the rest. Handles to freed nodes must not be used again.
//!
//! ```
//! use c4bdd_core::{Config, Manager};
//!
//! let mut m = Manager::new(Config::default());
//! let x = m.add_vars(2).unwrap();
//! let keep = m.cube(&[(x[0], true), (x[1], false)]).unwrap();
//! let _garbage = m.cube(&[(x[0], false), (x[1], true)]).unwrap();
//! m.pin(keep);
//! let report = m.gc(&[]);
//! assert_eq!(report.live_after, 2); // the pinned cube's two nodes
//! assert!(m.eval(keep, &[true, false]));
//! m.unpin(keep);
//! ```
//!
//! **Files.** [`Manager::save`] writes BDDs with a label and checksums;
//! [`Manager::load`] reads them into a manager with the same variables,
//! refusing a damaged file or another label.
//!
//! ```
//! use c4bdd_core::{Config, Manager};
//!
//! let dir = std::env::temp_dir().join(format!("c4bdd-core-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("f.bdd");
//! let mut m = Manager::new(Config::default());
//! let x = m.add_vars(3).unwrap();
//! let f = m.cube(&[(x[0], true), (x[2], false)]).unwrap();
//! m.save(&[f], "example", &path).unwrap();
//! let mut other = Manager::new(Config::default());
//! other.add_vars(3).unwrap();
//! let g = other.load(&path, "example").unwrap()[0];
//! assert!(other.eval(g, &[true, true, false]) && !other.eval(g, &[false, true, false]));
//! assert!(other.load(&path, "another label").is_err());
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```
//!
//! A program that links the crate chooses its own allocator; [`HugePageAlloc`]
//! maps the large tables in huge pages:
//!
//! ```
//! #[global_allocator]
//! static ALLOCATOR: c4bdd_core::HugePageAlloc = c4bdd_core::HugePageAlloc;
//! # fn main() {}
//! ```
//!
//! Invariants every module keeps:
//! - **Reduced and ordered.** Nodes are only made by `Manager::mk`, which
//!   applies the reduction rule and the unique table, so equal functions have
//!   equal handles and a node's level is smaller than its children's.
//! - **Terminals 0 and 1.** Index 0 is false, index 1 is true; no complement
//!   edges, so a BDD's node count is its plain ROBDD size.
//! - **Handles valid until a GC.** A [`Bdd`] stays valid while it is pinned or
//!   passed as a root to [`Manager::gc`]; collections only happen when the
//!   caller asks, with `&mut self`, never inside an operation.
//! - **Errors, not aborts.** An operation that needs more nodes than the
//!   configured limit returns [`Error::NodeLimit`]; the manager stays
//!   consistent and usable (e.g. collect and retry).

mod bits;
mod cache;
mod check;
mod collect;
mod config;
mod error;
mod files;
mod footprint;
mod manager;
mod ops;
mod pairs;
mod parallel;
mod prefetch;
mod stats;
mod store;

pub use cache::computed::Op;
pub use config::{
    check_cache_entries, one_thread, split3_cache_ratio, Config, GcCache, Traversal,
    CACHE_ENTRIES_PER_SLOT_BELOW_FLOOR, CACHE_ENTRIES_RANGE, DEFAULT_MAX_CACHE_ENTRIES, MAX_THREADS,
};
pub use error::{Error, Result};
pub use files::io::{
    create_fresh, file_label, file_version, open_regular, replace_file, LoadError, BLOCK_NODES, FORMAT_VERSION, MAGIC,
    NODE_BYTES,
};
pub use files::stored::{checked_size_and_checksum, NodeRecord, RecordLayout, StoredBdd};
pub use footprint::{model_bytes, CACHE_ENTRY_BYTES};
pub use manager::{Manager, Renaming, VarSet};
pub use ops::pairing::Pairing;
pub use stats::{GcReport, Stats};
pub use store::huge::{on_failure as on_allocation_failure, HugePageAlloc};
pub use store::node::{Bdd, Level, Var, MAX_VARS};

//! The BDD core: reduced ordered binary decision diagrams in one manager.
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
//!   configured limit returns [`Error::NodeLimit`](crate::Error::NodeLimit);
//!   the manager stays consistent and usable (e.g. collect and retry).
//!
//! The core knows nothing of Connect Four.

mod apply;
mod cache;
mod check;
mod config;
mod count;
mod gc;
mod huge;
mod index_table;
mod io;
mod manager;
mod memory;
mod minimize;
mod model;
mod node;
mod pages;
mod pairing;
mod pairs;
mod par;
mod quant;
mod reach;
mod records9;
mod recursor;
mod shared_pages;
mod split3;
mod split3_cache;
mod stats;
mod stored;
mod unique;

pub use cache::Op;
pub use config::{
    check_cache_entries, one_thread, split3_cache_ratio, Config, GcCache, CACHE_ENTRIES_PER_SLOT_BELOW_FLOOR,
    CACHE_ENTRIES_RANGE, COUNT_GC_MIN_LIVE, COUNT_MIN_CACHE_ENTRIES, MAX_THREADS,
};
pub use huge::{on_failure as on_allocation_failure, HugePageAlloc};
pub use io::{
    create_fresh, file_label, file_version, open_regular, replace_file, LoadError, BLOCK_NODES, FORMAT_VERSION, MAGIC,
};
pub(crate) use manager::run_on;
pub use manager::{Manager, Renaming, VarSet};
pub use model::{model_bytes, CACHE_ENTRY_BYTES};
pub use node::{Bdd, Level, Var, MAX_VARS};
pub use pairing::Pairing;
pub use stats::{GcReport, Stats};
pub use stored::{checked_size_and_checksum, StoredBdd};

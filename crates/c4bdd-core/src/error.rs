//! The core's error type: every variant carries the numbers a caller needs
//! to act on it, and its message is one line.

use std::path::PathBuf;

/// Errors of the BDD core.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The node table reached its configured limit during an operation; the
    /// manager stays consistent (collect and retry, or give up).
    #[error("node limit reached: {live} live nodes, limit {capacity}")]
    NodeLimit { capacity: u64, live: u64 },

    /// The pool of the parallel operations could not be started.
    #[error("cannot start {threads} threads: {reason}")]
    ThreadPool { threads: usize, reason: String },

    /// A variable index outside the manager's variables.
    #[error("unknown variable {var}: the manager has {count} variables")]
    UnknownVar { var: u32, count: u32 },

    /// A variable order (or pairing) that does not fit the manager's variables.
    #[error("invalid variable order: {reason}")]
    InvalidOrder { reason: String },

    /// Too many variables for one manager.
    #[error("too many variables: {requested} requested, at most {max}")]
    TooManyVars { requested: usize, max: usize },

    /// A file that is not a BDD file this core wrote, or one that was damaged.
    #[error("{}: {reason}", path.display())]
    BadFile { path: PathBuf, reason: String },

    /// An I/O error on a named file.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Result alias of the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

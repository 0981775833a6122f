//! The library's error type. Every variant carries the numbers a user needs
//! to act on it, and its message is one line.

use std::path::PathBuf;

/// Errors of the c4bdd library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The node table reached its configured limit during an operation.
    #[error("node limit reached: {live} live nodes, limit {capacity}")]
    NodeLimit { capacity: u64, live: u64 },

    /// A run's cost passed the bound its observer set: an order search's
    /// candidate that can no longer be the cheapest, stopped after `ply`.
    #[error("cost {cost} above the bound {bound} at ply {ply}")]
    CostBound { ply: u32, cost: u64, bound: u64 },

    /// The pool of the parallel operations could not be started.
    #[error("cannot start {threads} threads: {reason}")]
    ThreadPool { threads: usize, reason: String },

    /// A variable index outside the manager's variables.
    #[error("unknown variable {var}: the manager has {count} variables")]
    UnknownVar { var: u32, count: u32 },

    /// A variable order that is not a permutation of the manager's variables.
    #[error("invalid variable order: {reason}")]
    InvalidOrder { reason: String },

    /// Too many variables for one manager.
    #[error("too many variables: {requested} requested, at most {max}")]
    TooManyVars { requested: usize, max: usize },

    /// A cut of the partitioned pass that names no cell of the board.
    #[error("the cut: {reason}")]
    BadCut { reason: String },

    /// A board size or board feature c4bdd does not support.
    #[error("unsupported board: {reason}")]
    UnsupportedBoard { reason: String },

    /// A move string that cannot be played.
    #[error("bad moves \"{moves}\": {reason}")]
    BadMoves { moves: String, reason: String },

    /// A file that is not what c4bdd expects (bad magic, version, layout, checksum, ...).
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

impl From<crate::bdd::Error> for Error {
    /// The core's errors keep their variant and numbers.
    fn from(e: crate::bdd::Error) -> Error {
        use crate::bdd::Error as Core;
        match e {
            Core::NodeLimit { capacity, live } => Error::NodeLimit { capacity, live },
            Core::ThreadPool { threads, reason } => Error::ThreadPool { threads, reason },
            Core::UnknownVar { var, count } => Error::UnknownVar { var, count },
            Core::InvalidOrder { reason } => Error::InvalidOrder { reason },
            Core::TooManyVars { requested, max } => Error::TooManyVars { requested, max },
            Core::BadFile { path, reason } => Error::BadFile { path, reason },
            Core::Io { path, source } => Error::Io { path, source },
        }
    }
}

/// Invalid input that the library's own checks found (a run's settings, a
/// file to write): one line, naming the value. The command line exits with
/// status 2 on it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// Result alias of the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Whether an I/O error says the disk (or the user's quota, or the
/// process's file size limit) is full.
pub fn is_disk_full(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT | libc::EFBIG))
}

/// A TOML file's error as one line: the line of its offending key or value
/// (1-based, counted from the error's span) and the parser's first line.
pub fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let first = e.message().lines().next().unwrap_or("invalid TOML");
    match e.span() {
        Some(span) => format!("line {}: {first}", text[..span.start].matches('\n').count() + 1),
        None => first.to_string(),
    }
}

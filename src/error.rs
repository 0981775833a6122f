//! The library's error type: the BDD core's errors, and the game's and the
//! passes' own. Every variant carries the numbers a user needs to act on it,
//! and its message is one line.

pub use crate::bdd::Error as CoreError;

/// Errors of the c4bdd library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error of the BDD core: the node limit, a bad variable, order or
    /// thread count, a bad file or an I/O error on one (its message as is).
    #[error(transparent)]
    Core(#[from] CoreError),

    /// A run's cost passed the bound its observer set: an order search's
    /// candidate that can no longer be the cheapest, stopped after `ply`.
    #[error("cost {cost} above the bound {bound} at ply {ply}")]
    CostBound { ply: u32, cost: u64, bound: u64 },

    /// A cut of the partitioned pass that names no cell of the board.
    #[error("the cut: {reason}")]
    BadCut { reason: String },

    /// A board size or board feature c4bdd does not support.
    #[error("unsupported board: {reason}")]
    UnsupportedBoard { reason: String },

    /// A move string that cannot be played.
    #[error("bad moves \"{moves}\": {reason}")]
    BadMoves { moves: String, reason: String },
}

impl Error {
    /// Whether this is the core's node limit (a run that may be collected and retried).
    pub fn is_node_limit(&self) -> bool {
        matches!(self, Error::Core(CoreError::NodeLimit { .. }))
    }
}

/// The core's error an error chain carries: a [`CoreError`] itself (passed on
/// by `?` from a core operation) or one this crate's [`Error`] wraps.
pub fn core_error(err: &anyhow::Error) -> Option<&CoreError> {
    err.chain().find_map(|e| match e.downcast_ref::<Error>() {
        Some(Error::Core(core)) => Some(core),
        _ => e.downcast_ref::<CoreError>(),
    })
}

/// Whether an error chain carries the core's node limit.
pub fn is_node_limit(err: &anyhow::Error) -> bool {
    matches!(core_error(err), Some(CoreError::NodeLimit { .. }))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A core error is found whether `?` passed it on bare or wrapped in the
    /// crate's error, under any context: exit statuses and retries see it alike.
    #[test]
    fn the_core_error_is_found_bare_or_wrapped() {
        let limit = || CoreError::NodeLimit { capacity: 8, live: 8 };
        let bare = anyhow::Error::new(limit()).context("ply 3");
        let wrapped = anyhow::Error::new(Error::from(limit())).context("ply 3");
        for err in [&bare, &wrapped] {
            assert!(is_node_limit(err), "{err:#}");
        }
        let other = anyhow::Error::new(Error::BadCut { reason: "no cell".into() });
        assert!(core_error(&other).is_none() && !is_node_limit(&other));
        assert_eq!(Error::from(limit()).to_string(), limit().to_string(), "the core's message as is");
    }
}

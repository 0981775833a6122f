//! File helpers shared by solutions and checkpoints: errors that name the
//! file, a writability check before long work, atomic writes, and loading
//! a BDD file checked against its label and frame.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use crate::bdd::Bdd;
use crate::encoding::{Frame, StateSpace};
use crate::error::{CoreError, Error, Result};

/// The least time between two saves of an image or pre-image part way, by
/// default: a ply of the 7x6 solve or the 7x7 count takes hours, a save of a
/// few GB takes seconds.
pub(crate) const PARTIAL_EVERY: Duration = Duration::from_secs(600);

/// Load a BDD file (its label must be `label`) whose BDDs must lie in
/// `frame`'s variables.
pub(crate) fn load_in_frame(space: &mut StateSpace, file: &Path, label: &str, frame: Frame) -> Result<Vec<Bdd>> {
    let roots = space.manager.load(file, label)?;
    let in_frame = space.manager.var_set_vars(space.layout.set(frame));
    if space.manager.support_of(&roots).iter().any(|v| !in_frame.contains(v)) {
        return Err(bad(file, "its BDDs are not over the variables of their ply's frame"));
    }
    Ok(roots)
}

/// The label of a stored BDD file (inside its checksum): the board and
/// encoding of `space` and `what` the file holds, such as `states of ply 12`.
/// A loader asks for the label it expects, so a file of another board,
/// encoding, ply or set is refused.
pub(crate) fn label(space: &StateSpace, what: &str) -> String {
    let size = space.size();
    format!("{}x{} {}: {what}", size.width, size.height, space.encoding.kind())
}

/// CRC-32 of `value` serialized as compact JSON: the checksum of manifests
/// and checkpoints.
pub(crate) fn json_crc(value: &impl serde::Serialize) -> u32 {
    crc32fast::hash(serde_json::to_string(value).expect("c4bdd's records serialize").as_bytes())
}

/// A file that is not what c4bdd expects.
pub(crate) fn bad(path: &Path, reason: impl Into<String>) -> Error {
    Error::Core(CoreError::BadFile { path: path.to_path_buf(), reason: reason.into() })
}

/// Map an I/O error to one that names `path`.
pub(crate) fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Core(CoreError::Io { path: path.to_path_buf(), source })
}

/// Create `dir` if needed and check that a file can be written in it.
pub(crate) fn writable_dir(dir: &Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(bad(dir, "is a file, not a folder"));
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let probe = dir.join(".write-test");
    let written = crate::bdd::create_fresh(&probe).and_then(|mut f| f.write_all(b"ok"));
    let _ = std::fs::remove_file(&probe);
    written.map_err(io(&probe))
}

/// The lock file of a folder c4bdd writes.
pub(crate) const LOCK_FILE: &str = ".c4bdd.lock";

/// An exclusive lock on a folder c4bdd writes (`.c4bdd.lock` in it, which
/// holds the holder's process id), released when dropped (the file is
/// removed first, so a finished folder holds only what it stores) or when
/// the process ends, however it ends (a killed process leaves the file,
/// unlocked).
#[derive(Debug)]
pub(crate) struct DirLock {
    path: std::path::PathBuf,
    _file: std::fs::File,
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Make `dir` (a folder c4bdd writes: a solution, a checkpoint) if needed,
/// check that it is writable, and hold its lock: a folder another process
/// holds is refused, naming that process.
pub(crate) fn lock_dir(dir: &Path) -> Result<DirLock> {
    writable_dir(dir)?;
    take_lock(&dir.join(LOCK_FILE), std::time::Duration::ZERO)?.map_err(|holder| {
        let reason = format!(
            "is being written by another c4bdd process (pid {holder}); wait for it to end or choose another folder"
        );
        bad(dir, reason)
    })
}

/// Hold the lock file `path` (made if needed, holding the holder's process
/// id), waiting up to `wait` for another holder to let go; `Ok(Err(pid))`
/// names a holder that did not. The file is opened without following a
/// link planted in its place; a lock taken on a file that its holder
/// removed meanwhile is taken again on the new one.
pub(crate) fn take_lock(path: &Path, wait: std::time::Duration) -> Result<std::result::Result<DirLock, String>> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let start = std::time::Instant::now();
    loop {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .map_err(io(path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < wait => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                continue;
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Ok(Err(std::fs::read_to_string(path).unwrap_or_default().trim().to_string()));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(path)(e)),
        }
        let held = file.metadata().map_err(io(path))?.ino();
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.ino() == held) {
            file.set_len(0).and_then(|_| write!(file, "{}", std::process::id())).map_err(io(path))?;
            return Ok(Ok(DirLock { path: path.to_path_buf(), _file: file }));
        }
    }
}

/// Write `text` to `path` atomically: a temporary file beside it, synced to
/// disk, then renamed over `path`.
pub(crate) fn write_atomic(path: &Path, text: &str) -> Result<()> {
    crate::bdd::replace_file(path, |f| f.write_all(text.as_bytes())).map_err(io(path))
}

/// The text of the stored file `path`, opened only if it is a regular file
/// (a link or a FIFO planted in its place is refused, never followed or
/// waited on).
pub(crate) fn read_regular(path: &Path) -> Result<String> {
    crate::bdd::open_regular(path).and_then(std::io::read_to_string).map_err(io(path))
}

/// Refuse the JSON file `path` (its `text`) unless it is of `format` at
/// `version`; `what` names such a file ("checkpoint"). A file of an older
/// version says how to go on.
pub(crate) fn check_version(path: &Path, text: &str, what: &str, format: &str, version: u32) -> Result<()> {
    check_versions(path, text, what, format, version..=version).map(drop)
}

/// [`check_version`] for a format read at any of `versions`; returns the
/// file's version.
pub(crate) fn check_versions(
    path: &Path,
    text: &str,
    what: &str,
    format: &str,
    versions: std::ops::RangeInclusive<u32>,
) -> Result<u32> {
    #[derive(serde::Deserialize)]
    struct Head {
        format: String,
        version: u32,
    }
    let head: Head = serde_json::from_str(text).map_err(|e| bad(path, format!("not a c4bdd {what}: {e}")))?;
    if head.format == format && head.version < *versions.start() {
        let reason = format!(
            "a {what} of version {} (written by an older c4bdd, its settings under no checksum): \
             resume it with the build that wrote it, or remove it to start again",
            head.version
        );
        return Err(bad(path, reason));
    }
    if head.format != format || !versions.contains(&head.version) {
        let expected = versions.end();
        return Err(bad(
            path,
            format!("format {} version {}, expected {format} {expected}", head.format, head.version),
        ));
    }
    Ok(head.version)
}

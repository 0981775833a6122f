//! Helpers shared by the tests: the paper's tables, and the binary run under
//! a resource limit.

/// The paper's Table 1 as (board, positions), read from the repository's reference/ folder.
pub fn paper_table1() -> Vec<(c4bdd::game::BoardSize, u128)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("reference/paper-table1.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let size = c4bdd::game::BoardSize::new(f[0].parse().unwrap(), f[1].parse().unwrap()).unwrap();
            (size, f[2].parse().unwrap())
        })
        .collect()
}

/// Run the binary with `args` and kill it (SIGKILL) as soon as `ready`
/// holds (polled every 2 ms), or after `timeout_s` seconds.
pub fn kill_when(args: &[&str], ready: impl Fn() -> bool, timeout_s: f64) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_c4bdd"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !ready() && start.elapsed().as_secs_f64() < timeout_s && child.try_wait().unwrap().is_none() {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let _ = child.kill();
    child.wait().unwrap();
}

/// Start the binary with `args` and kill it (SIGKILL) after `seconds`.
pub fn kill_after(args: &[&str], seconds: f64) {
    kill_when(args, || false, seconds);
}

/// The Table 2 columns of a `solve --csv` file, in ply order: `[ply, won,
/// drawn, lost, total, terminal]`.
pub fn table2_rows(path: &std::path::Path) -> Vec<[u64; 6]> {
    let rows: Vec<c4bdd::experiment::record::PlyRow> = c4bdd::experiment::record::read_rows(path).unwrap();
    let mut out: Vec<[u64; 6]> = rows
        .iter()
        .map(|r| {
            let n = |v: Option<u128>| v.expect("a solved ply's column") as u64;
            [r.ply as u64, n(r.won), n(r.drawn), n(r.lost), r.states as u64, n(r.terminal)]
        })
        .collect();
    out.sort();
    out
}

/// The binary with `args`, under the resource limit `resource` (e.g.
/// `libc::RLIMIT_AS`, `libc::RLIMIT_FSIZE`) of `bytes`; a write past a file
/// size limit fails with an error (EFBIG), as on a disk that fills up,
/// instead of a signal.
#[cfg(target_os = "linux")]
pub fn c4bdd_with_limit(args: &[&str], resource: libc::__rlimit_resource_t, bytes: u64) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_c4bdd"));
    cmd.args(args);
    // SAFETY: setrlimit and signal are async-signal-safe; they run in the child before exec.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            libc::setrlimit(resource, &limit);
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    cmd.output().expect("the binary runs")
}

/// Whether `line` begins `<head> during <phase>: an allocation of ` for one of
/// the phases: an out-of-memory stop that names where it happened.
pub fn names_a_phase(line: &str, head: &str) -> bool {
    let named = |p: &c4bdd::search::Phase| line.starts_with(&format!("{head} during {}: an allocation of ", p.name()));
    c4bdd::search::Phase::ALL.iter().any(named)
}

/// A copy of a folder's files in a temporary folder.
pub fn copy_of(dir: &std::path::Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, copy.path().join(path.file_name().unwrap())).unwrap();
    }
    copy
}

/// A checkpoint's compact JSON `text` with its `crc32` (the last field)
/// recomputed as c4bdd computes it, as a careful forger would: the CRC-32 of
/// the text with that field 0.
pub fn with_recomputed_crc(text: &str) -> String {
    let head = &text[..text.rfind("\"crc32\":").expect("a crc32 field")];
    let crc = crc32fast::hash(format!("{head}\"crc32\":0}}").as_bytes());
    format!("{head}\"crc32\":{crc}}}")
}

//! One run in a child process of this binary.
//!
//! The child is killed when it exceeds its wall-time limit, gets an
//! address-space limit when the spec sets a memory limit, and dies with the
//! sweep on Linux (parent-death signal; on other Unix systems a worker whose
//! sweep was killed finishes its run alone). Its peak RSS and CPU time come from the
//! kernel's accounting of the child (`wait4`), not from a table size.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::record::{PlyRow, RunRow, Status};
use super::spec::RunSpec;
use super::worker::Line;
use crate::run::Totals;
use crate::search::{PlyRecord, SolvePly};

/// Run one spec in a child process; `on_ply` gets each ply row as it arrives.
/// Blocks until the child has exited and been reaped.
pub(crate) fn run_child(run: &RunSpec, mut on_ply: impl FnMut(PlyRow)) -> Result<RunRow> {
    let key = run.key();
    let start = Instant::now();
    let mut child = spawn_worker(run)?;
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if line.is_err() || tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut stderr = child.stderr.take().expect("piped stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let seen = follow(run, pid, start, &rx, |p| on_ply(p.row(&key)));
    let _ = reader.join();
    let stderr_text = errors.join().unwrap_or_default();
    let (wait_status, rusage) = wait_child(pid)?;
    let (status, message) = outcome(run, &seen, wait_status, &stderr_text);
    Ok(make_row(run, key, &seen, status, message, &rusage, start.elapsed().as_secs_f64()))
}

/// Start the worker for `run`, with its memory limit, dying with the sweep.
fn spawn_worker(run: &RunSpec) -> Result<std::process::Child> {
    // /proc/self/exe names this very binary even if the file was replaced
    // (e.g. rebuilt) since the sweep started.
    let exe = if Path::new("/proc/self/exe").exists() {
        PathBuf::from("/proc/self/exe")
    } else {
        std::env::current_exe().context("cannot find the c4bdd executable")?
    };
    let mut cmd = Command::new(exe);
    cmd.arg("worker").arg("--run").arg(serde_json::to_string(run)?);
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let memory = run.limits.memory_bytes.map(|m| m as libc::rlim_t);
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // The parent-death signal fires when the spawning *thread* ends; the
    // caller blocks until the child is reaped, so that is never earlier.
    // A parent that died before the signal was asked for sends none: then
    // the child stops before it runs anything.
    // SAFETY: only async-signal-safe system calls run between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            if let Some(bytes) = memory {
                let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
                libc::setrlimit(libc::RLIMIT_AS, &limit);
            }
            Ok(())
        });
    }
    cmd.spawn().context("cannot start a worker process")
}

/// A ply line of the worker.
enum Ply {
    Counted(PlyRecord),
    Solved(SolvePly),
}

impl Ply {
    fn row(&self, key: &str) -> PlyRow {
        match self {
            Ply::Counted(p) => PlyRow::counted(key, p),
            Ply::Solved(p) => PlyRow::solved(key, p),
        }
    }
}

/// What the parent saw of a worker.
#[derive(Default)]
struct Seen {
    totals: Option<Totals>,
    /// The worker said it finished.
    done: bool,
    plies: u32,
    /// The most resident bytes its plies' records saw: those of a resumed
    /// run include the earlier processes'.
    peak_rss_bytes: u64,
    /// The parent killed it at its time limit.
    killed: bool,
    /// The worker said it stopped at its node limit.
    node_limit: bool,
    /// The worker said an allocation failed under its memory limit.
    memory_limit: bool,
}

impl Seen {
    /// A ply's record, with the peak RSS it saw.
    fn saw_ply(&mut self, peak_rss_bytes: Option<u64>) {
        self.plies += 1;
        self.peak_rss_bytes = self.peak_rss_bytes.max(peak_rss_bytes.unwrap_or(0));
    }
}

/// Read the worker's lines until its output closes, killing it at the time limit.
fn follow(
    run: &RunSpec,
    pid: libc::pid_t,
    start: Instant,
    rx: &mpsc::Receiver<String>,
    mut on_ply: impl FnMut(Ply),
) -> Seen {
    let mut seen = Seen::default();
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(text) => match serde_json::from_str::<Line>(&text) {
                Ok(Line::Ply(p)) => {
                    seen.saw_ply(p.peak_rss_bytes);
                    on_ply(Ply::Counted(p));
                }
                Ok(Line::Solved(p)) => {
                    seen.saw_ply(p.peak_rss_bytes);
                    on_ply(Ply::Solved(p));
                }
                Ok(Line::Done(t)) => {
                    seen.totals = Some(t);
                    seen.done = true;
                }
                Ok(Line::Stopped(t)) => seen.totals = Some(t),
                Ok(Line::NodeLimit(t)) => {
                    seen.totals = Some(t);
                    seen.node_limit = true;
                }
                Ok(Line::MemoryLimit) => seen.memory_limit = true,
                Err(_) => {}
            },
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return seen,
        }
        if !seen.killed && run.limits.time_s.is_some_and(|t| start.elapsed().as_secs_f64() > t) {
            // SAFETY: plain kill(2) of our own child, which has not been reaped yet.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            seen.killed = true;
        }
    }
}

/// The run's status and message, from what was seen, how the worker ended
/// and the first line of its stderr that says what went wrong.
fn outcome(run: &RunSpec, seen: &Seen, wait_status: i32, stderr: &str) -> (Status, String) {
    let message = first_meaningful(stderr);
    let signaled = libc::WIFSIGNALED(wait_status);
    let exit = libc::WIFEXITED(wait_status).then(|| libc::WEXITSTATUS(wait_status));
    let allocation_failed = message.contains("memory allocation of");
    let status = if seen.done && exit == Some(0) {
        Status::Ok
    } else if seen.killed {
        Status::TimeLimit
    } else if seen.node_limit {
        Status::NodeLimit
    } else if (seen.memory_limit && exit == Some(super::worker::MEMORY_EXIT)) || allocation_failed {
        Status::MemoryLimit
    } else {
        Status::Error
    };
    let limit = run.limits.memory_bytes.map_or("none".to_string(), |b| format!("{b:.0} bytes"));
    let message = match status {
        Status::Ok => String::new(),
        Status::TimeLimit => format!("killed after {:.0} s", run.limits.time_s.unwrap_or(0.0)),
        Status::MemoryLimit if message.is_empty() => format!("an allocation failed under the memory limit ({limit})"),
        Status::MemoryLimit => format!("{message} under the memory limit ({limit})"),
        _ if signaled && message.is_empty() => format!("worker killed by signal {}", libc::WTERMSIG(wait_status)),
        _ => message,
    };
    (status, message)
}

/// The first line of a worker's stderr that says what went wrong: not
/// Rust's notes on backtraces, nor the panic's location line when the
/// message follows it.
fn first_meaningful(stderr: &str) -> String {
    let noise =
        |l: &str| l.starts_with("note: ") || l.starts_with("stack backtrace") || l.starts_with("skipping backtrace");
    let mut lines = stderr.lines().map(str::trim).filter(|l| !l.is_empty() && !noise(l));
    let first = lines.next().unwrap_or("");
    match first.starts_with("thread '") && first.ends_with(':') {
        true => lines.next().unwrap_or(first).to_string(),
        false => first.to_string(),
    }
}

/// The run's row: its settings, and what it reached (totals only when it finished).
fn make_row(
    run: &RunSpec,
    key: String,
    seen: &Seen,
    status: Status,
    message: String,
    rusage: &libc::rusage,
    elapsed_s: f64,
) -> RunRow {
    let ok = status == Status::Ok;
    let totals = seen.totals.clone().unwrap_or_default();
    let phases = totals.phases.filter(|_| ok);
    let config = run.config();
    RunRow {
        run: key,
        width: run.width,
        height: run.height,
        encoding: run.encoding,
        order: run.order.clone(),
        pass: run.pass,
        terminal: run.terminal,
        image: run.image,
        image_split: Some(run.image_split),
        split_parts: Some(run.split_parts),
        positions: if ok { totals.positions } else { None },
        plies: seen.plies,
        time_s: if ok { totals.time_s } else { elapsed_s },
        cpu_s: Some(((seconds(rusage.ru_utime) + seconds(rusage.ru_stime)) * 1e6).round() / 1e6),
        gc_share: if totals.time_s > 0.0 { totals.gc_s / totals.time_s } else { 0.0 },
        peak_rss_bytes: (rusage.ru_maxrss.max(0) as u64 * 1024).max(seen.peak_rss_bytes),
        peak_nodes: totals.peak_nodes,
        status,
        message,
        value: if ok { totals.value } else { None },
        solution_bytes: if ok { totals.solution_bytes } else { None },
        max_nodes: config.max_nodes as u64,
        time_limit_s: run.limits.time_s,
        memory_limit_bytes: run.limits.memory_bytes,
        gc_min_live: config.gc_min_live as u64,
        gc_growth: config.gc_growth,
        cache_ratio: config.cache_ratio as u64,
        threads: Some(config.threads as u64),
        terminal_s: phases.map(|p| p.terminal_s),
        image_s: phases.map(|p| p.image_s),
        count_s: phases.map(|p| p.count_s),
        split_s: phases.map(|p| p.split_s),
        cache_entry_bytes: Some(crate::bdd::CACHE_ENTRY_BYTES as u64),
        max_cache_entries: Some(config.max_cache_entries as u64),
        gc_cache: Some(config.gc_cache),
        min_cache_entries: Some(config.min_cache_entries as u64),
        model_bytes: Some(crate::bdd::model_bytes(totals.peak_nodes, &config)),
        full_bdd_nodes: if ok { totals.full_bdd_nodes } else { None },
        split3_cache_ratio: Some(config.split3_cache_ratio as u64),
        resumed_plies: totals.resumed_plies,
        traversal: Some(config.traversal),
        max_requests: Some(config.max_requests as u64),
        bfs_peak_bytes: totals.bfs_peak_bytes,
    }
}

fn seconds(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 * 1e-6
}

/// Reap a child, returning its wait status and resource usage.
fn wait_child(pid: libc::pid_t) -> Result<(i32, libc::rusage)> {
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills in; pid is our own child.
    let mut rusage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: as above.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut rusage) };
        if r == pid {
            return Ok((status, rusage));
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err).context("cannot wait for a worker process");
        }
    }
}

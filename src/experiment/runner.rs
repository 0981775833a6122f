//! The sweep: expand a spec, skip finished runs, run each remaining run in a
//! child process of this binary, and record its plies and summary.
//!
//! A child is killed when it exceeds its wall-time limit, gets an
//! address-space limit when the spec sets a memory limit, and dies with the
//! sweep (Linux parent-death signal). Its peak RSS comes from the kernel's
//! accounting of the child (`wait4`), not from a table size.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use super::meta::{now_utc, Invocation, Machine, Meta, Revision};
use super::record::{repair, CsvLog, PlyRow, RunRow};
use super::spec::{ExperimentSpec, RunSpec};
use super::worker::{Line, Totals};

/// What to sweep and where.
pub struct SweepOptions {
    pub spec: PathBuf,
    /// `(i, n)`: run only the runs whose index is `i - 1` modulo `n`.
    pub shard: Option<(usize, usize)>,
    /// Write into this directory instead of `results/<experiment>/<run-id>/`.
    pub out: Option<PathBuf>,
    /// Root of the results archive.
    pub results: PathBuf,
    pub quiet: bool,
}

/// Counts of what a sweep did.
#[derive(Debug, Default)]
pub struct SweepReport {
    pub dir: PathBuf,
    pub skipped: usize,
    pub ran: usize,
    pub ok: usize,
}

/// Parse `i/n` with `1 <= i <= n`.
pub fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("invalid shard '{text}': expected i/n with 1 <= i <= n");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The directory of a sweep: an existing one of the same experiment, host,
/// commit and shard (to resume), else a new `<date>-<host>-<commit>`.
fn sweep_dir(opts: &SweepOptions, spec: &ExperimentSpec, host: &str, rev: &Revision) -> PathBuf {
    if let Some(out) = &opts.out {
        return out.clone();
    }
    let mut suffix = format!("-{host}-{}{}", rev.commit, if rev.dirty { "-dirty" } else { "" });
    if let Some((i, n)) = opts.shard {
        suffix += &format!("-shard{i}of{n}");
    }
    let parent = opts.results.join(&spec.name);
    let existing = std::fs::read_dir(&parent)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(&suffix) && name.len() == suffix.len() + 10)
        .max();
    let name = existing.unwrap_or_else(|| format!("{}{suffix}", &now_utc()[..10]));
    parent.join(name)
}

/// Run a sweep. Spec errors are returned before anything is written.
pub fn sweep(opts: &SweepOptions, argv: Vec<String>) -> Result<SweepReport> {
    let spec = ExperimentSpec::load(&opts.spec)?;
    let all = spec.runs().map_err(anyhow::Error::msg)?;
    let runs: Vec<RunSpec> = match opts.shard {
        Some((i, n)) => all.into_iter().enumerate().filter(|(k, _)| k % n == i - 1).map(|(_, r)| r).collect(),
        None => all,
    };
    let rev = Revision::current();
    let machine = Machine::current();
    let dir = sweep_dir(opts, &spec, &machine.host, &rev);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let finished = repair(&dir)?;
    let meta_path = dir.join("meta.json");
    let mut meta = if meta_path.exists() {
        Meta::load(&meta_path)?
    } else {
        Meta { experiment: spec.name.clone(), revision: rev.clone(), machine, spec: spec.clone(), invocations: vec![] }
    };
    meta.spec = spec.clone();
    meta.invocations.push(Invocation {
        date: now_utc(),
        command: argv,
        commit: rev.commit.clone(),
        dirty: rev.dirty,
        shard: opts.shard.map(|(i, n)| format!("{i}/{n}")),
    });
    meta.save(&meta_path)?;

    let mut runs_log = CsvLog::open::<RunRow>(&dir.join("runs.csv"))?;
    let mut plies_log = CsvLog::open::<PlyRow>(&dir.join("plies.csv"))?;
    let todo: Vec<&RunSpec> = runs.iter().filter(|r| !finished.contains(&r.key())).collect();
    let mut report = SweepReport { dir: dir.clone(), skipped: runs.len() - todo.len(), ..Default::default() };
    let bar = if opts.quiet { ProgressBar::hidden() } else { ProgressBar::new(todo.len() as u64) };
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}").unwrap());
    bar.enable_steady_tick(Duration::from_millis(500));
    if !opts.quiet && report.skipped > 0 {
        bar.suspend(|| println!("{}: {} runs already finished, skipped", dir.display(), report.skipped));
    }
    for run in todo {
        let mut run = run.clone();
        if spec.checkpoints {
            // Plies finished by an interrupted run are taken up from here.
            run.checkpoint = Some(dir.join("checkpoints").join(run.key().replace('/', "_")));
        }
        let row = run_child(&run, &mut plies_log, &bar)?;
        if !opts.quiet {
            let positions = row.positions.map_or("-".into(), |p| p.to_string());
            bar.suspend(|| println!("{:<50} {:<10} {:>22} {:>9.2} s", row.run, row.status, positions, row.time_s));
        }
        report.ran += 1;
        report.ok += (row.status == "ok") as usize;
        runs_log.append_durable(&row)?;
        if let (Some(ck), "ok") = (&run.checkpoint, row.status.as_str()) {
            // The run is done; its checkpoint is not needed again. (A run stopped
            // by a limit keeps it: delete its row to continue it with other limits.)
            let _ = std::fs::remove_dir_all(ck);
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(report)
}

/// Run one spec in a child process, appending its ply rows as they arrive.
fn run_child(run: &RunSpec, plies: &mut CsvLog, bar: &ProgressBar) -> Result<RunRow> {
    let key = run.key();
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
    // SAFETY: only async-signal-safe system calls run between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if let Some(bytes) = memory {
                let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
                libc::setrlimit(libc::RLIMIT_AS, &limit);
            }
            Ok(())
        });
    }
    let start = Instant::now();
    let mut child = cmd.spawn().context("cannot start a worker process")?;
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

    let mut totals: Option<Totals> = None;
    let mut done = false;
    let mut ply_count = 0;
    let mut killed = false;
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(text) => match serde_json::from_str::<Line>(&text) {
                Ok(Line::Ply(p)) => {
                    let row = PlyRow {
                        run: key.clone(),
                        ply: p.ply,
                        states: p.states,
                        bdd_nodes: p.bdd_nodes,
                        live_nodes: p.live_nodes,
                        time_s: p.time_s,
                        ..Default::default()
                    };
                    plies.append(&row)?;
                    ply_count += 1;
                    bar.set_message(format!("{key} ply {}", p.ply));
                }
                Ok(Line::Solved(p)) => {
                    let row = PlyRow {
                        run: key.clone(),
                        ply: p.ply,
                        states: p.total,
                        bdd_nodes: p.nodes,
                        live_nodes: 0,
                        time_s: p.time_s,
                        won: Some(p.won),
                        drawn: Some(p.drawn),
                        lost: Some(p.lost),
                        terminal: Some(p.terminal),
                    };
                    plies.append(&row)?;
                    ply_count += 1;
                    bar.set_message(format!("{key} solved ply {}", p.ply));
                }
                Ok(Line::Done(t)) => {
                    totals = Some(t);
                    done = true;
                }
                Ok(Line::Stopped(t)) => totals = Some(t),
                Err(_) => {}
            },
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if !killed && run.limits.time_s.is_some_and(|t| start.elapsed().as_secs_f64() > t) {
            // SAFETY: plain kill(2) of our own child, which has not been reaped yet.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed = true;
        }
        if ply_count == 0 {
            bar.set_message(format!("{key} starting"));
        }
    }
    let _ = reader.join();
    let stderr_text = errors.join().unwrap_or_default();
    let (status_code, rusage) = wait_child(pid)?;
    let elapsed = start.elapsed().as_secs_f64();
    let message = stderr_text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
    let signaled = libc::WIFSIGNALED(status_code);
    let exit = libc::WIFEXITED(status_code).then(|| libc::WEXITSTATUS(status_code));
    let status = if done && exit == Some(0) {
        "ok"
    } else if killed {
        "time-limit"
    } else if exit == Some(3) {
        "node-limit"
    } else if signaled && (run.limits.memory_bytes.is_some() || message.contains("memory allocation")) {
        "memory-limit"
    } else {
        "error"
    };
    let message = match status {
        "ok" => String::new(),
        "time-limit" => format!("killed after {:.0} s", run.limits.time_s.unwrap_or(0.0)),
        _ if signaled && message.is_empty() => {
            format!("worker killed by signal {}", libc::WTERMSIG(status_code))
        }
        _ => message,
    };
    let totals = totals.unwrap_or_default();
    let config = run.config();
    Ok(RunRow {
        run: key,
        width: run.width,
        height: run.height,
        encoding: run.encoding.name().into(),
        order: run.order.clone(),
        pass: run.pass.name().into(),
        terminal: crate::cli::value_name(&run.terminal),
        image: crate::cli::value_name(&run.image),
        positions: if status == "ok" { totals.positions } else { None },
        plies: ply_count,
        time_s: if status == "ok" { totals.time_s } else { elapsed },
        cpu_s: Some(((seconds(rusage.ru_utime) + seconds(rusage.ru_stime)) * 1e6).round() / 1e6),
        gc_share: if totals.time_s > 0.0 { totals.gc_s / totals.time_s } else { 0.0 },
        peak_rss_bytes: rusage.ru_maxrss.max(0) as u64 * 1024,
        peak_nodes: totals.peak_nodes,
        status: status.into(),
        message,
        value: if status == "ok" { totals.value.map(|v| v.name().to_string()) } else { None },
        solution_bytes: if status == "ok" { totals.solution_bytes } else { None },
        max_nodes: config.max_nodes as u64,
        time_limit_s: run.limits.time_s,
        memory_limit_bytes: run.limits.memory_bytes,
        gc_min_live: config.gc_min_live as u64,
        gc_growth: config.gc_growth,
        cache_ratio: config.cache_ratio as u64,
        threads: Some(config.threads as u64),
    })
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

/// Merge the result directories of sharded sweeps into `out`.
pub fn merge(sources: &[PathBuf], out: &Path) -> Result<usize> {
    use super::record::read_rows;
    if out.join("runs.csv").exists() {
        anyhow::bail!("{} already holds results; merge into a new directory", out.display());
    }
    let mut runs: Vec<RunRow> = Vec::new();
    let mut plies: Vec<PlyRow> = Vec::new();
    let mut metas = Vec::new();
    let mut origin = std::collections::HashMap::new();
    for src in sources {
        let src_runs: Vec<RunRow> = read_rows(&src.join("runs.csv"))?;
        let keys: std::collections::HashSet<String> = src_runs.iter().map(|r| r.run.clone()).collect();
        for r in src_runs {
            if let Some(first) = origin.insert(r.run.clone(), src.clone()) {
                anyhow::bail!("run {} appears in both {} and {}", r.run, first.display(), src.display());
            }
            runs.push(r);
        }
        let src_plies: Vec<PlyRow> = read_rows(&src.join("plies.csv"))?;
        plies.extend(src_plies.into_iter().filter(|p| keys.contains(&p.run)));
        metas.push(Meta::load(&src.join("meta.json"))?);
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut meta = metas.first().cloned().context("nothing to merge")?;
    meta.invocations = metas.iter().flat_map(|m| m.invocations.clone()).collect();
    meta.save(&out.join("meta.json"))?;
    let mut w = CsvLog::open::<RunRow>(&out.join("runs.csv"))?;
    for r in &runs {
        w.append(r)?;
    }
    let mut w = CsvLog::open::<PlyRow>(&out.join("plies.csv"))?;
    for p in &plies {
        w.append(p)?;
    }
    Ok(runs.len())
}

//! Sweeps that stop and go on: kill -9, limits, a full disk, checkpoints inside a run,
//! `--retry`, `--image-split` on a run's checkpoint, and stops told apart.

use super::*;

#[test]
fn kill_9_and_resume_gives_the_uninterrupted_rows() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "resume", RESUME_SPEC);
    let reference = dir.path().join("reference");
    assert!(sweep(&spec, &reference, &[]).status.success());
    let lines = |d: &Path, file: &str| std::fs::read_to_string(d.join(file)).map_or(0, |t| t.lines().count());
    let total = lines(&reference, "plies.csv");
    // Kill points spread over the sweep by its progress (ply rows written,
    // whatever the machine's speed), each wherever the poll finds it.
    for (i, (num, den)) in [(1, 20), (1, 5), (2, 5), (3, 5)].into_iter().enumerate() {
        let at = total * num / den;
        let out = dir.path().join(format!("killed{i}"));
        let args = ["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
        crate::common::kill_when(&args, || lines(&out, "plies.csv") >= at, 120.0);
        let finished = lines(&out, "runs.csv").saturating_sub(1);
        assert!(finished < stable_runs(&reference).len(), "the kill at {at} ply rows came after the sweep ended");
        let resumed = sweep(&spec, &out, &[]);
        assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
        assert_eq!(stable_runs(&out), stable_runs(&reference), "runs after a kill at {at} ply rows");
        assert_eq!(stable_plies(&out), stable_plies(&reference), "plies after a kill at {at} ply rows");
    }
}

#[test]
fn limits_are_recorded_and_the_sweep_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "limits", "[grid]\nboards = [\"5x4\", \"3x3\"]\n[limits]\nmax_nodes = 20000\n");
    let out = dir.path().join("out");
    assert!(sweep(&spec, &out, &[]).status.success());
    let runs: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].status, Status::NodeLimit, "{:?}", runs[0]);
    assert!(runs[0].message.contains("20000") && runs[0].positions.is_none() && runs[0].plies > 0);
    assert_eq!(runs[0].max_nodes, 20000);
    assert_eq!(runs[1].status, Status::Ok);
    let plies: Vec<PlyRow> = read_rows(&out.join("plies.csv")).unwrap();
    assert_eq!(plies.iter().filter(|p| p.run == runs[0].run).count() as u32, runs[0].plies);

    let spec = write_spec(dir.path(), "slow", "[grid]\nboards = [\"6x5\", \"3x3\"]\n[limits]\ntime_s = 1.5\n");
    let out = dir.path().join("slow");
    assert!(sweep(&spec, &out, &[]).status.success());
    let runs: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    assert_eq!(runs[0].status, Status::TimeLimit, "{:?}", runs[0]);
    assert!(runs[0].time_s < 10.0);
    assert_eq!(runs[1].status, Status::Ok);
}

#[test]
fn a_directory_with_other_columns_is_not_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "schema", "[grid]\nboards = [\"3x3\"]\n");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let old = "run,width,height\n3x3/x,3,3\n";
    std::fs::write(out.join("runs.csv"), old).unwrap();
    let result = sweep(&spec, &out, &[]);
    assert_ne!(result.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&result.stderr).contains("other columns"));
    assert_eq!(std::fs::read_to_string(out.join("runs.csv")).unwrap(), old, "the file is left as it was");
}

#[test]
fn a_full_disk_stops_the_sweep_clearly_and_loses_no_finished_row() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "full", RESUME_SPEC);
    let reference = dir.path().join("reference");
    assert!(sweep(&spec, &reference, &[]).status.success());
    let limit = (std::fs::metadata(reference.join("plies.csv")).unwrap().len() / 3).max(8192);
    let out = dir.path().join("out");
    let args = ["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    let stopped = crate::common::c4bdd_with_limit(&args, libc::RLIMIT_FSIZE, limit);
    let err = String::from_utf8_lossy(&stopped.stderr);
    assert!(!stopped.status.success(), "the sweep must fail when its files cannot grow");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("plies.csv") && err.contains("too large"), "{err}");
    // What was written is whole rows of the uninterrupted sweep...
    let partial: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    let want = stable_runs(&reference);
    for r in &partial {
        assert!(want.contains(&(r.run.clone(), r.positions, r.plies, r.peak_nodes, r.status)), "{}", r.run);
    }
    // ...and a rerun with room finishes with exactly its rows.
    assert!(sweep(&spec, &out, &[]).status.success());
    assert_eq!(stable_runs(&out), want);
    assert_eq!(stable_plies(&out), stable_plies(&reference));

    // A --csv file on a full disk: a clear error before any work (its header
    // is flushed first), not a panic, and not exit status 2 (invalid input).
    for cmd in [["count", "-W", "4", "-H", "4"], ["solve", "-W", "4", "-H", "4"]] {
        let run = c4bdd(&[&cmd[..], &["--csv", "/dev/full"]].concat());
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{cmd:?}: {err}");
        assert!(err.contains("--csv file /dev/full") && err.trim_end().lines().count() == 1, "{cmd:?}: {err}");
    }
}

#[test]
fn runs_with_checkpoints_resume_inside_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let body = "checkpoints = true\n[grid]\nboards = [\"5x5\"]\n[[also]]\nboards = [\"5x4\"]\npasses = [\"solve\"]\n";
    let spec = write_spec(dir.path(), "ck", body);
    let reference = dir.path().join("reference");
    let started = std::time::Instant::now();
    assert!(sweep(&spec, &reference, &[]).status.success());
    let full_ms = started.elapsed().as_millis() as u64;
    let whole: Vec<RunRow> = read_rows(&reference.join("runs.csv")).unwrap();
    assert!(whole.iter().all(|r| r.resumed_plies == Some(0)), "runs in one process say so");
    assert!(!reference.join("checkpoints").join("5x5_compressed_paper_count_whole_in-place").exists());
    // Rows without what depends on which process did the work (times, peaks).
    let rows = |d: &Path| -> Vec<RunRow> {
        let mut rows: Vec<RunRow> = read_rows(&d.join("runs.csv")).unwrap();
        rows.sort_by(|a, b| a.run.cmp(&b.run));
        // Every ply of a resumed run has its phases, whichever process did it.
        assert!(rows.iter().all(|r| r.image_s.is_some() && r.terminal_s.is_some() && r.count_s.is_some()));
        let clear = |r: RunRow| RunRow {
            time_s: 0.0,
            cpu_s: None,
            gc_share: 0.0,
            peak_rss_bytes: 0,
            peak_nodes: 0,
            terminal_s: None,
            image_s: None,
            count_s: None,
            split_s: None,
            // The model of the last process's peak nodes.
            model_bytes: None,
            // How many plies the last process took up (checked below).
            resumed_plies: None,
            // The last process's breadth-first tables.
            bfs_peak_bytes: None,
            ..r
        };
        rows.into_iter().map(clear).collect()
    };
    let mut took_up = 0;
    // Kills as soon as the count, then the solve, has saved a ply (whatever
    // the machine's load), and once at a fixed moment.
    let saved = [
        "5x5_compressed_paper_count_whole_in-place/checkpoint.json",
        "5x4_compressed_paper_solve_whole_in-place/solve-checkpoint.json",
        "",
    ];
    for (i, file) in saved.into_iter().enumerate() {
        let out = dir.path().join(format!("killed{i}"));
        let args = ["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
        let delay_ms = if file.is_empty() { full_ms * 3 / 4 } else { 0 };
        let marker = out.join("checkpoints").join(file);
        if file.is_empty() {
            kill_sweep_after(&spec, &out, delay_ms);
        } else {
            crate::common::kill_when(&args, || marker.exists(), 60.0);
        }
        // The worker may outlive its parent for a moment; let it go first.
        std::thread::sleep(Duration::from_millis(200));
        took_up += out.join("checkpoints").read_dir().is_ok_and(|mut d| d.next().is_some()) as u32;
        if !file.is_empty() {
            // --list shows what the killed run's checkpoint holds, and writes nothing.
            let before = std::fs::read_to_string(out.join("plies.csv")).unwrap();
            let listed = c4bdd(&["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--list"]);
            let text = String::from_utf8_lossy(&listed.stdout);
            let (key, holds) = match i {
                0 => ("5x5/compressed/paper/count/whole/in-place", "plies counted)"),
                _ => ("5x4/compressed/paper/solve/whole/in-place", "plies solved)"),
            };
            let line = text.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("{key} not listed: {text}"));
            assert!(line.contains("pending (checkpoint: ") && line.ends_with(holds), "{line}");
            assert_eq!(std::fs::read_to_string(out.join("plies.csv")).unwrap(), before);
        }
        let resumed = sweep(&spec, &out, &[]);
        assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
        if !file.is_empty() {
            // The run taken up from its checkpoint says so.
            let runs: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
            let key = if i == 0 { "5x5/compressed/paper/count" } else { "5x4/compressed/paper/solve" };
            let row = runs.iter().find(|r| r.run.starts_with(key)).unwrap();
            assert!(row.resumed_plies.is_some_and(|n| n > 0), "{key}: {:?}", row.resumed_plies);
        }
        assert_eq!(rows(&out), rows(&reference), "runs after kill {i}");
        assert_eq!(stable_plies(&out), stable_plies(&reference), "plies after kill {i}");
        assert!(out.join("checkpoints").read_dir().map_or(true, |mut d| d.next().is_none()), "checkpoints are removed");
    }
    assert!(took_up >= 2, "only {took_up} of 3 kills left a checkpoint to take up");
}

#[test]
fn a_run_stopped_by_a_limit_keeps_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let body = "checkpoints = true\n[grid]\nboards = [\"5x4\", \"3x3\"]\n[limits]\nmax_nodes = 20000\n";
    let spec = write_spec(dir.path(), "kept", body);
    let out = dir.path().join("out");
    assert!(sweep(&spec, &out, &[]).status.success());
    let runs: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    assert_eq!((runs[0].status, runs[1].status), (Status::NodeLimit, Status::Ok));
    let kept = out.join("checkpoints").join(runs[0].run.replace('/', "_"));
    assert!(kept.join("checkpoint.json").exists(), "the stopped run's finished plies stay");
    let finished = out.join("checkpoints").join(runs[1].run.replace('/', "_"));
    assert!(!finished.exists(), "a finished run's go");
    // A sweep stopped after recording a run but before removing its
    // checkpoint left one behind: the next sweep removes it, and only it.
    std::fs::create_dir_all(&finished).unwrap();
    std::fs::write(finished.join("checkpoint.json"), "{}").unwrap();
    assert!(sweep(&spec, &out, &[]).status.success());
    assert!(!finished.exists(), "a finished run's leftover checkpoint is removed");
    assert!(kept.join("checkpoint.json").exists(), "the stopped run's checkpoint stays");
    assert_eq!(read_rows::<RunRow>(&out.join("runs.csv")).unwrap().len(), 2, "nothing ran again");
}

/// `--retry` runs a run that a limit stopped again: it continues from its
/// checkpoint under the spec's limits as they are now (its first plies are the
/// stopped run's own rows, to the time) and ends with the rows of a sweep never
/// stopped; a finished run is not run again, and without `--retry` nothing is.
#[test]
fn retry_continues_a_run_stopped_by_a_limit_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let grid = "checkpoints = true\n[grid]\nboards = [\"5x4\", \"3x3\"]\n";
    let reference = dir.path().join("reference");
    assert!(sweep(&write_spec(dir.path(), "open", grid), &reference, &[]).status.success());
    let out = dir.path().join("out");
    let limited = write_spec(dir.path(), "limited", &format!("{grid}[limits]\nmax_nodes = 20000\n"));
    assert!(sweep(&limited, &out, &[]).status.success());
    let runs: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    assert_eq!((runs[0].status, runs[1].status), (Status::NodeLimit, Status::Ok));
    let (stopped, finished) = (runs[0].clone(), runs[1].clone());
    let plies = |d: &Path, run: &str| -> Vec<PlyRow> {
        read_rows::<PlyRow>(&d.join("plies.csv")).unwrap().into_iter().filter(|p| p.run == run).collect()
    };
    let before = plies(&out, &stopped.run);
    assert!(!before.is_empty() && before.len() == stopped.plies as usize, "{} plies before the stop", before.len());

    // --list names the stopped run's checkpoint and how to continue it.
    let listed = c4bdd(&["sweep", limited.to_str().unwrap(), "--out", out.to_str().unwrap(), "--list"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    let line = text.lines().find(|l| l.starts_with(&stopped.run)).unwrap_or_else(|| panic!("not listed: {text}"));
    let held = format!("node-limit after {} plies", stopped.plies);
    assert!(line.contains(&held) && line.ends_with("plies counted; --retry continues it)"), "{line}");

    // The spec without the limit, in the same directory: nothing runs without --retry.
    let open = write_spec(dir.path(), "limited", grid);
    assert!(sweep(&open, &out, &[]).status.success());
    assert_eq!(read_rows::<RunRow>(&out.join("runs.csv")).unwrap()[0].status, Status::NodeLimit);
    let retried = sweep(&open, &out, &["--retry"]);
    assert!(retried.status.success(), "{}", String::from_utf8_lossy(&retried.stderr));

    // The peak nodes are the last process's: they are not compared.
    let results =
        |d: &Path| stable_runs(d).into_iter().map(|(run, n, plies, _, s)| (run, n, plies, s)).collect::<Vec<_>>();
    assert_eq!(results(&out), results(&reference));
    assert_eq!(stable_plies(&out), stable_plies(&reference));
    let after: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    let again = after.iter().find(|r| r.run == stopped.run).unwrap();
    assert_eq!(again.max_nodes, read_rows::<RunRow>(&reference.join("runs.csv")).unwrap()[0].max_nodes);
    let resumed = plies(&out, &stopped.run);
    for (b, a) in before.iter().zip(&resumed) {
        assert_eq!((b.ply, b.time_s, b.bdd_nodes), (a.ply, a.time_s, a.bdd_nodes), "ply {} is the checkpoint's", b.ply);
    }
    let kept = after.iter().find(|r| r.run == finished.run).unwrap();
    assert_eq!(kept.time_s, finished.time_s, "the finished run was not run again");
    assert!(!out.join("checkpoints").join(stopped.run.replace('/', "_")).exists(), "a finished run's checkpoint goes");
    // --retry with --list is refused: listing writes nothing.
    let listed = c4bdd(&["sweep", open.to_str().unwrap(), "--out", out.to_str().unwrap(), "--list", "--retry"]);
    assert_eq!(listed.status.code(), Some(2));
}

/// `--image-split K` and `--max-cache-entries N` change how the selected runs
/// compute, not the runs: a run stopped by a limit keeps its key, takes up its
/// checkpoint under them (`--retry`) and ends with the rows of a sweep never
/// stopped, its row recording K and N. A spec that sweeps the setting, or a
/// value out of range, is refused with one line and nothing written.
#[test]
fn command_line_settings_take_up_a_runs_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let grid = "checkpoints = true\n[grid]\nboards = [\"5x4\"]\n";
    let reference = dir.path().join("reference");
    assert!(sweep(&write_spec(dir.path(), "open", grid), &reference, &[]).status.success());
    let out = dir.path().join("out");
    let limited = write_spec(dir.path(), "limited", &format!("{grid}[limits]\nmax_nodes = 20000\n"));
    assert!(sweep(&limited, &out, &[]).status.success());
    assert_eq!(read_rows::<RunRow>(&out.join("runs.csv")).unwrap()[0].status, Status::NodeLimit);
    let times = |d: &Path| read_rows::<PlyRow>(&d.join("plies.csv")).unwrap().iter().map(|p| p.time_s).collect();
    let before: Vec<f64> = times(&out);
    let open = write_spec(dir.path(), "limited", grid);
    let retried = sweep(&open, &out, &["--retry", "--image-split", "2", "--max-cache-entries", "4096"]);
    assert!(retried.status.success(), "{}", String::from_utf8_lossy(&retried.stderr));
    let results =
        |d: &Path| stable_runs(d).into_iter().map(|(run, n, plies, _, s)| (run, n, plies, s)).collect::<Vec<_>>();
    assert_eq!(results(&out), results(&reference), "the same run, its rows those of a sweep never stopped");
    assert_eq!(stable_plies(&out), stable_plies(&reference));
    assert_eq!(times(&out)[..before.len()], before[..], "the plies before the stop are the checkpoint's");
    let row = read_rows::<RunRow>(&out.join("runs.csv")).unwrap().remove(0);
    assert_eq!(row.image_split, Some(2), "the row records the split it ran with");
    assert_eq!(row.max_cache_entries, Some(4096), "and the cache's cap");
    let swept = write_spec(dir.path(), "swept", "[grid]\nboards = [\"4x4\"]\nimage_split = [0, 2]\n");
    let capped = write_spec(dir.path(), "capped", "[grid]\nboards = [\"4x4\"]\nmax_cache_entries = [4096]\n");
    let refused = [
        (&swept, "--image-split", "1"),
        (&open, "--image-split", "9"),
        (&capped, "--max-cache-entries", "8192"),
        (&open, "--max-cache-entries", "5000"),
    ];
    for (spec, flag, value) in refused {
        let fresh = dir.path().join(format!("refused{flag}-{value}"));
        let out = sweep(spec, &fresh, &[flag, value]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("{flag} {value}")) && err.trim_end().lines().count() == 1, "{err}");
        assert!(!fresh.exists(), "nothing written");
    }
}

/// A run whose allocation fails under its memory limit stops cleanly with
/// the status memory-limit and says so, in which phase; a worker killed by a
/// signal (here kill -9, with a memory limit set) is an error that names the
/// signal.
#[test]
fn memory_stops_and_killed_workers_are_told_apart() {
    let dir = tempfile::tempdir().unwrap();
    let body = "[grid]\nboards = [\"6x5\", \"3x3\"]\n[limits]\nmemory_bytes = 150e6\n";
    let rows = sweep_rows(dir.path(), "memory", body, &dir.path().join("memory"));
    assert_eq!(rows[0].status, Status::MemoryLimit, "{:?}", rows[0]);
    // The message names the phase the allocation failed in, and the limit.
    let m = &rows[0].message;
    assert!(crate::common::names_a_phase(m, "out of memory"), "{m}");
    assert!(m.ends_with(" bytes failed under the memory limit (150000000 bytes)"), "{m}");
    assert_eq!(rows[1].status, Status::Ok);

    let body = "[grid]\nboards = [\"7x5\"]\n[limits]\nmemory_bytes = 20e9\n";
    let spec = write_spec(dir.path(), "killed", body);
    let out = dir.path().join("killed");
    let args = ["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    let mut running = Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).spawn().unwrap();
    // The worker is a child of one of the sweep's threads.
    let tasks = format!("/proc/{}/task", running.id());
    let worker = loop {
        let children = std::fs::read_dir(&tasks).unwrap().flatten().map(|t| t.path().join("children"));
        let text: String = children.map(|c| std::fs::read_to_string(c).unwrap_or_default()).collect();
        if let Some(pid) = text.split_whitespace().next() {
            break pid.parse::<libc::pid_t>().unwrap();
        }
        assert!(running.try_wait().unwrap().is_none(), "the sweep ended before its worker was seen");
        std::thread::sleep(Duration::from_millis(5));
    };
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: a signal to the worker of a sweep this test spawned.
    assert_eq!(unsafe { libc::kill(worker, libc::SIGKILL) }, 0);
    assert!(running.wait().unwrap().success());
    let rows: Vec<RunRow> = read_rows(&out.join("runs.csv")).unwrap();
    assert_eq!(rows[0].status, Status::Error, "{:?}", rows[0]);
    assert_eq!(rows[0].message, "worker killed by signal 9");
}

/// Ctrl-C (SIGINT) ends a sweep with one line saying how to go on and exit
/// status 130; the rerun finishes with the uninterrupted rows.
#[test]
fn an_interrupted_sweep_says_how_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "int", RESUME_SPEC);
    let reference = dir.path().join("reference");
    assert!(sweep(&spec, &reference, &[]).status.success());
    let out = dir.path().join("out");
    let args = ["sweep", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
    // In a process group of its own, signalled as a whole, as a terminal's Ctrl-C does.
    let mut child = std::os::unix::process::CommandExt::process_group(
        Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).stdout(std::process::Stdio::null()),
        0,
    )
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let plies = out.join("plies.csv");
    while std::fs::read_to_string(&plies).map_or(0, |t| t.lines().count()) < 3 && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: a signal to a child process this test spawned and has not reaped.
    unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGINT) };
    let ended = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&ended.stderr);
    assert_eq!(ended.status.code(), Some(130), "{err}");
    assert!(err.trim().lines().count() == 1 && err.contains("rerun the same command to resume"), "{err}");
    assert!(sweep(&spec, &out, &[]).status.success());
    assert_eq!(stable_runs(&out), stable_runs(&reference));
}

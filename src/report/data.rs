//! What the report reads: every sweep directory under `results/`, and the
//! paper's tables. Nothing here computes a BDD.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::experiment::record::{read_rows, PlyRow, RunRow};
use crate::game::BoardSize;

/// One run of the archive with its plies.
#[derive(Clone, Debug)]
pub struct Run {
    /// The sweep directory it came from, relative to the results root.
    pub source: PathBuf,
    pub row: RunRow,
    /// Plies in ply order.
    pub plies: Vec<PlyRow>,
}

impl Run {
    pub fn board(&self) -> BoardSize {
        BoardSize { width: self.row.width, height: self.row.height }
    }

    pub fn ok(&self) -> bool {
        self.row.status == "ok"
    }
}

/// Every run found under a results root.
pub struct Archive {
    pub runs: Vec<Run>,
}

/// Sweep directories below `root` (those holding a `runs.csv`), sorted.
fn sweep_dirs(root: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let experiments =
        std::fs::read_dir(root).with_context(|| format!("cannot read results directory {}", root.display()))?;
    for exp in experiments.flatten().filter(|e| e.path().is_dir()) {
        for run in std::fs::read_dir(exp.path())?.flatten() {
            if run.path().join("runs.csv").is_file() {
                out.push(run.path());
            }
        }
    }
    out.sort();
    Ok(out)
}

impl Archive {
    /// Read every sweep directory below `root`; a malformed CSV is an error
    /// naming the file.
    pub fn load(root: &Path) -> Result<Archive> {
        let mut runs = Vec::new();
        for dir in sweep_dirs(root)? {
            let rows: Vec<RunRow> = read_rows(&dir.join("runs.csv"))?;
            let plies_path = dir.join("plies.csv");
            let plies: Vec<PlyRow> = if plies_path.exists() { read_rows(&plies_path)? } else { Vec::new() };
            let mut by_run: BTreeMap<String, Vec<PlyRow>> = BTreeMap::new();
            for p in plies {
                by_run.entry(p.run.clone()).or_default().push(p);
            }
            let source = dir.strip_prefix(root).unwrap_or(&dir).to_path_buf();
            for row in rows {
                let mut plies = by_run.remove(&row.run).unwrap_or_default();
                plies.sort_by_key(|p| p.ply);
                runs.push(Run { source: source.clone(), row, plies });
            }
        }
        Ok(Archive { runs })
    }

    /// Finished runs matching a filter.
    pub fn ok_runs<'a>(&'a self, keep: impl Fn(&Run) -> bool + 'a) -> impl Iterator<Item = &'a Run> + 'a {
        self.runs.iter().filter(move |r| r.ok() && keep(r))
    }

    /// The fastest finished run matching a filter.
    pub fn best(&self, keep: impl Fn(&Run) -> bool) -> Option<&Run> {
        self.runs.iter().filter(|r| r.ok() && keep(r)).min_by(|a, b| a.row.time_s.total_cmp(&b.row.time_s))
    }

    /// The status of the last unfinished run matching a filter, if any.
    pub fn failure(&self, keep: impl Fn(&Run) -> bool) -> Option<&str> {
        self.runs.iter().rev().find(|r| !r.ok() && keep(r)).map(|r| r.row.status.as_str())
    }
}

/// One row of the paper's Table 1.
#[derive(Clone, Debug, Deserialize)]
pub struct PaperTable1Row {
    pub width: u8,
    pub height: u8,
    pub positions: u128,
    pub time_s: f64,
    pub gc_percent: f64,
    pub ram_gb: f64,
    pub peak_nodes: u64,
}

/// One row of the paper's Table 2 (7x6).
#[derive(Clone, Debug, Deserialize)]
pub struct PaperTable2Row {
    pub ply: u32,
    pub won: u128,
    pub drawn: u128,
    pub lost: u128,
    pub total: u128,
    pub terminal: u128,
}

/// The paper's tables.
pub struct Paper {
    pub table1: Vec<PaperTable1Row>,
    pub table2: Vec<PaperTable2Row>,
}

impl Paper {
    /// Read `paper-table1.csv` and `paper-table2-7x6.csv` from a directory.
    pub fn load(dir: &Path) -> Result<Paper> {
        Ok(Paper {
            table1: read_rows(&dir.join("paper-table1.csv"))?,
            table2: read_rows(&dir.join("paper-table2-7x6.csv"))?,
        })
    }
}

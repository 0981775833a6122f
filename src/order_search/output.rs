//! A search's folder: `search.json` (the settings, command, revision and
//! machine), `candidates.csv` (every order evaluated, as it is evaluated),
//! and at the end `best-K.order` (the cheapest orders, as `custom:FILE`
//! files) and `best.rule.toml` (the rule read off the best, as `rule:FILE`).
//! A rerun of the same settings in the same folder reads the candidates back
//! instead of running them again, so a stopped search resumes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::{Evaluation, Observer, Phase, Tried};
use crate::encoding::{EncodingKind, StateVar};
use crate::experiment::meta::{Machine, Revision};
use crate::experiment::record::CsvLog;
use crate::run::Pass;

/// The settings that decide a search's candidates and costs (a folder
/// resumes only a search with the same).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    pub board: String,
    pub encoding: EncodingKind,
    pub pass: Pass,
    pub cost: super::CostKind,
    pub start: String,
    pub strategy: super::Strategy,
    pub grouping: super::Grouping,
    pub seed: u64,
    pub node_factor: u64,
    pub max_nodes: Option<usize>,
    #[serde(default)]
    pub bound: super::Bound,
}

impl Identity {
    /// The identity of a search with these settings.
    pub fn of(s: &super::SearchSettings) -> Identity {
        let m = &s.measure;
        Identity {
            board: m.size.to_string(),
            encoding: m.encoding,
            pass: m.pass,
            cost: m.cost,
            start: s.start.name(),
            strategy: s.strategy,
            grouping: s.grouping,
            seed: s.seed,
            node_factor: s.node_factor,
            max_nodes: m.max_nodes,
            bound: s.bound,
        }
    }

    /// The settings in which `other` differs, e.g. `bound off (asked: best)`.
    pub fn differences(&self, other: &Identity) -> Vec<String> {
        let (Ok(serde_json::Value::Object(mine)), Ok(serde_json::Value::Object(theirs))) =
            (serde_json::to_value(self), serde_json::to_value(other))
        else {
            return vec![];
        };
        let show = |v: Option<&serde_json::Value>| v.map_or("-".to_string(), |v| v.to_string().replace('"', ""));
        mine.iter()
            .filter(|(k, v)| theirs.get(*k) != Some(*v))
            .map(|(k, v)| format!("{k} {} (asked: {})", show(Some(v)), show(theirs.get(k))))
            .collect()
    }
}

/// `search.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SearchMeta {
    pub identity: Identity,
    pub revision: Revision,
    pub machine: Machine,
    /// Each invocation: its date and command line.
    pub invocations: Vec<(String, Vec<String>)>,
}

/// One line of `candidates.csv`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CandidateRow {
    pub evaluation: usize,
    pub phase: Phase,
    #[serde(rename = "move")]
    pub how: String,
    /// Empty when the run stopped early: at the node limit, or at `cut_at`.
    pub cost: Option<u64>,
    /// The ply after which the run's cost passed the current order's (then
    /// it stopped there); empty when it ran to the end or to the node limit.
    #[serde(default)]
    pub cut_at: Option<u32>,
    pub sum_nodes: u64,
    pub max_nodes: u64,
    pub peak_nodes: u64,
    pub time_s: f64,
    /// `levels:NAME,...`, as `--order` takes it.
    pub order: String,
}

/// The folder of a search, open for writing.
pub struct SearchDir {
    pub dir: PathBuf,
    csv: CsvLog,
    vars: Vec<StateVar>,
    rows: usize,
}

impl SearchDir {
    /// Open (or create) the folder for a search of `identity`; the orders a
    /// stopped search of the same identity evaluated come back with it. A
    /// folder of another search is refused.
    pub fn open(
        dir: &Path,
        identity: &Identity,
        vars: &[StateVar],
    ) -> Result<(SearchDir, HashMap<Vec<usize>, Evaluation>)> {
        crate::search::files::writable_dir(dir)?;
        let meta_path = dir.join("search.json");
        let csv_path = dir.join("candidates.csv");
        let mut meta = if meta_path.exists() {
            let text =
                std::fs::read_to_string(&meta_path).with_context(|| format!("cannot read {}", meta_path.display()))?;
            let meta: SearchMeta =
                serde_json::from_str(&text).with_context(|| format!("{}: not a search", meta_path.display()))?;
            if meta.identity != *identity {
                bail!(crate::error::InputError(format!(
                    "--out {}: holds a search with other settings ({}); use another folder",
                    dir.display(),
                    meta.identity.differences(identity).join(", ")
                )));
            }
            meta
        } else {
            SearchMeta {
                identity: identity.clone(),
                revision: Revision::current(),
                machine: Machine::current(),
                invocations: vec![],
            }
        };
        meta.invocations.push((crate::experiment::meta::now_utc(), std::env::args().collect()));
        // A row torn by a kill is cut, as a sweep's are: that order runs again.
        crate::experiment::record::cut_torn_line(&csv_path)?;
        // Opened first: a file without the newer columns gets them, empty.
        let csv = CsvLog::open::<CandidateRow>(&csv_path)?;
        let stored = if csv_path.exists() { read_candidates(&csv_path, vars)? } else { Vec::new() };
        let text = serde_json::to_string_pretty(&meta)? + "\n";
        std::fs::write(&meta_path, text).with_context(|| format!("cannot write {}", meta_path.display()))?;
        let rows = stored.len();
        let stored = stored.into_iter().map(|(levels, row)| (levels, evaluation_of(&row))).collect();
        Ok((SearchDir { dir: dir.to_path_buf(), csv, vars: vars.to_vec(), rows }, stored))
    }

    /// Write the best orders (`best-1.order`, ...) and the rule.
    pub fn finish(&mut self, best: &[&[usize]], rule: &crate::encoding::OrderRule) -> Result<Vec<PathBuf>> {
        let mut written = Vec::new();
        for (k, levels) in best.iter().enumerate() {
            let path = self.dir.join(format!("best-{}.order", k + 1));
            let names: Vec<&str> = levels.iter().map(|&v| self.vars[v].name.as_str()).collect();
            std::fs::write(&path, names.join("\n") + "\n")
                .with_context(|| format!("cannot write {}", path.display()))?;
            written.push(path);
        }
        let path = self.dir.join("best.rule.toml");
        std::fs::write(&path, toml::to_string(rule)?).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
        Ok(written)
    }
}

impl Observer for SearchDir {
    fn tried(&mut self, phase: Phase, how: &str, tried: &Tried) -> Result<()> {
        if !tried.new {
            return Ok(());
        }
        self.rows += 1;
        let names: Vec<&str> = tried.levels.iter().map(|&v| self.vars[v].name.as_str()).collect();
        let e = &tried.evaluation;
        let row = CandidateRow {
            evaluation: self.rows,
            phase,
            how: how.to_string(),
            cost: e.cost,
            cut_at: e.cut_at,
            sum_nodes: e.sum_nodes,
            max_nodes: e.max_nodes,
            peak_nodes: e.peak_nodes,
            time_s: e.time_s,
            order: format!("levels:{}", names.join(",")),
        };
        self.csv.append(&row)
    }
}

/// The evaluation a row records.
fn evaluation_of(row: &CandidateRow) -> Evaluation {
    let (sum_nodes, max_nodes, peak_nodes) = (row.sum_nodes, row.max_nodes, row.peak_nodes);
    Evaluation { cost: row.cost, cut_at: row.cut_at, sum_nodes, max_nodes, peak_nodes, time_s: row.time_s }
}

/// The rows of a `candidates.csv`, with their orders as variable indices.
pub fn read_candidates(path: &Path, vars: &[StateVar]) -> Result<Vec<(Vec<usize>, CandidateRow)>> {
    let rows: Vec<CandidateRow> = crate::experiment::record::read_rows(path)?;
    let levels_of = |(line, row): (usize, CandidateRow)| {
        let names = row.order.strip_prefix("levels:").unwrap_or(&row.order);
        let levels = names.split(',').map(|n| vars.iter().position(|v| v.name == n)).collect::<Option<Vec<usize>>>();
        let levels = levels.with_context(|| format!("{}: row {}: an unknown variable", path.display(), line + 2))?;
        Ok((levels, row))
    };
    rows.into_iter().enumerate().map(levels_of).collect()
}

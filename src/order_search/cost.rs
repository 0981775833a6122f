//! The cost of a variable order, measured on a real run: a count (or solve)
//! of the board under that order, its plies' BDD sizes summed or maximised.
//! Costs are cached by order; a budget counts the orders evaluated.

use std::collections::HashMap;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::encoding::{EncodingKind, StateVar};
use crate::game::BoardSize;
use crate::run::{execute, Pass, RunSpec, Sink};
use crate::search::{PlyRecord, SolvePly};

/// What a candidate order costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum CostKind {
    /// The plies' BDD nodes summed (a solve: the won and lost sets' nodes).
    Sum,
    /// The largest ply's BDD nodes.
    Max,
}

impl CostKind {
    /// What the cost sums up, for a summary line.
    pub fn about(self) -> &'static str {
        match self {
            CostKind::Sum => "sum of BDD nodes",
            CostKind::Max => "largest ply's BDD nodes",
        }
    }
}

/// One order's measured run. `cost` is `None` when the run reached the node
/// limit (worse than every finished run); the other figures are then those
/// of the plies it finished.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub cost: Option<u64>,
    pub sum_nodes: u64,
    pub max_nodes: u64,
    pub peak_nodes: u64,
    pub time_s: f64,
}

/// A run of one order: the board, encoding and pass it is measured on.
#[derive(Clone, Debug)]
pub struct Measure {
    pub size: BoardSize,
    pub encoding: EncodingKind,
    pub pass: Pass,
    pub cost: CostKind,
    /// Node slots a candidate's run may use (`None`: the manager's limit).
    pub max_nodes: Option<usize>,
}

/// Collects the plies' sizes of a run.
#[derive(Default)]
struct Sizes(Vec<u64>);

impl Sink for Sizes {
    fn counted(&mut self, ply: &PlyRecord) {
        self.0.push(ply.bdd_nodes);
    }

    fn solved(&mut self, ply: &SolvePly) {
        self.0.push(ply.nodes);
    }
}

impl Measure {
    /// Run the board under the order `levels` (indices of `vars` in level
    /// order). Errors other than the node limit are errors of the search.
    pub fn run(&self, vars: &[StateVar], levels: &[usize]) -> anyhow::Result<Evaluation> {
        let names: Vec<&str> = levels.iter().map(|&v| vars[v].name.as_str()).collect();
        let mut spec = RunSpec::new(self.pass, self.size, self.encoding, format!("levels:{}", names.join(",")));
        spec.limits.max_nodes = self.max_nodes;
        let start = Instant::now();
        let mut sizes = Sizes::default();
        let (finished, peak_nodes) = match execute(&spec, &mut sizes) {
            Ok(f) => (true, f.totals.peak_nodes),
            Err(stopped) if matches!(stopped.error.downcast_ref(), Some(crate::Error::NodeLimit { .. })) => {
                (false, stopped.reached.peak_nodes)
            }
            Err(stopped) => return Err(stopped.error),
        };
        let (sum_nodes, max_nodes) = (sizes.0.iter().sum(), sizes.0.iter().copied().max().unwrap_or(0));
        let cost = finished.then_some(match self.cost {
            CostKind::Sum => sum_nodes,
            CostKind::Max => max_nodes,
        });
        Ok(Evaluation { cost, sum_nodes, max_nodes, peak_nodes, time_s: start.elapsed().as_secs_f64() })
    }
}

/// Costs by order, and the budget of orders still to evaluate.
pub struct Evaluator {
    pub measure: Measure,
    pub vars: Vec<StateVar>,
    /// Orders evaluated (or read back) in this search.
    seen: HashMap<Vec<usize>, Evaluation>,
    /// Orders a stopped search evaluated, not yet asked for again.
    stored: HashMap<Vec<usize>, Evaluation>,
    /// Evaluations still allowed.
    pub budget: usize,
    pool: rayon::ThreadPool,
}

/// An order the search asked for: how it was made, and what it cost.
#[derive(Clone, Debug)]
pub struct Tried {
    pub levels: Vec<usize>,
    pub evaluation: Evaluation,
    /// Newly run (not read back from an earlier, stopped search).
    pub new: bool,
}

impl Evaluator {
    /// An evaluator with `budget` evaluations on `jobs` threads, which knows
    /// the orders in `stored` (from a stopped search of the same settings).
    pub fn new(
        measure: Measure,
        budget: usize,
        jobs: usize,
        stored: HashMap<Vec<usize>, Evaluation>,
    ) -> anyhow::Result<Evaluator> {
        let vars = measure.encoding.build(measure.size).state_vars();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build()?;
        Ok(Evaluator { measure, vars, seen: HashMap::new(), stored, budget, pool })
    }

    /// The cost of an order seen before in this search, if any.
    pub fn known(&self, levels: &[usize]) -> Option<Evaluation> {
        self.seen.get(levels).copied()
    }

    /// Evaluate the orders of `batch` not seen before in this search, as far
    /// as the budget allows (in batch order), in parallel: the orders
    /// evaluated, each once. The others are left to [`Evaluator::known`].
    pub fn evaluate(&mut self, batch: &[Vec<usize>]) -> anyhow::Result<Vec<Tried>> {
        let mut todo: Vec<&Vec<usize>> = Vec::new();
        for levels in batch {
            if !self.seen.contains_key(levels) && !todo.contains(&levels) && todo.len() < self.budget {
                todo.push(levels);
            }
        }
        self.budget -= todo.len();
        let (measure, vars, stored) = (&self.measure, &self.vars, &self.stored);
        let results: Vec<anyhow::Result<Tried>> = self.pool.install(|| {
            todo.par_iter()
                .map(|&levels| {
                    let (evaluation, new) = match stored.get(levels) {
                        Some(e) => (*e, false),
                        None => (measure.run(vars, levels)?, true),
                    };
                    Ok(Tried { levels: levels.clone(), evaluation, new })
                })
                .collect()
        });
        let tried = results.into_iter().collect::<anyhow::Result<Vec<Tried>>>()?;
        for t in &tried {
            self.stored.remove(&t.levels);
            self.seen.insert(t.levels.clone(), t.evaluation);
        }
        Ok(tried)
    }

    /// Every order seen in this search with its evaluation, cheapest first
    /// (orders stopped by the node limit last; ties by the order itself).
    pub fn ranked(&self) -> Vec<(&Vec<usize>, &Evaluation)> {
        let mut all: Vec<_> = self.seen.iter().collect();
        all.sort_by(|a, b| rank(a.1).cmp(&rank(b.1)).then(a.0.cmp(b.0)));
        all
    }
}

/// The sort key of an evaluation: finished runs by cost, then stopped ones.
pub fn rank(e: &Evaluation) -> (bool, u64) {
    (e.cost.is_none(), e.cost.unwrap_or(u64::MAX))
}

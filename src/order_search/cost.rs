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

crate::named::named_enum! {
    /// What a candidate order costs.
    pub enum CostKind ("cost") {
        /// The plies' BDD nodes summed (a solve: the won and lost sets' nodes).
        Sum = "sum",
        /// The largest ply's BDD nodes.
        Max = "max",
    }
}

impl CostKind {
    /// The cost of plies of these sizes.
    pub fn of(self, sizes: &[u64]) -> u64 {
        match self {
            CostKind::Sum => sizes.iter().sum(),
            CostKind::Max => sizes.iter().copied().max().unwrap_or(0),
        }
    }

    /// What the cost sums up, for a summary line.
    pub fn about(self) -> &'static str {
        match self {
            CostKind::Sum => "sum of BDD nodes",
            CostKind::Max => "largest ply's BDD nodes",
        }
    }
}

/// One order's measured run. `cost` is `None` when the run stopped early:
/// at the node limit, or (`cut_at`) once its cost passed the bound it ran
/// under. Either way it ranks after every finished run, and the other
/// figures are those of the plies it finished.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub cost: Option<u64>,
    /// The ply after which the run's cost passed its bound.
    #[serde(default)]
    pub cut_at: Option<u32>,
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

/// Collects the plies' sizes of a run, and stops it once their cost passes
/// the bound, unless at its last ply (the cost is then known exactly).
struct Sizes {
    sizes: Vec<u64>,
    cost: CostKind,
    bound: Option<u64>,
    /// The ply the run ends with: a count's last, a solve's 0.
    last: u32,
}

impl Sizes {
    fn add(&mut self, ply: u32, nodes: u64) -> crate::Result<()> {
        self.sizes.push(nodes);
        let cost = self.cost.of(&self.sizes);
        match self.bound {
            Some(bound) if cost > bound && ply != self.last => Err(crate::Error::CostBound { ply, cost, bound }),
            _ => Ok(()),
        }
    }
}

impl Sink for Sizes {
    fn counted(&mut self, ply: &PlyRecord) -> crate::Result<()> {
        self.add(ply.ply, ply.bdd_nodes)
    }

    fn solved(&mut self, ply: &SolvePly) -> crate::Result<()> {
        self.add(ply.ply, ply.nodes)
    }
}

impl Measure {
    /// Run the board under the order `levels` (indices of `vars` in level
    /// order), stopped once its cost passes `bound`: a cost above the bound
    /// is then known, not its value. Errors other than the node limit and the
    /// bound are errors of the search.
    pub fn run(&self, vars: &[StateVar], levels: &[usize], bound: Option<u64>) -> anyhow::Result<Evaluation> {
        let names: Vec<&str> = levels.iter().map(|&v| vars[v].name.as_str()).collect();
        let mut spec = RunSpec::new(self.pass, self.size, self.encoding, format!("levels:{}", names.join(",")));
        spec.limits.max_nodes = self.max_nodes;
        let start = Instant::now();
        let last = match self.pass {
            Pass::Count => self.size.cells(),
            Pass::Solve => 0,
        };
        let mut sizes = Sizes { sizes: Vec::new(), cost: self.cost, bound, last };
        let (finished, cut_at, peak_nodes) = match execute(&spec, &mut sizes) {
            Ok(f) => (true, None, f.totals.peak_nodes),
            Err(stopped) if crate::error::is_node_limit(&stopped.error) => (false, None, stopped.reached.peak_nodes),
            Err(stopped) => match stopped.error.downcast_ref() {
                Some(crate::Error::CostBound { ply, .. }) => (false, Some(*ply), stopped.reached.peak_nodes),
                _ => return Err(stopped.error),
            },
        };
        let sizes = &sizes.sizes;
        let cost = finished.then(|| self.cost.of(sizes));
        let (sum_nodes, max_nodes) = (CostKind::Sum.of(sizes), CostKind::Max.of(sizes));
        let time_s = start.elapsed().as_secs_f64();
        Ok(Evaluation { cost, cut_at, sum_nodes, max_nodes, peak_nodes, time_s })
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
    /// as the budget allows (in batch order), in parallel, each run stopped
    /// once its cost passes `bound`: the orders evaluated, each once. The
    /// others are left to [`Evaluator::known`].
    pub fn evaluate(&mut self, batch: &[Vec<usize>], bound: Option<u64>) -> anyhow::Result<Vec<Tried>> {
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
                        None => (measure.run(vars, levels, bound)?, true),
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
    /// (orders stopped early last; ties by the order itself).
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

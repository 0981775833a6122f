//! Order search: improve a variable order by moves ([`moves`]), measuring
//! each candidate on a real run of a board ([`cost`]), within a budget of
//! evaluations and time.
//!
//! The search starts from a given order and runs sifting, a random local
//! search, or both. Sifting moves each unit (a column's run of variables,
//! or one variable) to every position in turn and keeps the cheapest
//! placement, round after round until a round improves nothing; the
//! current order is one of the placements, so sifting never returns an
//! order worse than its start. The random search proposes
//! [`RANDOM_BATCH`] moves of the current order at a time (from a seeded
//! generator) and takes the cheapest when it is no worse. Candidates run
//! under a node limit of [`SearchSettings::node_factor`] times the start's
//! peak, so hopeless orders stop early (they rank last); with
//! [`Bound::Best`] a candidate also stops once its cost passes the current
//! order's, which every decision would reject (costs only grow ply by ply,
//! and a candidate is taken only when it costs no more than the current
//! order): the decisions are those of full runs. For a seed and an
//! evaluation budget the search is deterministic: every decision depends on
//! costs alone, never on timing or on the number of threads.

pub mod cost;
pub mod moves;
pub mod output;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::Result;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use crate::encoding::{OrderRule, OrderSpec};
pub use cost::{CostKind, Evaluation, Evaluator, Measure, Tried};
pub use moves::{Candidate, Grouping};

/// Random moves proposed (and evaluated in parallel) per step.
pub const RANDOM_BATCH: usize = 8;

/// Steps in a row without a new order after which the random search stops.
const MAX_IDLE_STEPS: usize = 100;

/// Fewest node slots a candidate may use, whatever the start's peak.
const MIN_CANDIDATE_NODES: u64 = 1 << 16;

crate::named::named_enum! {
    /// Which moves the search makes.
    pub enum Strategy ("strategy") {
        /// Sifting rounds until one improves nothing.
        Sift = "sift",
        /// Random moves until the budget is spent.
        Random = "random",
        /// Sifting, then random moves with the rest of the budget.
        Both = "both",
    }
}

crate::named::named_enum! {
    /// When a candidate's run stops before its last ply (beside the node limit).
    pub enum Bound ("bound", default Off) {
        /// Once its cost passes the current order's (the cheapest so far): it
        /// can no longer be taken, and its exact cost stays unknown.
        Best = "best",
        /// Never: every candidate's cost is exact (searches written before the
        /// setting existed ran so).
        Off = "off",
    }
}

/// Where a candidate came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    #[default]
    Start,
    Sift,
    Random,
    /// The rule read off the best order, arranged on the same board.
    Rule,
}

/// A search: where it measures, where it starts, how it moves, its budget.
#[derive(Clone, Debug)]
pub struct SearchSettings {
    pub measure: Measure,
    pub start: OrderSpec,
    pub strategy: Strategy,
    pub grouping: Grouping,
    /// Most orders evaluated (the start's included).
    pub evaluations: usize,
    /// Most wall time (checked between steps; the result then depends on
    /// the machine's speed).
    pub time: Option<Duration>,
    pub seed: u64,
    /// Evaluations run at once.
    pub jobs: usize,
    /// A candidate may use this many times the start's peak live nodes.
    pub node_factor: u64,
    pub bound: Bound,
}

/// What the search reports as it goes.
pub trait Observer {
    /// An order evaluated (or read back from a stopped search of the same
    /// settings), with how it was made.
    fn tried(&mut self, phase: Phase, how: &str, tried: &Tried) -> Result<()>;
}

/// The search's result.
pub struct Outcome {
    pub start: Scored,
    /// Where the moves led: the current order when the search stopped (with
    /// sifting alone, the cheapest order; never worse than the start).
    pub current: Scored,
    /// The orders evaluated, cheapest first.
    pub ranked: Vec<Scored>,
    /// The rule read off the best order, and its order's cost on the board.
    pub rule: (OrderRule, Evaluation),
    pub evaluations: usize,
}

/// An order and its evaluation.
pub type Scored = (Vec<usize>, Evaluation);

/// The search under way: the evaluator, the current order, the clock.
struct Run<'a> {
    settings: &'a SearchSettings,
    eval: Evaluator,
    current: Scored,
    deadline: Option<Instant>,
    observer: &'a mut dyn Observer,
}

/// Run a search; `stored` holds the orders a stopped search of the same
/// settings evaluated (they are read back, not run again).
pub fn search(
    settings: &SearchSettings,
    stored: HashMap<Vec<usize>, Evaluation>,
    observer: &mut dyn Observer,
) -> Result<Outcome> {
    let m = &settings.measure;
    let mut eval = Evaluator::new(m.clone(), settings.evaluations.max(1), settings.jobs, stored)?;
    let start = settings.start.arrange(&eval.vars, m.size, m.encoding)?;
    let first = Candidate { levels: start.clone(), how: "start".into() };
    let start_eval = first_evaluation(&mut eval, &first, observer)?;
    let Some(_) = start_eval.cost else {
        let reached = crate::error::CoreError::NodeLimit {
            capacity: m.max_nodes.map_or(0, |n| n as u64),
            live: start_eval.peak_nodes,
        };
        return Err(anyhow::Error::new(reached).context(format!("the start order {} failed", settings.start.name())));
    };
    let limit = (start_eval.peak_nodes * settings.node_factor).max(MIN_CANDIDATE_NODES);
    eval.measure.max_nodes = Some(m.max_nodes.map_or(limit as usize, |n| n.min(limit as usize)));
    let deadline = settings.time.map(|t| Instant::now() + t);
    let current = (start.clone(), start_eval);
    let mut run = Run { settings, eval, current, deadline, observer };
    if settings.strategy != Strategy::Random {
        run.sift()?;
    }
    if settings.strategy != Strategy::Sift {
        run.random()?;
    }
    let evaluations = settings.evaluations.max(1) - run.eval.budget;
    let ranked: Vec<Scored> = run.eval.ranked().into_iter().map(|(l, e)| (l.clone(), *e)).collect();
    let rule = run.rule_of(&ranked[0].0)?;
    Ok(Outcome { start: (start, start_eval), current: run.current, ranked, rule, evaluations })
}

/// The start's evaluation (the one order the budget always allows).
fn first_evaluation(eval: &mut Evaluator, first: &Candidate, observer: &mut dyn Observer) -> Result<Evaluation> {
    for t in eval.evaluate(std::slice::from_ref(&first.levels), None)? {
        observer.tried(Phase::Start, &first.how, &t)?;
    }
    Ok(eval.known(&first.levels).expect("the start was evaluated"))
}

impl Run<'_> {
    /// Whether the budget or the time is spent.
    fn spent(&self) -> bool {
        self.eval.budget == 0 || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The cost above which a candidate's run stops: the current order's
    /// under [`Bound::Best`].
    fn bound(&self) -> Option<u64> {
        match self.settings.bound {
            Bound::Best => self.current.1.cost,
            Bound::Off => None,
        }
    }

    /// Evaluate a batch, each run stopped once its cost passes `bound`;
    /// report the new orders; the cheapest candidate evaluated (now or
    /// before), the first of equals.
    fn step(&mut self, phase: Phase, batch: &[Candidate], bound: Option<u64>) -> Result<(Option<Scored>, usize)> {
        let levels: Vec<Vec<usize>> = batch.iter().map(|c| c.levels.clone()).collect();
        let tried = self.eval.evaluate(&levels, bound)?;
        for t in &tried {
            let how = &batch.iter().find(|c| c.levels == t.levels).expect("a candidate of the batch").how;
            self.observer.tried(phase, how, t)?;
        }
        let known = batch.iter().filter_map(|c| self.eval.known(&c.levels).map(|e| (c.levels.clone(), e)));
        let best = known.fold(None, |best: Option<Scored>, c| match best {
            Some(b) if cost::rank(&b.1) <= cost::rank(&c.1) => Some(b),
            _ => Some(c),
        });
        Ok((best, tried.len()))
    }

    /// Sifting rounds: each unit of the current order to its cheapest
    /// position (kept where it is unless another is strictly cheaper).
    fn sift(&mut self) -> Result<()> {
        let (vars, grouping) = (self.eval.vars.clone(), self.settings.grouping);
        loop {
            let mut improved = false;
            let firsts: Vec<usize> = moves::units(&self.current.0, &vars, grouping).iter().map(|u| u[0]).collect();
            for first in firsts {
                if self.spent() {
                    return Ok(());
                }
                let units = moves::units(&self.current.0, &vars, grouping);
                let Some(i) = units.iter().position(|u| u[0] == first) else { continue };
                let (best, _) = self.step(Phase::Sift, &moves::sift(&units, i, &vars), self.bound())?;
                if let Some(b) = best.filter(|b| cost::rank(&b.1) < cost::rank(&self.current.1)) {
                    self.current = b;
                    improved = true;
                }
            }
            if !improved {
                return Ok(());
            }
        }
    }

    /// Random steps until the budget or time is spent, or nothing new is
    /// proposed for a while: the cheapest of each batch replaces the
    /// current order when it costs no more.
    fn random(&mut self) -> Result<()> {
        let vars = self.eval.vars.clone();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(self.settings.seed);
        let mut idle = 0;
        while !self.spent() && idle < MAX_IDLE_STEPS {
            let batch: Vec<Candidate> = (0..RANDOM_BATCH)
                .map(|_| moves::random(&self.current.0, &vars, self.settings.grouping, &mut rng))
                .collect();
            let (best, new) = self.step(Phase::Random, &batch, self.bound())?;
            idle = if new == 0 { idle + 1 } else { 0 };
            if let Some(b) = best.filter(|b| cost::rank(&b.1) <= cost::rank(&self.current.1)) {
                self.current = b;
            }
        }
        Ok(())
    }

    /// The rule read off `levels`, and its order's cost on this board: one
    /// evaluation beyond the search's own (counted before it), run to the end
    /// unless its order was evaluated before.
    fn rule_of(&mut self, levels: &[usize]) -> Result<(OrderRule, Evaluation)> {
        let rule = OrderRule::of_order(levels, &self.eval.vars);
        let candidate = Candidate { levels: rule.arrange(&self.eval.vars), how: "the rule of the best order".into() };
        self.eval.budget = 1;
        self.step(Phase::Rule, std::slice::from_ref(&candidate), None)?;
        let evaluation = self.eval.known(&candidate.levels).expect("the rule's order was evaluated");
        Ok((rule, evaluation))
    }
}

//! The executor: one run, from its [`RunSpec`] to its [`Totals`], with every
//! ply handed to a [`Sink`] as it finishes. `c4bdd count`, `c4bdd solve` and
//! a sweep's worker all run through [`execute`]; they differ only in their
//! sink (a console table, JSON lines to the sweep).

use std::time::Instant;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::spec::{Pass, RunSpec};
use crate::bdd::{Bdd, Stats};
use crate::encoding::{Frame, StateSpace};
use crate::error::InputError;
use crate::search::partition::{solve_partitioned, PartLine, PartitionOptions, Report, Share};
use crate::search::pass::backward::solve_resumable;
use crate::search::stored::solution::ply_label;
use crate::search::{
    forward_from, Checkpoint, Hooks, ImageSoFar, Phases, PlyRecord, SolutionWriter, SolveCheckpoint, SolvePly,
};
use crate::search::{Step, TakeUp, Transition, Value};

/// What a run reports as it goes. Every method has an empty default.
pub trait Sink: Send {
    /// The run's checks passed (its solution folder among them) and its state
    /// space is built: the order's name and the threads the operations run
    /// on (a pool that cannot be built is an error, never fewer threads).
    /// An error here stops the run before any work.
    fn started(&mut self, _order: &str, _threads: usize) -> Result<()> {
        Ok(())
    }
    /// The run continues from a checkpoint (called before the records it
    /// holds are shown).
    fn resumed(&mut self, _resumed: &Resumed) {}
    /// A counted ply (a count's; resumed plies first). An error stops the
    /// run after this ply.
    fn counted(&mut self, _ply: &PlyRecord) -> crate::Result<()> {
        Ok(())
    }
    /// A solved ply, from the last ply down (resumed plies first). An error
    /// stops the run after this ply.
    fn solved(&mut self, _ply: &SolvePly) -> crate::Result<()> {
        Ok(())
    }
    /// A step of an image (a count's) or pre-image (a solve's) joined.
    fn step(&mut self, _step: &Step) {}
    /// A part of a partitioned solve saved.
    fn part(&mut self, _line: &PartLine) {}
    /// A partitioned solve waits for other processes' parts of ply `ply`.
    fn waiting(&mut self, _ply: u32) {}
}

/// What a resumed run took up.
#[derive(Clone, Copy, Debug)]
pub struct Resumed {
    /// Counted plies held.
    pub layers: usize,
    /// Solved plies held.
    pub solved: usize,
    /// Seconds to read and check them (with a solve's solution files).
    pub seconds: f64,
    /// A solve's seconds part by part.
    pub took: Option<TakeUp>,
}

/// A sink that ignores everything.
impl Sink for () {}

/// Totals of a run, finished or stopped.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub positions: Option<u128>,
    pub value: Option<Value>,
    /// Bytes of the solution's ply files (written or not: their exact size).
    pub solution_bytes: Option<u64>,
    /// Wall time of the run, a resumed run's earlier plies included.
    pub time_s: f64,
    /// Wall time within the plies (the rest builds relations and checkpoints).
    #[serde(default)]
    pub plies_s: f64,
    /// A solve's forward pass.
    #[serde(default)]
    pub forward_s: Option<f64>,
    pub gc_s: f64,
    #[serde(default)]
    pub gc_runs: u64,
    /// The plies' phases, added; `None` when a resumed ply has none or the
    /// run stopped.
    #[serde(default)]
    pub phases: Option<Phases>,
    pub peak_nodes: u64,
    /// Nodes of the BDD of all plies (frame B renamed onto frame A), with
    /// [`RunSpec::full_bdd`].
    #[serde(default)]
    pub full_bdd_nodes: Option<u64>,
    /// The plies' BDD nodes summed, plain and with complement edges, with
    /// [`RunSpec::complement_edges`].
    #[serde(default)]
    pub complement_edges: Option<(u64, u64)>,
    /// Plies (layers and solved plies) this process took up from a
    /// checkpoint of earlier processes: 0 for a run in one process; `None`
    /// where not recorded (a partitioned solve).
    #[serde(default)]
    pub resumed_plies: Option<u32>,
    /// Most bytes the breadth-first tables held at the end of a walk in
    /// this process (0 where every walk was depth-first).
    #[serde(default)]
    pub bfs_peak_bytes: Option<u64>,
}

/// A run that stopped: the error, and what it had reached.
#[derive(Debug)]
pub struct Stopped {
    pub error: anyhow::Error,
    pub reached: Box<Totals>,
}

/// A finished run: its totals and the manager's statistics.
pub struct Finished {
    pub totals: Totals,
    pub stats: Stats,
}

/// Run `spec` (validated first: an invalid run stops before any work, with
/// the message of [`RunSpec::validate`]).
pub fn execute(spec: &RunSpec, sink: &mut dyn Sink) -> Result<Finished, Stopped> {
    let start = Instant::now();
    let early = |error: anyhow::Error| Stopped { error, reached: Box::default() };
    spec.validate().map_err(|e| early(InputError(e).into()))?;
    let order = spec.order_spec().map_err(|e| early(InputError(e).into()))?;
    let mut space = StateSpace::new(spec.encoding, spec.size(), &order, spec.config()).map_err(|e| early(e.into()))?;
    // A solution folder is checked before any work.
    let writer = match &spec.solution {
        Some(dir) => Some(SolutionWriter::create(dir, &space, &order).map_err(|e| early(e.into()))?),
        None => None,
    };
    sink.started(&space.order_name, space.manager.threads()).map_err(early)?;
    let result = match spec.pass {
        Pass::Count => count(spec, &mut space, sink),
        Pass::Solve => solve(spec, &mut space, writer, sink),
    };
    let stats = space.manager.stats();
    let bfs_peak_bytes = Some(stats.bfs_peak_bytes);
    match result {
        Ok(totals) => Ok(Finished { totals: Totals { bfs_peak_bytes, ..totals }, stats }),
        Err(error) => {
            let reached = Totals {
                bfs_peak_bytes,
                time_s: start.elapsed().as_secs_f64(),
                gc_s: stats.gc_time.as_secs_f64(),
                gc_runs: stats.gc_runs,
                peak_nodes: stats.peak_live,
                ..Totals::default()
            };
            Err(Stopped { error, reached: Box::new(reached) })
        }
    }
}

/// The forward pass alone, optionally checkpointed, with the figures a count
/// may add (the BDD of all plies, complement-edge sizes).
fn count(spec: &RunSpec, space: &mut StateSpace, sink: &mut dyn Sink) -> Result<Totals> {
    let opts = spec.forward_options();
    let rules = Transition::build(space, &opts)?;
    let opened = Instant::now();
    let (mut checkpoint, resume) = match &spec.checkpoint {
        Some(dir) => {
            let (c, r) = Checkpoint::open(dir, space, &opts)?;
            (Some(c), r)
        }
        None => (None, None),
    };
    let records = resume.as_ref().map_or(Vec::new(), |r| r.records.clone());
    if !records.is_empty() {
        let seconds = opened.elapsed().as_secs_f64();
        sink.resumed(&Resumed { layers: records.len(), solved: 0, seconds, took: None });
    }
    records.iter().try_for_each(|r| sink.counted(r))?;
    let earlier: f64 = records.iter().map(|r| r.time_s).sum();
    let resumed_plies = Some(records.len() as u32);
    let mut extra = CountFigures::new(spec, space)?;
    let mut hooks = CountHooks { sink, records, extra: &mut extra, rules: &rules, checkpoint: checkpoint.as_mut() };
    let result = forward_from(space, &rules, resume, false, false, &mut hooks);
    let records = hooks.records;
    let (summary, _) = result.with_context(|| match records.last() {
        Some(r) => format!("count of board {} stopped at ply {}", spec.size(), r.ply + 1),
        None => format!("count of board {} stopped while building the transition relations", spec.size()),
    })?;
    rules.release(&mut space.manager);
    let full_bdd_nodes = extra.full_bdd_nodes(space, summary.positions)?;
    Ok(Totals {
        positions: Some(summary.positions),
        time_s: earlier + summary.time_s,
        plies_s: summary.plies.iter().map(|p| p.time_s).sum(),
        gc_s: summary.gc_s,
        gc_runs: summary.gc_runs,
        phases: summary.phases,
        peak_nodes: summary.peak_nodes,
        full_bdd_nodes,
        complement_edges: extra.complement,
        resumed_plies,
        ..Totals::default()
    })
}

/// What a count does as it goes: each ply shown, recorded, its figures
/// added and checkpointed; each image saved part way.
struct CountHooks<'a> {
    sink: &'a mut dyn Sink,
    records: Vec<PlyRecord>,
    extra: &'a mut CountFigures,
    rules: &'a Transition,
    checkpoint: Option<&'a mut Checkpoint>,
}

impl Hooks for &mut CountHooks<'_> {
    fn on_ply(&mut self, space: &mut StateSpace, r: &PlyRecord, states: Bdd) -> crate::Result<()> {
        let shown = self.sink.counted(r);
        self.records.push(*r);
        self.extra.add(space, self.rules, r, states)?;
        if let Some(c) = self.checkpoint.as_mut() {
            c.save(space, &self.records, states)?;
        }
        shown
    }

    fn on_image(&mut self, space: &mut StateSpace, image: &ImageSoFar) -> crate::Result<()> {
        self.sink.step(&image.step(space, self.rules));
        match self.checkpoint.as_mut() {
            Some(c) => c.save_image(space, image),
            None => Ok(()),
        }
    }
}

/// The figures a count adds beside its plies, built ply by ply.
struct CountFigures {
    /// The renaming of frame B onto A and the union so far (pinned), with `full_bdd`.
    full: Option<(crate::bdd::Renaming, Bdd)>,
    /// Nodes summed over the plies: plain, with complement edges.
    complement: Option<(u64, u64)>,
}

impl CountFigures {
    fn new(spec: &RunSpec, space: &mut StateSpace) -> Result<CountFigures> {
        let full = if spec.full_bdd { Some((space.b_to_a()?, Bdd::FALSE)) } else { None };
        Ok(CountFigures { full, complement: spec.complement_edges.then_some((0, 0)) })
    }

    fn add(&mut self, space: &mut StateSpace, rules: &Transition, r: &PlyRecord, states: Bdd) -> crate::Result<()> {
        if let Some((plain, with)) = self.complement.as_mut() {
            *plain += r.bdd_nodes;
            *with += space.manager.complement_edge_size(states) as u64;
        }
        if let Some((renaming, full)) = self.full.as_mut() {
            // full := full ∨ states (over frame A); pinned across later collections.
            let m = &mut space.manager;
            let in_a = if rules.frame_of(r.ply) == Frame::B { m.rename(states, *renaming)? } else { states };
            let union = m.or(*full, in_a)?;
            m.pin(union);
            m.unpin(*full);
            *full = union;
        }
        Ok(())
    }

    /// The size of the union of all plies, checked against the plies' total.
    fn full_bdd_nodes(&self, space: &StateSpace, positions: u128) -> Result<Option<u64>> {
        let Some((_, full)) = self.full else { return Ok(None) };
        let (count, nodes) = space.count_and_size(full, Frame::A);
        if count != positions {
            anyhow::bail!("the union of all plies counts {count} positions, the plies {positions}");
        }
        Ok(Some(nodes as u64))
    }
}

/// Both passes, optionally checkpointed, storing the solution when asked.
fn solve(
    spec: &RunSpec,
    space: &mut StateSpace,
    mut writer: Option<SolutionWriter>,
    sink: &mut dyn Sink,
) -> Result<Totals> {
    if !spec.parts.is_empty() {
        return solve_in_parts(spec, space, sink);
    }
    let opts = spec.forward_options();
    let opened = Instant::now();
    let mut checkpoint = match &spec.checkpoint {
        Some(dir) => Some(SolveCheckpoint::open(dir, space, &opts, spec.down_to.is_none())?),
        None => None,
    };
    let mut earlier = 0.0;
    let mut resumed_plies = 0;
    if let Some((_, resume)) = &mut checkpoint {
        resumed_plies = (resume.forward.len() + resume.solved.len()) as u32;
        earlier =
            resume.forward.iter().map(|p| p.time_s).sum::<f64>() + resume.solved.iter().map(|p| p.time_s).sum::<f64>();
        if let Some(w) = writer.as_mut() {
            let adopting = Instant::now();
            for p in &resume.solved {
                w.adopt(space, p).with_context(|| {
                    format!("ply {} was solved before; resume with the same solution folder", p.ply)
                })?;
            }
            resume.took.solution_s = Some(adopting.elapsed().as_secs_f64());
        }
        if !resume.forward.is_empty() {
            let (layers, solved) = (resume.forward.len(), resume.solved.len());
            let seconds = opened.elapsed().as_secs_f64();
            sink.resumed(&Resumed { layers, solved, seconds, took: Some(resume.took) });
        }
    }
    let mut lowest = None;
    // Both the plies and the pre-images' steps go to the sink.
    let sink = std::sync::Mutex::new(sink);
    let to_sink = || sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let solved = solve_resumable(
        space,
        &opts,
        checkpoint.as_mut().map(|(c, r)| (c, std::mem::take(r))),
        spec.down_to,
        |p| {
            lowest = Some(p.ply);
            to_sink().solved(p)
        },
        |space, ply, win, lost| writer.as_mut().map_or(Ok(()), |w| w.store(space, ply, win, lost)),
        |step| to_sink().step(step),
    );
    let summary = match solved {
        Ok(summary) => summary,
        Err(e) => {
            // The plies stored so far make a solution of the last plies
            // (no value), which queries read and a rerun with --down-to extends.
            if let Some(w) = writer.filter(|w| w.stored() > 0) {
                w.finish(space, None)?;
            }
            return Err(anyhow::Error::new(e).context(match lowest {
                Some(ply) => format!("solve of board {} stopped at ply {}", spec.size(), ply.saturating_sub(1)),
                None => format!("solve of board {} stopped in the forward pass", spec.size()),
            }));
        }
    };
    let solution_bytes = match writer {
        Some(w) => w.finish(space, summary.value)?.total_bytes,
        // Each ply's file holds its win and lost BDDs under a label.
        None => summary.plies.iter().map(|p| space.manager.saved_size(&ply_label(space, p.ply), p.nodes, 2)).sum(),
    };
    let plies_s = summary.forward.plies.iter().map(|p| p.time_s).sum::<f64>()
        + summary.plies.iter().map(|p| p.time_s).sum::<f64>();
    Ok(Totals {
        positions: Some(summary.plies.iter().map(|p| p.total).sum()),
        value: summary.value,
        solution_bytes: Some(solution_bytes),
        time_s: earlier + summary.time_s,
        plies_s,
        forward_s: Some(summary.forward.time_s),
        gc_s: summary.gc_s,
        gc_runs: space.manager.stats().gc_runs,
        phases: summary.phases,
        peak_nodes: summary.peak_nodes,
        resumed_plies: Some(resumed_plies),
        ..Totals::default()
    })
}

/// The partitioned pass ([`crate::search::partition`]) in the run's
/// checkpoint folder.
fn solve_in_parts(spec: &RunSpec, space: &mut StateSpace, sink: &mut dyn Sink) -> Result<Totals> {
    let dir = spec.checkpoint.as_deref().expect("a partitioned solve has a checkpoint (validated)");
    spec.parts.names(space).map_err(|e| InputError(format!("--parts: {e}")))?;
    let popts = PartitionOptions {
        cut: spec.parts.clone(),
        share: spec.part.unwrap_or(Share::ALL),
        down_to: spec.down_to.unwrap_or(0),
        budget_bytes: spec.solution_budget,
    };
    let sink = std::sync::Mutex::new(sink);
    let to_sink = || sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let report = Report {
        ply: &mut |p| to_sink().solved(p),
        part: &mut |line| to_sink().part(line),
        waiting: &mut |ply| to_sink().waiting(ply),
    };
    let summary = solve_partitioned(space, &spec.forward_options(), dir, &popts, report)
        .with_context(|| format!("partitioned solve of board {} stopped", spec.size()))?;
    let stats = space.manager.stats();
    let plies_s = summary.plies.iter().map(|p| p.time_s).sum::<f64>();
    Ok(Totals {
        positions: Some(summary.plies.iter().map(|p| p.total).sum()),
        value: summary.value,
        time_s: summary.time_s,
        plies_s,
        gc_s: stats.gc_time.as_secs_f64(),
        gc_runs: stats.gc_runs,
        phases: Phases::total(summary.plies.iter().map(|p| p.phases)),
        peak_nodes: summary.plies.iter().filter_map(|p| p.peak_nodes).fold(stats.peak_live, u64::max),
        ..Totals::default()
    })
}

//! The forward pass: `states_{i+1} = image(states_i ∧ ¬terminal)`, one record per ply.
//!
//! Strategies are run-time choices, recorded with the results:
//! - image: one relation per player applied in place (all plies in frame A),
//!   or the paper's alternating frames with one monolithic relation or one
//!   relation per column whose images are joined;
//! - terminal states: one BDD of all winning lines per frame, or the lines
//!   subtracted one at a time (the paper's §3.2); or no termination at all.
//!
//! The relations and terminal BDDs are pinned for the whole pass; collections
//! happen at safe points between operations, under the manager's GC policy,
//! and once more (then a retry) if an operation hits the node limit.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::bdd::Bdd;
use crate::encoding::{Frame, StateSpace};
use crate::error::Result;
use crate::measure;

use crate::search::ply::options::ForwardOptions;
use crate::search::ply::phases::{Phase, Phases};
use crate::search::ply::records::PlyRecord;
use crate::search::ply::transition::{with_retry, Joined, Transition};
use crate::search::resume::{ImageSoFar, Resume};

/// The result of a whole forward pass.
#[derive(Clone, Debug, Serialize)]
pub struct ForwardSummary {
    /// Positions at all plies (exact).
    pub positions: u128,
    pub plies: Vec<PlyRecord>,
    /// Wall time of the pass, relation building included, and of the image
    /// an earlier process saved part way where the pass took one up.
    pub time_s: f64,
    /// Time spent in garbage collection.
    pub gc_s: f64,
    /// The plies' phases, added (`None` if a resumed ply has none).
    pub phases: Option<Phases>,
    /// Most internal nodes alive at once: over every process of a resumed
    /// pass, as its records saw them.
    pub peak_nodes: u64,
    pub gc_runs: u64,
}

impl ForwardSummary {
    /// Fraction of the time spent in garbage collection.
    pub fn gc_share(&self) -> f64 {
        if self.time_s > 0.0 {
            self.gc_s / self.time_s
        } else {
            0.0
        }
    }
}

/// Count all positions ply by ply; `on_ply` sees each record as it is made.
/// With `keep_layers`, the states of every ply are returned too (pinned; the
/// caller unpins them).
pub fn forward(
    space: &mut StateSpace,
    opts: &ForwardOptions,
    keep_layers: bool,
    on_ply: impl FnMut(&PlyRecord) + Send,
) -> Result<(ForwardSummary, Vec<Bdd>)> {
    let rules = Transition::build(space, opts)?;
    let result = forward_with(space, &rules, keep_layers, on_ply);
    rules.release(&mut space.manager);
    result
}

/// [`forward`] with relations that are already built.
pub fn forward_with(
    space: &mut StateSpace,
    rules: &Transition,
    keep_layers: bool,
    mut on_ply: impl FnMut(&PlyRecord) + Send,
) -> Result<(ForwardSummary, Vec<Bdd>)> {
    forward_from(space, rules, None, keep_layers, false, |_: &mut StateSpace, r: &PlyRecord, _| {
        on_ply(r);
        Ok(())
    })
}

/// What a forward pass hands out as it goes; either may stop the pass with
/// an error. A closure is the hooks of its `on_ply`.
pub trait Hooks: Send {
    /// Each new ply's record and states (e.g. to checkpoint them). BDDs it
    /// builds and keeps must be pinned: later plies collect garbage.
    fn on_ply(&mut self, space: &mut StateSpace, record: &PlyRecord, states: Bdd) -> Result<()>;

    /// Each image after each of its steps (the union alive until the next
    /// collection), e.g. to save it part way.
    fn on_image(&mut self, _space: &mut StateSpace, _image: &ImageSoFar) -> Result<()> {
        Ok(())
    }
}

impl<F: FnMut(&mut StateSpace, &PlyRecord, Bdd) -> Result<()> + Send> Hooks for F {
    fn on_ply(&mut self, space: &mut StateSpace, record: &PlyRecord, states: Bdd) -> Result<()> {
        self(space, record, states)
    }
}

/// The general forward pass: from the empty board or from `resume` (an
/// image saved part way is taken up from its last step), handing out what
/// it makes to `hooks`. With `count_terminal`, each record but the last
/// counts its terminal states ([`PlyRecord::terminal`]).
pub fn forward_from(
    space: &mut StateSpace,
    rules: &Transition,
    resume: Option<Resume>,
    keep_layers: bool,
    count_terminal: bool,
    hooks: impl Hooks,
) -> Result<(ForwardSummary, Vec<Bdd>)> {
    space.on_pool(|space| forward_on_pool(space, rules, resume, keep_layers, count_terminal, hooks))
}

/// [`forward_from`] on the pool's thread.
fn forward_on_pool(
    space: &mut StateSpace,
    rules: &Transition,
    resume: Option<Resume>,
    keep_layers: bool,
    count_terminal: bool,
    mut hooks: impl Hooks,
) -> Result<(ForwardSummary, Vec<Bdd>)> {
    assert!(!(keep_layers && resume.is_some()), "a resumed pass has no earlier layers to keep");
    let start = Instant::now();
    let stats_before = space.manager.stats();
    let cells = space.size().cells();
    let mut layers = Vec::new();
    let (mut plies, mut current, first, mut saved_image) = match resume {
        Some(r) if !r.records.is_empty() => {
            let ply = r.records.len() as u32 - 1;
            (r.records, r.states, ply, r.image)
        }
        _ => (Vec::with_capacity(cells as usize + 1), space.initial()?, 0, None),
    };
    let resumed = !plies.is_empty();
    // The time of the image saved by an earlier process, which its ply's
    // record and the summary's time include.
    let mut taken_up_s = 0.0;
    let mut ply_start = Instant::now();
    let mut phases = Phases::default();
    for ply in first..=cells {
        let frame = rules.frame_of(ply);
        if keep_layers {
            space.manager.pin(current);
            layers.push(current);
        }
        // With `count_terminal` the image's sources are split off before the
        // record and counted with the ply's states (one memo): a solve's
        // retrograde step takes the terminal count from the record (`backward`).
        let mut sources = None;
        if count_terminal && ply < cells && !(resumed && ply == first) {
            // The states are counted and handed to `on_ply` after collections.
            space.manager.pin(current);
            let alive = remove_terminal(space, rules, ply, current, &mut phases);
            space.manager.unpin(current);
            let alive = alive?;
            space.manager.pin(alive);
            sources = Some(alive);
        }
        if !(resumed && ply == first) {
            let record = record_ply(space, frame, ply, (current, sources), ply_start, &mut phases);
            hooks.on_ply(space, &record, current)?;
            plies.push(record);
        }
        if ply == cells {
            break;
        }
        ply_start = Instant::now();
        phases = Phases::default();
        let from = match saved_image.take() {
            Some(saved) if saved.ply == ply => {
                ply_start = Instant::now().checked_sub(Duration::from_secs_f64(saved.time_s)).unwrap_or(ply_start);
                taken_up_s = saved.time_s;
                phases = saved.phases;
                saved.joined
            }
            Some(stale) => {
                space.manager.unpin(stale.joined.union);
                Joined::default()
            }
            None => Joined::default(),
        };
        let next = next_ply(space, rules, (ply, current, sources), from, ply_start, &mut phases, &mut hooks);
        space.manager.unpin(from.union);
        current = next?;
    }
    if let Some(unused) = saved_image {
        space.manager.unpin(unused.joined.union);
    }
    let stats = space.manager.stats();
    let peak_nodes = plies.iter().filter_map(|p| p.peak_nodes).fold(stats.peak_live, u64::max);
    let summary = ForwardSummary {
        positions: plies.iter().map(|p| p.states).sum(),
        phases: Phases::total(plies.iter().map(|p| p.phases)),
        plies,
        time_s: start.elapsed().as_secs_f64() + taken_up_s,
        gc_s: (stats.gc_time - stats_before.gc_time).as_secs_f64(),
        peak_nodes,
        gc_runs: stats.gc_runs - stats_before.gc_runs,
    };
    Ok((summary, layers))
}

/// The record of a ply whose states are `current`: counted with its
/// non-terminal `sources` when it has them (one memo), which gives the
/// terminal count.
fn record_ply(
    space: &mut StateSpace,
    frame: Frame,
    ply: u32,
    (current, sources): (Bdd, Option<Bdd>),
    ply_start: Instant,
    phases: &mut Phases,
) -> PlyRecord {
    let (states, nodes, terminal) = phases.time(space, Phase::Count, |s| {
        s.manager.make_room_for_count();
        let mut counter = s.manager.counter(s.layout.set(frame));
        counter.add(current);
        let nodes = counter.visited();
        if let Some(alive) = sources {
            counter.add(alive);
        }
        let states = counter.count(current);
        let terminal = sources.map(|alive| states - counter.count(alive));
        (states, nodes, terminal)
    });
    let (rss_bytes, peak_rss_bytes) = measure::rss_and_peak_bytes();
    PlyRecord {
        ply,
        states,
        bdd_nodes: nodes as u64,
        live_nodes: space.manager.live_nodes() as u64,
        time_s: ply_start.elapsed().as_secs_f64(),
        rss_bytes,
        peak_rss_bytes,
        peak_nodes: Some(space.manager.stats().peak_live),
        phases: Some(*phases),
        terminal,
    }
}

/// The states of ply `ply + 1` from the states `states` of ply `ply`.
pub fn step(space: &mut StateSpace, rules: &Transition, ply: u32, states: Bdd) -> Result<Bdd> {
    let mut phases = Phases::default();
    let mut none = |_: &mut StateSpace, _: &PlyRecord, _| Ok(());
    next_ply(space, rules, (ply, states, None), Joined::default(), Instant::now(), &mut phases, &mut none)
}

/// The non-terminal states among `states` (of ply `ply`), the sources of its image.
fn remove_terminal(
    space: &mut StateSpace,
    rules: &Transition,
    ply: u32,
    states: Bdd,
    phases: &mut Phases,
) -> Result<Bdd> {
    let mut alive = states;
    for &t in rules.terminal_of(ply) {
        alive = phases.time(space, Phase::Terminal, |s| with_retry(&mut s.manager, &[alive], |m| m.diff(alive, t)))?;
        phases.time(space, Phase::Gc, |s| s.manager.maybe_gc(&[alive]));
    }
    Ok(alive)
}

/// The states of ply `ply + 1` from those of ply `ply` (`current`, with its
/// non-terminal `sources` when they are split off already, pinned), the
/// image taken up from `from`; `hooks` see it after each step, with the
/// ply's time and phases so far.
fn next_ply(
    space: &mut StateSpace,
    rules: &Transition,
    (ply, current, sources): (u32, Bdd, Option<Bdd>),
    from: Joined,
    ply_start: Instant,
    phases: &mut Phases,
    hooks: &mut impl Hooks,
) -> Result<Bdd> {
    let alive = match sources {
        Some(alive) => alive,
        None => {
            let alive = remove_terminal(space, rules, ply, current, phases)?;
            space.manager.pin(alive);
            alive
        }
    };
    let (before, start, gc_before) = (*phases, Instant::now(), space.manager.gc_time());
    let mut done = |s: &mut StateSpace, joined: Joined| {
        let phases = before.with_running(s, Phase::Image, start, gc_before);
        hooks.on_image(s, &ImageSoFar { ply, joined, time_s: ply_start.elapsed().as_secs_f64(), phases })
    };
    let next = phases.time(space, Phase::Image, |s| rules.image_from(s, ply, alive, from, &mut done));
    space.manager.unpin(alive);
    let next = next?;
    phases.time(space, Phase::Gc, |s| s.manager.maybe_gc(&[alive, next]));
    Ok(next)
}

//! The strong solution: a forward pass keeping every ply's states, then the
//! retrograde pass of the paper's §2.2, from the last ply back to the empty
//! board. From the view of the player to move at ply i:
//!
//! ```text
//! win_N  = false,  draw_N = states_N ∧ ¬terminal,  lost_N = states_N ∧ terminal
//! win_i  = pre-image(lost_{i+1}) ∧ states_i ∧ ¬terminal
//! draw_i = pre-image(draw_{i+1}) ∧ states_i ∧ ¬terminal ∧ ¬win_i
//! lost_i = (states_i ∧ ¬terminal ∧ ¬win_i ∧ ¬draw_i) ∨ (states_i ∧ terminal)
//! ```
//!
//! Below the last ply the terminal states need not be split off: a state of
//! ply `i + 1` is reached from a non-terminal state of ply `i`, so its mover's
//! opponent (who moved last at ply `i`) has no four in a row in it, nor in any
//! state of ply `i` from which it is one disc away. So the pre-images of sets
//! of ply `i + 1` hold no terminal state of ply `i`, every terminal state falls
//! into `lost_i`, and splitting `states_i` by the two pre-images
//! (`search::ply::split`) gives `win_i`, `draw_i` and `lost_i`. The terminal
//! states are then counted by the forward pass (`PlyRecord::terminal`), where
//! they are split off anyway.
//!
//! Every BDD that must survive a collection is pinned while it is needed.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::bdd::Bdd;
use crate::encoding::StateSpace;
use crate::error::{Error, Result};
use crate::measure;
use crate::search::pass::forward::{forward_from, ForwardSummary, Hooks};
use crate::search::ply::options::ForwardOptions;
use crate::search::ply::phases::{Phase, Phases, SoFar};
use crate::search::ply::records::PlyRecord;
use crate::search::ply::records::{SolvePly, Value};
use crate::search::ply::split::split_ply;
use crate::search::ply::transition::{top_cell_vars, Joined, Step, StepOf, Target, Transition};
use crate::search::resume::solve::{SolveCheckpoint, SolveResume};
use crate::search::resume::{ImageSoFar, Resume};

/// The live nodes up to which a ply's sets are stored beside their counting
/// (both only read the node table). Above it the count runs first, so that
/// its memo (8 or 16 bytes a counted node and a bit and a half a slot) is
/// freed before the file's index (4 bytes a stored node) is built: the
/// phase's peak memory is then the larger of the two, not their sum, at the
/// cost of the store's time. Side by side costs about 4 bytes a live node
/// more, half of what the node's record takes; the bound (1 GB of records)
/// keeps every board up to 6x5 side by side.
const STORE_BESIDE_MAX_LIVE: usize = 1 << 27;

/// The result of a solve.
#[derive(Clone, Debug, Serialize)]
pub struct SolveSummary {
    /// Plies in order 0..=N.
    pub plies: Vec<SolvePly>,
    /// The value of the empty board (`None` when the pass stopped above ply 0).
    pub value: Option<Value>,
    pub forward: ForwardSummary,
    /// Wall time of both passes, and of the pre-images an earlier process
    /// saved part way where the pass took them up.
    pub time_s: f64,
    pub gc_s: f64,
    /// The phases of every ply of both passes, added (`None` if a resumed
    /// ply has none).
    pub phases: Option<Phases>,
    pub peak_nodes: u64,
}

/// Solve the board. `on_ply` sees each ply when it is solved (from the last
/// back to ply 0) and may stop the pass with an error; `store` receives each
/// ply's `win` and `lost` BDDs (view of the player to move) while they are
/// alive, e.g. to save them.
pub fn solve(
    space: &mut StateSpace,
    opts: &ForwardOptions,
    on_ply: impl FnMut(&SolvePly) -> Result<()> + Send,
    store: impl FnMut(&StateSpace, u32, Bdd, Bdd) -> Result<()> + Send,
) -> Result<SolveSummary> {
    solve_resumable(space, opts, None, None, on_ply, store, |_| ())
}

/// [`solve`] with a checkpoint: the work it holds is taken up (its solved
/// plies are shown to `on_ply` again, not given to `store`), and every new
/// layer and solved ply is saved to it. With `down_to` (which needs the
/// checkpoint), the forward pass keeps no layer in memory and the retrograde
/// pass reads each ply's states back from the checkpoint, solving from the
/// last ply down to ply `down_to` only. `on_ply` and `store` are as for
/// [`solve`]; `progress` sees each step of each pre-image.
pub fn solve_resumable(
    space: &mut StateSpace,
    opts: &ForwardOptions,
    checkpoint: Option<(&mut SolveCheckpoint, SolveResume)>,
    down_to: Option<u32>,
    on_ply: impl FnMut(&SolvePly) -> Result<()> + Send,
    store: impl FnMut(&StateSpace, u32, Bdd, Bdd) -> Result<()> + Send,
    progress: impl FnMut(&Step) + Send,
) -> Result<SolveSummary> {
    assert!(down_to.is_none() || checkpoint.is_some(), "reading the layers back needs a checkpoint");
    space.on_pool(|space| solve_on_pool(space, opts, checkpoint, down_to, (on_ply, store, progress)))
}

/// The sets of one solved ply, from the view of the player to move; `draw`
/// and `lost` stay pinned until the ply below has built its pre-images,
/// `win` only until it is stored.
#[derive(Clone, Copy)]
struct Solved {
    win: Bdd,
    draw: Bdd,
    lost: Bdd,
}

/// What a ply is solved from: nothing (the last ply), the next ply's sets,
/// or the two pre-images of those, held finished by the checkpoint.
enum Next {
    Last,
    Sets(Solved),
    Held,
}

/// [`solve_resumable`] on the pool's thread.
fn solve_on_pool(
    space: &mut StateSpace,
    opts: &ForwardOptions,
    checkpoint: Option<(&mut SolveCheckpoint, SolveResume)>,
    down_to: Option<u32>,
    (mut on_ply, mut store, mut progress): (
        impl FnMut(&SolvePly) -> Result<()>,
        impl FnMut(&StateSpace, u32, Bdd, Bdd) -> Result<()> + Send,
        impl FnMut(&Step) + Send,
    ),
) -> Result<SolveSummary> {
    if !opts.terminal.can_solve() {
        let reason = "solving needs the terminal states: use terminal whole or lines".to_string();
        return Err(Error::UnsupportedBoard { reason });
    }
    let start = Instant::now();
    let gc_before = space.manager.stats().gc_time;
    let rules = Transition::build(space, opts)?;
    let (mut ck, mut resume) = match checkpoint {
        Some((c, r)) => (Some(c), r),
        None => (None, SolveResume::default()),
    };
    let hold = down_to.is_none();
    let (forward, mut layers, records) = forward_layers(space, &rules, &mut resume, (&mut ck, hold), &mut progress)?;
    let mut plies = Vec::with_capacity(layers.len());
    for p in &resume.solved {
        on_ply(p)?;
        plies.push(*p);
    }
    // The ply after the current one (its win is released once it is stored).
    let mut next = take_up(space, &resume, &mut layers);
    let lowest_solved = resume.solved.last().map_or(layers.len() as u32, |p| p.ply);
    let bottom = down_to.unwrap_or(0).min(lowest_solved);
    // The time of the first ply's pre-images saved by an earlier process,
    // which its record and the summary's time include.
    let taken_up_s = lowest_solved.checked_sub(1).and_then(|i| ck.as_deref()?.so_far(i)).map_or(0.0, |s| s.time_s);
    for i in (bottom..lowest_solved).rev() {
        let states = match (layers[i as usize].take(), ck.as_deref()) {
            (Some(states), _) => states,
            (None, Some(c)) => c.load_layer(space, i)?,
            (None, None) => unreachable!("a layer not held is read from the checkpoint"),
        };
        let keep = Keep { ck: ck.as_deref_mut(), progress: &mut progress };
        let ply = (i, states, &records[i as usize]);
        let (record, sets) = solve_ply(space, &rules, ply, next, keep, &mut store, opts.split_parts)?;
        let shown = on_ply(&record);
        plies.push(record);
        if let Some(c) = ck.as_deref_mut() {
            c.save_solved(space, &record, sets.win, sets.lost)?;
        }
        shown?;
        space.manager.unpin(sets.win);
        next = Next::Sets(sets);
    }
    let value = match next {
        Next::Sets(lowest) => {
            space.manager.unpin(lowest.draw);
            space.manager.unpin(lowest.lost);
            (bottom == 0).then(|| match (lowest.win != Bdd::FALSE, lowest.draw != Bdd::FALSE) {
                (true, _) => Value::FirstPlayerWins,
                (false, true) => Value::Draw,
                (false, false) => Value::SecondPlayerWins,
            })
        }
        // Taken up above the ply of its held pre-images, with nothing to solve.
        Next::Held => None,
        Next::Last => unreachable!("the last ply was solved"),
    };
    rules.release(&mut space.manager);
    plies.reverse();
    let phases = Phases::total(records.iter().map(|p| p.phases).chain(plies.iter().map(|p| p.phases)));
    let stats = space.manager.stats();
    // Over every process of a resumed solve, as its records saw them (the
    // forward summary's peak covers the forward records).
    let peak_nodes = plies.iter().filter_map(|p| p.peak_nodes).fold(stats.peak_live.max(forward.peak_nodes), u64::max);
    Ok(SolveSummary {
        plies,
        value,
        forward,
        time_s: start.elapsed().as_secs_f64() + taken_up_s,
        gc_s: (stats.gc_time - gc_before).as_secs_f64(),
        phases,
        peak_nodes,
    })
}

/// The forward pass from the checkpoint's layers on, saving each new layer
/// to the checkpoint. With `hold`, every ply's states stay in memory
/// (pinned); without, none do (the checkpoint holds them), except the layer
/// of the checkpoint's lowest solved ply.
fn forward_layers(
    space: &mut StateSpace,
    rules: &Transition,
    resume: &mut SolveResume,
    (ck, hold): (&mut Option<&mut SolveCheckpoint>, bool),
    progress: &mut (impl FnMut(&Step) + Send),
) -> Result<(ForwardSummary, Vec<Option<Bdd>>, Vec<PlyRecord>)> {
    let layers = std::mem::take(&mut resume.layers);
    // The checkpoint loads the last layer of an unfinished pass; a finished
    // pass takes no step, so its last states are not read.
    let from = layers.last().map(|&states| Resume {
        records: resume.forward.clone(),
        states: states.unwrap_or(Bdd::FALSE),
        image: None,
    });
    let records = std::mem::take(&mut resume.forward);
    let mut hooks = Layers { rules, records, layers, ck: ck.as_deref_mut(), hold, progress };
    let (forward, _) = forward_from(space, rules, from, false, true, &mut hooks)?;
    let Layers { mut layers, records, .. } = hooks;
    if !hold {
        // The layer an unfinished pass resumed from is not needed again.
        let lowest = resume.solved.last().map(|p| p.ply as usize);
        for (ply, layer) in layers.iter_mut().enumerate() {
            if Some(ply) != lowest {
                if let Some(states) = layer.take() {
                    space.manager.unpin(states);
                }
            }
        }
    }
    Ok((forward, layers, records))
}

/// The hooks of a solve's forward pass: each new layer kept (pinned, with
/// `hold`; its place held by `None` without) and saved to the checkpoint, if
/// any; each step of an image to the progress lines.
struct Layers<'a, P> {
    rules: &'a Transition,
    records: Vec<PlyRecord>,
    layers: Vec<Option<Bdd>>,
    ck: Option<&'a mut SolveCheckpoint>,
    hold: bool,
    progress: &'a mut P,
}

impl<P: FnMut(&Step) + Send> Hooks for &mut Layers<'_, P> {
    fn on_ply(&mut self, space: &mut StateSpace, record: &PlyRecord, states: Bdd) -> Result<()> {
        self.records.push(*record);
        if self.hold {
            space.manager.pin(states);
        }
        self.layers.push(self.hold.then_some(states));
        match self.ck.as_deref_mut() {
            Some(c) => c.save_layer(space, &self.records, states),
            None => Ok(()),
        }
    }

    fn on_image(&mut self, space: &mut StateSpace, image: &ImageSoFar) -> Result<()> {
        (self.progress)(&image.step(space, self.rules));
        Ok(())
    }
}

/// The lowest solved ply of a checkpoint as the next ply's sets (pinned but
/// its win, already stored), unless the checkpoint holds their pre-images;
/// the states of every solved ply unpinned.
fn take_up(space: &mut StateSpace, resume: &SolveResume, layers: &mut [Option<Bdd>]) -> Next {
    let mut next = if resume.pre_images_held { Next::Held } else { Next::Last };
    if let Some([win, draw, lost]) = resume.lowest {
        space.manager.unpin(win);
        next = Next::Sets(Solved { win, draw, lost });
    }
    // The states of solved plies are not needed again (the loop unpins the rest).
    for p in &resume.solved {
        if let Some(states) = layers[p.ply as usize].take() {
            space.manager.unpin(states);
        }
    }
    next
}

/// Where the steps of a ply's pre-images go: the checkpoint, if any (which
/// saves them part way at its pace), and the progress lines.
struct Keep<'a> {
    ck: Option<&'a mut SolveCheckpoint>,
    progress: &'a mut dyn FnMut(&Step),
}

/// Solve ply `i` from its states (pinned; released here) and forward
/// record and the next ply's sets: its record, and its sets (all three
/// pinned). `store` gets its win and lost while or after they are counted;
/// `split_parts` is [`ForwardOptions::split_parts`].
fn solve_ply(
    space: &mut StateSpace,
    rules: &Transition,
    (i, states, forward): (u32, Bdd, &crate::search::PlyRecord),
    next: Next,
    keep: Keep,
    store: &mut (impl FnMut(&StateSpace, u32, Bdd, Bdd) -> Result<()> + Send),
    split_parts: u8,
) -> Result<(SolvePly, Solved)> {
    // A ply taken up from pre-images saved part way goes on from their time.
    let so_far = keep.ck.as_deref().and_then(|c| c.so_far(i)).unwrap_or_default();
    let ply_start = Instant::now().checked_sub(Duration::from_secs_f64(so_far.time_s)).unwrap_or_else(Instant::now);
    let mut phases = so_far.phases;
    // What the ply before left behind (only pinned sets survive), collected
    // under the GC policy as part of this ply.
    phases.time(space, Phase::Gc, |s| s.manager.maybe_gc(&[]));
    // The terminal states of a checkpoint made before the forward pass
    // counted them, split off before the split releases the states.
    let uncounted = match (&next, forward.terminal) {
        (Next::Last, _) | (_, Some(_)) => None,
        _ => Some(phases.time(space, Phase::Terminal, |s| rules.split_terminal(s, i, states))?.1),
    };
    if let Some(t) = uncounted {
        space.manager.pin(t);
    }
    let (sets, terminal) = classify(space, rules, (i, states, ply_start), next, keep, &mut phases, split_parts)?;
    // The terminal count: counted by the last ply's split, by the forward
    // pass, or from the states split off above.
    let terminal = terminal.or(uncounted);
    let frame = rules.frame_of(i);
    let large = space.manager.live_nodes() > STORE_BESIDE_MAX_LIVE;
    space.manager.make_room_for_count();
    let beside = space.manager.threads() > 1 && !large;
    // One memo for all counts: the plies' sets share most of their nodes.
    // The stored nodes are those of win and lost, added first.
    let ((nodes, [w, l, d], t), stored) = phases.time(space, Phase::Count, |s| {
        let s = &*s;
        let count = || {
            let mut counter = s.manager.counter(s.layout.set(frame));
            counter.add(sets.win);
            counter.add(sets.lost);
            let nodes = counter.visited() as u64;
            counter.add(sets.draw);
            if let Some(t) = terminal {
                counter.add(t);
            }
            let counts = [sets.win, sets.lost, sets.draw].map(|f| counter.count(f));
            (nodes, counts, terminal.map(|t| counter.count(t)))
        };
        let mut save = || store(s, i, sets.win, sets.lost);
        if beside {
            rayon::join(count, save)
        } else {
            (count(), save())
        }
    });
    stored?;
    if let Some(t) = uncounted {
        space.manager.unpin(t);
    }
    let (rss_bytes, peak_rss_bytes) = measure::rss_and_peak_bytes();
    let record = SolvePly {
        ply: i,
        won: if i.is_multiple_of(2) { w } else { l },
        drawn: d,
        lost: if i.is_multiple_of(2) { l } else { w },
        total: forward.states,
        terminal: t.or(forward.terminal).expect("the terminal states were counted"),
        nodes,
        time_s: ply_start.elapsed().as_secs_f64(),
        rss_bytes,
        peak_rss_bytes,
        peak_nodes: Some(space.manager.stats().peak_live),
        phases: Some(phases),
    };
    assert_eq!(w + d + l, record.total, "ply {i}: won + drawn + lost differs from the forward count");
    Ok((record, sets))
}

/// Ply `i`'s win, draw and lost (pinned) from its states (pinned; released
/// here), and its terminal states where it splits them off (the last ply;
/// see the module documentation); the ply's clock started at `ply_start`;
/// the pre-images' steps go to `keep`; the split is cut on `split_parts`
/// top variables (in one piece when 0).
fn classify(
    space: &mut StateSpace,
    rules: &Transition,
    (i, states, ply_start): (u32, Bdd, Instant),
    next: Next,
    Keep { mut ck, progress }: Keep,
    phases: &mut Phases,
    split_parts: u8,
) -> Result<(Solved, Option<Bdd>)> {
    let next = match next {
        Next::Last => {
            let (alive, terminal) = phases.time(space, Phase::Terminal, |s| rules.split_terminal(s, i, states))?;
            space.manager.pin(alive);
            space.manager.pin(terminal);
            space.manager.unpin(states);
            return Ok((Solved { win: Bdd::FALSE, draw: alive, lost: terminal }, Some(terminal)));
        }
        Next::Sets(sets) => Some(sets),
        Next::Held => None,
    };
    // The pre-image of `set`, or the one the checkpoint holds finished.
    let mut pre = |space: &mut StateSpace, target: Target, set: Option<Bdd>| -> Result<Bdd> {
        let from = match ck.as_deref_mut() {
            Some(c) => c.partial(space, i, target)?.unwrap_or_default(),
            None => Joined::default(),
        };
        // The union taken up is a root of every collection of the pre-image.
        space.manager.unpin(from.union);
        let (before, start, gc_before) = (*phases, Instant::now(), space.manager.gc_time());
        let steps = rules.steps(space, i, false);
        let mut save = |s: &mut StateSpace, joined: Joined| {
            let phases = before.with_running(s, Phase::Image, start, gc_before);
            let so_far = SoFar { time_s: ply_start.elapsed().as_secs_f64(), phases };
            progress(&Step { ply: i, of: StepOf::PreImage(target), done: joined.steps, steps, time_s: so_far.time_s });
            let finished = joined.steps == steps;
            ck.as_deref_mut().map_or(Ok(()), |c| c.save_partial(s, (i, target), (joined, finished), so_far))
        };
        let f = match set {
            Some(set) => phases.time(space, Phase::Image, |s| rules.preimage_from(s, i, set, from, &mut save))?,
            None => {
                assert_eq!(from.steps, steps, "ply {i}: a pre-image held finished has all its steps");
                from.union
            }
        };
        space.manager.pin(f);
        Ok(f)
    };
    let to_lost = pre(space, Target::Lost, next.map(|n| n.lost))?;
    // The next ply's lost set has served: the drawn set's pre-image goes on
    // without it (collections between its steps free it).
    if let Some(next) = next {
        space.manager.unpin(next.lost);
    }
    let to_draw = pre(space, Target::Draw, next.map(|n| n.draw))?;
    release_for_split(space, next.map(|n| n.draw), phases);
    let vars = top_cell_vars(space, rules.frame_of(i), usize::from(split_parts));
    let inputs = [states, to_lost, to_draw];
    let [win, draw, lost] = phases.time(space, Phase::Split, |s| split_ply(&mut s.manager, inputs, &vars))?;
    Ok((Solved { win, draw, lost }, None))
}

/// Release the next ply's drawn set once both pre-images are built, and
/// collect under the GC policy: the next ply's sets (no longer needed) and
/// the pre-images' intermediate nodes are then the largest garbage of the
/// ply (its lost set was released after its own pre-image). A collection
/// forced here on every ply would mark every kept forward layer once more
/// per ply, most of the time on the small plies; a split that meets the node
/// limit collects and retries (`with_retry`).
fn release_for_split(space: &mut StateSpace, next_draw: Option<Bdd>, phases: &mut Phases) {
    if let Some(draw) = next_draw {
        space.manager.unpin(draw);
    }
    phases.time(space, Phase::Gc, |s| s.manager.maybe_gc(&[]));
}

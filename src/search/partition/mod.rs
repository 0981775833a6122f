//! The partitioned retrograde pass: a solve that holds one part of a ply at
//! a time.
//!
//! The whole-ply pass ([`crate::search::pass::backward`]) solves the last plies (at least
//! the last one) into the solve's checkpoint; below its lowest solved ply,
//! every ply is cut into `2^K` parts on `K` variables of cells ([`Cut`]: the
//! top `K` of the order, or cells by name): part `p` holds the states whose
//! cut variable `k` equals bit `k` of `p`. Part `p` of ply `i`
//! is solved by the equations of the whole pass, restricted to its states:
//!
//! ```text
//! win_p  = states_p ∧ pre_p(lost_{i+1})
//! draw_p = states_p ∧ ¬win_p ∧ pre_p(draw_{i+1})
//! lost_p = states_p ∧ ¬win_p ∧ ¬draw_p
//! ```
//!
//! where `pre_p` is the pre-image under the moves restricted to the part's
//! cube (so its product never leaves the part), and `lost_{i+1}`,
//! `draw_{i+1}` are joined from the parts of ply `i + 1` that the image of
//! the cube meets: a move changes one column, so a part reaches few parts.
//! Only those parts, the part's states and its results are in memory: the
//! ply's layer is cut into its parts' states once, when the ply begins, and
//! each part's states are saved until the part is done. The terminal
//! states of ply `i` fall into `lost_p`, as in the whole pass.
//!
//! Parts are saved as they are done ([`store`]): a killed run loses at most
//! the part in progress, and resumes with the parts not yet saved, with
//! this build or a later one of the same formats. Several processes may
//! share the parts of each ply ([`Share`], `--part I/N`): each solves its
//! own parts of a ply, then waits until the other processes have saved
//! theirs before the ply below. A ply's row is the sum of its parts'
//! records; its `nodes` are the parts' won and lost nodes added (a node
//! shared by two parts is counted in each).

mod above;
mod ctx;
mod cut;
mod pass;
pub mod store;

use std::path::Path;
use std::time::{Duration, Instant};

use ctx::Ctx;
pub use cut::{cell_vars, Cut};
pub use store::{PartRecord, PartStore, PARTS_DIR};

use crate::encoding::StateSpace;
use crate::error::Result;
use crate::search::pass::backward::solve_resumable;
use crate::search::ply::options::ForwardOptions;
use crate::search::ply::phases::Phases;
use crate::search::ply::records::{PlyRecord, SolvePly, Value};
use crate::search::ply::transition::Transition;
use crate::search::resume::solve::SolveCheckpoint;

/// The most variables a ply may be cut on (4,096 parts).
pub const MAX_CUT: u8 = 12;

/// Which parts of each ply a process solves: those whose number leaves
/// `index` divided by `of` (`index` from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Share {
    pub index: u32,
    pub of: u32,
}

impl Share {
    /// Every part.
    pub const ALL: Share = Share { index: 0, of: 1 };

    /// Whether part `p` is this share's.
    pub fn has(self, p: u32) -> bool {
        p % self.of == self.index
    }
}

impl std::fmt::Display for Share {
    /// As `--part` reads it: `I/N` with `I` from 1.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.of)
    }
}

impl std::str::FromStr for Share {
    type Err = String;

    /// `I/N` with `1 <= I <= N`.
    fn from_str(s: &str) -> Result<Share, String> {
        let bad = || format!("part {s:?}: expected I/N with 1 <= I <= N, e.g. 1/2");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (i, n): (u32, u32) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if i == 0 || i > n {
            return Err(bad());
        }
        Ok(Share { index: i - 1, of: n })
    }
}

/// How the partitioned pass runs.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionOptions {
    /// The variables of cells each ply is cut on (1 to [`MAX_CUT`]).
    pub cut: Cut,
    pub share: Share,
    /// The lowest ply to solve.
    pub down_to: u32,
    /// Bytes the won and lost sets of solved plies may take on disk; a ply
    /// whose sets would go beyond it loses them once the ply below is done
    /// (its row stays). `None`: keep every ply.
    pub budget_bytes: Option<u64>,
}

/// A part saved, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct PartLine {
    pub record: PartRecord,
    pub parts: u32,
    pub rss_bytes: Option<u64>,
    /// The share of this process's work on the ply done, by its parts' nodes.
    pub done: f64,
    /// Seconds to the end of this process's parts of the ply, at its pace so
    /// far; `None` until the parts done hold 1% of its nodes (a few small
    /// parts say nothing of the pace).
    pub left_s: Option<f64>,
    /// The sets of the ply above's parts this process read from disk for
    /// the ply so far, and those its parts asked for (a set read once
    /// serves parts solved one after another).
    pub above_read: (usize, usize),
}

impl std::fmt::Display for PartLine {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let r = &self.record;
        let gb = |b: Option<u64>| b.map_or("-".into(), |b| format!("{:.2} GB", b as f64 / 1e9));
        write!(
            f,
            "ply {} part {} of {}: {} nodes, {:.1} s, RSS {} (peak {}), peak live nodes {}, {} of {} sets above read; ply {:.0}% done, {}",
            r.ply,
            r.part + 1,
            self.parts,
            r.nodes,
            r.time_s,
            gb(self.rss_bytes),
            gb(r.peak_rss_bytes),
            r.peak_nodes.unwrap_or(0),
            self.above_read.0,
            self.above_read.1,
            100.0 * self.done,
            self.left_s.map_or("the time left not yet known".into(), |s| format!(
                "about {} left",
                humantime::format_duration(Duration::from_secs(s.round() as u64))
            ))
        )
    }
}

/// Where the pass reports: each ply's row (the whole pass's plies first),
/// each part saved, and a wait for other processes' parts.
pub struct Report<'a> {
    pub ply: &'a mut (dyn FnMut(&SolvePly) -> Result<()> + Send),
    pub part: &'a mut (dyn FnMut(&PartLine) + Send),
    pub waiting: &'a mut (dyn FnMut(u32) + Send),
}

/// What the pass reached.
#[derive(Clone, Debug)]
pub struct PartitionedSummary {
    /// Plies from the last down to the lowest solved, whole and in parts.
    pub plies: Vec<SolvePly>,
    /// The value of the empty board, when ply 0 is solved.
    pub value: Option<Value>,
    pub time_s: f64,
}

/// Solve the board in the checkpoint folder `dir` down to ply
/// `popts.down_to`: the whole pass first if the checkpoint has no solved
/// ply, then the parts below its lowest one (see the module documentation).
pub fn solve_partitioned(
    space: &mut StateSpace,
    opts: &ForwardOptions,
    dir: &Path,
    popts: &PartitionOptions,
    report: Report,
) -> Result<PartitionedSummary> {
    let start = Instant::now();
    let cells = space.size().cells();
    let mut plies = Vec::new();
    let mut told = false;
    let ck = loop {
        match SolveCheckpoint::open_records(dir, space, opts)? {
            Some(ck) if !ck.solved().is_empty() => {
                for p in ck.solved() {
                    (report.ply)(p)?;
                    plies.push(*p);
                }
                break ck;
            }
            // The first process of a share makes the whole plies; the others wait.
            _ if popts.share.index > 0 => {
                if !std::mem::replace(&mut told, true) {
                    (report.waiting)(cells);
                }
                std::thread::sleep(Duration::from_secs(5));
            }
            _ => {
                let (mut ck, resume) = SolveCheckpoint::open(dir, space, opts, false)?;
                let on_ply = |p: &SolvePly| {
                    plies.push(*p);
                    (report.ply)(p)
                };
                let no_store = |_: &StateSpace, _, _, _| Ok(());
                solve_resumable(space, opts, Some((&mut ck, resume)), Some(cells), on_ply, no_store, |_| ())?;
                break SolveCheckpoint::open_records(dir, space, opts)?.expect("the whole pass saved its checkpoint");
            }
        }
    };
    let top = ck.solved().last().expect("a solved ply").ply;
    let names = popts.cut.names(space).map_err(|reason| crate::Error::BadCut { reason })?;
    let store = PartStore::open(dir, ck.setup_crc(), &names, top)?;
    plies.retain(|p| p.ply >= store.top());
    let rules = Transition::build(space, opts)?;
    let ctx = Ctx { rules: &rules, store: &store, share: popts.share };
    let records = ck.forward().to_vec();
    space.on_pool(|space| -> Result<()> {
        pass::seed(space, &ctx, &ck)?;
        wait_for(&store, store.top(), &mut *report.waiting)?;
        for i in (popts.down_to..store.top()).rev() {
            pass::solve_ply(space, &ctx, &ck, i, &mut *report.part)?;
            let parts = wait_for(&store, i, &mut *report.waiting)?;
            let row = ply_row(space, &records[i as usize], &parts, &store)?;
            (report.ply)(&row)?;
            plies.push(row);
            release_above(&store, i, popts.budget_bytes)?;
        }
        Ok(())
    })?;
    rules.release(&mut space.manager);
    let value = plies.last().filter(|p| p.ply == 0).map(|p| match (p.won, p.drawn) {
        (w, _) if w > 0 => Value::FirstPlayerWins,
        (_, d) if d > 0 => Value::Draw,
        _ => Value::SecondPlayerWins,
    });
    Ok(PartitionedSummary { plies, value, time_s: start.elapsed().as_secs_f64() })
}

/// The records of every part of ply `ply`, once all are saved (by this
/// process or others), looked for at growing intervals up to 5 s;
/// `waiting` is told once if they are not there at first.
fn wait_for(store: &PartStore, ply: u32, waiting: &mut (dyn FnMut(u32) + Send)) -> Result<Vec<PartRecord>> {
    let mut pause = Duration::from_millis(20);
    loop {
        if let Some(parts) = store.complete(ply)? {
            return Ok(parts);
        }
        if pause == Duration::from_millis(20) {
            waiting(ply);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_secs(5));
    }
}

/// The row of ply `i` in the first player's view from its parts' records,
/// which must add up to the forward pass's count and match their files'
/// labels.
fn ply_row(space: &StateSpace, forward: &PlyRecord, parts: &[PartRecord], store: &PartStore) -> Result<SolvePly> {
    let i = forward.ply;
    for r in parts {
        store.check_labels(space, r)?;
    }
    let sum = |f: fn(&PartRecord) -> u128| parts.iter().map(f).sum::<u128>();
    let (win, draw, lost) = (sum(|r| r.win), sum(|r| r.draw), sum(|r| r.lost));
    if win + draw + lost != forward.states {
        return Err(store.bad_ply(i, "its parts do not add up to the ply's states"));
    }
    let (won, lost) = if i.is_multiple_of(2) { (win, lost) } else { (lost, win) };
    Ok(SolvePly {
        ply: i,
        won,
        drawn: draw,
        lost,
        total: forward.states,
        terminal: forward.terminal.expect("a solve's forward pass counts the terminal states"),
        nodes: parts.iter().map(|r| r.nodes).sum(),
        time_s: parts.iter().map(|r| r.time_s).sum(),
        rss_bytes: None,
        peak_rss_bytes: parts.iter().filter_map(|r| r.peak_rss_bytes).max(),
        peak_nodes: parts.iter().filter_map(|r| r.peak_nodes).max(),
        phases: Phases::total(parts.iter().map(|r| r.phases)),
    })
}

/// Once ply `i` is done, ply `i + 1`'s drawn sets go, and so do its won
/// and lost sets if the plies kept from `i + 1` up would take more than
/// `budget` bytes.
fn release_above(store: &PartStore, i: u32, budget: Option<u64>) -> Result<()> {
    use store::Set;
    store.remove(i + 1, &[Set::Draw])?;
    let Some(budget) = budget else { return Ok(()) };
    let kept: u64 = (i + 1..=store.top()).map(|k| store.bytes(k, &[Set::Won, Set::Lost]).0).sum();
    if kept > budget {
        store.remove(i + 1, &[Set::Won, Set::Lost])?;
    }
    Ok(())
}

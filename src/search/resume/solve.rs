//! Checkpoints of a solve: every forward layer as it is made
//! (`layer-NNN.bdd`), then, ply by ply from the last, the `win` and `lost`
//! BDDs of the lowest solved ply (`solved-NNN.bdd`), with `solve-checkpoint.json`
//! holding the setup, the records so far and a checksum of all of them. The
//! label of each BDD file (inside the file's checksum) holds the setup's
//! checksum and the file's record, and the lowest solved ply's a checksum
//! of the records of the plies solved above it, so a setting or record
//! edited in the JSON (with its checksum recomputed) no longer matches the
//! files; each solved record must add up to its ply's forward count; the
//! files' names must be those their plies give.
//!
//! Within a ply, the two pre-images are saved part way (`pre-lost-NNN-stepKKK.bdd`,
//! `pre-draw-NNN-stepKKK.bdd`: the union over the steps joined so far, with
//! the ply's time and phases so far in the JSON), at most once per interval
//! and once finished, so that a ply that outlasts a session resumes from its
//! last saved step and its clock (after both pre-images, from the split);
//! they go once the ply is solved.
//!
//! A checkpoint is taken up by a solve of the same sets: the same board,
//! encoding, order, termination and frames. How a pre-image is computed (one
//! relation or one per column, the image split) may change from one process
//! to the next, e.g. to split the pre-images of a ply that outlasts a session
//! into steps that are saved; a pre-image saved part way is taken up only by
//! the settings that made it (its steps are theirs), and started over by
//! others. The files keep the labels of the setup the checkpoint was made
//! with.
//!
//! Every file is written to a temporary name, synced and renamed; the JSON is
//! written after the BDD file it names, and a superseded `solved-*` file is
//! removed only after that, so a kill at any moment leaves a checkpoint of the
//! last finished step. Loading checks each file's content against the records
//! (state counts, frames, win and lost disjoint and inside the ply's states).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bdd::Bdd;
use crate::encoding::StateSpace;
use crate::error::Result;
use crate::search::files::{
    bad, check_versions, json_crc, label, load_in_frame as load, lock_dir, read_regular, write_atomic, DirLock,
    PARTIAL_EVERY,
};
use crate::search::ply::options::ForwardOptions;
use crate::search::ply::phases::SoFar;
use crate::search::ply::records::PlyRecord;
use crate::search::ply::records::SolvePly;
use crate::search::ply::transition::{with_retry, Joined, Target};
use crate::search::resume::forward::Setup;

const FORMAT: &str = "c4bdd-solve-checkpoint";
/// The version written. Its `solved-NNN.bdd` labels hold a checksum of the
/// records of the plies solved above too; version 3's (read, and written
/// on until the next solved ply) hold the ply's own record only.
const VERSION: u32 = 4;
const OLDEST: u32 = 3;
const FILE: &str = "solve-checkpoint.json";

/// What the JSON file records.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Progress {
    /// Forward records of the saved layers, plies 0, 1, ...
    forward: Vec<PlyRecord>,
    /// Solved plies, from the last ply down.
    solved: Vec<SolvePly>,
    /// The file with `win` and `lost` of the lowest solved ply.
    solved_file: Option<String>,
    /// The pre-images of the ply being solved (the one below the lowest
    /// solved), as far as they were built: at most one per target set
    /// (absent when none, as in checkpoints of builds before them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    partial: Vec<Partial>,
}

/// A pre-image of the ply being solved, saved part way: the union over its
/// first `steps` products ([`Joined`]; named `relations` in the file and its
/// label, the steps' count without an image split).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Partial {
    ply: u32,
    target: Target,
    #[serde(rename = "relations")]
    steps: usize,
    file: String,
    /// The options whose steps these are, when not the checkpoint's setup's
    /// (and then absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    options: Option<ForwardOptions>,
    /// The ply's seconds and phases at the save (absent in checkpoints of
    /// builds before them: a ply taken up from those starts its clock anew).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    so_far: Option<SoFar>,
    /// Whether `steps` are all the pre-image's steps (absent when not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    finished: bool,
    /// Whether the image split's parts are cut on variables of cells
    /// ([`crate::search::ply::transition::top_cell_vars`]), as every save's are;
    /// when absent, on the top state variables with the side to move, and
    /// such steps part way under a split are not taken up.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    cells_cut: bool,
}

/// The name of the file of a pre-image over its first `steps` steps: each
/// save a new file, so that the JSON always names a file that matches it.
fn partial_file(ply: u32, target: Target, steps: usize) -> String {
    let set = if target == Target::Lost { "lost" } else { "draw" };
    format!("pre-{set}-{ply:03}-step{steps:03}.bdd")
}

/// The label of a checkpoint's BDD file holding `what`, with the setup's
/// checksum.
fn setup_label(space: &StateSpace, setup: &Setup, what: &str) -> String {
    label(space, &format!("{what}, setup {:08x}", setup.crc()))
}

/// The label of a saved pre-image: its ply, set, relations and the setup.
fn partial_label(space: &StateSpace, setup: &Setup, p: &Partial) -> String {
    let what = format!("pre-image of {:?} into ply {}, {} relations", p.target, p.ply + 1, p.steps);
    setup_label(space, setup, &what)
}

/// `solve-checkpoint.json`.
#[derive(Clone, Serialize, Deserialize)]
struct CheckpointFile {
    format: String,
    version: u32,
    setup: Setup,
    progress: Progress,
    /// CRC-32 of the file's compact JSON with this field 0.
    crc32: u32,
}

/// The checksum `file` should hold.
fn crc(file: &CheckpointFile) -> u32 {
    json_crc(&CheckpointFile { crc32: 0, ..file.clone() })
}

fn layer_file(ply: u32) -> String {
    format!("layer-{ply:03}.bdd")
}

fn solved_file(ply: u32) -> String {
    format!("solved-{ply:03}.bdd")
}

/// The label of a layer's file: its ply, number of states and setup.
fn layer_label(space: &StateSpace, setup: &Setup, record: &PlyRecord) -> String {
    setup_label(space, setup, &format!("{} states of ply {}", record.states, record.ply))
}

/// The label of the file of the lowest of the solved plies `solved` (from
/// the last ply down): its ply, its table row and the setup, and from
/// version 4 on the checksum of the records above it, so that every record
/// the checkpoint resumes with is tied to a file's content.
fn solved_label(space: &StateSpace, setup: &Setup, solved: &[SolvePly], version: u32) -> String {
    let (p, above) = solved.split_last().expect("a solved ply");
    let row = format!("{} won, {} drawn, {} lost", p.won, p.drawn, p.lost);
    let chain = if version >= 4 { format!(", plies above {:08x}", json_crc(&above)) } else { String::new() };
    setup_label(space, setup, &format!("win and lost of ply {}, {row}{chain}", p.ply))
}

/// Work a checkpoint holds: the layers with their records, the solved plies
/// and the lowest one's `win` and `lost` (pinned).
#[derive(Default)]
pub struct SolveResume {
    pub forward: Vec<PlyRecord>,
    /// Per counted ply its states, pinned, or `None` where they stay on disk
    /// until [`SolveCheckpoint::load_layer`] (see [`SolveCheckpoint::open`]).
    pub layers: Vec<Option<Bdd>>,
    pub solved: Vec<SolvePly>,
    /// `win`, `draw` and `lost` of the lowest solved ply (pinned); `None`
    /// when no ply is solved or when `pre_images_held`.
    pub lowest: Option<[Bdd; 3]>,
    /// Whether the checkpoint holds both pre-images of the ply below the
    /// lowest solved one, finished, under this solve's options: that ply is
    /// then solved from them, and the lowest solved ply (its layer, `win`
    /// and `lost`) is not loaded.
    pub pre_images_held: bool,
    /// How long opening took, part by part.
    pub took: TakeUp,
}

/// The seconds that opening a checkpoint spent on each part.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TakeUp {
    /// Loading and counting the layers held.
    pub layers_s: f64,
    /// Loading the lowest solved ply's `win` and `lost`.
    pub solved_read_s: f64,
    /// Rebuilding its draw (one three-way split that checks `win` and `lost`)
    /// and checking the three sets by counting.
    pub solved_check_s: f64,
    /// Checking the solution's files of the solved plies (set by the caller
    /// that adopts them; `None` without a solution folder).
    pub solution_s: Option<f64>,
}

/// What the solve checkpoint in `dir` holds, in words ("43 layers, 12
/// plies solved", and how far the next ply's pre-images are), or `None`
/// when there is none (or it cannot be read).
pub fn describe(dir: &Path) -> Option<String> {
    let file: CheckpointFile = serde_json::from_str(&read_regular(&dir.join(FILE)).ok()?).ok()?;
    let progress = file.progress;
    let (layers, solved) = (progress.forward.len(), progress.solved.len());
    let finished = progress.partial.iter().filter(|p| p.finished).count();
    let open = progress.partial.iter().filter(|p| !p.finished).map(|p| p.steps).max();
    let part = match (open, finished) {
        (None, 0) => String::new(),
        (None, _) => format!(", the next with {finished} of its 2 pre-images finished"),
        (Some(steps), 0) => format!(", the next part way ({steps} products of a pre-image)"),
        (Some(steps), _) => format!(", the next part way ({steps} products of a pre-image, the other finished)"),
    };
    Some(format!("{layers} layers, {solved} plies solved{part}"))
}

/// A solve checkpoint directory in use.
pub struct SolveCheckpoint {
    dir: PathBuf,
    /// The setup the checkpoint was made with (its files' labels hold it).
    setup: Setup,
    progress: Progress,
    /// This solve's options: the setup's but for how images are computed.
    options: ForwardOptions,
    /// The least time between two saves of a pre-image part way.
    partial_every: Duration,
    /// When a pre-image was last saved (or its ply started).
    last_partial: Instant,
    /// The folder's lock, held by a checkpoint opened to be written.
    lock: Option<DirLock>,
    /// The version of the JSON file: that of the lowest solved ply's label.
    version: u32,
}

impl SolveCheckpoint {
    /// Open (creating it if needed) a checkpoint directory; returns what it
    /// holds. A checkpoint of other sets (another board, encoding, order,
    /// termination or frames) is refused; see the module documentation.
    /// With `hold`, every layer is loaded; without, only those the passes
    /// take up at once: the last layer of an unfinished forward pass and the
    /// layer of the lowest solved ply.
    pub fn open(
        dir: &Path,
        space: &mut StateSpace,
        options: &ForwardOptions,
        hold: bool,
    ) -> Result<(SolveCheckpoint, SolveResume)> {
        let lock = Some(lock_dir(dir)?);
        let Some(mut checkpoint) = Self::open_records(dir, space, options)? else {
            return Ok((SolveCheckpoint { lock, ..Self::empty(dir, space, options) }, SolveResume::default()));
        };
        checkpoint.lock = lock;
        let progress = &checkpoint.progress;
        let cells = space.size().cells();
        let lowest_ply = progress.solved.last().map(|p| p.ply);
        let held = lowest_ply.and_then(|p| p.checked_sub(1)).is_some_and(|i| checkpoint.pre_images_held(i));
        let mut took = TakeUp::default();
        let started = Instant::now();
        let mut layers = Vec::new();
        for record in &progress.forward {
            let unfinished_last = record.ply + 1 == progress.forward.len() as u32 && record.ply < cells;
            let needed = hold || unfinished_last || (Some(record.ply) == lowest_ply && !held);
            layers.push(if needed { Some(checkpoint.load_layer(space, record.ply)?) } else { None });
        }
        took.layers_s = started.elapsed().as_secs_f64();
        let lowest = match (&progress.solved_file, progress.solved.last()) {
            _ if held => None,
            (Some(name), Some(record)) => {
                let states = layers[record.ply as usize].expect("the lowest solved ply's layer is loaded");
                let layer = (states, progress.forward[record.ply as usize].states);
                let (setup, version) = (&checkpoint.setup, checkpoint.version);
                let solved = &progress.solved;
                Some(load_solved(space, &dir.join(name), (setup, version), options, layer, solved, &mut took)?)
            }
            _ => None,
        };
        let forward = progress.forward.clone();
        let solved = progress.solved.clone();
        let resume = SolveResume { forward, layers, solved, lowest, pre_images_held: held, took };
        Ok((checkpoint, resume))
    }

    /// A checkpoint in `dir` that holds nothing yet.
    fn empty(dir: &Path, space: &StateSpace, options: &ForwardOptions) -> SolveCheckpoint {
        SolveCheckpoint {
            dir: dir.to_path_buf(),
            setup: Setup::of(space, options),
            progress: Progress::default(),
            options: *options,
            partial_every: PARTIAL_EVERY,
            last_partial: Instant::now(),
            lock: None,
            version: VERSION,
        }
    }

    /// The checkpoint in `dir` with its records read and checked as
    /// [`SolveCheckpoint::open`] checks them, no BDD loaded; `None` when
    /// `dir` holds none.
    pub fn open_records(dir: &Path, space: &StateSpace, options: &ForwardOptions) -> Result<Option<SolveCheckpoint>> {
        let path = dir.join(FILE);
        if !path.exists() {
            return Ok(None);
        }
        let mut checkpoint = Self::empty(dir, space, options);
        (checkpoint.setup, checkpoint.progress, checkpoint.version) =
            read_progress(&path, &checkpoint.setup, space.size().cells())?;
        Ok(Some(checkpoint))
    }

    /// The records of the forward layers saved, plies 0, 1, ...
    pub fn forward(&self) -> &[PlyRecord] {
        &self.progress.forward
    }

    /// The records of the solved plies, from the last ply down.
    pub fn solved(&self) -> &[SolvePly] {
        &self.progress.solved
    }

    /// CRC-32 of the setup the checkpoint was made with, which the labels of
    /// its BDD files (and of files made from them) hold.
    pub fn setup_crc(&self) -> u32 {
        self.setup.crc()
    }

    /// The lowest solved ply's record and its `win`, `draw` and `lost`
    /// (pinned), checked against its layer and record as
    /// [`SolveCheckpoint::open`] checks them; `None` when no ply is solved.
    pub fn load_lowest(&self, space: &mut StateSpace) -> Result<Option<(SolvePly, [Bdd; 3])>> {
        let (Some(name), Some(record)) = (&self.progress.solved_file, self.progress.solved.last()) else {
            return Ok(None);
        };
        let states = self.load_layer(space, record.ply)?;
        let layer = (states, self.progress.forward[record.ply as usize].states);
        let file = self.dir.join(name);
        let (solved, took) = (&self.progress.solved, &mut TakeUp::default());
        let sets = load_solved(space, &file, (&self.setup, self.version), &self.options, layer, solved, took);
        space.manager.unpin(states);
        Ok(Some((*record, sets?)))
    }

    /// Load the states of a saved layer, checked against its record, pinned.
    pub fn load_layer(&self, space: &mut StateSpace, ply: u32) -> Result<Bdd> {
        let record = self.progress.forward.get(ply as usize).expect("a layer of the checkpoint");
        let file = self.dir.join(layer_file(ply));
        let frame = self.options.image.frame_of(ply);
        let [states] = load(space, &file, &layer_label(space, &self.setup, record), frame)?[..] else {
            return Err(bad(&file, "expected one BDD"));
        };
        if space.count(states, frame) != record.states {
            return Err(bad(&file, "its state count differs from the checkpoint's record"));
        }
        space.manager.pin(states);
        Ok(states)
    }

    /// Record a finished forward layer; `records` are all forward records so far.
    pub fn save_layer(&mut self, space: &StateSpace, records: &[PlyRecord], states: Bdd) -> Result<()> {
        let ply = records.last().map_or(0, |r| r.ply);
        let states_label = layer_label(space, &self.setup, records.last().expect("a layer has its record"));
        space.manager.save(&[states], &states_label, &self.dir.join(layer_file(ply)))?;
        self.progress.forward = records.to_vec();
        self.write()
    }

    /// Record a solved ply (the next lower one) with its `win` and `lost`;
    /// its pre-images saved part way are not needed again.
    pub fn save_solved(&mut self, space: &StateSpace, record: &SolvePly, win: Bdd, lost: Bdd) -> Result<()> {
        let name = solved_file(record.ply);
        let mut solved = self.progress.solved.clone();
        solved.push(*record);
        space.manager.save(&[win, lost], &solved_label(space, &self.setup, &solved, VERSION), &self.dir.join(&name))?;
        self.progress.solved = solved;
        self.version = VERSION;
        let old = self.progress.solved_file.replace(name);
        let partial = std::mem::take(&mut self.progress.partial);
        self.write()?;
        for file in old.into_iter().chain(partial.into_iter().map(|p| p.file)) {
            let _ = std::fs::remove_file(self.dir.join(file));
        }
        self.last_partial = Instant::now();
        Ok(())
    }

    /// Save pre-images part way at most once per `every` (default
    /// ten minutes; zero saves after every step).
    pub fn set_partial_every(&mut self, every: Duration) {
        self.partial_every = every;
    }

    /// Save `joined`, the pre-image of `target` into ply `ply + 1` over its
    /// first steps, with the ply's time and phases `so_far`, if the last such
    /// save is at least the interval ago or the pre-image is `finished` (a
    /// finished pre-image is always kept: the rest of the ply, the other
    /// pre-image and the split, may outlast the process).
    pub fn save_partial(
        &mut self,
        space: &StateSpace,
        (ply, target): (u32, Target),
        (joined, finished): (Joined, bool),
        so_far: SoFar,
    ) -> Result<()> {
        if !finished && self.last_partial.elapsed() < self.partial_every {
            return Ok(());
        }
        let options = (self.options != *self.setup.options()).then_some(self.options);
        let file = partial_file(ply, target, joined.steps);
        let p = Partial {
            ply,
            target,
            steps: joined.steps,
            file,
            options,
            so_far: Some(so_far),
            finished,
            cells_cut: true,
        };
        space.manager.save(&[joined.union], &partial_label(space, &self.setup, &p), &self.dir.join(&p.file))?;
        let stale: Vec<String> = self
            .progress
            .partial
            .iter()
            .filter(|q| q.target == target && q.file != p.file)
            .map(|q| q.file.clone())
            .collect();
        self.progress.partial.retain(|q| q.target != target);
        self.progress.partial.push(p);
        self.write()?;
        for file in stale {
            let _ = std::fs::remove_file(self.dir.join(file));
        }
        self.last_partial = Instant::now();
        Ok(())
    }

    /// The pre-image of `target` into ply `ply + 1` as far as it was saved
    /// (pinned), checked against its label and frame; `None` if none was, or
    /// under other options than this solve's.
    pub fn partial(&mut self, space: &mut StateSpace, ply: u32, target: Target) -> Result<Option<Joined>> {
        let Some(p) = self.taken_up(ply).find(|p| p.target == target).cloned() else {
            return Ok(None);
        };
        let file = self.dir.join(&p.file);
        let frame = self.options.image.frame_of(ply);
        let [union] = load(space, &file, &partial_label(space, &self.setup, &p), frame)?[..] else {
            return Err(bad(&file, "expected one BDD"));
        };
        space.manager.pin(union);
        Ok(Some(Joined { steps: p.steps, union }))
    }

    /// The time and phases of ply `ply` at its latest save that
    /// [`SolveCheckpoint::partial`] takes up, if any.
    pub fn so_far(&self, ply: u32) -> Option<SoFar> {
        self.taken_up(ply).filter_map(|p| p.so_far).max_by(|a, b| a.time_s.total_cmp(&b.time_s))
    }

    /// Whether both pre-images of ply `ply` are saved finished under this
    /// solve's options.
    fn pre_images_held(&self, ply: u32) -> bool {
        self.taken_up(ply).filter(|p| p.finished).count() == 2
    }

    /// The pre-images of ply `ply` saved part way under this solve's options
    /// of images ([`ForwardOptions::images`]).
    fn taken_up(&self, ply: u32) -> impl Iterator<Item = &Partial> {
        let made_with = |p: &Partial| p.options.unwrap_or(*self.setup.options()).images();
        let goes_on = move |p: &Partial| p.finished || made_with(p).steps_taken_up(p.cells_cut);
        self.progress
            .partial
            .iter()
            .filter(move |p| p.ply == ply && made_with(p) == self.options.images() && goes_on(p))
    }

    fn write(&self) -> Result<()> {
        let mut file = CheckpointFile {
            format: FORMAT.into(),
            version: self.version,
            setup: self.setup.clone(),
            progress: self.progress.clone(),
            crc32: 0,
        };
        file.crc32 = crc(&file);
        let text = serde_json::to_string(&file).expect("a checkpoint serializes");
        write_atomic(&self.dir.join(FILE), &text)
    }
}

/// The setup of the solve checkpoint in `dir` (its file's format and
/// checksum checked), for a reader that has no state space yet.
pub(crate) fn read_setup(dir: &Path) -> Result<Setup> {
    let path = dir.join(FILE);
    let text = read_regular(&path)?;
    check_versions(&path, &text, "solve checkpoint", FORMAT, OLDEST..=VERSION)?;
    let file: CheckpointFile =
        serde_json::from_str(&text).map_err(|e| bad(&path, format!("not a c4bdd solve checkpoint: {e}")))?;
    if crc(&file) != file.crc32 {
        return Err(bad(&path, "the checkpoint does not match its checksum"));
    }
    Ok(file.setup)
}

/// Read and check `solve-checkpoint.json`: format, setup (of the same sets
/// as `setup`), checksum, and records that are plies 0, 1, ... forward and
/// the last plies solved. Returns the file's setup, records and version.
fn read_progress(path: &Path, setup: &Setup, cells: u32) -> Result<(Setup, Progress, u32)> {
    let text = read_regular(path)?;
    let version = check_versions(path, &text, "solve checkpoint", FORMAT, OLDEST..=VERSION)?;
    let file: CheckpointFile =
        serde_json::from_str(&text).map_err(|e| bad(path, format!("not a c4bdd solve checkpoint: {e}")))?;
    if crc(&file) != file.crc32 {
        return Err(bad(path, "the checkpoint does not match its checksum"));
    }
    file.setup.check_same_sets(setup, path)?;
    let progress = file.progress;
    let forward_ok = progress.forward.iter().enumerate().all(|(i, r)| r.ply == i as u32)
        && progress.forward.len() as u32 <= cells + 1;
    let solved_ok = progress.solved.iter().enumerate().all(|(i, p)| p.ply + i as u32 == cells)
        && (progress.solved.is_empty() || progress.forward.len() as u32 == cells + 1)
        && progress.solved.is_empty() == progress.solved_file.is_none();
    if !forward_ok || !solved_ok {
        return Err(bad(path, "the records are not plies 0, 1, ... forward and the last plies solved"));
    }
    // A solved ply's won, drawn and lost positions are its forward states.
    for p in &progress.solved {
        let states = progress.forward[p.ply as usize].states;
        if p.won.checked_add(p.drawn).and_then(|n| n.checked_add(p.lost)) != Some(states) || p.total != states {
            let reason = format!("the record of solved ply {} does not add up to the ply's {states} states", p.ply);
            return Err(bad(path, reason));
        }
    }
    let solving = progress.solved.last().map(|p| p.ply.wrapping_sub(1));
    if let Some(p) =
        progress.partial.iter().find(|p| Some(p.ply) != solving || p.file != partial_file(p.ply, p.target, p.steps))
    {
        return Err(bad(path, format!("a pre-image of ply {} in {:?} is not of the ply being solved", p.ply, p.file)));
    }
    let expected = progress.solved.last().map(|p| solved_file(p.ply));
    if progress.solved_file != expected {
        let (named, expected) = (progress.solved_file.as_deref(), expected.as_deref());
        let reason = format!(
            "names the file {:?} for the lowest solved ply, expected {:?}",
            named.unwrap_or(""),
            expected.unwrap_or("")
        );
        return Err(bad(path, reason));
    }
    Ok((file.setup, progress, version))
}

/// Load the `win` and `lost` BDDs of the lowest of the solved plies
/// `solved` (its label as of `version`), rebuild its draw from its `states`
/// (which hold `count` states), and check all three against its record. One three-way split of `states` by `win` and `lost` gives
/// `states ∧ win`, `states ∧ ¬win ∧ lost` and the draw; the first two are
/// `win` and `lost` themselves exactly when both lie inside `states` and are
/// disjoint, and then, the BDDs being canonical, their nodes are found, not
/// built: the check builds the draw's nodes alone (no union of `win` and
/// `lost`). Counting then checks the three against the record's counts,
/// which must sum to `count`. Returns `win`, `draw` and `lost`, pinned; adds
/// the seconds of reading and checking to `took`.
fn load_solved(
    space: &mut StateSpace,
    file: &Path,
    (setup, version): (&Setup, u32),
    options: &ForwardOptions,
    (states, count): (Bdd, u128),
    solved: &[SolvePly],
    took: &mut TakeUp,
) -> Result<[Bdd; 3]> {
    let record = solved.last().expect("a solved ply");
    let frame = options.image.frame_of(record.ply);
    let started = Instant::now();
    let [win, lost] = load(space, file, &solved_label(space, setup, solved, version), frame)?[..] else {
        return Err(bad(file, "expected win and lost"));
    };
    took.solved_read_s = started.elapsed().as_secs_f64();
    let m = &mut space.manager;
    m.pin(win);
    m.pin(lost);
    let mismatch = |why: &str| bad(file, format!("its BDDs do not match the record of ply {}{why}", record.ply));
    let (inside_win, inside_lost, draw) = with_retry(m, &[], |m| m.split3(states, win, lost))?;
    if (inside_win, inside_lost) != (win, lost) {
        return Err(mismatch(": the won and lost sets overlap or leave its states"));
    }
    m.pin(draw);
    m.make_room_for_count();
    let mut counter = space.manager.counter(space.layout.set(frame));
    let sets = [win, lost, draw];
    for f in sets {
        counter.add(f);
    }
    let [w, l, d] = sets.map(|f| counter.count(f));
    let (won, lost_count) = if record.ply.is_multiple_of(2) { (w, l) } else { (l, w) };
    let sums = record.won + record.drawn + record.lost == count;
    if !sums || won != record.won || lost_count != record.lost || d != record.drawn {
        return Err(mismatch(""));
    }
    took.solved_check_s = started.elapsed().as_secs_f64() - took.solved_read_s;
    Ok([win, draw, lost])
}

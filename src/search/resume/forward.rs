//! Checkpoints of the forward pass: after each ply, the ply's states (a BDD
//! file named by the ply) and `checkpoint.json` (setup, file name, the ply
//! records so far, and a CRC-32 of all of them). Each file is written to a
//! temporary name, synced and renamed, the JSON last and the previous BDD file
//! removed after it, so a kill at any moment leaves a consistent checkpoint of
//! the last finished ply.
//!
//! Within a ply, the image is saved part way (`image-plyNNN-stepKKK.bdd`: the union
//! over the steps joined so far, with the ply's time and phases so far), at
//! most once per interval, so that a ply that outlasts a session resumes
//! from its last saved step; it goes once the ply is finished. An image has
//! steps to save only when it has more than one product: one relation per
//! column (`in-place-columns`) or an image split.
//!
//! A checkpoint is taken up by a count of the same sets (board, encoding,
//! order, termination, frames); how an image is computed may change from
//! one process to the next, and an image saved part way is taken up only
//! under the options that made it. The files keep the labels of the setup
//! the checkpoint was made with.
//!
//! Every field a resume trusts is under the JSON's checksum, and the BDD
//! files' labels (inside the files' own checksums) hold that checksum too: an
//! edited setting or record is refused even when the JSON's checksum is
//! recomputed. The BDD files' names must be those their plies give.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bdd::Bdd;
use crate::encoding::{EncodingKind, StateSpace};
use crate::error::Result;
use crate::search::files::{
    bad, check_version, json_crc, label, load_in_frame, lock_dir, read_regular, write_atomic, DirLock, PARTIAL_EVERY,
};
use crate::search::ply::options::{ForwardOptions, ImageStrategy};
use crate::search::ply::phases::Phases;
use crate::search::ply::records::PlyRecord;
use crate::search::ply::transition::Joined;
use crate::search::resume::{ImageSoFar, Resume};

const FORMAT: &str = "c4bdd-count-checkpoint";
const VERSION: u32 = 3;

/// What a checkpoint must agree on to be resumed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Setup {
    width: u8,
    height: u8,
    encoding: EncodingKind,
    arrangement: Vec<String>,
    options: ForwardOptions,
}

impl Setup {
    /// The setup of a search on `space` with `options`.
    pub(crate) fn of(space: &StateSpace, options: &ForwardOptions) -> Setup {
        let size = space.size();
        Setup {
            width: size.width,
            height: size.height,
            encoding: space.encoding.kind(),
            arrangement: space.arrangement.clone(),
            options: *options,
        }
    }

    /// CRC-32 of the setup (compact JSON), for the labels of the BDD files
    /// it makes.
    pub(crate) fn crc(&self) -> u32 {
        json_crc(self)
    }

    /// Refuse a checkpoint (`path`) whose BDDs are not those a search with
    /// `wanted` makes: of another board, encoding, order or termination, or
    /// with plies in other frames. How an image is computed (one relation
    /// or one per column, the image split) and the split in parts of a
    /// retrograde ply may differ: they change the work, not the sets.
    pub(crate) fn check_same_sets(&self, wanted: &Setup, path: &Path) -> Result<()> {
        let (mine, theirs) = (&self.options, &wanted.options);
        let same_frames = (0..2).all(|ply| mine.image.frame_of(ply) == theirs.image.frame_of(ply));
        let with_my_images = ForwardOptions {
            image: mine.image,
            image_split: mine.image_split,
            split_parts: mine.split_parts,
            ..*theirs
        };
        if same_frames && (Setup { options: with_my_images, ..wanted.clone() }) == *self {
            return Ok(());
        }
        Err(self.refusal(path))
    }

    fn refusal(&self, path: &Path) -> crate::Error {
        let reason = format!(
            "the checkpoint is of {}x{} {} with other order or options; use another directory",
            self.width, self.height, self.encoding
        );
        bad(path, reason)
    }

    /// The search options the checkpoint was made with.
    pub(crate) fn options(&self) -> &ForwardOptions {
        &self.options
    }

    /// The state space of the setup: its board, encoding and variable order.
    pub(crate) fn space(&self) -> Result<StateSpace> {
        let size = crate::game::BoardSize::new(self.width as u32, self.height as u32)?;
        let order = crate::encoding::OrderSpec::Custom { path: "checkpoint".into(), names: self.arrangement.clone() };
        StateSpace::new(self.encoding, size, &order, crate::bdd::Config::default())
    }
}

/// An image saved part way ([`ImageSoFar`]) and the options whose steps
/// these are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SavedImage {
    /// The ply the image is from.
    ply: u32,
    steps: usize,
    file: String,
    options: ForwardOptions,
    time_s: f64,
    phases: Phases,
    /// Whether the image split's parts are cut on variables of cells
    /// ([`crate::search::ply::transition::top_cell_vars`]), as every save's are;
    /// when absent, on the top state variables with the side to move, and
    /// such steps part way under a split are not taken up.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    cells_cut: bool,
}

/// `checkpoint.json`.
#[derive(Clone, Serialize, Deserialize)]
struct CheckpointFile {
    format: String,
    version: u32,
    setup: Setup,
    /// The BDD file of the last finished ply.
    file: String,
    records: Vec<PlyRecord>,
    /// The image from the last finished ply, part way (absent when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    image: Option<SavedImage>,
    /// CRC-32 of the file's compact JSON with this field 0.
    crc32: u32,
}

impl CheckpointFile {
    /// The checksum the file should hold.
    fn crc(&self) -> u32 {
        json_crc(&CheckpointFile { crc32: 0, ..self.clone() })
    }

    /// The checksum of the file without its image part way: the one the
    /// labels of its BDD files hold.
    fn finished_crc(&self) -> u32 {
        CheckpointFile { image: None, ..self.clone() }.crc()
    }

    /// The label of the BDD file of the last ply: its ply, its number of
    /// states and the body's checksum, so that a body edited in the JSON
    /// (with a new checksum there) no longer matches the BDD file.
    fn states_label(&self, space: &StateSpace) -> String {
        let last = self.records.last().expect("a checkpoint has a ply");
        let what = format!("{} states of ply {}, checkpoint {:08x}", last.states, last.ply, self.finished_crc());
        label(space, &what)
    }

    /// The label of the image saved part way: its ply, steps and options,
    /// and the checksum of the finished plies it follows.
    fn image_label(&self, space: &StateSpace, image: &SavedImage) -> String {
        let what = format!(
            "image from ply {}, {} steps under {}, checkpoint {:08x}",
            image.ply,
            image.steps,
            serde_json::to_string(&image.options).expect("options serialize"),
            self.finished_crc()
        );
        label(space, &what)
    }
}

/// The name of the BDD file of ply `ply`'s states.
fn states_file(ply: u32) -> String {
    format!("states-ply{ply:03}.bdd")
}

/// The name of the BDD file of the image from ply `ply` over its first
/// `steps` steps: each save a new file, so that the JSON always names a
/// file that matches it.
fn image_file(ply: u32, steps: usize) -> String {
    format!("image-ply{ply:03}-step{steps:03}.bdd")
}

/// What the forward checkpoint in `dir` holds, in words ("36 plies
/// counted", "..., the image from ply 35 part way (4 of 16 steps)"), or
/// `None` when there is none (or it cannot be read).
pub fn describe(dir: &Path) -> Option<String> {
    let file: CheckpointFile = serde_json::from_str(&read_regular(&dir.join("checkpoint.json")).ok()?).ok()?;
    let counted = format!("{} plies counted", file.records.len());
    Some(match file.image {
        Some(image) => {
            let columns = matches!(image.options.image, ImageStrategy::Columns | ImageStrategy::InPlaceColumns);
            let steps = (if columns { usize::from(file.setup.width) } else { 1 }) << image.options.image_split;
            format!("{counted}, the image from ply {} part way ({} of {steps} steps)", image.ply, image.steps)
        }
        None => counted,
    })
}

/// A checkpoint directory in use.
pub struct Checkpoint {
    dir: PathBuf,
    /// The setup the checkpoint was made with (the labels hold its checksum).
    setup: Setup,
    /// This count's options: the setup's but for how images are computed.
    options: ForwardOptions,
    /// The file as last written.
    written: Option<CheckpointFile>,
    /// The least time between two saves of an image part way.
    partial_every: Duration,
    /// When an image was last saved (or its ply started).
    last_partial: Instant,
    /// The folder's lock.
    _lock: DirLock,
}

impl Checkpoint {
    /// Open (creating it if needed) a checkpoint directory for this space and
    /// options; returns where to resume, if a checkpoint is there, with the
    /// image saved part way if it was made under these options (loaded and
    /// pinned). A checkpoint of other sets is refused.
    pub fn open(dir: &Path, space: &mut StateSpace, options: &ForwardOptions) -> Result<(Checkpoint, Option<Resume>)> {
        let lock = lock_dir(dir)?;
        let size = space.size();
        let mut checkpoint = Checkpoint {
            _lock: lock,
            dir: dir.to_path_buf(),
            setup: Setup::of(space, options),
            options: *options,
            written: None,
            partial_every: PARTIAL_EVERY,
            last_partial: Instant::now(),
        };
        let path = dir.join("checkpoint.json");
        if !path.exists() {
            return Ok((checkpoint, None));
        }
        let text = read_regular(&path)?;
        check_version(&path, &text, "checkpoint", FORMAT, VERSION)?;
        let file: CheckpointFile =
            serde_json::from_str(&text).map_err(|e| bad(&path, format!("not a c4bdd checkpoint: {e}")))?;
        if file.crc() != file.crc32 {
            return Err(bad(&path, "the checkpoint does not match its checksum"));
        }
        file.setup.check_same_sets(&checkpoint.setup, &path)?;
        let last = file.records.last().map(|r| r.ply);
        if file.records.iter().enumerate().any(|(i, r)| r.ply != i as u32) || last.is_none_or(|p| p > size.cells()) {
            return Err(bad(&path, "the ply records are not 0, 1, 2, ..."));
        }
        let last = last.expect("checked above");
        let expected = states_file(last);
        if file.file != expected {
            return Err(bad(&path, format!("names the file {:?}, expected {expected}", file.file)));
        }
        if let Some(image) = file.image.as_ref().filter(|i| i.ply != last || i.file != image_file(i.ply, i.steps)) {
            return Err(bad(&path, format!("its image part way ({:?}) is not from its last ply", image.file)));
        }
        let frame = options.image.frame_of(last);
        let [states] = load_in_frame(space, &dir.join(&file.file), &file.states_label(space), frame)?[..] else {
            return Err(bad(&dir.join(&file.file), "expected one BDD"));
        };
        if Some(space.count(states, frame)) != file.records.last().map(|r| r.states) {
            return Err(bad(&dir.join(&file.file), "its state count differs from the checkpoint's record"));
        }
        let image = match file.image.as_ref().filter(|i| i.options == *options && options.steps_taken_up(i.cells_cut)) {
            Some(saved) => Some(checkpoint.load_image(space, &file, saved)?),
            None => None,
        };
        checkpoint.setup = file.setup.clone();
        let resume = Resume { records: file.records.clone(), states, image };
        checkpoint.written = Some(file);
        Ok((checkpoint, Some(resume)))
    }

    /// The image `saved` of `file`, loaded, checked against its label and
    /// frame, and pinned.
    fn load_image(&self, space: &mut StateSpace, file: &CheckpointFile, saved: &SavedImage) -> Result<ImageSoFar> {
        let path = self.dir.join(&saved.file);
        let frame = self.options.image.frame_of(saved.ply + 1);
        let [union] = load_in_frame(space, &path, &file.image_label(space, saved), frame)?[..] else {
            return Err(bad(&path, "expected one BDD"));
        };
        space.manager.pin(union);
        let joined = Joined { steps: saved.steps, union };
        Ok(ImageSoFar { ply: saved.ply, joined, time_s: saved.time_s, phases: saved.phases })
    }

    /// Save images part way at most once per `every` (default
    /// ten minutes; zero saves after every step).
    pub fn set_partial_every(&mut self, every: Duration) {
        self.partial_every = every;
    }

    /// Record a finished ply: its states and all records so far. An image
    /// saved part way goes once the JSON no longer names it.
    pub fn save(&mut self, space: &StateSpace, records: &[PlyRecord], states: Bdd) -> Result<()> {
        let ply = records.last().map_or(0, |r| r.ply);
        let name = states_file(ply);
        let mut file = CheckpointFile {
            format: FORMAT.into(),
            version: VERSION,
            setup: self.setup.clone(),
            file: name.clone(),
            records: records.to_vec(),
            image: None,
            crc32: 0,
        };
        file.crc32 = file.crc();
        space.manager.save(&[states], &file.states_label(space), &self.dir.join(&name))?;
        let old = self.written.replace(file);
        self.write()?;
        self.last_partial = Instant::now();
        if let Some(old) = old {
            let image = old.image.map(|i| i.file);
            for stale in std::iter::once(old.file).chain(image).filter(|f| *f != name) {
                let _ = std::fs::remove_file(self.dir.join(stale));
            }
        }
        Ok(())
    }

    /// Save `image`, the image from the last finished ply part way, if the
    /// last such save (or the ply's start) is at least the interval ago.
    pub fn save_image(&mut self, space: &StateSpace, image: &ImageSoFar) -> Result<()> {
        let Some(file) = self.written.as_mut() else { return Ok(()) };
        if self.last_partial.elapsed() < self.partial_every || file.records.last().map(|r| r.ply) != Some(image.ply) {
            return Ok(());
        }
        let saved = SavedImage {
            ply: image.ply,
            steps: image.joined.steps,
            file: image_file(image.ply, image.joined.steps),
            options: self.options,
            time_s: image.time_s,
            phases: image.phases,
            cells_cut: true,
        };
        let label = file.image_label(space, &saved);
        space.manager.save(&[image.joined.union], &label, &self.dir.join(&saved.file))?;
        let name = saved.file.clone();
        let old = file.image.replace(saved).map(|i| i.file);
        file.crc32 = file.crc();
        self.write()?;
        self.last_partial = Instant::now();
        if let Some(stale) = old.filter(|f| *f != name) {
            let _ = std::fs::remove_file(self.dir.join(stale));
        }
        Ok(())
    }

    /// Write the JSON of the file as last set.
    fn write(&self) -> Result<()> {
        let file = self.written.as_ref().expect("a checkpoint to write");
        write_atomic(&self.dir.join("checkpoint.json"), &serde_json::to_string(file).expect("a checkpoint serializes"))
    }
}

//! Checkpoints of the forward pass: after each ply, the ply's states (a BDD
//! file named by the ply) and `checkpoint.json` (setup, file name, the ply
//! records so far, and a CRC-32 of all of them). Each file is written to a
//! temporary name, synced and renamed, the JSON last and the previous BDD file
//! removed after it, so a kill at any moment leaves a consistent checkpoint of
//! the last finished ply.
//!
//! Every field a resume trusts is under the JSON's checksum, and the BDD
//! file's label (inside the file's own checksum) holds that checksum too: an
//! edited setting or record is refused even when the JSON's checksum is
//! recomputed. The BDD file's name must be the one its ply gives.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::files::{bad, check_version, io, json_crc, label, writable_dir, write_atomic};
use super::forward::Resume;
use super::options::ForwardOptions;
use super::records::PlyRecord;
use crate::bdd::Bdd;
use crate::encoding::{EncodingKind, StateSpace};
use crate::error::Result;

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

    /// Refuse a checkpoint (`path`) whose setup is not `wanted`.
    pub(crate) fn check(&self, wanted: &Setup, path: &Path) -> Result<()> {
        if self == wanted {
            return Ok(());
        }
        Err(self.refusal(path))
    }

    /// Refuse a checkpoint (`path`) whose BDDs are not those a search with
    /// `wanted` makes: of another board, encoding, order or termination, or
    /// with plies in other frames. How an image is computed (one relation
    /// or one per column, the image split) may differ: it changes the work,
    /// not the sets.
    pub(crate) fn check_same_sets(&self, wanted: &Setup, path: &Path) -> Result<()> {
        let (mine, theirs) = (&self.options, &wanted.options);
        let same_frames = (0..2).all(|ply| mine.image.frame_of(ply) == theirs.image.frame_of(ply));
        let with_my_images = ForwardOptions { image: mine.image, image_split: mine.image_split, ..*theirs };
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
    /// CRC-32 of the file's compact JSON with this field 0.
    crc32: u32,
}

impl CheckpointFile {
    /// The checksum the file should hold.
    fn crc(&self) -> u32 {
        json_crc(&CheckpointFile { crc32: 0, ..self.clone() })
    }

    /// The label of the BDD file of the last ply: its ply, its number of
    /// states and the body's checksum, so that a body edited in the JSON
    /// (with a new checksum there) no longer matches the BDD file.
    fn states_label(&self, space: &StateSpace) -> String {
        let last = self.records.last().expect("a checkpoint has a ply");
        label(space, &format!("{} states of ply {}, checkpoint {:08x}", last.states, last.ply, self.crc()))
    }
}

/// The name of the BDD file of ply `ply`'s states.
fn states_file(ply: u32) -> String {
    format!("states-ply{ply:03}.bdd")
}

/// What the forward checkpoint in `dir` holds, in words ("36 plies
/// counted"), or `None` when there is none (or it cannot be read).
pub fn describe(dir: &Path) -> Option<String> {
    let file: CheckpointFile =
        serde_json::from_str(&std::fs::read_to_string(dir.join("checkpoint.json")).ok()?).ok()?;
    Some(format!("{} plies counted", file.records.len()))
}

/// A checkpoint directory in use.
pub struct Checkpoint {
    dir: PathBuf,
    setup: Setup,
    current: Option<String>,
}

impl Checkpoint {
    /// Open (creating it if needed) a checkpoint directory for this space and
    /// options; returns where to resume, if a checkpoint is there. A
    /// checkpoint of another board, encoding, order or strategy is refused.
    pub fn open(dir: &Path, space: &mut StateSpace, options: &ForwardOptions) -> Result<(Checkpoint, Option<Resume>)> {
        writable_dir(dir)?;
        let size = space.size();
        let setup = Setup::of(space, options);
        let path = dir.join("checkpoint.json");
        if !path.exists() {
            return Ok((Checkpoint { dir: dir.to_path_buf(), setup, current: None }, None));
        }
        let text = std::fs::read_to_string(&path).map_err(io(&path))?;
        check_version(&path, &text, "checkpoint", FORMAT, VERSION)?;
        let file: CheckpointFile =
            serde_json::from_str(&text).map_err(|e| bad(&path, format!("not a c4bdd checkpoint: {e}")))?;
        if file.crc() != file.crc32 {
            return Err(bad(&path, "the checkpoint does not match its checksum"));
        }
        file.setup.check(&setup, &path)?;
        let last = file.records.last().map(|r| r.ply);
        if file.records.iter().enumerate().any(|(i, r)| r.ply != i as u32) || last.is_none_or(|p| p > size.cells()) {
            return Err(bad(&path, "the ply records are not 0, 1, 2, ..."));
        }
        let expected = states_file(last.unwrap());
        if file.file != expected {
            return Err(bad(&path, format!("names the file {:?}, expected {expected}", file.file)));
        }
        let roots = space.manager.load(&dir.join(&file.file), &file.states_label(space))?;
        let [states] = roots[..] else { return Err(bad(&dir.join(&file.file), "expected one BDD")) };
        let frame = options.image.frame_of(last.unwrap());
        let in_frame = space.manager.var_set_vars(space.layout.set(frame));
        if space.manager.support(states).iter().any(|v| !in_frame.contains(v)) {
            return Err(bad(&dir.join(&file.file), "its BDD is not over the variables of its ply's frame"));
        }
        let check = space.count(states, frame);
        if Some(check) != file.records.last().map(|r| r.states) {
            return Err(bad(&dir.join(&file.file), "its state count differs from the checkpoint's record"));
        }
        let checkpoint = Checkpoint { dir: dir.to_path_buf(), setup, current: Some(file.file) };
        Ok((checkpoint, Some(Resume { records: file.records, states })))
    }

    /// Record a finished ply: its states and all records so far.
    pub fn save(&mut self, space: &StateSpace, records: &[PlyRecord], states: Bdd) -> Result<()> {
        let ply = records.last().map_or(0, |r| r.ply);
        let name = states_file(ply);
        let mut file = CheckpointFile {
            format: FORMAT.into(),
            version: VERSION,
            setup: self.setup.clone(),
            file: name.clone(),
            records: records.to_vec(),
            crc32: 0,
        };
        file.crc32 = file.crc();
        space.manager.save(&[states], &file.states_label(space), &self.dir.join(&name))?;
        let text = serde_json::to_string(&file).expect("a checkpoint serializes");
        write_atomic(&self.dir.join("checkpoint.json"), &text)?;
        if let Some(old) = self.current.replace(name.clone()) {
            if old != name {
                let _ = std::fs::remove_file(self.dir.join(old));
            }
        }
        Ok(())
    }
}

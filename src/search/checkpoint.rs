//! Checkpoints of the forward pass: after each ply, the ply's states (a BDD
//! file named by the ply) and `checkpoint.json` (setup, file name, the ply
//! records so far). Each file is written to a temporary name, synced and
//! renamed, the JSON last and the previous BDD file removed after it, so a
//! kill at any moment leaves a consistent checkpoint of the last finished ply.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::files::{bad, io, label, writable_dir, write_atomic};
use super::forward::Resume;
use super::options::ForwardOptions;
use super::records::PlyRecord;
use crate::bdd::Bdd;
use crate::encoding::{EncodingKind, StateSpace};
use crate::error::Result;

const FORMAT: &str = "c4bdd-count-checkpoint";
const VERSION: u32 = 2;

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

    /// Refuse a checkpoint (`path`) whose setup is not `wanted`.
    pub(crate) fn check(&self, wanted: &Setup, path: &Path) -> Result<()> {
        if self == wanted {
            return Ok(());
        }
        let reason = format!(
            "the checkpoint is of {}x{} {} with other order or options; use another directory",
            self.width, self.height, self.encoding
        );
        Err(bad(path, reason))
    }
}

#[derive(Serialize, Deserialize)]
struct CheckpointFile {
    format: String,
    version: u32,
    setup: Setup,
    /// The BDD file of the last finished ply.
    file: String,
    records: Vec<PlyRecord>,
    /// CRC-32 of the records serialized as JSON.
    records_crc32: u32,
}

fn records_crc(records: &[PlyRecord]) -> u32 {
    crc32fast::hash(serde_json::to_string(records).expect("records serialize").as_bytes())
}

/// The label of the BDD file of the last ply of `records`: its ply, its
/// number of states and the checksum of all records, so that records edited
/// in the JSON (with a new checksum there) no longer match the BDD file.
fn states_label(space: &StateSpace, records: &[PlyRecord]) -> String {
    let last = records.last().expect("a checkpoint has a ply");
    let crc = records_crc(records);
    label(space, &format!("{} states of ply {}, records {crc:08x}", last.states, last.ply))
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
        let file: CheckpointFile =
            serde_json::from_str(&text).map_err(|e| bad(&path, format!("not a c4bdd checkpoint: {e}")))?;
        if file.format != FORMAT || file.version != VERSION {
            return Err(bad(
                &path,
                format!("format {} version {}, expected {FORMAT} {VERSION}", file.format, file.version),
            ));
        }
        file.setup.check(&setup, &path)?;
        if records_crc(&file.records) != file.records_crc32 {
            return Err(bad(&path, "the ply records do not match their checksum"));
        }
        let last = file.records.last().map(|r| r.ply);
        if file.records.iter().enumerate().any(|(i, r)| r.ply != i as u32) || last.is_none_or(|p| p > size.cells()) {
            return Err(bad(&path, "the ply records are not 0, 1, 2, ..."));
        }
        let roots = space.manager.load(&dir.join(&file.file), &states_label(space, &file.records))?;
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
        let name = format!("states-ply{ply:03}.bdd");
        space.manager.save(&[states], &states_label(space, records), &self.dir.join(&name))?;
        let file = CheckpointFile {
            format: FORMAT.into(),
            version: VERSION,
            setup: self.setup.clone(),
            file: name.clone(),
            records: records.to_vec(),
            records_crc32: records_crc(records),
        };
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

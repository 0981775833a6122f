//! The parts of a partitioned retrograde pass on disk: the folder `parts/`
//! inside the solve's checkpoint folder.
//!
//! - `partition.json`: the cut (the names of its variables, bit 0 first), the
//!   checksum of the checkpoint's setup, and the ply whose whole sets the
//!   partition was seeded from (`top`), under a CRC-32.
//! - Per ply, `ply-NNN/`; per part `PPPP` of it: `won-PPPP.bdd`,
//!   `lost-PPPP.bdd` and `draw-PPPP.bdd`, the part's sets from the view of
//!   the player to move, then `part-PPPP.json`, its record, written last: a
//!   part without a record is not done and is computed again. The drawn
//!   sets serve the ply below only and go once it is done; the won and lost
//!   sets are the solution and stay while the disk budget allows.
//!   `states-PPPP.bdd`: the part's states, cut from the ply's layer when
//!   the ply's parts begin and removed once the part is done, so that a part
//!   holds its own states and not the whole layer.
//!
//! Every file is written to a temporary name, synced and renamed. Each BDD
//! file's label (inside the file's checksum) holds the setup's checksum, its
//! set, part and ply and the part's three counts, and a loaded set is counted
//! and must equal its record: a record or file edited or swapped is refused,
//! even with its checksum recomputed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::bdd::Bdd;
use crate::encoding::{Frame, StateSpace};
use crate::error::Result;
use crate::search::files::{bad, check_version, io, json_crc, label, load_in_frame, read_regular, write_atomic};
use crate::search::ply::phases::Phases;

/// The folder of the parts inside the checkpoint's folder.
pub const PARTS_DIR: &str = "parts";
const FORMAT: &str = "c4bdd-partition";
const PART_FORMAT: &str = "c4bdd-part";
const VERSION: u32 = 1;
const FILE: &str = "partition.json";

/// `partition.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct PartitionFile {
    format: String,
    version: u32,
    setup_crc: u32,
    cut: Vec<String>,
    top: u32,
    /// CRC-32 of the file's compact JSON with this field 0.
    crc32: u32,
}

/// The record of one part of a solved ply; counts from the view of the
/// player to move at that ply.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartRecord {
    pub ply: u32,
    pub part: u32,
    pub win: u128,
    pub draw: u128,
    pub lost: u128,
    /// Nodes of the part's won and lost sets (shared nodes once).
    pub nodes: u64,
    /// Wall time of the part, storing it included.
    pub time_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// The most live nodes of the process that solved it, so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_nodes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<Phases>,
}

/// `part-PPPP.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct PartFile {
    format: String,
    version: u32,
    setup_crc: u32,
    record: PartRecord,
    crc32: u32,
}

/// A set of a part, from the view of the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Set {
    Won,
    Lost,
    Draw,
}

impl Set {
    fn name(self) -> &'static str {
        match self {
            Set::Won => "won",
            Set::Lost => "lost",
            Set::Draw => "draw",
        }
    }

    /// The record's count of this set.
    pub fn count(self, r: &PartRecord) -> u128 {
        match self {
            Set::Won => r.win,
            Set::Lost => r.lost,
            Set::Draw => r.draw,
        }
    }
}

/// The parts folder of a checkpoint, open.
pub struct PartStore {
    dir: PathBuf,
    file: PartitionFile,
}

impl PartStore {
    /// Open the parts folder in the checkpoint folder `checkpoint`, or make
    /// it: a new one is cut on `cut` (variable names, bit 0 first) and seeded
    /// from ply `top`. An existing one must be of the setup `setup_crc` and
    /// cut on the same variables.
    pub fn open(checkpoint: &Path, setup_crc: u32, cut: &[String], top: u32) -> Result<PartStore> {
        let dir = checkpoint.join(PARTS_DIR);
        let path = dir.join(FILE);
        if !path.exists() {
            std::fs::create_dir_all(&dir).map_err(io(&dir))?;
            let mut file =
                PartitionFile { format: FORMAT.into(), version: VERSION, setup_crc, cut: cut.to_vec(), top, crc32: 0 };
            file.crc32 = json_crc(&file);
            write_atomic(&path, &serde_json::to_string(&file).expect("a partition serializes"))?;
            return Ok(PartStore { dir, file });
        }
        let store = Self::open_existing(checkpoint, setup_crc)?;
        let file = &store.file;
        if file.cut != cut {
            let reason =
                format!("its parts are cut on {}: resume with --parts {}", file.cut.join(","), file.cut.join(","));
            return Err(bad(&path, reason));
        }
        Ok(store)
    }

    /// Open the existing parts folder in the checkpoint folder `checkpoint`
    /// (of the setup `setup_crc`), with the cut it was made with.
    pub fn open_existing(checkpoint: &Path, setup_crc: u32) -> Result<PartStore> {
        let dir = checkpoint.join(PARTS_DIR);
        let path = dir.join(FILE);
        let text = read_regular(&path)?;
        check_version(&path, &text, "partition", FORMAT, VERSION)?;
        let file: PartitionFile =
            serde_json::from_str(&text).map_err(|e| bad(&path, format!("not a c4bdd partition: {e}")))?;
        if json_crc(&PartitionFile { crc32: 0, ..file.clone() }) != file.crc32 {
            return Err(bad(&path, "the partition does not match its checksum"));
        }
        if file.setup_crc != setup_crc {
            return Err(bad(&path, "the partition is of another checkpoint's setup"));
        }
        if file.cut.is_empty() || file.cut.len() > usize::from(super::MAX_CUT) {
            return Err(bad(&path, format!("a cut on {} variables (1 to {})", file.cut.len(), super::MAX_CUT)));
        }
        Ok(PartStore { dir, file })
    }

    /// The names of the variables the plies are cut on, bit 0 first.
    pub fn cut(&self) -> &[String] {
        &self.file.cut
    }

    /// The checksum of the setup of the checkpoint the parts belong to.
    pub fn setup_crc(&self) -> u32 {
        self.file.setup_crc
    }

    /// The ply whose whole sets the partition was seeded from.
    pub fn top(&self) -> u32 {
        self.file.top
    }

    /// The number of parts of a ply.
    pub fn parts(&self) -> u32 {
        1 << self.file.cut.len()
    }

    fn ply_dir(&self, ply: u32) -> PathBuf {
        self.dir.join(format!("ply-{ply:03}"))
    }

    pub(crate) fn set_path(&self, ply: u32, part: u32, set: Set) -> PathBuf {
        self.ply_dir(ply).join(format!("{}-{part:04}.bdd", set.name()))
    }

    fn states_path(&self, ply: u32, part: u32) -> PathBuf {
        self.ply_dir(ply).join(format!("states-{part:04}.bdd"))
    }

    fn record_file(&self, ply: u32, part: u32) -> PathBuf {
        self.ply_dir(ply).join(format!("part-{part:04}.json"))
    }

    /// The label of a part's set: the setup, the set, part, ply and counts.
    pub(crate) fn set_label(&self, space: &StateSpace, r: &PartRecord, set: Set) -> String {
        let what = format!(
            "{} set of part {} of {} of ply {}: {} won, {} drawn, {} lost (player to move), setup {:08x}",
            set.name(),
            r.part,
            self.parts(),
            r.ply,
            r.win,
            r.draw,
            r.lost,
            self.file.setup_crc
        );
        label(space, &what)
    }

    /// The label of a part's states: the setup, part, ply and count.
    fn states_label(&self, space: &StateSpace, (ply, part): (u32, u32), count: u128) -> String {
        let (parts, setup) = (self.parts(), self.file.setup_crc);
        label(space, &format!("states of part {part} of {parts} of ply {ply}: {count} positions, setup {setup:08x}"))
    }

    /// Save the states `f` of part `part` of ply `ply` (`count` positions),
    /// cut from the ply's layer, until the part is solved.
    pub fn save_states(&self, space: &StateSpace, (ply, part): (u32, u32), count: u128, f: Bdd) -> Result<()> {
        let dir = self.ply_dir(ply);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let label = self.states_label(space, (ply, part), count);
        space.manager.save(&[f], &label, &self.states_path(ply, part))?;
        Ok(())
    }

    /// Load the states of part `part` of ply `ply` (pinned), over `frame`,
    /// counted and checked against `count`, the count they were saved with.
    pub fn load_states(
        &self,
        space: &mut StateSpace,
        (ply, part): (u32, u32),
        count: u128,
        frame: Frame,
    ) -> Result<Bdd> {
        let label = self.states_label(space, (ply, part), count);
        let differs = || format!("its count differs from that of the states of part {part} of ply {ply}");
        load_counted(space, &self.states_path(ply, part), &label, (frame, count), differs)
    }

    /// Remove the states file of part `part` of ply `ply` (gone is no error).
    pub fn remove_states(&self, ply: u32, part: u32) -> Result<()> {
        remove_if_present(&self.states_path(ply, part))
    }

    /// An error about ply `ply`'s parts, naming its folder.
    pub fn bad_ply(&self, ply: u32, reason: &str) -> crate::Error {
        bad(&self.ply_dir(ply), reason)
    }

    /// The record of part `part` of ply `ply`, if it is done.
    pub fn record(&self, ply: u32, part: u32) -> Result<Option<PartRecord>> {
        let path = self.record_file(ply, part);
        if !path.exists() {
            return Ok(None);
        }
        let text = read_regular(&path)?;
        check_version(&path, &text, "part record", PART_FORMAT, VERSION)?;
        let file: PartFile =
            serde_json::from_str(&text).map_err(|e| bad(&path, format!("not a c4bdd part record: {e}")))?;
        if json_crc(&PartFile { crc32: 0, ..file.clone() }) != file.crc32 {
            return Err(bad(&path, "the part record does not match its checksum"));
        }
        let r = file.record;
        if file.setup_crc != self.file.setup_crc || (r.ply, r.part) != (ply, part) {
            return Err(bad(&path, format!("not the record of part {part} of ply {ply} of this partition")));
        }
        Ok(Some(r))
    }

    /// Whether the files of part `r`'s sets still there carry the labels of
    /// its record (their headers only: a loader checks their content);
    /// an error names the first that does not.
    pub fn check_labels(&self, space: &StateSpace, r: &PartRecord) -> Result<()> {
        for set in [Set::Won, Set::Lost, Set::Draw] {
            let path = self.set_path(r.ply, r.part, set);
            if path.exists() && crate::bdd::file_label(&path)? != self.set_label(space, r, set) {
                return Err(bad(
                    &path,
                    format!("its label does not match the record of part {} of ply {}", r.part, r.ply),
                ));
            }
        }
        Ok(())
    }

    /// The records of every part of ply `ply` (`None` where not done).
    pub fn records(&self, ply: u32) -> Result<Vec<Option<PartRecord>>> {
        (0..self.parts()).map(|p| self.record(ply, p)).collect()
    }

    /// The records of every part of ply `ply` when all are done.
    pub fn complete(&self, ply: u32) -> Result<Option<Vec<PartRecord>>> {
        Ok(self.records(ply)?.into_iter().collect())
    }

    /// Save a part's `[won, lost, draw]` sets and then its record.
    pub fn save(&self, space: &StateSpace, r: &PartRecord, sets: [Bdd; 3]) -> Result<()> {
        let dir = self.ply_dir(r.ply);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        for (set, f) in [Set::Won, Set::Lost, Set::Draw].into_iter().zip(sets) {
            space.manager.save(&[f], &self.set_label(space, r, set), &self.set_path(r.ply, r.part, set))?;
        }
        let mut file = PartFile {
            format: PART_FORMAT.into(),
            version: VERSION,
            setup_crc: self.file.setup_crc,
            record: *r,
            crc32: 0,
        };
        file.crc32 = json_crc(&file);
        write_atomic(&self.record_file(r.ply, r.part), &serde_json::to_string(&file).expect("a record serializes"))
    }

    /// Load `set` of the part of record `r` (pinned), over `frame`, counted
    /// and checked against the record.
    pub fn load(&self, space: &mut StateSpace, r: &PartRecord, set: Set, frame: Frame) -> Result<Bdd> {
        let label = self.set_label(space, r, set);
        let differs = || format!("its count differs from the record of part {} of ply {}", r.part, r.ply);
        load_counted(space, &self.set_path(r.ply, r.part, set), &label, (frame, set.count(r)), differs)
    }

    /// Remove the files of `sets` of every part of ply `ply` (the records
    /// stay); files already gone are no error.
    pub fn remove(&self, ply: u32, sets: &[Set]) -> Result<()> {
        for part in 0..self.parts() {
            for &set in sets {
                remove_if_present(&self.set_path(ply, part, set))?;
            }
        }
        Ok(())
    }

    /// Bytes on disk of `sets` of ply `ply`'s parts, and whether every part
    /// has them.
    pub fn bytes(&self, ply: u32, sets: &[Set]) -> (u64, bool) {
        let (mut bytes, mut all) = (0, true);
        for part in 0..self.parts() {
            for &set in sets {
                match std::fs::metadata(self.set_path(ply, part, set)) {
                    Ok(m) => bytes += m.len(),
                    Err(_) => all = false,
                }
            }
        }
        (bytes, all)
    }
}

/// Load the one BDD of the file `path` (labelled `label`), over `frame`,
/// pinned, refused with `differs` unless it holds `count` states.
fn load_counted(
    space: &mut StateSpace,
    path: &Path,
    label: &str,
    (frame, count): (Frame, u128),
    differs: impl Fn() -> String,
) -> Result<Bdd> {
    let [f] = load_in_frame(space, path, label, frame)?[..] else {
        return Err(bad(path, "expected one BDD"));
    };
    if space.count(f, frame) != count {
        return Err(bad(path, differs()));
    }
    space.manager.pin(f);
    Ok(f)
}

/// Remove the file `path`; one already gone is no error.
fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(path)(e)),
        _ => Ok(()),
    }
}

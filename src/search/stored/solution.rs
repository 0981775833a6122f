//! A strong solution on disk: per ply the `win` and `lost` BDDs of the player
//! to move (draw is derived: the ply's states that are neither), in one file
//! per ply (`ply-NN.bdd`, the core's checksummed format), and `manifest.json`
//! with the board, encoding, variable order, format version, the value of the
//! empty board, each file's size and CRC-32, and a CRC-32 of all of these.
//!
//! Loading checks the manifest's checksum, then each file's size and checksum
//! against the manifest and its label (board, encoding, ply) against the ply
//! asked for, before the core checks its content, so a damaged, swapped or
//! mismatched solution gives an error naming the file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::bdd::{Bdd, Config, StoredBdd};
use crate::encoding::{EncodingKind, Frame, OrderSpec, StateSpace};
use crate::error::{Error, Result};
use crate::game::explicit::Outcome;
use crate::game::{BoardSize, Position};
use crate::search::files::{bad, io, json_crc, label, lock_dir, read_regular, write_atomic, DirLock};
use crate::search::ply::records::{SolvePly, Value};
use crate::search::stored::table::check_witness;

/// The manifest's format name and version.
pub const SOLUTION_FORMAT: &str = "c4bdd-solution";
pub const SOLUTION_VERSION: u32 = 3;
/// The version whose ply files have no block checksums (they cannot be read
/// in place): [`upgrade`] converts it.
const SOLUTION_VERSION_UNBLOCKED: u32 = 2;

/// One ply's file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlyFile {
    pub ply: u32,
    pub file: String,
    pub bytes: u64,
    pub crc32: u32,
}

/// `manifest.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    pub width: u8,
    pub height: u8,
    pub encoding: EncodingKind,
    /// The order as it was requested (e.g. `paper`).
    pub order: String,
    /// The state variables in level order, so the layout can be rebuilt.
    pub arrangement: Vec<String>,
    /// The value of the empty board; `None` in a solution of the last plies
    /// only.
    pub value: Option<Value>,
    /// The stored plies in order, up to the last: all of them, or those from
    /// the lowest solved ply of a pass that stopped there.
    pub plies: Vec<PlyFile>,
    pub total_bytes: u64,
}

/// `manifest.json`: the manifest and the CRC-32 of its compact JSON.
#[derive(Serialize, Deserialize)]
struct ManifestFile {
    #[serde(flatten)]
    manifest: Manifest,
    crc32: u32,
}

/// Writes a solution while the solver runs. The manifest is written again
/// after every stored ply, so a solve killed between plies leaves a solution
/// of the plies it finished (no value), which queries read and a rerun
/// extends.
pub struct SolutionWriter {
    dir: PathBuf,
    /// The order as it was requested, named in the manifest.
    order: String,
    plies: Vec<PlyFile>,
    /// The plies of the solution of the last plies the folder held when the
    /// run began: a run that stops above the lowest of them keeps those below.
    held: Vec<PlyFile>,
    /// The folder's lock.
    _lock: DirLock,
}

impl SolutionWriter {
    /// Create (or reuse) `dir` for a solution in `space`, checking at once
    /// that it can be written. A folder that holds a solution of the last
    /// plies only (no value) of the same board, encoding and order is taken
    /// up: a run that solves further adopts its plies and rewrites its
    /// manifest after each ply it stores (the plies held below the lowest
    /// stored one stay in it), and never holds fewer plies than before. Any
    /// other solution is refused.
    pub fn create(dir: &Path, space: &StateSpace, order: &OrderSpec) -> Result<SolutionWriter> {
        let lock = lock_dir(dir)?;
        let mut kept = Vec::new();
        if let Some(held) = existing(dir)? {
            let same = same_run(&held, space);
            if held.value.is_some() || !same {
                let what = if same { "this solve's whole solution" } else { "another solution" };
                return Err(bad(dir, format!("already holds {what} (manifest.json); choose another directory")));
            }
            kept = held.plies;
        }
        Ok(SolutionWriter { dir: dir.to_path_buf(), order: order.name(), plies: Vec::new(), held: kept, _lock: lock })
    }

    /// Save one ply's `win` and `lost` BDDs (its file is replaced atomically),
    /// then the manifest of the plies so far.
    pub fn store(&mut self, space: &StateSpace, ply: u32, win: Bdd, lost: Bdd) -> Result<()> {
        let file = ply_file(ply);
        let path = self.dir.join(&file);
        let crc32 = space.manager.save(&[win, lost], &ply_label(space, ply), &path)?;
        let bytes = std::fs::metadata(&path).map_err(io(&path))?.len();
        self.plies.retain(|p| p.ply != ply);
        self.plies.push(PlyFile { ply, file, bytes, crc32 });
        self.write(space, None).map(drop)
    }

    /// Take up the file of a ply stored by an earlier, interrupted run (a
    /// resumed solve) once its won and lost sets, counted, are `record`'s
    /// (the record the checkpoint resumes with is tied to the file's
    /// content): its size and checksum go into the manifest. The file is
    /// counted in a manager of its own, dropped after.
    pub fn adopt(&mut self, space: &StateSpace, record: &SolvePly) -> Result<()> {
        let file = ply_file(record.ply);
        let path = self.dir.join(&file);
        let (bytes, crc32) = crate::bdd::checked_size_and_checksum(&path)?;
        let [win, lost] = counted_ply(space, &path, record.ply)?;
        let (won, lost) = if record.ply.is_multiple_of(2) { (win, lost) } else { (lost, win) };
        if (won, lost) != (record.won, record.lost) {
            let (ply, want) = (record.ply, (record.won, record.lost));
            let reason = format!("holds {won} won and {lost} lost positions, the record of ply {ply} says {want:?}");
            return Err(bad(&path, reason));
        }
        self.plies.push(PlyFile { ply: record.ply, file, bytes, crc32 });
        Ok(())
    }

    /// Take up the file of ply `ply` by its size and checksum alone (an
    /// upgrade of a solution whose files the manifest already names).
    fn adopt_unchecked(&mut self, ply: u32) -> Result<()> {
        let file = ply_file(ply);
        let (bytes, crc32) = crate::bdd::checked_size_and_checksum(&self.dir.join(&file))?;
        self.plies.push(PlyFile { ply, file, bytes, crc32 });
        Ok(())
    }

    /// Whether the folder's file of `entry` is still the one it names: its
    /// header, label and index check out, and its size and stored checksum
    /// are the entry's.
    fn still_holds(&self, space: &StateSpace, entry: &PlyFile) -> bool {
        let opened = StoredBdd::open(&self.dir.join(&entry.file), &ply_label(space, entry.ply));
        opened.and_then(|f| f.size_and_checksum()).is_ok_and(|held| held == (entry.bytes, entry.crc32))
    }

    /// The plies stored or adopted so far.
    pub fn stored(&self) -> usize {
        self.plies.len()
    }

    /// Write the manifest with the value of the empty board (`None` for a
    /// pass that stopped above ply 0); returns it.
    pub fn finish(self, space: &StateSpace, value: Option<Value>) -> Result<Manifest> {
        self.write(space, value)
    }

    /// Write the manifest. The plies stored or adopted by this run come
    /// first; below the lowest of them, the plies the folder held before are
    /// kept, down to the first whose file no longer matches its entry. Ply 0
    /// is listed only with the value (a manifest of every ply has it): a pass
    /// killed between storing ply 0 and [`SolutionWriter::finish`] leaves a
    /// solution of plies 1 and up, and its rerun adopts ply 0's file.
    fn write(&self, space: &StateSpace, value: Option<Value>) -> Result<Manifest> {
        let mut plies: Vec<PlyFile> = self.plies.iter().filter(|p| value.is_some() || p.ply > 0).cloned().collect();
        plies.sort_by_key(|p| p.ply);
        let mut below = plies.first().map_or(space.size().cells() + 1, |p| p.ply);
        let mut held: Vec<&PlyFile> = self.held.iter().collect();
        held.sort_by_key(|p| std::cmp::Reverse(p.ply));
        let top = below;
        for old in held.into_iter().skip_while(|p| p.ply >= top) {
            if old.ply + 1 != below || !self.still_holds(space, old) {
                break;
            }
            below = old.ply;
            plies.insert(0, old.clone());
        }
        let size = space.size();
        let manifest = Manifest {
            format: SOLUTION_FORMAT.into(),
            version: SOLUTION_VERSION,
            width: size.width,
            height: size.height,
            encoding: space.encoding.kind(),
            order: self.order.clone(),
            arrangement: space.arrangement.clone(),
            value,
            total_bytes: plies.iter().map(|p| p.bytes).sum(),
            plies,
        };
        write_manifest(&self.dir, manifest)
    }
}

/// Write `manifest.json` (atomically) with its checksum.
fn write_manifest(dir: &Path, manifest: Manifest) -> Result<Manifest> {
    let file = ManifestFile { crc32: json_crc(&manifest), manifest };
    let text = serde_json::to_string_pretty(&file).expect("a manifest serializes") + "\n";
    write_atomic(&dir.join("manifest.json"), &text)?;
    Ok(file.manifest)
}

/// The positions in the win and lost sets of the solution file `path` of
/// ply `ply` of a solve in `space`, counted in a manager of their own.
fn counted_ply(space: &StateSpace, path: &Path, ply: u32) -> Result<[u128; 2]> {
    let order = OrderSpec::Custom { path: PathBuf::from("adopted"), names: space.arrangement.clone() };
    let mut own = StateSpace::new(space.encoding.kind(), space.size(), &order, Config::default())?;
    let roots = own.manager.load(path, &ply_label(space, ply))?;
    let [win, lost] = roots[..] else { return Err(bad(path, "expected win and lost")) };
    let mut count = |f| in_frame_a(&mut own, f).map(|f| own.count(f, Frame::A));
    Ok([count(win)?, count(lost)?])
}

/// The name of ply `ply`'s file in a solution folder.
fn ply_file(ply: u32) -> String {
    format!("ply-{ply:02}.bdd")
}

/// The label of the file of ply `ply` of a solution in `space`.
pub fn ply_label(space: &StateSpace, ply: u32) -> String {
    label(space, &format!("win and lost of ply {ply}"))
}

/// The manifest of the solution in `dir`, if it holds one (a damaged one is
/// an error).
pub fn existing(dir: &Path) -> Result<Option<Manifest>> {
    match dir.join("manifest.json").exists() {
        true => Ok(Some(Solution::open(dir)?.manifest)),
        false => Ok(None),
    }
}

/// Whether `manifest` is of `space`'s board, encoding and variable order.
pub fn same_run(manifest: &Manifest, space: &StateSpace) -> bool {
    let size = space.size();
    (manifest.width, manifest.height, manifest.encoding) == (size.width, size.height, space.encoding.kind())
        && manifest.arrangement == space.arrangement
}

/// A solution opened for queries.
pub struct Solution {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub space: StateSpace,
    /// Per ply, its file opened for walks in place once a probe needed it.
    stored: Vec<Option<StoredBdd>>,
}

impl Solution {
    /// Open a solution directory and rebuild its variable layout; the value
    /// the manifest gives the empty board must be the one its ply-0 file
    /// holds.
    pub fn open(dir: &Path) -> Result<Solution> {
        let mut solution = Solution::open_version(dir, SOLUTION_VERSION)?;
        let size = solution.size();
        if let (Some(value), true) = (solution.manifest.value, size.fits_bitboard()) {
            let held = Value::for_first_player(solution.outcome(&Position::empty(size))?);
            if held != value {
                let (said, held) = (value.name(), held.name());
                let reason = format!("gives the value {said}, the file of ply 0 says {held}");
                return Err(bad(&dir.join("manifest.json"), reason));
            }
        }
        Ok(solution)
    }

    /// [`Solution::open`] of a solution of format `version`.
    fn open_version(dir: &Path, version: u32) -> Result<Solution> {
        let path = dir.join("manifest.json");
        let text = read_regular(&path)?;
        let file: ManifestFile =
            serde_json::from_str(&text).map_err(|e| bad(&path, format!("not a c4bdd solution manifest: {e}")))?;
        let manifest = file.manifest;
        if manifest.format == SOLUTION_FORMAT
            && manifest.version == SOLUTION_VERSION_UNBLOCKED
            && version != manifest.version
        {
            let how = format!("convert it with `c4bdd verify --solution {} --upgrade`", dir.display());
            return Err(bad(&path, format!("a solution of format version 2, which cannot be read in place: {how}")));
        }
        if manifest.format != SOLUTION_FORMAT || manifest.version != version {
            let (f, v) = (&manifest.format, manifest.version);
            return Err(bad(
                &path,
                format!("format {f} version {v}, this build reads {SOLUTION_FORMAT} {SOLUTION_VERSION}"),
            ));
        }
        if json_crc(&manifest) != file.crc32 {
            return Err(bad(&path, "the manifest does not match its checksum"));
        }
        let size =
            BoardSize::new(manifest.width as u32, manifest.height as u32).map_err(|e| bad(&path, e.to_string()))?;
        let lowest = (size.cells() + 1).saturating_sub(manifest.plies.len() as u32);
        let whole = lowest == 0;
        if manifest.plies.len() > size.cells() as usize + 1
            || manifest.plies.iter().enumerate().any(|(i, p)| p.ply != lowest + i as u32)
            || whole != manifest.value.is_some()
        {
            let reason = format!("the manifest does not list plies k..={} with a value when k = 0", size.cells());
            return Err(bad(&path, reason));
        }
        if let Some(p) = manifest.plies.iter().find(|p| p.file != ply_file(p.ply)) {
            let reason = format!("names the file {:?} for ply {}, expected {}", p.file, p.ply, ply_file(p.ply));
            return Err(bad(&path, reason));
        }
        let order = OrderSpec::Custom { path: PathBuf::from(&manifest.order), names: manifest.arrangement.clone() };
        let space = StateSpace::new(manifest.encoding, size, &order, Config::default())
            .map_err(|e| bad(&path, format!("cannot rebuild the variable layout: {e}")))?;
        Ok(Solution { dir: dir.to_path_buf(), manifest, space, stored: Vec::new() })
    }

    /// The board of the solution.
    pub fn size(&self) -> BoardSize {
        self.space.size()
    }

    /// Read every ply file whole: its size and stored checksum against the
    /// manifest, its header, label and roots, each block of nodes against its
    /// checksum and the file's checksum; the first failure is an error
    /// naming the file. Calls `done` after each ply.
    pub fn verify(&self, mut done: impl FnMut(u32)) -> Result<()> {
        for ply in self.plies() {
            self.open_ply(ply)?.verify()?;
            done(ply);
        }
        Ok(())
    }

    /// The plies the solution holds, from its lowest to the last.
    pub fn plies(&self) -> std::ops::RangeInclusive<u32> {
        let cells = self.size().cells();
        (cells + 1 - self.manifest.plies.len() as u32)..=cells
    }

    /// The manifest's entry of ply `ply`.
    fn entry(&self, ply: u32) -> Result<&PlyFile> {
        let plies = self.plies();
        let held = format!("holds plies {}..={}, not ply {ply}", plies.start(), plies.end());
        self.manifest.plies.iter().find(|p| p.ply == ply).ok_or_else(|| bad(&self.dir, held))
    }

    /// Load one ply's `(win, lost)` BDDs: the file's size and the checksum it
    /// ends with are checked against the manifest, then every byte against
    /// that checksum as the file is read (a megabyte at a time).
    pub fn load_ply(&mut self, ply: u32) -> Result<(Bdd, Bdd)> {
        let path = self.checked_file(ply)?;
        let roots = self.space.manager.load(&path, &ply_label(&self.space, ply))?;
        match roots[..] {
            [win, lost] => Ok((win, lost)),
            _ => Err(bad(&path, format!("{} BDDs, expected win and lost", roots.len()))),
        }
    }

    /// The path of ply `ply`'s file, once its size and the checksum it ends
    /// with are found to be the manifest's.
    fn checked_file(&self, ply: u32) -> Result<PathBuf> {
        let entry = self.entry(ply)?;
        let (path, want) = (self.dir.join(&entry.file), (entry.bytes, entry.crc32));
        let file = crate::bdd::open_regular(&path).map_err(io(&path))?;
        let bytes = file.metadata().map_err(io(&path))?.len();
        if bytes != want.0 {
            return Err(bad(&path, format!("{bytes} bytes, the manifest says {}", want.0)));
        }
        let mut tail = [0u8; 4];
        let at = bytes.checked_sub(4).ok_or_else(|| bad(&path, "not a c4bdd BDD file"))?;
        std::os::unix::fs::FileExt::read_exact_at(&file, &mut tail, at).map_err(io(&path))?;
        if u32::from_le_bytes(tail) != want.1 {
            return Err(bad(&path, "checksum differs from the manifest"));
        }
        Ok(path)
    }

    /// The outcome of a position for the player to move, read in place:
    /// one walk down the ply's win BDD and, if it is not there, its lost BDD
    /// (each block of the file a walk reads is checked against its
    /// checksum).
    pub fn outcome(&mut self, position: &Position) -> Result<Outcome> {
        if position.size() != self.size() {
            let reason = format!("the position is on {}, the solution is for {}", position.size(), self.size());
            return Err(Error::UnsupportedBoard { reason });
        }
        let ply = position.ply() as usize;
        if self.stored.len() <= ply {
            self.stored.resize_with(ply + 1, || None);
        }
        if self.stored[ply].is_none() {
            self.stored[ply] = Some(self.open_ply(ply as u32)?);
        }
        let assignment = self.space.assignment(position);
        let file = self.stored[ply].as_mut().expect("opened above");
        let (win, lost) = (file.roots()[0], file.roots()[1]);
        Ok(if file.eval(win, &assignment)? {
            Outcome::Win
        } else if file.eval(lost, &assignment)? {
            Outcome::Loss
        } else {
            Outcome::Draw
        })
    }

    /// Open ply `ply`'s file for walks: its size and stored checksum must be
    /// the manifest's, its label the ply's, and it must hold win and lost.
    fn open_ply(&self, ply: u32) -> Result<StoredBdd> {
        let entry = self.entry(ply)?;
        let path = self.dir.join(&entry.file);
        let mut file = StoredBdd::open(&path, &ply_label(&self.space, ply))?;
        let (bytes, crc32) = file.size_and_checksum()?;
        if (bytes, crc32) != (entry.bytes, entry.crc32) {
            return Err(bad(&path, "its size or checksum differs from the manifest"));
        }
        if file.roots().len() != 2 {
            return Err(bad(&path, format!("{} BDDs, expected win and lost", file.roots().len())));
        }
        let decode = |w: &[bool]| {
            let mut frames = [Frame::A, Frame::B].into_iter();
            frames.find_map(|f| self.space.position(w, f).filter(|p| p.ply() == ply))
        };
        for root in file.roots().to_vec() {
            check_witness(&mut file, root, self.size(), ply, decode)?;
        }
        Ok(file)
    }

    /// The outcome of a position given its ply's loaded `(win, lost)` BDDs.
    pub fn classify(&self, win: Bdd, lost: Bdd, position: &Position) -> Outcome {
        if self.space.contains(win, position) {
            Outcome::Win
        } else if self.space.contains(lost, position) {
            Outcome::Loss
        } else {
            Outcome::Draw
        }
    }
}

/// Rewrite a solution of format version 2 in the current format: each ply
/// file is loaded (checked against the manifest and its own checksum) and
/// saved again with block checksums, then the manifest is rewritten. A ply
/// file already rewritten by an interrupted upgrade is taken as it is (it is
/// checked when loaded). Returns the plies rewritten; a current solution has
/// none.
pub fn upgrade(dir: &Path, mut done: impl FnMut(u32)) -> Result<usize> {
    if Solution::open(dir).is_ok() {
        return Ok(0);
    }
    let mut old = Solution::open_version(dir, SOLUTION_VERSION_UNBLOCKED)?;
    let order = old.manifest.order.clone();
    let _lock = lock_dir(dir)?;
    let mut writer = SolutionWriter { dir: dir.to_path_buf(), order, plies: Vec::new(), held: Vec::new(), _lock };
    let mut rewritten = 0;
    for ply in old.plies() {
        let path = dir.join(&old.entry(ply)?.file);
        if crate::bdd::file_version(&path)? != crate::bdd::FORMAT_VERSION {
            let (win, lost) = old.load_ply(ply)?;
            old.space.manager.save(&[win, lost], &ply_label(&old.space, ply), &path)?;
            old.space.manager.gc(&[]);
            rewritten += 1;
        }
        writer.adopt_unchecked(ply)?;
        done(ply);
    }
    let manifest = Manifest { version: SOLUTION_VERSION, plies: writer.plies, ..old.manifest };
    write_manifest(dir, manifest)?;
    Ok(rewritten)
}

impl crate::search::stored::table::SolutionTable for Solution {
    fn size(&self) -> BoardSize {
        Solution::size(self)
    }

    fn plies(&self) -> std::ops::RangeInclusive<u32> {
        Solution::plies(self)
    }

    fn outcome(&mut self, position: &Position) -> Result<Outcome> {
        Solution::outcome(self, position)
    }

    fn describe(&self) -> String {
        format!("the c4bdd solution {} ({} encoding)", self.dir.display(), self.manifest.encoding)
    }

    fn identity(&self) -> Result<String> {
        Ok(format!("{SOLUTION_FORMAT}/{}/{:08x}", self.size(), json_crc(&self.manifest)))
    }

    fn verify(&self, done: &mut dyn FnMut(u32)) -> Result<()> {
        Solution::verify(self, done)
    }

    fn prove(&mut self, done: &mut dyn FnMut(u32)) -> Result<crate::search::pass::prove::Proof> {
        let (plies, value) = (self.plies(), self.manifest.value);
        let start = *plies.start();
        let files: Vec<(u32, PathBuf)> =
            plies.clone().map(|ply| Ok((ply, self.checked_file(ply)?))).collect::<Result<_>>()?;
        let mut load = |space: &mut StateSpace, ply: u32| -> Result<crate::search::pass::prove::StoredSets> {
            let path = &files[(ply - start) as usize].1;
            match space.manager.load(path, &ply_label(space, ply))?[..] {
                [win, lost] => Ok([Some(in_frame_a(space, win)?), None, Some(in_frame_a(space, lost)?)]),
                ref roots => Err(bad(path, format!("{} BDDs, expected win and lost", roots.len()))),
            }
        };
        crate::search::pass::prove::prove(&mut self.space, (&self.dir, plies, value), &mut load, done)
    }
}

/// `f` over frame A's variables: renamed from frame B if it lies there (a
/// solve whose frames alternate stores odd plies in frame B).
fn in_frame_a(space: &mut StateSpace, f: Bdd) -> Result<Bdd> {
    let m = &mut space.manager;
    if m.support_of(&[f]).first().is_none_or(|v| v.0 % 2 == 0) {
        return Ok(f);
    }
    let n = space.encoding.state_vars().len();
    let pairs: Vec<_> = (0..n).map(|k| (space.layout.var(Frame::B, k), space.layout.var(Frame::A, k))).collect();
    let renaming = space.manager.renaming(&pairs)?;
    Ok(space.manager.rename(f, renaming)?)
}

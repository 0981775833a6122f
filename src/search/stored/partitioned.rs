//! A partitioned solution read in place: the plies of a checkpoint's
//! `parts/` folder whose won and lost parts are on disk. A position's part
//! is read off the values of the cut's variables in its encoding, and only
//! that part's won (then lost) file is walked, one path, as a whole
//! solution's ply file is.

use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use crate::bdd::StoredBdd;
use crate::encoding::StateSpace;
use crate::error::{Error, Result};
use crate::game::explicit::Outcome;
use crate::game::{BoardSize, Position};
use crate::search::files::bad;
use crate::search::partition::cell_vars;
use crate::search::partition::store::{PartStore, Set};
use crate::search::ply::options::ForwardOptions;
use crate::search::stored::table::SolutionTable;

/// A checkpoint folder's parts, opened for queries.
pub struct PartitionedSolution {
    dir: PathBuf,
    space: StateSpace,
    options: ForwardOptions,
    store: PartStore,
    plies: RangeInclusive<u32>,
    /// The part files opened so far, by ply, part and set.
    open: HashMap<(u32, u32, bool), StoredBdd>,
}

impl PartitionedSolution {
    /// Open the parts of the solve checkpoint in `dir`: the plies below the
    /// partition's top whose every part has its won and lost files.
    pub fn open(dir: &Path) -> Result<PartitionedSolution> {
        let setup = crate::search::resume::solve::read_setup(dir)?;
        let space = setup.space()?;
        let options = *setup.options();
        let store = PartStore::open_existing(dir, setup.crc())?;
        let partition = dir.join(crate::search::partition::PARTS_DIR);
        cell_vars(&space, crate::encoding::Frame::A, store.cut())
            .map_err(|e| bad(&partition, format!("its cut: {e}")))?;
        let kept =
            |ply: u32| store.bytes(ply, &[Set::Won, Set::Lost]).1 && store.complete(ply).ok().flatten().is_some();
        let top = store.top();
        let high = (0..top).rev().find(|&k| kept(k));
        let plies = match high {
            Some(high) => (0..=high).rev().take_while(|&k| kept(k)).last().unwrap_or(high)..=high,
            None => return Err(bad(&dir.join("parts"), "holds no ply solved in parts with its won and lost sets")),
        };
        Ok(PartitionedSolution { dir: dir.to_path_buf(), space, options, store, plies, open: HashMap::new() })
    }

    /// The part of ply `ply` that holds the position of `assignment`.
    fn part_of(&self, ply: u32, assignment: &[bool]) -> u32 {
        let frame = self.options.image.frame_of(ply);
        let vars = cell_vars(&self.space, frame, self.store.cut()).expect("checked when opened");
        vars.iter().enumerate().map(|(k, v)| u32::from(assignment[v.0 as usize]) << k).sum()
    }

    /// Whether the position of `assignment` is in `set` of part `part` of ply `ply`.
    fn holds(&mut self, (ply, part, set): (u32, u32, Set), assignment: &[bool]) -> Result<bool> {
        let key = (ply, part, set == Set::Won);
        if !self.open.contains_key(&key) {
            let record = self.store.record(ply, part)?.ok_or_else(|| self.store.bad_ply(ply, "a part is missing"))?;
            let path = self.store.set_path(ply, part, set);
            let file = StoredBdd::open(&path, &self.store.set_label(&self.space, &record, set))?;
            if file.roots().len() != 1 {
                return Err(bad(&path, "expected one BDD"));
            }
            self.open.insert(key, file);
        }
        let file = self.open.get_mut(&key).expect("opened above");
        let root = file.roots()[0];
        Ok(file.eval(root, assignment)?)
    }
}

impl SolutionTable for PartitionedSolution {
    fn size(&self) -> BoardSize {
        self.space.size()
    }

    fn plies(&self) -> RangeInclusive<u32> {
        self.plies.clone()
    }

    fn outcome(&mut self, position: &Position) -> Result<Outcome> {
        if position.size() != self.size() {
            let reason = format!("the position is on {}, the solution is for {}", position.size(), self.size());
            return Err(Error::UnsupportedBoard { reason });
        }
        let ply = position.ply();
        if !self.plies.contains(&ply) {
            let (low, high) = (self.plies.start(), self.plies.end());
            return Err(bad(&self.dir.join("parts"), format!("holds plies {low}..={high}, not ply {ply}")));
        }
        let assignment = self.space.assignment(position);
        let part = self.part_of(ply, &assignment);
        Ok(if self.holds((ply, part, Set::Won), &assignment)? {
            Outcome::Win
        } else if self.holds((ply, part, Set::Lost), &assignment)? {
            Outcome::Loss
        } else {
            Outcome::Draw
        })
    }

    fn describe(&self) -> String {
        format!("c4bdd partitioned solution {}", self.dir.display())
    }

    fn identity(&self) -> Result<String> {
        Ok(format!("c4bdd-parts/{}/{:08x}", self.size(), self.store.setup_crc()))
    }

    fn prove(&mut self, _done: &mut dyn FnMut(u32)) -> Result<crate::search::pass::prove::Proof> {
        let (low, high) = (self.plies.start(), self.plies.end());
        let reason = format!(
            "holds plies {low}..={high} in parts, the plies above whole in its checkpoint: a proof reads a solution \
             from its last ply (`solve --out`, or the artifact's files)"
        );
        Err(bad(&self.dir, reason))
    }

    fn verify(&self, done: &mut dyn FnMut(u32)) -> Result<()> {
        for ply in self.plies.clone().rev() {
            for part in 0..self.store.parts() {
                let record =
                    self.store.record(ply, part)?.ok_or_else(|| self.store.bad_ply(ply, "a part is missing"))?;
                for set in [Set::Won, Set::Lost] {
                    let path = self.store.set_path(ply, part, set);
                    StoredBdd::open(&path, &self.store.set_label(&self.space, &record, set))?.verify()?;
                }
            }
            done(ply);
        }
        Ok(())
    }
}

//! Strong solutions written by the paper's artifact (Böck's
//! Connect4-Strong-Solver, the format of its published 7x6 solution), read
//! in place.
//!
//! A folder holds one file per ply and outcome,
//! `bdd_w{W}_h{H}_{ply}_{win|draw|loss}.{C}{R}.bin`: `C` is 1 for the
//! compressed encoding and 0 for the standard (cellwise) one, `R` is 1 when
//! the variables are in row order and 0 for column order. Each file is one
//! BDD of 9-byte records ([`super::records9`]) over the board's
//! state variables numbered from 1 in level order: side to move first (true
//! when the first player is to move), then the cells column by column (row
//! by row when `R` is 1), bottom up, per cell the first player's variable
//! before the second's. That is c4bdd's `column-wise` (`row-wise`) order of
//! the same encoding, with the same meaning of every variable. Win, draw and
//! loss are for the player to move; at least two of the three files of a
//! ply must be present (the published solution has win and loss only),
//! the third is what neither holds.
//!
//! [`export`] writes a c4bdd solution in that format (win and loss files).

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use crate::bdd::StoredBdd;
use crate::encoding::{Encoding, EncodingKind, OrderSpec};
use crate::error::{Error, Result};
use crate::game::explicit::Outcome;
use crate::game::{BoardSize, Position};
use crate::search::files::{bad, io};
use crate::search::stored::table::{check_witness, SolutionTable};

/// The outcomes in the order of a ply's files.
const OUTCOMES: [(Outcome, &str); 3] = [(Outcome::Win, "win"), (Outcome::Draw, "draw"), (Outcome::Loss, "loss")];

/// What an artifact file's name says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileName {
    width: u32,
    height: u32,
    ply: u32,
    outcome: usize,
    compressed: bool,
    row_order: bool,
}

/// `bdd_w{W}_h{H}_{ply}_{win|draw|loss}.{C}{R}.bin`, or `None`.
fn parse_name(name: &str) -> Option<FileName> {
    let rest = name.strip_prefix("bdd_w")?.strip_suffix(".bin")?;
    let (main, flags) = rest.split_once('.')?;
    let mut parts = main.split('_');
    let width = parts.next()?.parse().ok()?;
    let height = parts.next()?.strip_prefix('h')?.parse().ok()?;
    let ply = parts.next()?.parse().ok()?;
    let word = parts.next()?;
    let outcome = OUTCOMES.iter().position(|(_, w)| *w == word)?;
    let flag = |c: u8| match c {
        b'0' => Some(false),
        b'1' => Some(true),
        _ => None,
    };
    let (compressed, row_order) = match flags.as_bytes() {
        [c, r] => (flag(*c)?, flag(*r)?),
        _ => return None,
    };
    parts.next().is_none().then_some(FileName { width, height, ply, outcome, compressed, row_order })
}

/// A solution folder of the paper's artifact, opened for queries.
pub struct ArtifactSolution {
    dir: PathBuf,
    size: BoardSize,
    kind: EncodingKind,
    row_order: bool,
    encoding: Box<dyn Encoding>,
    /// The artifact's variable number of each state variable.
    number: Vec<u32>,
    /// Per ply from the lowest held: the files of win, draw and loss.
    files: Vec<[Option<PathBuf>; 3]>,
    lowest: u32,
    /// The files opened so far, as `files`.
    open: Vec<[Option<StoredBdd>; 3]>,
}

impl ArtifactSolution {
    /// Open the artifact's solution in `dir`; `None` when `dir` holds no
    /// artifact file. Files of several boards or encodings, or a ply with
    /// fewer than two of its three files, are refused.
    pub fn open(dir: &Path) -> Result<Option<ArtifactSolution>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io(dir))? {
            let entry = entry.map_err(io(dir))?;
            if let Some(name) = entry.file_name().to_str().and_then(parse_name) {
                names.push((name, entry.path()));
            }
        }
        let Some(&(first, _)) = names.first() else { return Ok(None) };
        let same = |n: &FileName| (n.width, n.height, n.compressed, n.row_order);
        if let Some((_, other)) = names.iter().find(|(n, _)| same(n) != same(&first)) {
            return Err(bad(other, "is of another board or encoding than the folder's other artifact files"));
        }
        let size = BoardSize::new(first.width, first.height).map_err(|e| bad(dir, e.to_string()))?;
        let cells = size.cells();
        if let Some((n, path)) = names.iter().find(|(n, _)| n.ply > cells) {
            return Err(bad(path, format!("ply {} is beyond the board's {cells} cells", n.ply)));
        }
        let mut by_ply: Vec<[Option<PathBuf>; 3]> = vec![Default::default(); cells as usize + 1];
        for (n, path) in names {
            by_ply[n.ply as usize][n.outcome] = Some(path);
        }
        let held = |files: &[Option<PathBuf>; 3]| files.iter().flatten().count() >= 2;
        let lowest = by_ply.iter().rposition(|f| !held(f)).map_or(0, |p| p + 1) as u32;
        if lowest > cells {
            return Err(bad(dir, format!("ply {cells} has fewer than two of its win, draw and loss files")));
        }
        if by_ply[..lowest as usize].iter().any(|f| f.iter().any(Option::is_some)) {
            let reason = format!("ply {} has fewer than two of its win, draw and loss files", lowest - 1);
            return Err(bad(dir, format!("{reason}, though plies {lowest}..={cells} are held")));
        }
        let kind = if first.compressed { EncodingKind::Compressed } else { EncodingKind::Cellwise };
        let encoding = kind.build(size);
        let order = if first.row_order { OrderSpec::ROW_WISE } else { OrderSpec::COLUMN_WISE };
        let vars = encoding.state_vars();
        let mut number = vec![0; vars.len()];
        for (level, k) in order.arrange(&vars, size, kind)?.into_iter().enumerate() {
            number[k] = level as u32 + 1;
        }
        let files = by_ply.split_off(lowest as usize);
        let open = files.iter().map(|_| Default::default()).collect();
        let (dir, row_order) = (dir.to_path_buf(), first.row_order);
        Ok(Some(ArtifactSolution { dir, size, kind, row_order, encoding, number, files, lowest, open }))
    }

    /// The encoding of the files.
    pub fn encoding(&self) -> EncodingKind {
        self.kind
    }

    /// Whether a ply's files are in row order.
    pub fn row_order(&self) -> bool {
        self.row_order
    }

    /// Whether `position` is in the set of file `which` of its ply.
    fn holds(&mut self, position: &Position, which: usize, value: &[bool]) -> Result<Option<bool>> {
        let at = (position.ply() - self.lowest) as usize;
        let Some(path) = &self.files[at][which] else { return Ok(None) };
        if self.open[at][which].is_none() {
            let mut file = super::records9::open(path, self.number.len() as u32)?;
            let root = file.roots()[0];
            let decode = |w: &[bool]| {
                let values: Vec<bool> = self.number.iter().map(|&n| w.get(n as usize) == Some(&true)).collect();
                crate::encoding::decode(self.encoding.as_ref(), &values)
            };
            check_witness(&mut file, root, self.size, position.ply(), decode)?;
            self.open[at][which] = Some(file);
        }
        let file = self.open[at][which].as_mut().expect("opened above");
        let root = file.roots()[0];
        Ok(file.eval(root, value).map(Some)?)
    }
}

impl SolutionTable for ArtifactSolution {
    fn size(&self) -> BoardSize {
        self.size
    }

    fn plies(&self) -> RangeInclusive<u32> {
        self.lowest..=self.size.cells()
    }

    fn outcome(&mut self, position: &Position) -> Result<Outcome> {
        if position.size() != self.size {
            let reason = format!("the position is on {}, the solution is for {}", position.size(), self.size);
            return Err(Error::UnsupportedBoard { reason });
        }
        if !self.plies().contains(&position.ply()) {
            let (low, high) = (self.lowest, self.size.cells());
            return Err(bad(&self.dir, format!("holds plies {low}..={high}, not ply {}", position.ply())));
        }
        let mut value = vec![false; self.number.len() + 1];
        for (k, v) in self.encoding.literals(position) {
            value[self.number[k] as usize] = v;
        }
        let mut found = [None; 3];
        for (which, slot) in found.iter_mut().enumerate() {
            *slot = self.holds(position, which, &value)?;
        }
        let present = found.iter().flatten().count();
        let yes: Vec<usize> = (0..3).filter(|&w| found[w] == Some(true)).collect();
        let ply = position.ply();
        match (yes.as_slice(), present) {
            ([one], _) => Ok(OUTCOMES[*one].0),
            ([], 2) => Ok(OUTCOMES[found.iter().position(Option::is_none).expect("one file is absent")].0),
            ([], _) => Err(bad(&self.dir, format!("the position is in none of ply {ply}'s sets: not reachable"))),
            _ => Err(bad(&self.dir, format!("the position is in more than one of ply {ply}'s sets"))),
        }
    }

    fn describe(&self) -> String {
        format!("the paper's artifact's solution {} ({} encoding)", self.dir.display(), self.kind)
    }

    fn identity(&self) -> Result<String> {
        let mut crc = crc32fast::Hasher::new();
        for path in self.files.iter().flatten().flatten() {
            let bytes = std::fs::metadata(path).map_err(io(path))?.len();
            let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
            crc.update(format!("{name}:{bytes};").as_bytes());
        }
        Ok(format!("artifact/{}/{:08x}", self.size, crc.finalize()))
    }

    fn prove(&mut self, done: &mut dyn FnMut(u32)) -> Result<crate::search::pass::prove::Proof> {
        let order = if self.row_order { OrderSpec::ROW_WISE } else { OrderSpec::COLUMN_WISE };
        let mut space = crate::encoding::StateSpace::new(self.kind, self.size, &order, crate::bdd::Config::default())?;
        // The files' variable ids (from 1, in level order) as the space's variables.
        let mut var_of = vec![None; self.number.len() + 1];
        for (k, &n) in self.number.iter().enumerate() {
            var_of[n as usize] = Some(space.layout.var(crate::encoding::Frame::A, k));
        }
        let (files, lowest, vars) = (&self.files, self.lowest, self.number.len() as u32);
        let mut load =
            |space: &mut crate::encoding::StateSpace, ply: u32| -> Result<crate::search::pass::prove::StoredSets> {
                let mut sets = [None; 3];
                for (set, path) in sets.iter_mut().zip(&files[(ply - lowest) as usize]) {
                    if let Some(path) = path {
                        let mut file = super::records9::open(path, vars)?;
                        let root = file.roots()[0];
                        *set = Some(file.load_into(&mut space.manager, root, &var_of)?);
                        // Sets loaded before this one stay alive through its loading.
                        space.manager.pin(set.expect("just loaded"));
                    }
                }
                sets.iter().flatten().for_each(|&f| space.manager.unpin(f));
                Ok(sets)
            };
        crate::search::pass::prove::prove(&mut space, (&self.dir, self.plies(), None), &mut load, done)
    }

    fn verify(&self, done: &mut dyn FnMut(u32)) -> Result<()> {
        for (ply, files) in self.plies().zip(&self.files) {
            for path in files.iter().flatten() {
                super::records9::open(path, self.number.len() as u32)?.verify()?;
            }
            done(ply);
        }
        Ok(())
    }
}

/// Write the c4bdd solution in `solution` as the artifact's files in `out`:
/// per ply the win and loss files (no draw files, as in the published
/// solution), each written beside its name and renamed over it. The
/// solution's variable order must be the artifact's (`column-wise`, or
/// `row-wise` on the standard encoding's files marked row order). Calls
/// `done` after each ply; returns the files written.
pub fn export(solution: &Path, out: &Path, mut done: impl FnMut(u32)) -> Result<usize> {
    let mut sol = crate::search::Solution::open(solution)?;
    let (size, kind) = (sol.size(), sol.manifest.encoding);
    let vars = kind.build(size).state_vars();
    let arranged_as = |order: OrderSpec| -> Result<bool> {
        let names: Vec<&str> = order.arrange(&vars, size, kind)?.into_iter().map(|k| vars[k].name.as_str()).collect();
        Ok(names == sol.manifest.arrangement)
    };
    let row_order = match (arranged_as(OrderSpec::COLUMN_WISE)?, arranged_as(OrderSpec::ROW_WISE)?) {
        (true, _) => false,
        (_, true) => true,
        _ => {
            let reason = format!("its order {} is not the artifact's (column-wise or row-wise)", sol.manifest.order);
            return Err(bad(solution, reason));
        }
    };
    if vars.len() > 255 {
        return Err(bad(solution, format!("{} variables: the artifact's files number at most 255", vars.len())));
    }
    crate::search::files::writable_dir(out)?;
    // The artifact's number of each manager variable: 1 + its level in one frame.
    let layout = &sol.space.layout;
    let mut number = vec![0u8; 2 * vars.len()];
    let frame_level = |v: crate::bdd::Var| sol.space.manager.level_of(v).0 / 2;
    for k in 0..vars.len() {
        for frame in [crate::encoding::Frame::A, crate::encoding::Frame::B] {
            let v = layout.var(frame, k);
            number[v.0 as usize] = frame_level(v) as u8 + 1;
        }
    }
    let flags = format!("{}{}", (kind == EncodingKind::Compressed) as u8, row_order as u8);
    let mut written = 0;
    for ply in sol.plies() {
        let (win, lost) = sol.load_ply(ply)?;
        for (set, word) in [(win, "win"), (lost, "loss")] {
            let name = format!("bdd_w{}_h{}_{ply}_{word}.{flags}.bin", size.width, size.height);
            let path = out.join(&name);
            let manager = &sol.space.manager;
            crate::bdd::replace_file(&path, |file| super::records9::save(manager, set, |v| number[v.0 as usize], file))
                .map_err(io(&path))?;
            written += 1;
        }
        sol.space.manager.gc(&[]);
        done(ply);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_parsed_and_others_ignored() {
        let n = parse_name("bdd_w7_h6_35_loss.10.bin").unwrap();
        assert_eq!((n.width, n.height, n.ply, n.outcome, n.compressed, n.row_order), (7, 6, 35, 2, true, false));
        let n = parse_name("bdd_w4_h5_0_draw.01.bin").unwrap();
        assert_eq!((n.ply, n.outcome, n.compressed, n.row_order), (0, 1, false, true));
        for other in ["bdd_w7_h6_35_tie.10.bin", "bdd_w7_h6_35_win.12.bin", "bdd_w7_h6_35_win.10.bin.gz", "ply-03.bdd"]
        {
            assert_eq!(parse_name(other), None, "{other}");
        }
    }
}

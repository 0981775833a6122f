//! Stored strong solutions as look-up tables, behind one trait: c4bdd's
//! own ([`Solution`](super::solution::Solution)), a partitioned solve's
//! ([`PartitionedSolution`](super::partitioned::PartitionedSolution)) and the
//! paper's artifact's ([`ArtifactSolution`](super::artifact::ArtifactSolution)),
//! all read in place; and the probe a search asks.

use std::ops::RangeInclusive;

use crate::bdd::StoredBdd;
use crate::error::Result;
use crate::game::alphabeta::OutcomeProbe;
use crate::game::explicit::Outcome;
use crate::game::{BoardSize, Position};
use crate::search::files::bad;
use crate::search::pass::prove::Proof;

/// A strong solution a position's value can be looked up in.
pub trait SolutionTable {
    /// The board.
    fn size(&self) -> BoardSize;
    /// The plies it holds.
    fn plies(&self) -> RangeInclusive<u32>;
    /// The outcome of a position for the player to move; an error (naming
    /// the file) when the position's ply is not held or its file fails a
    /// check.
    fn outcome(&mut self, position: &Position) -> Result<Outcome>;
    /// What it is, for messages: its kind and folder.
    fn describe(&self) -> String;
    /// Its identity, as a book built from it names it: its kind, board and
    /// a CRC-32 of what it stores (the manifest of a c4bdd solution, which
    /// holds every ply file's checksum; the setup of a partitioned one; the
    /// names and sizes of the artifact's files, which have no checksums).
    fn identity(&self) -> Result<String>;
    /// Read every file whole and check it (checksums where the format has
    /// them, the structure of every node where it has not), calling `done`
    /// after each ply; the first failure is an error naming the file.
    fn verify(&self, done: &mut dyn FnMut(u32)) -> Result<()>;
    /// Prove every ply held from the game's rules ([`crate::search::pass::prove`]),
    /// calling `done` after each ply; the first set the rules contradict is
    /// an error naming the ply.
    fn prove(&mut self, done: &mut dyn FnMut(u32)) -> Result<Proof>;
}

/// Refuse a stored set of ply `ply` (the BDD at `root` of `file`) when one
/// assignment that satisfies it (its [`StoredBdd::witness`]) is not a
/// position of that ply as `decode` reads it: a file of another ply or
/// another board put in this one's place. An empty set passes; so does any
/// set of a board too large for explicit positions (nothing can be asked of
/// it).
pub(crate) fn check_witness(
    file: &mut StoredBdd,
    root: u32,
    size: BoardSize,
    ply: u32,
    decode: impl Fn(&[bool]) -> Option<Position>,
) -> Result<()> {
    let Some(witness) = file.witness(root)? else { return Ok(()) };
    if !size.fits_bitboard() || decode(&witness).is_some_and(|p| p.ply() == ply) {
        return Ok(());
    }
    Err(bad(file.path(), format!("holds states that are not positions of ply {ply} of board {size}")))
}

/// A table as a search's probe: a ply the table does not hold answers
/// nothing, and so does one whose file fails (missing or damaged), so the
/// search goes on without it; its error is kept in [`TableProbe::failures`]
/// for the caller to report.
pub struct TableProbe {
    pub table: Box<dyn SolutionTable>,
    /// Why plies could not be probed (one message each, naming the file);
    /// such a ply is not tried again.
    failures: Vec<(u32, String)>,
}

impl TableProbe {
    pub fn new(table: Box<dyn SolutionTable>) -> TableProbe {
        TableProbe { table, failures: Vec::new() }
    }

    /// The plies a search could not probe, with why.
    pub fn failures(&self) -> &[(u32, String)] {
        &self.failures
    }
}

impl OutcomeProbe for TableProbe {
    fn probe(&mut self, position: &Position) -> Option<Outcome> {
        let ply = position.ply();
        if !self.table.plies().contains(&ply) || self.failures.iter().any(|(p, _)| *p == ply) {
            return None;
        }
        match self.table.outcome(position) {
            Ok(outcome) => Some(outcome),
            Err(e) => {
                self.failures.push((ply, e.to_string()));
                None
            }
        }
    }
}

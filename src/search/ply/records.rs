//! The records a pass makes of each ply: a count's [`PlyRecord`], a
//! solve's [`SolvePly`], and a solved board's [`Value`].

use serde::{Deserialize, Serialize};

use crate::search::ply::phases::Phases;

/// The record of one ply.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlyRecord {
    pub ply: u32,
    /// Positions at this ply (exact).
    pub states: u128,
    /// Nodes of this ply's BDD (plain ROBDD nodes; the core has no complement edges).
    pub bdd_nodes: u64,
    /// Internal nodes alive in the manager when the ply finished.
    pub live_nodes: u64,
    /// Wall time of this ply.
    pub time_s: f64,
    /// Resident bytes of the process when the record was made, and the most it
    /// held so far (Linux only; absent in records written before these fields,
    /// and then not serialized, so that old checkpoints keep their checksum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// The most live nodes the process held so far (absent in records written
    /// before this field, and then not serialized, as above): with the peak
    /// RSS, a run resumed in other processes takes its peaks over them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_nodes: Option<u64>,
    /// Where the ply's time went: removing the previous ply's terminal
    /// states (in a solve's forward pass, this ply's), the image, counting
    /// this ply (absent in records written before phases were kept, and then
    /// not serialized, as above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<Phases>,
    /// Positions where the player who just moved has four in a row, counted
    /// by a pass that keeps its layers (a solve's) on every ply but the last;
    /// absent otherwise, and then not serialized, as above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal: Option<u128>,
}

/// The game-theoretic value of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Value {
    FirstPlayerWins,
    Draw,
    SecondPlayerWins,
}

impl Value {
    pub fn name(self) -> &'static str {
        match self {
            Value::FirstPlayerWins => "first-player-wins",
            Value::Draw => "draw",
            Value::SecondPlayerWins => "second-player-wins",
        }
    }

    /// The value of a position of the first player to move (the empty
    /// board) whose outcome for that player is `outcome`.
    pub fn for_first_player(outcome: crate::game::explicit::Outcome) -> Value {
        use crate::game::explicit::Outcome;
        match outcome {
            Outcome::Win => Value::FirstPlayerWins,
            Outcome::Draw => Value::Draw,
            Outcome::Loss => Value::SecondPlayerWins,
        }
    }
}

/// One ply of the solution in the paper's Table 2 form (first player's view).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolvePly {
    pub ply: u32,
    /// Positions the first player wins.
    pub won: u128,
    pub drawn: u128,
    /// Positions the first player loses.
    pub lost: u128,
    pub total: u128,
    /// Positions where the player who just moved has four in a row.
    pub terminal: u128,
    /// Nodes of this ply's stored BDDs (win and lost, shared nodes once).
    pub nodes: u64,
    /// Wall time of this ply's retrograde step, storing its solution included.
    pub time_s: f64,
    /// Resident bytes of the process when the record was made, and the most it
    /// held so far (as in [`PlyRecord`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes: Option<u64>,
    /// The most live nodes the process held so far (as in
    /// [`PlyRecord`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_nodes: Option<u64>,
    /// Where the ply's time went: splitting off its terminal states, the two
    /// pre-images, sorting into won, drawn and lost, counting and storing
    /// the solution (absent in records written before phases were
    /// kept). The rest is bookkeeping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<Phases>,
}

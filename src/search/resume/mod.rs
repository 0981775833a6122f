//! Resuming the passes: what a pass takes up, and the checkpoints that
//! save a count ([`forward::Checkpoint`]) and a solve
//! ([`solve::SolveCheckpoint`]) ply by ply and image step by image step.

use crate::bdd::Bdd;
use crate::encoding::StateSpace;
use crate::search::ply::phases::Phases;
use crate::search::ply::records::PlyRecord;
use crate::search::ply::transition::{Joined, Step, StepOf, Transition};

pub mod forward;
pub mod solve;

/// Where a resumed forward pass starts: the records of plies `0..=k`, the
/// states of ply `k` and, if one was saved, the image of ply `k` part way.
pub struct Resume {
    pub records: Vec<PlyRecord>,
    pub states: Bdd,
    /// The image from ply `k` as far as it was joined (its union pinned; the
    /// pass unpins it).
    pub image: Option<ImageSoFar>,
}

/// An image joined part way: the union of the first `joined.steps` products
/// of the image from ply `ply`, with the ply's seconds and phases so far.
#[derive(Clone, Copy, Debug)]
pub struct ImageSoFar {
    pub ply: u32,
    pub joined: Joined,
    pub time_s: f64,
    pub phases: Phases,
}

impl ImageSoFar {
    /// This image's progress as a step of the image from its ply under `rules`.
    pub fn step(&self, space: &StateSpace, rules: &Transition) -> Step {
        let (ply, done, time_s) = (self.ply, self.joined.steps, self.time_s);
        Step { ply, of: StepOf::Image, done, steps: rules.steps(space, ply, true), time_s }
    }
}

//! The strategies of a forward pass: how images are computed and how
//! terminal states are removed.

use serde::{Deserialize, Serialize};

use crate::encoding::Frame;

crate::named::named_enum! {
    /// How the image of a ply is computed.
    pub enum ImageStrategy ("image strategy", default InPlace) {
        /// One relation (the disjunction of all column moves) per player, applied
        /// with the in-place relational product (`Manager::image`): every ply's
        /// states live in frame A and the unchanged part of a successor is the
        /// predecessor's own sub-BDD.
        InPlace = "in-place",
        /// One in-place relation per column, the columns' images (or pre-images)
        /// joined with `or`: each relational product holds one move's relation,
        /// and a retrograde ply's checkpoint keeps the union after each column.
        InPlaceColumns = "in-place-columns",
        /// One relation per frame, the classic relational product into the other
        /// frame (frames alternate per ply, the paper's §3.2).
        Monolithic = "monolithic",
        /// One relation per column and frame; the column images are joined with `or`.
        Columns = "columns",
    }
}

impl ImageStrategy {
    /// The frame that holds the states of a ply under this strategy.
    pub fn frame_of(self, ply: u32) -> Frame {
        match self {
            ImageStrategy::InPlace | ImageStrategy::InPlaceColumns => Frame::A,
            ImageStrategy::Monolithic | ImageStrategy::Columns => Frame::of_ply(ply),
        }
    }
}

crate::named::named_enum! {
    /// How terminal states (four in a row) are removed before the image.
    pub enum TerminalStrategy ("terminal strategy", default Whole) {
        /// One BDD of all winning lines per frame, subtracted at once.
        Whole = "whole",
        /// Each winning line subtracted on its own (the paper's artifact).
        Lines = "lines",
        /// Non-terminal sources folded into the relation once: each ply is one
        /// relational product `∃A: states ∧ (trans ∧ ¬terminal)`.
        Fused = "fused",
        /// No termination: positions after a win are expanded too.
        Off = "off",
    }
}

impl TerminalStrategy {
    /// Whether a solve can use it: the retrograde pass needs each ply's
    /// terminal states on their own (whole or lines).
    pub fn can_solve(self) -> bool {
        matches!(self, TerminalStrategy::Whole | TerminalStrategy::Lines)
    }
}

/// Options of a forward pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForwardOptions {
    pub image: ImageStrategy,
    pub terminal: TerminalStrategy,
    /// Case split of each (pre-)image: its operand is cut on its frame's top
    /// `image_split` variables of cells (`transition::top_cell_vars`) into
    /// `2^image_split` parts, each part's products are joined with `or` (0:
    /// no split; at most [`MAX_IMAGE_SPLIT`]). Not serialized when 0, so
    /// that checkpoints without it keep their checksum.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub image_split: u8,
    /// Split in parts of a retrograde ply (solve only): once its won states
    /// are split off, its states and the drawn set's pre-image are cut on
    /// the frame's top `split_parts` variables of cells into
    /// `2^split_parts` parts, and the split runs part by part,
    /// each part's inputs released once it is split (0: one split of the
    /// whole ply; at most [`MAX_SPLIT_PARTS`]). The same sets, a lower peak.
    /// Not serialized when 0, like `image_split`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub split_parts: u8,
}

/// The most top variables an image may be split on (256 parts).
pub const MAX_IMAGE_SPLIT: u8 = 8;

/// The most top variables a ply's split may be cut on (256 parts).
pub const MAX_SPLIT_PARTS: u8 = 8;

/// Whether an image split is none (fields that skip it when serialized).
pub(crate) fn is_zero(n: &u8) -> bool {
    *n == 0
}

impl ForwardOptions {
    /// The options that make images and pre-images: these, without the
    /// split in parts (which only changes how a ply's sets are split off
    /// its pre-images).
    pub(crate) fn images(&self) -> ForwardOptions {
        ForwardOptions { split_parts: 0, ..*self }
    }

    /// Whether steps of an image or pre-image saved part way under these
    /// options go on under the image split's cut, given whether their parts
    /// were cut on variables of cells (`cells_cut`): yes, unless they were
    /// cut on other variables.
    pub(crate) fn steps_taken_up(&self, cells_cut: bool) -> bool {
        self.image_split == 0 || cells_cut
    }
}

impl Default for ForwardOptions {
    fn default() -> ForwardOptions {
        ForwardOptions {
            image: ImageStrategy::InPlace,
            terminal: TerminalStrategy::Whole,
            image_split: 0,
            split_parts: 0,
        }
    }
}

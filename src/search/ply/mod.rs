//! What every pass is made of: its options, one ply's transition relations
//! and steps, the split of a ply into won, drawn and lost, the records a ply
//! leaves, and the phases its time goes to.

pub mod options;
pub mod phases;
pub mod records;
pub mod split;
pub mod transition;

//! BDDs written as arrays of 9-byte records, the format of the paper's
//! artifact (read by [`crate::StoredBdd::open_records9`]): variable u8, low
//! u32, high u32, little-endian; records 0 and 1 are the terminals false
//! and true (variable 0, both children the record itself), the nodes follow
//! in [`Manager::post_order`], children before parents, and the root is the
//! last record. The empty set is record 0 alone.

use std::io::Write;

use crate::manager::Manager;
use crate::store::node::{Bdd, Var};

fn record(var: u8, low: u32, high: u32) -> [u8; 9] {
    let mut b = [0u8; 9];
    b[0] = var;
    b[1..5].copy_from_slice(&low.to_le_bytes());
    b[5..9].copy_from_slice(&high.to_le_bytes());
    b
}

impl Manager {
    /// Write `root` in 9-byte records, each variable under `number(var)`
    /// (1..=255, increasing with the level); returns the records written.
    pub fn save_records9(&self, root: Bdd, number: impl Fn(Var) -> u8, out: impl Write) -> std::io::Result<u64> {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, out);
        w.write_all(&record(0, 0, 0))?;
        let mut written = 1;
        if root != Bdd::FALSE {
            w.write_all(&record(0, 1, 1))?;
            written += 1;
            let mut index = self.file_index(&[root]);
            self.post_order(&mut index, &[root], |var, low, high| {
                written += 1;
                w.write_all(&record(number(var), low, high))
            })?;
        }
        w.flush()?;
        Ok(written)
    }
}

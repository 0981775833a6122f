//! BDDs written as arrays of 9-byte records, the format of the paper's
//! artifact: variable u8, low u32, high u32, little-endian; records 0 and 1
//! are the terminals false and true (variable 0, both children the record
//! itself), the nodes follow in post-order
//! ([`Manager::visit_post_order`]), children before parents, and the root
//! is the last record; the variables are numbered from 1 in level order.
//! The empty set is record 0 alone. Read in place through the core's
//! [`StoredBdd::open_records`] in [`LAYOUT`].

use std::io::Write;
use std::path::Path;

use crate::bdd::{Bdd, Error, Manager, NodeRecord, RecordLayout, Result, StoredBdd, Var};

/// The layout of a record.
pub const LAYOUT: RecordLayout = RecordLayout { bytes: 9, decode };

fn decode(b: &[u8]) -> NodeRecord {
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("four bytes"));
    NodeRecord { var: u32::from(b[0]), low: word(1), high: word(5) }
}

fn record(var: u8, low: u32, high: u32) -> [u8; 9] {
    let mut b = [0u8; 9];
    b[0] = var;
    b[1..5].copy_from_slice(&low.to_le_bytes());
    b[5..9].copy_from_slice(&high.to_le_bytes());
    b
}

/// Open a file of records over `vars` variables (numbered `1..=vars` in
/// level order), its terminal records checked.
pub fn open(path: &Path, vars: u32) -> Result<StoredBdd> {
    let order: Vec<u32> = (1..=vars).collect();
    let mut stored = StoredBdd::open_records(path, LAYOUT, &order)?;
    let records = stored.roots()[0] + 1; // the root is the last record
    for (k, low) in (0..records.min(2)).zip([0, 1]) {
        let r = stored.record(k)?;
        if (r.var, r.low, r.high) != (0, low, low) {
            let reason = format!("record {k} is not the terminal {}", low == 1);
            return Err(Error::BadFile { path: path.to_path_buf(), reason });
        }
    }
    Ok(stored)
}

/// Write `root` in records, each variable under `number(var)` (1..=255,
/// increasing with the level); returns the records written.
pub fn save(m: &Manager, root: Bdd, number: impl Fn(Var) -> u8, out: impl Write) -> std::io::Result<u64> {
    let mut w = std::io::BufWriter::with_capacity(1 << 20, out);
    w.write_all(&record(0, 0, 0))?;
    let mut written = 1;
    if root != Bdd::FALSE {
        w.write_all(&record(0, 1, 1))?;
        written += 1;
        m.visit_post_order(&[root], |var, low, high| {
            written += 1;
            w.write_all(&record(number(var), low, high))
        })?;
    }
    w.flush()?;
    Ok(written)
}

//! Shared by the examples that read BDD files: a manager made from a file's header.

use std::path::Path;

use c4bdd_core::{Config, Manager};

/// The examples' error type.
pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A manager with the variables, in the order, of the BDD file `path`
/// (from its header: magic, version, label, variable count, order), with `config`.
pub fn manager_for(path: &Path, config: Config) -> Result<Manager> {
    use std::io::Read;
    let mut head = vec![0u8; 64 << 10];
    let n = std::fs::File::open(path)?.read(&mut head)?;
    let head = &head[..n];
    let word = |at: usize| -> Result<u32> {
        let bytes = head.get(at..at + 4).ok_or_else(|| format!("{}: header cut short", path.display()))?;
        Ok(u32::from_le_bytes(bytes.try_into()?))
    };
    let vars_at = 16 + word(12)? as usize;
    let count = word(vars_at)? as usize;
    let mut m = Manager::new(config);
    let vars = m.add_vars(count)?;
    let mut order = Vec::with_capacity(count);
    for level in 0..count {
        let v = word(vars_at + 4 + 4 * level)? as usize;
        order.push(*vars.get(v).ok_or_else(|| format!("{}: variable {v} out of range", path.display()))?);
    }
    m.set_order(&order)?;
    Ok(m)
}

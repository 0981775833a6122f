//! The speed of a BDD file's reading and writing: load a c4bdd BDD file
//! (any label, any variable order: the manager is made from its header),
//! save what it holds again, load that copy into a fresh manager, and print
//! the three times. For example, on a part file of the 7x6 solve:
//!
//! ```text
//! cargo run --release -p c4bdd-core --example file_speed -- checkpoint/parts/ply-028/lost-0010.bdd
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use c4bdd_core::{file_label, Config, Manager};

#[path = "common/header.rs"]
mod header;
use header::{manager_for, Result};

#[global_allocator]
static ALLOCATOR: c4bdd_core::HugePageAlloc = c4bdd_core::HugePageAlloc;

/// Load `path` into a fresh manager: the manager, the roots and the seconds.
fn timed_load(path: &Path, label: &str) -> Result<(Manager, Vec<c4bdd_core::Bdd>, f64)> {
    let mut m = manager_for(path, Config::default())?;
    let start = Instant::now();
    let roots = m.load(path, label)?;
    Ok((m, roots, start.elapsed().as_secs_f64()))
}

fn run(path: PathBuf) -> Result<()> {
    let label = file_label(&path)?;
    let (m, roots, load_s) = timed_load(&path, &label)?;
    let copy = std::env::temp_dir().join(format!("file-speed-{}.bdd", std::process::id()));
    let start = Instant::now();
    m.save(&roots, &label, &copy)?;
    let save_s = start.elapsed().as_secs_f64();
    let nodes = m.node_count_many(&roots);
    drop(m);
    let again = timed_load(&copy, &label);
    std::fs::remove_file(&copy)?;
    let (_, _, reload_s) = again?;
    println!("{nodes} nodes: load {load_s:.2} s, save {save_s:.2} s, load of the saved copy {reload_s:.2} s");
    Ok(())
}

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: file_speed FILE.bdd");
        std::process::exit(2);
    };
    if let Err(e) = run(PathBuf::from(path)) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

//! A binary operation on two BDD files, depth-first against breadth-first
//! ([`Traversal`]): per round and traversal, a fresh manager loads both
//! files, runs the operation once to grow its tables (and the breadth-first
//! requests), collects that result, and runs it again timed. Prints the
//! seconds and the nodes each timed run created, and checks that both
//! traversals give a result of the same size. For example, on the won and
//! lost sets of a part of the 7x6 solve:
//!
//! ```text
//! cargo run --release -p c4bdd-core --example traversal_speed -- or 3 won-0003.bdd lost-0003.bdd
//! ```

use std::path::Path;
use std::time::Instant;

use c4bdd_core::{file_label, Bdd, Config, Manager, Traversal};

#[path = "common/header.rs"]
mod header;
use header::{manager_for, Result};

#[global_allocator]
static ALLOCATOR: c4bdd_core::HugePageAlloc = c4bdd_core::HugePageAlloc;

/// The binary operations this example times.
fn operate(m: &mut Manager, op: &str, f: Bdd, g: Bdd) -> c4bdd_core::Result<Bdd> {
    match op {
        "or" => m.or(f, g),
        "and" => m.and(f, g),
        _ => m.diff(f, g),
    }
}

/// One timed run: seconds, nodes created, nodes of the result.
fn timed(traversal: Traversal, op: &str, a: &Path, b: &Path) -> Result<(f64, u64, usize)> {
    let mut m = manager_for(a, Config { traversal, ..Config::default() })?;
    let f = m.load(a, &file_label(a)?)?[0];
    let g = m.load(b, &file_label(b)?)?[0];
    operate(&mut m, op, f, g)?;
    m.gc(&[f, g]);
    m.clear_cache();
    let before = m.stats().nodes_created;
    let start = Instant::now();
    let r = operate(&mut m, op, f, g)?;
    let seconds = start.elapsed().as_secs_f64();
    Ok((seconds, m.stats().nodes_created - before, m.node_count(r)))
}

fn run(args: &[String]) -> Result<()> {
    let [op, rounds, a, b] = args else {
        return Err("usage: traversal_speed or|and|diff ROUNDS A.bdd B.bdd".into());
    };
    if !["or", "and", "diff"].contains(&op.as_str()) {
        return Err(format!("unknown operation '{op}' (expected or, and or diff)").into());
    }
    let rounds: usize = rounds.parse().map_err(|_| format!("rounds: '{rounds}' is not a count"))?;
    let mut sizes = Vec::new();
    for round in 1..=rounds {
        for traversal in Traversal::ALL {
            let (seconds, created, size) = timed(traversal, op, Path::new(a), Path::new(b))?;
            println!("round {round} {traversal}: {op} in {seconds:.3} s, {created} nodes created, result {size} nodes");
            sizes.push(size);
        }
    }
    if sizes.windows(2).any(|w| w[0] != w[1]) {
        return Err("the traversals' results differ in size".into());
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

//! The N-queens problem with BDDs: one variable per square (a queen on it),
//! the rules as one BDD, its satisfying assignments counted.
//!
//! ```sh
//! cargo run --release -p c4bdd-core --example queens -- 8   # 92 solutions
//! ```

use c4bdd_core::{Bdd, Config, Manager, Result, Var};

/// The number of ways to place `n` queens on an `n`×`n` board, none
/// attacking another, and the size of the BDD of all of them.
pub fn solutions(n: usize) -> Result<(u128, usize)> {
    let mut m = Manager::new(Config::default());
    let vars = m.add_vars(n * n)?;
    let square = |r: usize, c: usize| vars[r * n + c];
    let mut board = Bdd::TRUE;
    for r in 0..n {
        // At least one queen in the row...
        let mut row = Bdd::FALSE;
        for c in 0..n {
            let q = m.literal(square(r, c), true)?;
            row = m.or(row, q)?;
        }
        board = m.and(board, row)?;
        // ...and no queen attacked by the one on (r, c).
        for c in 0..n {
            let safe = attacked_squares_empty(&mut m, n, (r, c), &square)?;
            let q = m.literal(square(r, c), true)?;
            let rule = m.imp(q, safe)?;
            board = m.and(board, rule)?;
        }
    }
    let all = m.var_set(&vars)?;
    Ok((m.sat_count(board, all), m.node_count(board)))
}

/// No queen on any square that a queen on `(r, c)` attacks.
fn attacked_squares_empty(
    m: &mut Manager,
    n: usize,
    (r, c): (usize, usize),
    square: &impl Fn(usize, usize) -> Var,
) -> Result<Bdd> {
    let attacks =
        |(r2, c2): (usize, usize)| (r2, c2) != (r, c) && (r2 == r || c2 == c || r2.abs_diff(r) == c2.abs_diff(c));
    let empty: Vec<(Var, bool)> =
        (0..n * n).map(|i| (i / n, i % n)).filter(|&s| attacks(s)).map(|(r2, c2)| (square(r2, c2), false)).collect();
    m.cube(&empty)
}

fn main() {
    let n = match std::env::args().nth(1).map(|a| a.parse::<usize>()) {
        None => 8,
        Some(Ok(n)) if (1..=12).contains(&n) => n,
        Some(_) => {
            eprintln!("usage: queens [N], N from 1 to 12");
            std::process::exit(2);
        }
    };
    match solutions(n) {
        Ok((count, nodes)) => println!("{n} queens: {count} solutions, a BDD of {nodes} nodes"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

//! BDD families of known size shared by the core's tests and benchmarks.

use c4bdd_core::{Bdd, Manager, Var};

/// "Exactly k of the variables are true", a family whose size grows as n·k.
pub fn exactly_k(m: &mut Manager, x: &[Var], k: usize) -> Bdd {
    // counts[j] = "exactly j of the variables seen so far are true".
    let mut counts = vec![Bdd::TRUE];
    for &v in x {
        let pos = m.literal(v, true).unwrap();
        let neg = m.literal(v, false).unwrap();
        let mut next = Vec::with_capacity(counts.len() + 1);
        for j in 0..=counts.len() {
            let stay = if j < counts.len() { m.and(counts[j], neg).unwrap() } else { Bdd::FALSE };
            let step = if j > 0 { m.and(counts[j - 1], pos).unwrap() } else { Bdd::FALSE };
            next.push(m.or(stay, step).unwrap());
        }
        counts = next;
    }
    counts[k]
}

//! Every operation on all 256 Boolean functions of 3 variables against truth
//! tables, under the identity order and a permuted one. Results must also be
//! canonical: equal functions give equal handles.

use c4bdd_core::{Bdd, Manager, Var};

use crate::common::{all3, manager, number3, table3, truth_table};

const ORDERS: [Option<&[usize]>; 2] = [None, Some(&[2, 0, 1])];

/// Check `got` against the expected truth table, by evaluation and by handle.
fn expect(m: &Manager, fs: &[Bdd], got: Bdd, want: &[bool], what: &str) {
    assert_eq!(truth_table(m, got, 3), want, "{what}");
    assert_eq!(got, fs[number3(want)], "{what}: not canonical");
}

fn subsets(vars: &[Var]) -> Vec<Vec<Var>> {
    (0..8).map(|s| (0..3).filter(|j| (s >> j) & 1 == 1).map(|j| vars[j]).collect()).collect()
}

#[test]
fn constants_literals_and_building_blocks() {
    for order in ORDERS {
        let (mut m, x) = manager(3, order);
        let fs = all3(&mut m, &x);
        assert_eq!(fs[0], Bdd::FALSE);
        assert_eq!(fs[255], Bdd::TRUE);
        for (k, &f) in fs.iter().enumerate() {
            assert_eq!(truth_table(&m, f, 3), table3(k), "function {k}");
        }
        for (j, &v) in x.iter().enumerate() {
            let lit = m.literal(v, true).unwrap();
            let want: Vec<bool> = (0..8).map(|i| (i >> j) & 1 == 1).collect();
            expect(&m, &fs, lit, &want, "literal");
        }
        m.check().unwrap();
    }
}

#[test]
fn not_and_binary_operations() {
    type Law = fn(bool, bool) -> bool;
    let laws: [(&str, Law); 6] = [
        ("and", |a, b| a && b),
        ("or", |a, b| a || b),
        ("xor", |a, b| a != b),
        ("diff", |a, b| a && !b),
        ("imp", |a, b| !a || b),
        ("iff", |a, b| a == b),
    ];
    for order in ORDERS {
        let (mut m, x) = manager(3, order);
        let fs = all3(&mut m, &x);
        for i in 0..256 {
            let got = m.not(fs[i]).unwrap();
            let want: Vec<bool> = table3(i).iter().map(|&a| !a).collect();
            expect(&m, &fs, got, &want, "not");
            for j in 0..256 {
                let (ta, tb) = (table3(i), table3(j));
                for (name, law) in laws {
                    let got = match name {
                        "and" => m.and(fs[i], fs[j]),
                        "or" => m.or(fs[i], fs[j]),
                        "xor" => m.xor(fs[i], fs[j]),
                        "diff" => m.diff(fs[i], fs[j]),
                        "imp" => m.imp(fs[i], fs[j]),
                        _ => m.iff(fs[i], fs[j]),
                    }
                    .unwrap();
                    let want: Vec<bool> = (0..8).map(|a| law(ta[a], tb[a])).collect();
                    expect(&m, &fs, got, &want, name);
                }
            }
        }
        m.check().unwrap();
    }
}

/// `split` gives `(f ∧ g, f ∧ ¬g)` whatever the cache holds: nothing, the
/// `and` half, the `diff` half, or both (a second split), on pairs of the
/// 256 functions of 3 variables, against truth tables.
#[test]
fn split_gives_both_halves_whatever_the_cache_holds() {
    for order in ORDERS {
        let (mut m, x) = manager(3, order);
        let fs = all3(&mut m, &x);
        for i in 0..256 {
            for j in (i % 5..256).step_by(5) {
                let (ta, tb) = (table3(i), table3(j));
                let and: Vec<bool> = (0..8).map(|a| ta[a] && tb[a]).collect();
                let diff: Vec<bool> = (0..8).map(|a| ta[a] && !tb[a]).collect();
                m.clear_cache();
                match (i + j) % 4 {
                    1 => _ = m.and(fs[i], fs[j]).unwrap(),
                    2 => _ = m.diff(fs[i], fs[j]).unwrap(),
                    3 => _ = m.split(fs[i], fs[j]).unwrap(),
                    _ => {}
                }
                let (a, d) = m.split(fs[i], fs[j]).unwrap();
                expect(&m, &fs, a, &and, "split: the and half");
                expect(&m, &fs, d, &diff, "split: the diff half");
            }
        }
        m.check().unwrap();
    }
}

/// `split3` gives `(f ∧ g, f ∧ ¬g ∧ h, f ∧ ¬g ∧ ¬h)` on all pairs of the 256
/// functions of 3 variables and a stride of third operands (so every
/// terminal and two-way case is met), against truth tables, from an empty
/// table and again from a filled one.
#[test]
fn split3_gives_won_drawn_and_lost_by_truth_table() {
    for order in ORDERS {
        let (mut m, x) = manager(3, order);
        let fs = all3(&mut m, &x);
        for i in 0..256 {
            for j in 0..256 {
                for k in (j % 13..256).step_by(13).chain([0, 255, i, j]) {
                    let (tf, tg, th) = (table3(i), table3(j), table3(k));
                    let want = |p: &dyn Fn(bool, bool, bool) -> bool| -> Vec<bool> {
                        (0..8).map(|a| p(tf[a], tg[a], th[a])).collect()
                    };
                    let (w, d, l) = m.split3(fs[i], fs[j], fs[k]).unwrap();
                    expect(&m, &fs, w, &want(&|f, g, _| f && g), "split3: won");
                    expect(&m, &fs, d, &want(&|f, g, h| f && !g && h), "split3: drawn");
                    expect(&m, &fs, l, &want(&|f, g, h| f && !g && !h), "split3: lost");
                    assert_eq!(m.split3(fs[i], fs[j], fs[k]).unwrap(), (w, d, l), "split3 again");
                }
            }
            if i % 64 == 63 {
                m.clear_cache();
            }
        }
        m.check().unwrap();
    }
}

#[test]
fn ite_on_all_pairs_and_a_stride_of_third_operands() {
    for order in ORDERS {
        let (mut m, x) = manager(3, order);
        let fs = all3(&mut m, &x);
        for i in 0..256 {
            for j in 0..256 {
                for k in (0..256).step_by(17) {
                    let got = m.ite(fs[i], fs[j], fs[k]).unwrap();
                    let (a, b, c) = (table3(i), table3(j), table3(k));
                    let want: Vec<bool> = (0..8).map(|t| if a[t] { b[t] } else { c[t] }).collect();
                    expect(&m, &fs, got, &want, "ite");
                }
            }
        }
        m.check().unwrap();
    }
}

#[test]
fn exists_forall_and_exists_over_every_subset() {
    for order in ORDERS {
        let (mut m, x) = manager(3, order);
        let fs = all3(&mut m, &x);
        for vars in subsets(&x) {
            let set = m.var_set(&vars).unwrap();
            let mask: usize = vars.iter().map(|v| 1 << v.0).sum();
            // The assignments that differ from `a` only on the quantified variables.
            let class = |a: usize| (0..8).filter(move |&b| (a & !mask) == (b & !mask));
            for i in 0..256 {
                let t = table3(i);
                let ex = m.exists(fs[i], set).unwrap();
                let want: Vec<bool> = (0..8).map(|a| class(a).any(|b| t[b])).collect();
                expect(&m, &fs, ex, &want, "exists");
                let all = m.forall(fs[i], set).unwrap();
                let want: Vec<bool> = (0..8).map(|a| class(a).all(|b| t[b])).collect();
                expect(&m, &fs, all, &want, "forall");
                for j in 0..256 {
                    let u = table3(j);
                    let got = m.and_exists(fs[i], fs[j], set).unwrap();
                    let want: Vec<bool> = (0..8).map(|a| class(a).any(|b| t[b] && u[b])).collect();
                    expect(&m, &fs, got, &want, "and_exists");
                }
            }
        }
        m.check().unwrap();
    }
}

#[test]
fn rename_under_every_variable_map() {
    for order in ORDERS {
        let (mut m, x) = manager(3, order);
        let fs = all3(&mut m, &x);
        for code in 0..27usize {
            let target = [code % 3, code / 3 % 3, code / 9];
            let pairs: Vec<(Var, Var)> = (0..3).map(|j| (x[j], x[target[j]])).collect();
            let r = m.renaming(&pairs).unwrap();
            for (i, &f) in fs.iter().enumerate() {
                let t = table3(i);
                let got = m.rename(f, r).unwrap();
                // f[x_j := x_target(j)] at a reads f at the point b with b_j = a_target(j).
                let want: Vec<bool> =
                    (0..8).map(|a| t[(0..3).map(|j| ((a >> target[j]) & 1) << j).sum::<usize>()]).collect();
                expect(&m, &fs, got, &want, "rename");
            }
        }
        m.check().unwrap();
    }
}

#[test]
fn restrict_under_every_partial_assignment() {
    for order in ORDERS {
        let (mut m, x) = manager(3, order);
        let fs = all3(&mut m, &x);
        for code in 0..27usize {
            // Per variable: 0 = free, 1 = fixed false, 2 = fixed true.
            let fix = [code % 3, code / 3 % 3, code / 9];
            let lits: Vec<(Var, bool)> = (0..3).filter(|&j| fix[j] > 0).map(|j| (x[j], fix[j] == 2)).collect();
            let point =
                |a: usize| (0..3).map(|j| (if fix[j] == 0 { (a >> j) & 1 } else { fix[j] - 1 }) << j).sum::<usize>();
            for (i, &f) in fs.iter().enumerate() {
                let t = table3(i);
                let got = m.restrict(f, &lits).unwrap();
                let want: Vec<bool> = (0..8).map(|a| t[point(a)]).collect();
                expect(&m, &fs, got, &want, "restrict");
            }
        }
        m.check().unwrap();
    }
}

#[test]
fn sat_count_over_the_support_and_over_larger_sets() {
    for order in ORDERS {
        let (mut m, x) = manager(3, order);
        let extra = m.add_vars(2).unwrap();
        let fs = all3(&mut m, &x);
        let three = m.var_set(&x).unwrap();
        let mut five_vars = x.clone();
        five_vars.extend(&extra);
        let five = m.var_set(&five_vars).unwrap();
        for (i, &f) in fs.iter().enumerate() {
            let ones = table3(i).iter().filter(|&&t| t).count() as u128;
            assert_eq!(m.sat_count(f, three), ones, "function {i} over its 3 variables");
            assert_eq!(m.sat_count(f, five), ones * 4, "function {i} over 5 variables");
            let levels = order.map_or(vec![0, 1, 2], |o| o.to_vec());
            assert_eq!(m.node_count(f), robdd_size(&table3(i), &levels, false), "node count of function {i}");
            let with_complements = robdd_size(&table3(i), &levels, true);
            assert_eq!(m.complement_edge_size(f), with_complements, "complement-edge size of function {i}");
            assert_eq!(m.sat_count_and_size(f, three), (ones, m.node_count(f)), "one traversal, function {i}");
        }
    }
}

/// The support of every function of 3 variables is the set of variables
/// whose two cofactors' truth tables differ, in level order, under both
/// orders (the manager holding all 256 functions, so that its table holds
/// far more nodes than any one of them).
#[test]
fn support_is_the_variables_a_truth_table_depends_on() {
    for order in ORDERS {
        let (mut m, x) = manager(3, order);
        let fs = all3(&mut m, &x);
        // The variables in level order: `order` lists them so.
        let by_level = order.map_or(vec![0, 1, 2], |o| o.to_vec());
        for (i, &f) in fs.iter().enumerate() {
            let t = table3(i);
            let depends = |j: usize| (0..8).any(|a| t[a] != t[a ^ (1 << j)]);
            let want: Vec<usize> = by_level.iter().copied().filter(|&j| depends(j)).collect();
            let want: Vec<Var> = want.into_iter().map(|j| x[j]).collect();
            assert_eq!(m.support(f), want, "function {i}");
        }
    }
}

/// ROBDD size from the truth table alone: the nodes at level `l` are the
/// distinct subfunctions left after fixing the variables of levels `< l`
/// that depend on the variable at level `l`; `up_to_negation` counts a
/// subfunction and its negation once (the size with complement edges).
fn robdd_size(table: &[bool], order: &[usize], up_to_negation: bool) -> usize {
    let mut total = 0;
    for l in 0..3 {
        let mut subs = std::collections::HashSet::new();
        for prefix in 0..1usize << l {
            // Subfunction: the points whose level-<l variables match `prefix`.
            let sub: Vec<bool> = (0..8)
                .filter(|&a| (0..l).all(|k| ((a >> order[k]) & 1) == ((prefix >> k) & 1)))
                .map(|a| table[a])
                .collect();
            let var = order[l];
            let depends = (0..8).any(|a| {
                (0..l).all(|k| ((a >> order[k]) & 1) == ((prefix >> k) & 1)) && table[a] != table[a ^ (1 << var)]
            });
            if depends {
                let negated: Vec<bool> = sub.iter().map(|&t| !t).collect();
                subs.insert(if up_to_negation { sub.min(negated) } else { sub });
            }
        }
        total += subs.len();
    }
    total
}

/// Counts beyond 64 bits are exact: node counts that need 128 bits (the memo
/// widens), node counts that fit but a root scaled past 64 bits, a shared
/// counter whose later BDD widens the memo, on one thread and on two. The
/// oracle is arithmetic: `x_0 ∨ ... ∨ x_{n-1}` has `2^n - 1` models, the
/// parity of `n` variables `2^(n-1)`, a literal `2^(n-1)`.
#[test]
fn sat_counts_beyond_64_bits_are_exact() {
    const N: usize = 127;
    for threads in [1, 2] {
        let mut m = Manager::new(c4bdd_core::Config { threads, ..c4bdd_core::Config::default() });
        let x = m.add_vars(N).unwrap();
        let all = m.var_set(&x).unwrap();
        let lits: Vec<Bdd> = x.iter().map(|&v| m.literal(v, true).unwrap()).collect();
        let any = m.or_all(&lits).unwrap();
        let parity = lits.iter().try_fold(Bdd::FALSE, |acc, &l| m.xor(acc, l)).unwrap();
        let low = lits[N - 3];
        assert_eq!(m.sat_count(any, all), (1u128 << N) - 1, "{threads} threads: or of all");
        assert_eq!(m.sat_count(parity, all), 1u128 << (N - 1), "{threads} threads: parity");
        assert_eq!(m.sat_count(low, all), 1u128 << (N - 1), "{threads} threads: a literal near the bottom");
        let mut counter = m.counter(all);
        assert_eq!(counter.count(low), 1u128 << (N - 1), "{threads} threads: narrow memo");
        assert_eq!(counter.count(any), (1u128 << N) - 1, "{threads} threads: memo widened");
        assert_eq!(counter.count(low), 1u128 << (N - 1), "{threads} threads: after widening");
        assert_eq!(counter.visited(), m.node_count_many(&[low, any]), "{threads} threads: nodes");
    }
}

/// A count that does not fit in 128 bits is refused loudly, not wrapped.
#[test]
#[should_panic(expected = "sat_count overflows u128")]
fn a_count_beyond_128_bits_panics() {
    let mut m = Manager::new(c4bdd_core::Config::default());
    let x = m.add_vars(130).unwrap();
    let all = m.var_set(&x).unwrap();
    let f = m.literal(x[129], true).unwrap();
    m.sat_count(f, all);
}

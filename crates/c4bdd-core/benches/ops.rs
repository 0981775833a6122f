//! Criterion benchmarks of the core's operations on scalable synthetic
//! families: the Boolean operations, quantification and the relational
//! product, and collection. Every iteration starts from an empty computed
//! cache, so no iteration is answered from an earlier one.
//!
//! `cargo bench -p c4bdd-core`; the workspace's `benches/record.sh` archives
//! their medians with the Connect Four benchmarks.

use std::hint::black_box;

use c4bdd_core::{Bdd, Config, Manager, Var};
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};

/// The tables measured as a program that installs the crate's allocator holds them.
#[global_allocator]
static ALLOCATOR: c4bdd_core::HugePageAlloc = c4bdd_core::HugePageAlloc;

#[path = "../tests/core/families.rs"]
mod families;
use families::exactly_k;

/// A manager with `2n` interleaved variables x_i (even) and y_i (odd).
fn frames(n: usize) -> (Manager, Vec<Var>, Vec<Var>) {
    let mut m = Manager::new(Config::default());
    let all = m.add_vars(2 * n).unwrap();
    let xs = all.iter().step_by(2).copied().collect();
    let ys = all.iter().skip(1).step_by(2).copied().collect();
    (m, xs, ys)
}

fn apply_ops(c: &mut Criterion) {
    let mut group = c.benchmark_group("apply");
    group.sample_size(20);
    for n in [64usize, 128] {
        let (mut m, xs, _) = frames(n);
        let f = exactly_k(&mut m, &xs, n / 2);
        let g = exactly_k(&mut m, &xs[..n / 2], n / 8);
        let h = exactly_k(&mut m, &xs[n / 4..], n / 4);
        for f in [f, g, h] {
            m.pin(f);
        }
        let mut run = |name: &str, op: &dyn Fn(&mut Manager) -> Bdd| {
            group.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter(|| {
                    m.clear_cache();
                    black_box(op(&mut m))
                })
            });
        };
        run("and", &|m| m.and(f, g).unwrap());
        run("or", &|m| m.or(f, h).unwrap());
        run("ite", &|m| m.ite(g, f, h).unwrap());
    }
    group.finish();
}

fn quantification(c: &mut Criterion) {
    let mut group = c.benchmark_group("quantify");
    group.sample_size(20);
    for n in [64usize, 128] {
        let (mut m, xs, ys) = frames(n);
        // f(x): exactly n/2 of x; relation: y_i = x_{i-1} (a shift), y_0 = false.
        let f = exactly_k(&mut m, &xs, n / 2);
        let mut rel = m.literal(ys[0], false).unwrap();
        for i in (1..n).rev() {
            let (a, b) = (m.literal(xs[i - 1], true).unwrap(), m.literal(ys[i], true).unwrap());
            let same = m.iff(a, b).unwrap();
            rel = m.and(rel, same).unwrap();
        }
        m.pin(f);
        m.pin(rel);
        let half = m.var_set(&xs[..n / 2]).unwrap();
        let all_x = m.var_set(&xs).unwrap();
        group.bench_function(BenchmarkId::new("exists_half", n), |b| {
            b.iter(|| {
                m.clear_cache();
                black_box(m.exists(f, half).unwrap())
            })
        });
        group.bench_function(BenchmarkId::new("and_exists_shift", n), |b| {
            b.iter(|| {
                m.clear_cache();
                black_box(m.and_exists(f, rel, all_x).unwrap())
            })
        });
    }
    group.finish();
}

fn garbage_collection(c: &mut Criterion) {
    let mut group = c.benchmark_group("gc");
    group.sample_size(10);
    for n in [96usize, 160] {
        group.bench_function(BenchmarkId::new("collect_half", n), |b| {
            b.iter_batched(
                || {
                    let (mut m, xs, _) = frames(n);
                    let keep = exactly_k(&mut m, &xs, n / 2);
                    let _garbage = exactly_k(&mut m, &xs, n / 3);
                    (m, keep)
                },
                |(mut m, keep)| black_box(m.gc(&[keep])),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, apply_ops, quantification, garbage_collection);
criterion_main!(benches);

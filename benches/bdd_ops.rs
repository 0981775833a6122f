//! Criterion benchmarks of the BDD core on scalable synthetic families, and of
//! one Connect Four image step per encoding.
//!
//! Every iteration starts from an empty computed cache, so no iteration is
//! answered from an earlier one. `benches/record.sh` runs them and stores the
//! medians with the machine description under results/bench/.

use std::hint::black_box;

use c4bdd::bdd::{Bdd, Config, Manager, Var};
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::game::BoardSize;
use c4bdd::search::{step, ForwardOptions, ImageStrategy, Transition};
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};

/// The binary's allocator: the tables are measured as the binary holds them.
#[global_allocator]
static ALLOCATOR: c4bdd::bdd::HugePageAlloc = c4bdd::bdd::HugePageAlloc;

/// "Exactly k of `x` are true", built by dynamic programming over the variables.
fn exactly_k(m: &mut Manager, x: &[Var], k: usize) -> Bdd {
    let mut counts = vec![Bdd::TRUE];
    for &v in x {
        let (pos, neg) = (m.literal(v, true).unwrap(), m.literal(v, false).unwrap());
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

/// One forward step of 6x5 from ply 15 to 16, per encoding (paper order),
/// image strategy and threads, and the count (states and nodes) of ply 15 and
/// its saving (the file's bytes written to memory).
fn image_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("connect4_step_6x5_ply15");
    group.sample_size(10);
    let size = BoardSize::new(6, 5).unwrap();
    for kind in [EncodingKind::Compressed, EncodingKind::Cellwise] {
        for (image, threads) in
            [(ImageStrategy::InPlace, 1), (ImageStrategy::InPlace, 2), (ImageStrategy::Monolithic, 1)]
        {
            let config = Config { threads, ..Config::default() };
            let mut space = StateSpace::new(kind, size, &OrderSpec::PAPER, config).unwrap();
            let opts = ForwardOptions { image, ..ForwardOptions::default() };
            let rules = Transition::build(&mut space, &opts).unwrap();
            let mut states = space.initial().unwrap();
            for ply in 0..15 {
                states = step(&mut space, &rules, ply, states).unwrap();
            }
            space.manager.pin(states);
            if image == ImageStrategy::InPlace && threads == 1 {
                let id = format!("{}/sat_count", kind.name());
                let frame = rules.frame_of(15);
                group.bench_function(BenchmarkId::from_parameter(id), |b| {
                    b.iter(|| black_box(space.count_and_size(states, frame)))
                });
                let id = format!("{}/save", kind.name());
                group.bench_function(BenchmarkId::from_parameter(id), |b| {
                    b.iter(|| {
                        let mut bytes = Vec::new();
                        space.manager.save_to(&[states], "bench", &mut bytes).unwrap();
                        black_box(bytes.len())
                    })
                });
            }
            let suffix = if threads > 1 { format!("/{threads}-threads") } else { String::new() };
            let id = format!("{}/{image}{suffix}", kind.name());
            group.bench_function(BenchmarkId::from_parameter(id), |b| {
                b.iter(|| {
                    space.manager.gc(&[]);
                    space.manager.clear_cache();
                    black_box(step(&mut space, &rules, 15, states).unwrap())
                })
            });
        }
    }
    group.finish();
}

/// The operations of one retrograde step on 6x5 (compressed, paper order),
/// on one thread and on two: the pre-images of the terminal states of ply 16
/// and of the rest, the three-way split of ply 15 by them, its two-way split
/// by the first, the model count of ply 15, and a collection of the garbage
/// of one pre-image. Each operation's speed-up is the ratio of its two medians.
fn threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("threads_6x5_ply15");
    group.sample_size(10);
    let size = BoardSize::new(6, 5).unwrap();
    for threads in [1usize, 2] {
        let config = Config { threads, ..Config::default() };
        let mut space = StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, config).unwrap();
        let opts = ForwardOptions::default();
        let rules = Transition::build(&mut space, &opts).unwrap();
        let mut states = space.initial().unwrap();
        for ply in 0..15 {
            states = step(&mut space, &rules, ply, states).unwrap();
        }
        space.manager.pin(states);
        let next = step(&mut space, &rules, 15, states).unwrap();
        let (alive, terminal) = rules.split_terminal(&mut space, 16, next).unwrap();
        let pre = |space: &mut StateSpace, f| rules.preimage(space, 15, f).unwrap();
        let (to_lost, to_draw) = (pre(&mut space, terminal), pre(&mut space, alive));
        for f in [alive, terminal, to_lost, to_draw] {
            space.manager.pin(f);
        }
        // Each iteration starts from a collected table and an empty cache;
        // only the operation is timed (for "gc": the collection of the
        // garbage one pre-image left).
        let mut run = |name: &str, prepare: &dyn Fn(&mut StateSpace), op: &dyn Fn(&mut StateSpace) -> u64| {
            let id = format!("{name}/{threads}-thread{}", if threads > 1 { "s" } else { "" });
            group.bench_function(BenchmarkId::from_parameter(id), |b| {
                b.iter_custom(|iters| {
                    let mut total = std::time::Duration::ZERO;
                    for _ in 0..iters {
                        space.manager.gc(&[]);
                        space.manager.clear_cache();
                        prepare(&mut space);
                        let start = std::time::Instant::now();
                        black_box(op(&mut space));
                        total += start.elapsed();
                    }
                    total
                })
            });
        };
        let nothing = |_: &mut StateSpace| {};
        run("preimage", &nothing, &|s| pre(s, terminal).index() as u64);
        run("split3", &nothing, &|s| s.manager.split3(states, to_lost, to_draw).unwrap().0.index() as u64);
        run("split", &nothing, &|s| s.manager.split(states, to_lost).unwrap().0.index() as u64);
        run("sat_count", &nothing, &|s| s.count_and_size(states, rules.frame_of(15)).0 as u64);
        run(
            "gc",
            &|s| {
                pre(s, alive);
            },
            &|s| s.manager.gc(&[]).live_before,
        );
    }
    group.finish();
}

criterion_group!(benches, apply_ops, quantification, garbage_collection, image_step, threads);
criterion_main!(benches);

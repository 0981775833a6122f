//! Criterion benchmarks of one Connect Four image step per encoding, image
//! strategy and number of threads (the core's own operations are benchmarked
//! in `crates/c4bdd-core/benches/ops.rs`).
//!
//! Every iteration starts from an empty computed cache, so no iteration is
//! answered from an earlier one. `benches/record.sh` runs them and stores the
//! medians with the machine description under results/bench/.

use std::hint::black_box;

use c4bdd::bdd::Config;
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::game::BoardSize;
use c4bdd::search::{step, ForwardOptions, ImageStrategy, Transition};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

/// The binary's allocator: the tables are measured as the binary holds them.
#[global_allocator]
static ALLOCATOR: c4bdd::bdd::HugePageAlloc = c4bdd::bdd::HugePageAlloc;

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

/// A large set saved and loaded: the states of 7x5 at ply 24 (compressed,
/// paper order; 4.0 million nodes, tables far beyond the processor's caches),
/// written to memory, and read back into a fresh manager (made outside the
/// timing, and dropped outside it).
fn files(c: &mut Criterion) {
    let mut group = c.benchmark_group("files_7x5_ply24");
    group.sample_size(10);
    let size = BoardSize::new(7, 5).unwrap();
    let space = |threads| {
        let config = Config { threads, ..Config::default() };
        StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, config).unwrap()
    };
    let mut built = space(2);
    let rules = Transition::build(&mut built, &ForwardOptions::default()).unwrap();
    let mut states = built.initial().unwrap();
    for ply in 0..24 {
        states = step(&mut built, &rules, ply, states).unwrap();
    }
    built.manager.pin(states);
    built.manager.gc(&[]);
    let mut bytes = Vec::new();
    built.manager.save_to(&[states], "bench", &mut bytes).unwrap();
    group.bench_function("save", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(bytes.len());
            built.manager.save_to(&[states], "bench", &mut out).unwrap();
            black_box(out.len())
        })
    });
    group.bench_function("load", |b| {
        b.iter_batched(
            || space(1),
            |mut fresh| {
                let roots = fresh.manager.load_from(&bytes[..], "bench").unwrap();
                (fresh, roots)
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, image_step, threads, files);
criterion_main!(benches);

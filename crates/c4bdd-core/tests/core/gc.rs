//! Garbage collection, statistics and the node limit.

use c4bdd_core::Error;
use c4bdd_core::{Bdd, Config, Manager};

use crate::common::truth_table;
use crate::families::exactly_k;

fn binomial(n: u128, k: u128) -> u128 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

#[test]
fn rooted_and_pinned_bdds_survive_and_garbage_is_freed() {
    let mut m = Manager::new(Config::default());
    let x = m.add_vars(12).unwrap();
    let all = m.var_set(&x).unwrap();
    let pinned = exactly_k(&mut m, &x, 4);
    m.pin(pinned);
    let rooted = exactly_k(&mut m, &x, 6);
    let garbage = exactly_k(&mut m, &x, 3);
    let pinned_table = truth_table(&m, pinned, 12);
    let rooted_table = truth_table(&m, rooted, 12);
    let kept = m.node_count_many(&[pinned, rooted]);
    let before = m.stats();
    assert!(before.live as usize > kept, "garbage exists before the collection");

    let report = m.gc(&[rooted]);
    m.check().unwrap();
    let after = m.stats();
    assert_eq!(report.live_after as usize, kept, "exactly the reachable nodes survive");
    assert_eq!(report.freed, report.live_before - report.live_after);
    assert!(report.freed > 0);
    assert_eq!(after.gc_runs, 1);
    assert_eq!(after.gc_freed, report.freed);
    assert!(after.gc_time > std::time::Duration::ZERO);
    assert_eq!(after.live as usize, kept);

    assert_eq!(truth_table(&m, pinned, 12), pinned_table);
    assert_eq!(truth_table(&m, rooted, 12), rooted_table);
    assert_eq!(m.sat_count(pinned, all), binomial(12, 4));
    assert_eq!(m.sat_count(rooted, all), binomial(12, 6));

    // The garbage handle is gone; rebuilding reuses freed slots and the cache
    // must not answer with a freed node.
    let slots = after.slots;
    let again = exactly_k(&mut m, &x, 3);
    assert_eq!(m.sat_count(again, all), binomial(12, 3));
    assert_eq!(m.stats().slots, slots, "freed slots are reused before the arena grows");
    let _ = garbage;
    m.check().unwrap();

    // Unpinned and unrooted, everything goes.
    m.unpin(pinned);
    let report = m.gc(&[]);
    assert_eq!(report.live_after, 0);
    m.check().unwrap();
}

#[test]
fn cache_survives_collection_only_where_valid() {
    let mut m = Manager::new(Config::default());
    let x = m.add_vars(16).unwrap();
    let all = m.var_set(&x).unwrap();
    let a = exactly_k(&mut m, &x, 5);
    let b = exactly_k(&mut m, &x, 6);
    let ab = m.or(a, b).unwrap();
    // Keep a and b but not their disjunction, then churn through new nodes.
    m.gc(&[a, b]);
    m.check().unwrap();
    for k in 0..8 {
        let _ = exactly_k(&mut m, &x, k);
    }
    let ab2 = m.or(a, b).unwrap();
    assert_eq!(m.sat_count(ab2, all), binomial(16, 5) + binomial(16, 6));
    let _ = ab;
    m.check().unwrap();
}

#[test]
fn maybe_gc_follows_the_growth_policy() {
    let config = Config { gc_min_live: 1000, gc_growth: 2.0, ..Config::default() };
    let mut m = Manager::new(config);
    let x = m.add_vars(14).unwrap();
    let f = exactly_k(&mut m, &x, 7);
    assert!(m.live_nodes() >= 1000);
    let report = m.maybe_gc(&[f]).expect("above the threshold, maybe_gc collects");
    assert_eq!(m.gc_threshold(), 1000.max(report.live_after as usize * 2));
    assert!(m.maybe_gc(&[f]).is_none(), "right after a collection nothing is due");
}

#[test]
fn node_limit_is_an_error_and_the_manager_recovers() {
    let config = Config { initial_nodes: 64, max_nodes: 200, ..Config::default() };
    let mut m = Manager::new(config);
    let x = m.add_vars(20).unwrap();
    let all = m.var_set(&x).unwrap();
    let mut hit = None;
    for k in 0..20 {
        let r = (|| -> Result<Bdd, Error> {
            let mut counts = vec![Bdd::TRUE];
            for &v in &x {
                let pos = m.literal(v, true)?;
                let neg = m.literal(v, false)?;
                let mut next = Vec::new();
                for j in 0..=counts.len() {
                    let stay = if j < counts.len() { m.and(counts[j], neg)? } else { Bdd::FALSE };
                    let step = if j > 0 { m.and(counts[j - 1], pos)? } else { Bdd::FALSE };
                    next.push(m.or(stay, step)?);
                }
                counts = next;
            }
            Ok(counts[k])
        })();
        if let Err(e) = r {
            hit = Some(e);
            break;
        }
    }
    match hit {
        Some(Error::NodeLimit { capacity, live }) => {
            assert_eq!(capacity, 200);
            assert!(live > 0 && live <= 200);
        }
        other => panic!("expected a node-limit error, got {other:?}"),
    }
    let msg = Error::NodeLimit { capacity: 200, live: 198 }.to_string();
    assert!(msg.contains("200") && msg.contains("198"), "the message carries the numbers: {msg}");
    m.check().unwrap();
    // After a collection and with a higher limit, the same work succeeds.
    m.gc(&[]);
    m.set_max_nodes(1 << 20);
    let f = exactly_k(&mut m, &x, 10);
    assert_eq!(m.sat_count(f, all), binomial(20, 10));
    m.check().unwrap();
}

#[test]
fn memory_grows_on_demand_from_a_small_start() {
    let mut m = Manager::new(Config::default());
    assert!(m.stats().table_bytes < 2 << 20, "a fresh manager holds under 2 MB: {}", m.stats().table_bytes);
    let x = m.add_vars(40).unwrap();
    let f = exactly_k(&mut m, &x, 20);
    let s = m.stats();
    assert!(s.nodes_created > 10_000, "the workload creates many nodes ({})", s.nodes_created);
    assert!(s.slots >= s.live && s.peak_live >= s.live);
    // About 16 bytes per node slot, 4 per bucket and, below the cache's
    // floor, four 16-byte cache entries per slot; tables double.
    let per_slot = 16 + 4 + c4bdd_core::CACHE_ENTRIES_PER_SLOT_BELOW_FLOOR as u64 * 16;
    let bound = 2 * (s.slots * per_slot) + (4 << 20);
    assert!(s.table_bytes < bound, "table bytes {} grow with the nodes ({} slots)", s.table_bytes, s.slots);
    let _ = f;
}

#[test]
fn every_created_node_is_live_or_freed_on_one_thread_and_two() {
    for threads in [1, 2] {
        let mut m = Manager::new(Config { threads, ..Config::default() });
        let x = m.add_vars(30).unwrap();
        let all = m.var_set(&x).unwrap();
        let mut kept = Vec::new();
        for k in [5, 10, 15] {
            let f = exactly_k(&mut m, &x, k);
            m.pin(f);
            kept.push((f, k));
            m.gc(&[]);
        }
        let s = m.stats();
        assert!(s.gc_runs == 3 && s.gc_freed > 0, "{threads} threads: the collections freed nodes");
        assert_eq!(s.nodes_created - s.gc_freed, s.live, "{threads} threads: created = live + freed");
        for (f, k) in kept {
            assert_eq!(m.sat_count(f, all), binomial(30, k as u128));
        }
    }
}

/// In debug builds every public operation checks that its operands are live:
/// a handle freed by a collection is refused with a panic naming it, not
/// read as whatever node took its slot.
#[test]
#[cfg(debug_assertions)]
fn a_freed_handle_is_refused_in_debug_builds() {
    let mut m = Manager::new(Config::default());
    let x = m.add_vars(3).unwrap();
    let kept = m.cube(&[(x[0], true), (x[1], true)]).unwrap();
    let freed = m.cube(&[(x[1], false), (x[2], true)]).unwrap();
    assert!(m.is_live(freed));
    m.pin(kept);
    m.gc(&[]);
    assert!(m.is_live(kept) && !m.is_live(freed), "the unpinned cube's top node was freed");
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| m.and(kept, freed)));
    let message = caught.expect_err("a freed operand panics").downcast::<String>().unwrap();
    assert!(message.contains("is not a live node of this manager"), "{message}");
    assert!(m.is_live(kept), "the manager is left as it was");
}

//! Save/load round trips and rejection of corrupted files.

use c4bdd_core::Error;
use c4bdd_core::{Bdd, LoadError, Manager, Var};

use crate::common::{manager, truth_table};

const N: usize = 8;

/// A few BDDs sharing nodes: parity, majority-ish, and their conjunction.
fn sample(m: &mut Manager, x: &[Var]) -> Vec<Bdd> {
    let mut parity = Bdd::FALSE;
    for &v in x {
        let l = m.literal(v, true).unwrap();
        parity = m.xor(parity, l).unwrap();
    }
    let mut any3 = Bdd::FALSE;
    for w in x.windows(3) {
        let a = m.literal(w[0], true).unwrap();
        let b = m.literal(w[1], false).unwrap();
        let c = m.literal(w[2], true).unwrap();
        let abc = m.and_all(&[a, b, c]).unwrap();
        any3 = m.or(any3, abc).unwrap();
    }
    let both = m.and(parity, any3).unwrap();
    vec![parity, any3, both, Bdd::TRUE, Bdd::FALSE, parity]
}

fn saved() -> (Vec<u8>, Vec<Vec<bool>>) {
    let (mut m, x) = manager(N, Some(&[3, 1, 4, 0, 5, 2, 6, 7]));
    let roots = sample(&mut m, &x);
    let mut bytes = Vec::new();
    m.save_to(&roots, "test", &mut bytes).unwrap();
    let tables = roots.iter().map(|&f| truth_table(&m, f, N)).collect();
    (bytes, tables)
}

fn fresh() -> Manager {
    manager(N, Some(&[3, 1, 4, 0, 5, 2, 6, 7])).0
}

#[test]
fn round_trip_in_memory_and_on_disk() {
    let (bytes, tables) = saved();
    let mut m = fresh();
    let roots = m.load_from(&bytes[..], "test").unwrap();
    let got: Vec<Vec<bool>> = roots.iter().map(|&f| truth_table(&m, f, N)).collect();
    assert_eq!(got, tables);
    assert_eq!(roots[0], roots[5], "a root saved twice loads as the same node");
    m.check().unwrap();

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("set.bdd");
    m.save(&roots, "test", &path).unwrap();
    assert!(!dir.path().join("set.bdd.tmp").exists(), "the temporary file is renamed away");
    let mut m2 = fresh();
    let again = m2.load(&path, "test").unwrap();
    let got: Vec<Vec<bool>> = again.iter().map(|&f| truth_table(&m2, f, N)).collect();
    assert_eq!(got, tables);
}

#[test]
fn saved_size_is_the_size_of_the_written_file() {
    let (mut m, x) = manager(N, Some(&[3, 1, 4, 0, 5, 2, 6, 7]));
    let roots = sample(&mut m, &x);
    for k in 0..=roots.len() {
        let mut bytes = Vec::new();
        m.save_to(&roots[..k], "test", &mut bytes).unwrap();
        let nodes = m.node_count_many(&roots[..k]) as u64;
        assert_eq!(m.saved_size("test", nodes, k), bytes.len() as u64, "{k} roots");
    }
}

#[test]
fn every_truncation_is_rejected() {
    let (bytes, _) = saved();
    for len in 0..bytes.len() {
        let mut m = fresh();
        match m.load_from(&bytes[..len], "test") {
            Err(LoadError::Bad(_)) => {}
            other => panic!("truncated at {len} of {}: {other:?}", bytes.len()),
        }
        m.check().unwrap();
    }
}

#[test]
fn every_flipped_byte_is_rejected() {
    let (bytes, _) = saved();
    for i in 0..bytes.len() {
        for mask in [0x01u8, 0x80, 0xFF] {
            let mut bad = bytes.clone();
            bad[i] ^= mask;
            let mut m = fresh();
            assert!(
                matches!(m.load_from(&bad[..], "test"), Err(LoadError::Bad(_))),
                "byte {i} xor {mask:#x} was accepted"
            );
        }
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(fresh().load_from(&longer[..], "test"), Err(LoadError::Bad(_))), "trailing bytes");
}

#[test]
fn a_manager_of_another_layout_is_refused_with_the_file_named() {
    let (bytes, _) = saved();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("set.bdd");
    std::fs::write(&path, &bytes).unwrap();
    let (mut other_count, _) = manager(N + 1, None);
    let err = other_count.load(&path, "test").unwrap_err();
    assert!(matches!(err, Error::BadFile { .. }), "{err}");
    assert!(err.to_string().contains("set.bdd") && err.to_string().contains("variables"), "{err}");
    let (mut other_order, _) = manager(N, None);
    let err = other_order.load(&path, "test").unwrap_err();
    assert!(err.to_string().contains("order"), "{err}");
    let missing = other_order.load(&dir.path().join("missing.bdd"), "test").unwrap_err();
    assert!(matches!(missing, Error::Io { .. }) && missing.to_string().contains("missing.bdd"));
}

#[test]
fn a_file_of_another_label_is_refused_naming_both() {
    let (bytes, tables) = saved();
    let err = fresh().load_from(&bytes[..], "states of ply 3");
    match err {
        Err(LoadError::Bad(reason)) => assert_eq!(reason, "it holds test, not states of ply 3"),
        other => panic!("a file of another label was not refused: {:?}", other.map(|r| r.len())),
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ply-03.bdd");
    std::fs::write(&path, &bytes).unwrap();
    let err = fresh().load(&path, "win and lost of ply 3").unwrap_err().to_string();
    assert!(err.contains("ply-03.bdd") && err.contains("not win and lost of ply 3"), "{err}");
    let mut m = fresh();
    let roots = m.load(&path, "test").unwrap();
    let got: Vec<Vec<bool>> = roots.iter().map(|&f| truth_table(&m, f, N)).collect();
    assert_eq!(got, tables, "the right label loads");
}

/// The node records `(var, low, high)` and the roots of a saved file.
fn decode(bytes: &[u8]) -> (Vec<(u32, u32, u32)>, Vec<u32>) {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let header = 16 + word(12) as usize; // magic, version, label
    let vars = word(header) as usize;
    let at = header + 4 + 4 * vars;
    let nodes = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    let (roots, first) = (word(at + 8) as usize, at + 12);
    let records =
        (0..nodes).map(|k| (word(first + 12 * k), word(first + 12 * k + 4), word(first + 12 * k + 8))).collect();
    let roots = (0..roots).map(|k| word(first + 12 * nodes + 4 * k)).collect();
    (records, roots)
}

/// The variable at each level, from a saved file's header.
fn decode_order(bytes: &[u8]) -> Vec<u32> {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let header = 16 + word(12) as usize; // magic, version, label
    (0..word(header) as usize).map(|l| word(header + 4 + 4 * l)).collect()
}

#[test]
fn nodes_are_written_level_by_level_from_the_bottom_wherever_they_live() {
    let (bytes, _) = saved();
    let (records, roots) = decode(&bytes);
    let order = decode_order(&bytes);
    let level = |f: u32| order.iter().position(|&v| v == records[f as usize - 2].0).unwrap();
    // The file's own graph walked breadth first from its roots: each level's
    // nodes in the order they are first met (roots first, then each met
    // node's low and high child, level by level from the top).
    let mut met = vec![false; records.len() + 2];
    let mut levels = vec![Vec::new(); order.len()];
    let mut meet = |f: u32, levels: &mut Vec<Vec<u32>>| {
        if f > 1 && !met[f as usize] {
            met[f as usize] = true;
            levels[level(f)].push(f);
        }
    };
    roots.iter().for_each(|&r| meet(r, &mut levels));
    for l in 0..order.len() {
        for i in 0..levels[l].len() {
            let (_, low, high) = records[levels[l][i] as usize - 2];
            assert!(
                level(levels[l][i])
                    < [low, high].iter().filter(|&&c| c > 1).map(|&c| level(c)).min().unwrap_or(usize::MAX)
            );
            meet(low, &mut levels);
            meet(high, &mut levels);
        }
    }
    // Written from the bottom level up, in that order: the k-th is index k + 2.
    let written: Vec<u32> = levels.iter().rev().flatten().copied().collect();
    assert_eq!(
        written,
        (2..records.len() as u32 + 2).collect::<Vec<_>>(),
        "the nodes follow the levels from the bottom"
    );
    assert!(
        records.iter().enumerate().all(|(k, &(_, low, high))| low < k as u32 + 2 && high < k as u32 + 2),
        "children first"
    );

    // The same BDDs built after other work, so their nodes sit in other
    // slots, are written byte for byte the same.
    let (mut m, x) = manager(N, Some(&[3, 1, 4, 0, 5, 2, 6, 7]));
    for w in x.windows(2) {
        let (a, b) = (m.literal(w[0], true).unwrap(), m.literal(w[1], true).unwrap());
        let g = m.xor(a, b).unwrap();
        m.pin(g);
    }
    let roots = sample(&mut m, &x);
    let mut again = Vec::new();
    m.save_to(&roots, "test", &mut again).unwrap();
    assert!(again == bytes, "the file depends on the BDDs only");
}

/// A file read in place ([`StoredBdd`]) answers every assignment as the
/// manager does; with many blocks, a damaged block fails each walk that
/// reads it (naming the file and the block) and no other, and `verify`
/// finds it.
#[test]
fn files_read_in_place_answer_as_the_manager_and_check_each_block() {
    use c4bdd_core::StoredBdd;
    let n = 20;
    let (mut m, x) = manager(n, None);
    // A function with many nodes: the sum of weighted bits in a residue set.
    let mut f = Bdd::FALSE;
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for _ in 0..400 {
        let mut lits: Vec<(Var, bool)> = Vec::new();
        for &v in &x {
            let r = next();
            if r % 3 != 0 {
                lits.push((v, r % 2 == 0));
            }
        }
        let cube = m.cube(&lits).unwrap();
        f = m.or(f, cube).unwrap();
    }
    let g = m.not(f).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.bdd");
    m.save(&[f, g], "big", &path).unwrap();
    let block = c4bdd_core::BLOCK_NODES as usize;
    assert!(m.node_count(f) > 3 * block, "{} nodes: several blocks", m.node_count(f));
    let assignments: Vec<Vec<bool>> = (0..3000).map(|_| (0..n).map(|_| next() % 2 == 0).collect()).collect();
    let mut stored = StoredBdd::open(&path, "big").unwrap();
    stored.verify().unwrap();
    let roots = stored.roots().to_vec();
    for a in &assignments {
        assert_eq!(stored.eval(roots[0], a).unwrap(), m.eval(f, a));
        assert_eq!(stored.eval(roots[1], a).unwrap(), m.eval(g, a));
    }
    assert!(StoredBdd::open(&path, "other").is_err(), "another label is refused");

    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    let header = 8 + 4 + 4 + "big".len() + 4 + 4 * n + 8 + 4;
    bad[header + 12 * block + 100] ^= 0x04;
    std::fs::write(&path, &bad).unwrap();
    let mut stored = StoredBdd::open(&path, "big").unwrap();
    let (mut failed, mut answered) = (0, 0);
    for a in &assignments {
        match stored.eval(roots[0], a) {
            Ok(v) => {
                assert_eq!(v, m.eval(f, a), "an answer that does not read the damaged block is right");
                answered += 1;
            }
            Err(e) => {
                let e = e.to_string();
                assert!(e.contains("big.bdd") && e.contains("checksum"), "{e}");
                failed += 1;
            }
        }
    }
    assert!(failed > 0 && answered > 0, "{failed} walks failed, {answered} answered");
    assert!(stored.verify().is_err());
}

/// A record of the test's foreign layout: variable u16, low u32, high u32.
fn record10(var: u16, low: u32, high: u32) -> Vec<u8> {
    [&var.to_le_bytes()[..], &low.to_le_bytes(), &high.to_le_bytes()].concat()
}

fn decode10(b: &[u8]) -> c4bdd_core::NodeRecord {
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    c4bdd_core::NodeRecord { var: u16::from_le_bytes([b[0], b[1]]).into(), low: word(2), high: word(6) }
}

/// Another program's node array, written through `visit_post_order` in a
/// layout of the caller's, answers in place as the manager does, loads back
/// into another manager as the same function, passes `verify`, and a
/// record pointing upwards is refused by `verify` and by the walks that
/// meet it.
#[test]
fn foreign_node_arrays_written_in_post_order_read_in_place() {
    use c4bdd_core::{Level, RecordLayout, StoredBdd};
    let (mut m, x) = manager(N, Some(&[3, 1, 4, 0, 5, 2, 6, 7]));
    let f = sample(&mut m, &x)[2];
    let mut bytes = [record10(0, 0, 0), record10(0, 1, 1)].concat();
    m.visit_post_order(&[f], |var, low, high| {
        bytes.extend(record10(var.0 as u16, low, high));
        Ok(())
    })
    .unwrap();
    assert_eq!(bytes.len(), 10 * (m.node_count(f) + 2), "every node once, after the terminals");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.rec");
    std::fs::write(&path, &bytes).unwrap();
    let layout = RecordLayout { bytes: 10, decode: decode10 };
    let order: Vec<u32> = (0..N as u32).map(|l| m.var_at(Level(l)).0).collect();
    let mut stored = StoredBdd::open_records(&path, layout, &order).unwrap();
    stored.verify().unwrap();
    let root = stored.roots()[0];
    let table: Vec<bool> =
        (0..1usize << N).map(|i| stored.eval(root, &crate::common::assignment(i, N)).unwrap()).collect();
    assert_eq!(table, truth_table(&m, f, N));
    let (mut other, y) = manager(N, None);
    let var_of: Vec<Option<Var>> = y.iter().map(|&v| Some(v)).collect();
    let loaded = stored.load_into(&mut other, root, &var_of).unwrap();
    assert_eq!(truth_table(&other, loaded, N), truth_table(&m, f, N));

    let mut bad = bytes.clone();
    let last = bad.len() - 10;
    bad[last + 2..last + 6].copy_from_slice(&(root + 1).to_le_bytes());
    std::fs::write(&path, &bad).unwrap();
    let stored = StoredBdd::open_records(&path, layout, &order).unwrap();
    let e = stored.verify().unwrap_err().to_string();
    assert!(e.contains("f.rec") && e.contains("malformed"), "{e}");
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    let e = StoredBdd::open_records(&path, layout, &order).err().unwrap().to_string();
    assert!(e.contains("not a whole number of 10-byte records"), "{e}");
}

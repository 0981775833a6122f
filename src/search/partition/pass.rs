//! One ply of the partitioned pass, part by part, and the seeding of the
//! partition from the whole sets of the checkpoint's lowest solved ply.

use std::time::Instant;

use super::above::{self, Above};
use super::ctx::Ctx;
use super::store::{PartRecord, Set};
use super::PartLine;
use crate::bdd::{Bdd, Var};
use crate::encoding::StateSpace;
use crate::error::Result;
use crate::measure;
use crate::search::ply::phases::{Phase, Phases};
use crate::search::ply::split::split_ply;
use crate::search::ply::transition::{part_cube, with_retry, Joined, Transition};
use crate::search::resume::solve::SolveCheckpoint;

/// Cut the whole sets of the checkpoint's lowest solved ply (the
/// partition's top) into this process's parts that are not yet saved, and
/// save them; each part's counts are its record's, and all parts' must add
/// up to the ply's record.
pub(super) fn seed(space: &mut StateSpace, ctx: &Ctx, ck: &SolveCheckpoint) -> Result<()> {
    let top = ctx.store.top();
    let todo = ctx.todo(top)?;
    if todo.is_empty() {
        return Ok(());
    }
    let (record, [win, draw, lost]) = ck.load_lowest(space)?.expect("the partition's top ply is solved");
    let vars = ctx.vars(space, top);
    let frame = ctx.rules.frame_of(top);
    for p in todo {
        let start = Instant::now();
        let m = &mut space.manager;
        let cube = part_cube(m, &vars, p as usize, &[])?;
        m.pin(cube);
        let mut sets = [Bdd::FALSE; 3];
        for (piece, whole) in sets.iter_mut().zip([win, lost, draw]) {
            *piece = with_retry(m, &[], |m| m.and(whole, cube))?;
            m.pin(*piece);
        }
        m.unpin(cube);
        let r = count_part(space, (top, p), sets, frame, start);
        ctx.store.save(space, &r, sets)?;
        sets.iter().for_each(|&f| space.manager.unpin(f));
    }
    [win, draw, lost].iter().for_each(|&f| space.manager.unpin(f));
    space.manager.gc(&[]);
    if let Some(parts) = ctx.store.complete(top)? {
        let sum = |f: fn(&PartRecord) -> u128| parts.iter().map(f).sum::<u128>();
        let (w, d, l) = (sum(|r| r.win), sum(|r| r.draw), sum(|r| r.lost));
        let (won, lost) = if top.is_multiple_of(2) { (w, l) } else { (l, w) };
        if (won, d, lost) != (record.won, record.drawn, record.lost) {
            return Err(ctx.store.bad_ply(top, "its parts do not add up to the record of its whole sets"));
        }
    }
    Ok(())
}

/// Solve this process's parts of ply `ply` not yet done, from the parts of
/// ply `ply + 1` (all done) and the ply's layer in the checkpoint; `line`
/// sees each part as it is saved.
pub(super) fn solve_ply(
    space: &mut StateSpace,
    ctx: &Ctx,
    ck: &SolveCheckpoint,
    ply: u32,
    line: &mut (dyn FnMut(&PartLine) + Send),
) -> Result<()> {
    let todo = ctx.todo(ply)?;
    if !todo.is_empty() {
        solve_parts(space, ctx, ck, (ply, &todo), line)?;
    }
    // A part's states file goes once the part is saved; one left by a run
    // killed in between goes here.
    (0..ctx.store.parts()).filter(|&p| ctx.share.has(p)).try_for_each(|p| ctx.store.remove_states(ply, p))
}

/// Solve the parts `todo` of ply `ply`, as [`solve_ply`].
fn solve_parts(
    space: &mut StateSpace,
    ctx: &Ctx,
    ck: &SolveCheckpoint,
    (ply, todo): (u32, &[u32]),
    line: &mut (dyn FnMut(&PartLine) + Send),
) -> Result<()> {
    let next: Vec<PartRecord> = ctx.store.complete(ply + 1)?.expect("the ply above is done");
    let vars = ctx.vars(space, ply);
    let cuts = cut_layer(space, ctx, ck, (ply, &vars), todo)?;
    let (started, total) = (Instant::now(), cuts.iter().map(|c| c.weight).sum::<f64>());
    let (mut done, mut above) = (0.0, Above::default());
    let reach: Vec<&[u32]> = cuts.iter().map(|c| c.reach.as_slice()).collect();
    for k in above::order(todo, &reach, |q| next[q as usize].nodes) {
        let cut = &cuts[k];
        above.keep_only(&mut space.manager, &cut.reach);
        let r = solve_part(space, ctx, (ply, todo[k]), (&vars, cut.count), (&next, &cut.reach, &mut above))?;
        done += cut.weight;
        let left_s = (done >= total / 100.0).then(|| started.elapsed().as_secs_f64() / done * (total - done));
        let (rss_bytes, _) = measure::rss_and_peak_bytes();
        let above_read = (above.read, above.asked);
        line(&PartLine { record: r, parts: ctx.store.parts(), rss_bytes, done: done / total, left_s, above_read });
    }
    above.release(&mut space.manager);
    Ok(())
}

/// One part's share of a ply, known once the layer is cut.
struct LayerCut {
    /// The part's states: how many.
    count: u128,
    /// Its share of the work to come: the nodes of its states.
    weight: f64,
    /// The parts of the ply above that its moves reach.
    reach: Vec<u32>,
}

/// Cut the layer of ply `ply` into the states of the parts `todo`, save
/// each part's states beside its sets, and release the layer: a part loads
/// its own states, so that the whole layer is never held beside a part.
fn cut_layer(
    space: &mut StateSpace,
    ctx: &Ctx,
    ck: &SolveCheckpoint,
    (ply, vars): (u32, &[Var]),
    todo: &[u32],
) -> Result<Vec<LayerCut>> {
    let layer = ck.load_layer(space, ply)?;
    let frame = ctx.rules.frame_of(ply);
    let mut cuts = Vec::with_capacity(todo.len());
    for &p in todo {
        let m = &mut space.manager;
        let cube = part_cube(m, vars, p as usize, &[layer])?;
        m.pin(cube);
        let states = with_retry(m, &[], |m| m.and(layer, cube))?;
        let (count, nodes) = space.count_and_size(states, frame);
        let weight = nodes.max(1) as f64;
        ctx.store.save_states(space, (ply, p), count, states)?;
        let reach = reached(space, ctx, ply, cube)?;
        space.manager.unpin(cube);
        cuts.push(LayerCut { count, weight, reach });
    }
    space.manager.unpin(layer);
    Ok(cuts)
}

/// Part `p` of ply `i` (cut on `vars`): its sets from its states (`count`
/// of them, saved by [`cut_layer`]) and the parts `reach` of the ply above (records
/// `next`, read through `above`) that its moves reach, saved with its
/// record (the time until counted, saving not included); its states file
/// goes once the part is saved.
fn solve_part(
    space: &mut StateSpace,
    ctx: &Ctx,
    (i, p): (u32, u32),
    (vars, count): (&[Var], u128),
    (next, reach, above): (&[PartRecord], &[u32], &mut Above),
) -> Result<PartRecord> {
    let start = Instant::now();
    let mut phases = Phases::default();
    phases.time(space, Phase::Gc, |s| s.manager.maybe_gc(&[]));
    let cube = part_cube(&mut space.manager, vars, p as usize, &[])?;
    space.manager.pin(cube);
    let states = ctx.store.load_states(space, (i, p), count, ctx.rules.frame_of(i))?;
    let sets = if states == Bdd::FALSE {
        [Bdd::FALSE; 3]
    } else {
        let relations = ctx.rules.moves_within(&mut space.manager, i, cube)?;
        // Each union and pre-image leaves its intermediate nodes behind: a
        // collection may follow each (under the GC policy), so that a part's
        // peak holds one operation's garbage, not all of the part's.
        let mut pre = |space: &mut StateSpace, set: Set| -> Result<Bdd> {
            let target = above.union(space, ctx, next, reach, set)?;
            phases.time(space, Phase::Gc, |s| s.manager.maybe_gc(&[]));
            let f = phases.time(space, Phase::Image, |s| ctx.rules.preimage_by(s, i, &relations, target))?;
            space.manager.pin(f);
            space.manager.unpin(target);
            phases.time(space, Phase::Gc, |s| s.manager.maybe_gc(&[]));
            Ok(f)
        };
        let to_lost = pre(space, Set::Lost)?;
        let to_draw = pre(space, Set::Draw)?;
        Transition::release_moves(&mut space.manager, relations);
        space.manager.pin(states);
        let inputs = [states, to_lost, to_draw];
        let [win, draw, lost] = phases.time(space, Phase::Split, |s| split_ply(&mut s.manager, inputs, &[]))?;
        [win, lost, draw]
    };
    space.manager.unpin(cube);
    space.manager.unpin(states);
    let frame = ctx.rules.frame_of(i);
    let r = phases.time(space, Phase::Count, |s| count_part(s, (i, p), sets, frame, start));
    let r = PartRecord { phases: Some(phases), time_s: start.elapsed().as_secs_f64(), ..r };
    ctx.store.save(space, &r, sets)?;
    ctx.store.remove_states(i, p)?;
    sets.iter().for_each(|&f| space.manager.unpin(f));
    Ok(r)
}

/// The parts of ply `i + 1` that a move from the cube `cube` of ply `i` may
/// reach: those the image of the cube (every state in it, reachable or
/// not) meets.
fn reached(space: &mut StateSpace, ctx: &Ctx, i: u32, cube: Bdd) -> Result<Vec<u32>> {
    let image = ctx.rules.image_from(space, i, cube, Joined::default(), &mut |_, _| Ok(()))?;
    space.manager.pin(image);
    let vars = ctx.vars(space, i + 1);
    let mut reach = Vec::new();
    for q in 0..ctx.store.parts() {
        let m = &mut space.manager;
        let target = part_cube(m, &vars, q as usize, &[image])?;
        if with_retry(m, &[image], |m| m.and(image, target))? != Bdd::FALSE {
            reach.push(q);
        }
    }
    space.manager.unpin(image);
    Ok(reach)
}

/// The record of part `p` of ply `i` from its sets `[won, lost, draw]`
/// (counted over `frame`), begun at `start`.
fn count_part(
    space: &mut StateSpace,
    (i, p): (u32, u32),
    [win, lost, draw]: [Bdd; 3],
    frame: crate::encoding::Frame,
    start: Instant,
) -> PartRecord {
    space.manager.make_room_for_count();
    let mut counter = space.manager.counter(space.layout.set(frame));
    counter.add(win);
    counter.add(lost);
    let nodes = counter.visited() as u64;
    counter.add(draw);
    let [w, l, d] = [win, lost, draw].map(|f| counter.count(f));
    let (_, peak_rss_bytes) = measure::rss_and_peak_bytes();
    PartRecord {
        ply: i,
        part: p,
        win: w,
        draw: d,
        lost: l,
        nodes,
        time_s: start.elapsed().as_secs_f64(),
        peak_rss_bytes,
        peak_nodes: Some(space.manager.stats().peak_live),
        phases: None,
    }
}

//! A count whose image outlasts its process: the checkpoint saves the image
//! part way (after each step of an image split or of one relation per
//! column), and a count taken up from it, under the options that saved it or
//! others of the same sets, ends with the rows of a count never stopped.

use std::path::Path;
use std::time::Duration;

use c4bdd::bdd::Config;
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::search::resume::forward::describe;
use c4bdd::search::{forward, forward_from, Checkpoint, ForwardOptions, ImageStrategy, PlyRecord, Transition};

const SIZE: (u32, u32) = (5, 4);

fn space(max_nodes: usize) -> StateSpace {
    let size = c4bdd::game::BoardSize::new(SIZE.0, SIZE.1).unwrap();
    StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config { max_nodes, ..Config::default() })
        .unwrap()
}

/// (ply, states, BDD nodes) of each record.
fn rows(records: &[PlyRecord]) -> Vec<(u32, u128, u64)> {
    records.iter().map(|r| (r.ply, r.states, r.bdd_nodes)).collect()
}

/// A count checkpointed in `dir` under `opts` with at most `max_nodes`
/// nodes, saving images part way after every step: its records, or the
/// error that stopped it.
fn count(dir: &Path, opts: &ForwardOptions, max_nodes: usize) -> c4bdd::Result<Vec<PlyRecord>> {
    Ok(count_summary(dir, opts, max_nodes)?.1)
}

/// [`count`], with the pass's summary time.
fn count_summary(dir: &Path, opts: &ForwardOptions, max_nodes: usize) -> c4bdd::Result<(f64, Vec<PlyRecord>)> {
    let mut space = space(max_nodes);
    let rules = Transition::build(&mut space, opts)?;
    let (mut ck, resume) = Checkpoint::open(dir, &mut space, opts)?;
    ck.set_partial_every(Duration::ZERO);
    let mut records = resume.as_ref().map_or(Vec::new(), |r| r.records.clone());
    struct Saving<'a> {
        ck: &'a mut Checkpoint,
        records: &'a mut Vec<PlyRecord>,
    }
    impl c4bdd::search::Hooks for Saving<'_> {
        fn on_ply(&mut self, space: &mut StateSpace, r: &PlyRecord, states: c4bdd::bdd::Bdd) -> c4bdd::Result<()> {
            self.records.push(*r);
            self.ck.save(space, self.records, states)
        }
        fn on_image(&mut self, space: &mut StateSpace, image: &c4bdd::search::ImageSoFar) -> c4bdd::Result<()> {
            self.ck.save_image(space, image)
        }
    }
    let (summary, _) =
        forward_from(&mut space, &rules, resume, false, false, Saving { ck: &mut ck, records: &mut records })?;
    Ok((summary.time_s, records))
}

/// Files of the checkpoint holding an image part way.
fn image_files(dir: &Path) -> Vec<String> {
    let names = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned());
    names.filter(|n| n.starts_with("image-")).collect()
}

#[test]
fn a_count_stopped_inside_an_image_resumes_from_the_steps_saved() {
    let mut whole = space(Config::default().max_nodes);
    let want = rows(&forward(&mut whole, &ForwardOptions::default(), false, |_| {}).unwrap().0.plies);
    let split = ForwardOptions { image_split: 2, ..ForwardOptions::default() };
    let columns = ForwardOptions { image: ImageStrategy::InPlaceColumns, ..ForwardOptions::default() };
    let one = ForwardOptions::default();
    let monolithic = ForwardOptions { image: ImageStrategy::Monolithic, ..one };
    let mut inside = Vec::new();
    for limit in (12_000..=28_000).step_by(8_000) {
        for (first, then) in [(&split, &split), (&columns, &columns), (&split, &one), (&columns, &split)] {
            let dir = tempfile::tempdir().unwrap();
            let stopped = count(dir.path(), first, limit);
            assert!(stopped.is_err(), "{limit} nodes stop the count");
            let held = describe(dir.path()).unwrap();
            let saved = image_files(dir.path());
            assert!(saved.len() <= 1, "one image part way at most: {saved:?}");
            if let Some((_, steps)) = held.split_once("part way (") {
                inside.push(steps.split(' ').next().unwrap().parse::<usize>().unwrap());
                let all = if first.image == ImageStrategy::InPlaceColumns { SIZE.0 } else { 4 };
                assert!(steps.ends_with(&format!(" of {all} steps)")), "{held}");
                assert_eq!(saved.len(), 1, "{held}: its file is there");
            }
            let err = count(dir.path(), &monolithic, Config::default().max_nodes).unwrap_err().to_string();
            assert!(err.contains("other order or options"), "other frames are refused: {err}");
            let resumed = count(dir.path(), then, Config::default().max_nodes).unwrap();
            assert_eq!(rows(&resumed), want, "{first:?} then {then:?}, limit {limit}: {held}");
            assert!(image_files(dir.path()).is_empty(), "a finished ply's image part way goes");
            assert!(describe(dir.path()).unwrap().ends_with("plies counted"));
        }
    }
    assert!(inside.iter().any(|&k| k > 0), "some stop fell after a saved step: {inside:?}");
}

/// A ply taken up from its image part way keeps the time and phases of the
/// process that saved it: its record's time, and the pass's, are at least
/// the saved time, and its phases add up to at most its time.
#[test]
fn a_ply_taken_up_part_way_keeps_its_earlier_time() {
    let split = ForwardOptions { image_split: 2, ..ForwardOptions::default() };
    for limit in (12_000..=28_000).step_by(8_000) {
        let dir = tempfile::tempdir().unwrap();
        assert!(count(dir.path(), &split, limit).is_err());
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("checkpoint.json")).unwrap()).unwrap();
        let Some(image) = json.get("image") else { continue };
        let (ply, earlier) = (image["ply"].as_u64().unwrap() as u32, image["time_s"].as_f64().unwrap());
        let (pass_s, resumed) = count_summary(dir.path(), &split, Config::default().max_nodes).unwrap();
        let record = resumed.iter().find(|r| r.ply == ply + 1).unwrap();
        assert!(record.time_s >= earlier, "ply {}: {} s, {earlier} s before the stop", ply + 1, record.time_s);
        assert!(pass_s >= earlier, "the pass's {pass_s} s, {earlier} s before the stop");
        let phases = record.phases.unwrap();
        let sum = phases.terminal_s + phases.image_s + phases.count_s + phases.gc_s + phases.split_s;
        assert!(sum <= record.time_s + 1e-6, "phases {sum} s within the ply's {} s", record.time_s);
        return;
    }
    panic!("no stop left an image part way");
}

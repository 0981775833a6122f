//! Property tests: the move parser and every file loader take arbitrary
//! input without panicking, and reject what is not valid.

use c4bdd::bdd::{Config, Manager};
use c4bdd::encoding::{EncodingKind, OrderSpec, StateSpace};
use c4bdd::experiment::ExperimentSpec;
use c4bdd::game::{BoardSize, Position};
use c4bdd::search::{Checkpoint, ForwardOptions, Solution, SolveCheckpoint};
use proptest::prelude::*;

/// A finished 3x3 solve checkpoint: its directory and the text of its JSON.
fn solve_checkpoint() -> &'static (tempfile::TempDir, String) {
    static CHECKPOINT: std::sync::OnceLock<(tempfile::TempDir, String)> = std::sync::OnceLock::new();
    CHECKPOINT.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (mut space, opts) = space3x3();
        let (mut ck, resume) = SolveCheckpoint::open(dir.path(), &mut space, &opts, true).unwrap();
        c4bdd::search::pass::backward::solve_resumable(
            &mut space,
            &opts,
            Some((&mut ck, resume)),
            None,
            |_| Ok(()),
            |_, _, _, _| Ok(()),
            |_| (),
        )
        .unwrap();
        let text = std::fs::read_to_string(dir.path().join("solve-checkpoint.json")).unwrap();
        (dir, text)
    })
}

fn space3x3() -> (StateSpace, ForwardOptions) {
    let size = BoardSize::new(3, 3).unwrap();
    (
        StateSpace::new(EncodingKind::Compressed, size, &OrderSpec::PAPER, Config::default()).unwrap(),
        ForwardOptions::default(),
    )
}

/// A valid BDD file to mutate.
fn valid_file() -> (Vec<u8>, usize) {
    let mut m = Manager::new(Config::default());
    let x = m.add_vars(6).unwrap();
    let a = m.literal(x[0], true).unwrap();
    let b = m.literal(x[3], false).unwrap();
    let c = m.literal(x[5], true).unwrap();
    let f = m.or(a, b).unwrap();
    let g = m.xor(f, c).unwrap();
    let mut bytes = Vec::new();
    m.save_to(&[f, g], "test", &mut bytes).unwrap();
    (bytes, 6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn move_strings_never_panic(moves in "[0-9a-z!?. ]{0,40}", w in 1u32..=13, h in 1u32..=9) {
        let size = BoardSize::new(w, h).unwrap();
        if let Ok(p) = Position::from_moves(size, &moves) {
            prop_assert_eq!(p.ply() as usize, moves.chars().count());
        }
    }

    #[test]
    fn bdd_loader_rejects_mutations_without_panicking(pos in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<prop::sample::Index>()) {
        let (mut bytes, vars) = valid_file();
        let i = pos.index(bytes.len());
        let changed = bytes[i] != byte;
        bytes[i] = byte;
        let mut m = Manager::new(Config::default());
        m.add_vars(vars).unwrap();
        let result = m.load_from(&bytes[..], "test");
        prop_assert!(result.is_err() || !changed, "a changed byte at {} was accepted", i);
        let cut = cut.index(bytes.len());
        prop_assert!(m.load_from(&bytes[..cut], "test").is_err());
        m.check().unwrap();
    }

    #[test]
    fn bdd_loader_takes_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let mut m = Manager::new(Config::default());
        m.add_vars(6).unwrap();
        let _ = m.load_from(&bytes[..], "test");
        m.check().unwrap();
    }

    #[test]
    fn spec_loader_takes_arbitrary_text(text in "[\\[\\]a-z_=\"0-9 ,.\\n]{0,200}") {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.toml");
        std::fs::write(&path, &text).unwrap();
        if let Ok(spec) = ExperimentSpec::load(&path) {
            prop_assert!(!spec.runs().unwrap().is_empty());
        }
    }

    #[test]
    fn solution_loader_takes_arbitrary_manifests(text in "[{}\\[\\]a-z_:\"0-9 ,.\\n]{0,300}") {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("manifest.json"), &text).unwrap();
        prop_assert!(Solution::open(dir.path()).is_err());
    }

    #[test]
    fn checkpoint_loaders_take_arbitrary_text(text in "[{}\\[\\]a-z_:\"0-9 ,.\\n]{0,300}") {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("checkpoint.json"), &text).unwrap();
        std::fs::write(dir.path().join("solve-checkpoint.json"), &text).unwrap();
        let (mut space, opts) = space3x3();
        prop_assert!(Checkpoint::open(dir.path(), &mut space, &opts).is_err());
        prop_assert!(SolveCheckpoint::open(dir.path(), &mut space, &opts, true).is_err());
    }

    #[test]
    fn solve_checkpoint_loader_takes_mutated_records(pos in any::<prop::sample::Index>(), byte in 32u8..127) {
        let (ck, text) = solve_checkpoint();
        let dir = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(ck.path()).unwrap().flatten() {
            std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
        }
        let mut bytes = text.clone().into_bytes();
        let i = pos.index(bytes.len());
        bytes[i] = byte;
        std::fs::write(dir.path().join("solve-checkpoint.json"), &bytes).unwrap();
        let (mut space, opts) = space3x3();
        // Either the change is harmless (e.g. a space) and the records load,
        // or the checkpoint is refused; never a panic.
        if let Ok((_, resume)) = SolveCheckpoint::open(dir.path(), &mut space, &opts, true) {
            prop_assert_eq!(resume.forward.len(), 10);
            prop_assert_eq!(resume.solved.len(), 10);
        }
    }
}

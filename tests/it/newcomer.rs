//! What a newcomer tripped on in a fresh clone: each message names what is
//! wrong and what is accepted.

use std::process::{Command, Output};

fn c4bdd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(args).output().expect("the binary runs")
}

fn error_of(args: &[&str]) -> String {
    let out = c4bdd(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    err
}

#[test]
fn a_negative_number_gets_the_options_own_message() {
    for (flag, needle) in [("--gc-growth", "gc_growth: -1"), ("--cache-ratio", "-1"), ("--max-nodes", "-1")] {
        let err = error_of(&["count", "-W", "4", "-H", "4", flag, "-1"]);
        assert!(!err.contains("unexpected argument"), "{flag}: {err}");
        let named = err.contains(&flag[2..]) || err.contains(&flag[2..].replace('-', "_"));
        assert!(err.contains(needle) && named, "{flag}: {err}");
    }
}

#[test]
fn help_lists_every_terminal_strategy_and_orders_list_the_encodings_names() {
    let help = String::from_utf8(c4bdd(&["count", "--help"]).stdout).unwrap();
    let terminal = help.split("--terminal <TERMINAL>").nth(1).unwrap().split("\n\n").next().unwrap();
    for name in ["whole", "lines", "fused", "off"] {
        assert!(terminal.contains(&format!("({name})")), "{name} in {terminal}");
    }
    let err = error_of(&["count", "-W", "4", "-H", "4", "--order", "levels:c1r1p1,stm"]);
    assert!(err.contains("unknown variable 'c1r1p1'") && err.contains("c1r1, c1r2"), "{err}");
}

#[test]
fn report_says_how_many_files_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let (plots, repro) = (dir.path().join("plots"), dir.path().join("repro.md"));
    std::fs::create_dir(&plots).unwrap();
    std::fs::write(plots.join("kept.txt"), "a file the report does not write").unwrap();
    let out = c4bdd(&[
        "report",
        "--results",
        root.join("results").to_str().unwrap(),
        "--reference",
        root.join("reference").to_str().unwrap(),
        "--plots",
        plots.to_str().unwrap(),
        "--repro",
        repro.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line = String::from_utf8(out.stdout).unwrap();
    let n: usize = line.split_whitespace().next().unwrap().parse().unwrap();
    assert!(line.contains("files written in"), "{line}");
    assert_eq!(std::fs::read_dir(&plots).unwrap().count(), n + 1, "{line}: every file written, and the one kept");
}

#[test]
fn a_damaged_checkpoint_file_failed_its_check() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("ck");
    let args = ["count", "-W", "4", "-H", "4", "--checkpoint", ck.to_str().unwrap()];
    assert!(c4bdd(&args).status.success());
    let file = std::fs::read_dir(&ck)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "bdd"))
        .expect("a checkpoint file");
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let out = c4bdd(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("failed its check"), "{err}");
    assert!(err.contains(file.file_name().unwrap().to_str().unwrap()), "{err}");
}

/// The README's worked examples print what the tool prints: each shown line
/// of `count`, `solve` and `query` on 5x4 is a line of the command's output
/// (times and RSS, which vary by machine, left out).
#[test]
fn the_readmes_examples_show_what_the_tool_prints() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let examples = ["count -W 5 -H 4", "solve -W 5 -H 4 --out sol54", "query --solution sol54 --moves 33"];
    for example in examples {
        let shown = shown_output(&readme, example);
        assert!(!shown.is_empty(), "the README shows `c4bdd {example}` with its output");
        let args: Vec<&str> = example.split(' ').collect();
        let out = Command::new(env!("CARGO_BIN_EXE_c4bdd")).args(&args).current_dir(dir.path()).output().unwrap();
        assert!(out.status.success(), "{example}: {}", String::from_utf8_lossy(&out.stderr));
        let printed: Vec<String> =
            String::from_utf8(out.stdout).unwrap().lines().filter_map(|l| fixed(l, example)).collect();
        for line in shown.iter().filter_map(|l| fixed(l, example)) {
            assert!(printed.contains(&line), "`c4bdd {example}` prints no line `{line}`:\n{}", printed.join("\n"));
        }
    }
}

/// The lines the README shows after `$ c4bdd EXAMPLE`, up to the next command or the block's end.
fn shown_output(readme: &str, example: &str) -> Vec<String> {
    let start = format!("$ c4bdd {example}\n");
    let Some(at) = readme.find(&start) else { return Vec::new() };
    let rest = &readme[at + start.len()..];
    rest.lines().take_while(|l| !l.starts_with("$ ") && !l.starts_with("```")).map(str::to_string).collect()
}

/// A line's machine-independent part: none for elisions and timing lines;
/// a count row without its time and RSS columns.
fn fixed(line: &str, example: &str) -> Option<String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if line.trim() == "..." || tokens.first().is_some_and(|t| *t == "time") {
        return None;
    }
    let numeric = tokens.iter().all(|t| t.parse::<f64>().is_ok());
    if example.starts_with("count") && numeric && tokens.len() == 6 {
        return Some(tokens[..4].join(" "));
    }
    Some(tokens.join(" "))
}

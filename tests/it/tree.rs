//! The project is self-contained: nothing in its tree reads a path outside it.

use std::path::{Path, PathBuf};

/// Every file under `dir`, skipping build output and version control.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn no_source_test_or_spec_names_a_folder_beside_the_project() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in ["src", "crates", "tests", "benches", "experiments", ".ci", ".cargo"] {
        files(&root.join(dir), &mut paths);
    }
    paths.extend(["build.rs", "Cargo.toml", "README.md"].map(|f| root.join(f)));
    assert!(paths.len() > 50, "the walk found the sources ({} files)", paths.len());
    // Spelled in two pieces so that this file does not name it itself.
    let outside = ["..", "/shared"].concat();
    let offenders: Vec<String> = paths
        .iter()
        .filter(|p| std::fs::read(p).is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(&outside)))
        .map(|p| p.strip_prefix(root).unwrap_or(p).display().to_string())
        .collect();
    assert!(offenders.is_empty(), "files that name {outside}: {offenders:?}");
}

#[test]
fn the_reference_tables_live_in_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("reference");
    for (file, rows) in [("paper-table1.csv", 103), ("paper-table2-7x6.csv", 43)] {
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("reference/{file}: {e}"));
        assert_eq!(text.lines().count(), rows + 1, "reference/{file}: a header and {rows} rows");
    }
    let readme = std::fs::read_to_string(root.join("README.md")).expect("reference/README.md");
    assert!(
        readme.contains("paper-table1.csv") && readme.contains("paper-table2-7x6.csv"),
        "the README names each table"
    );
}

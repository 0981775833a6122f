//! Records the compiler version and the source revision the binary is built
//! from, for results metadata.
//!
//! The script reruns when the sources change or when HEAD moves (a commit, a
//! checkout), never because of the index: `git status` rewrites `.git/index`,
//! so watching it would rebuild the crate after every `git status`. Whether the
//! tree is dirty can only change when the sources or HEAD change, so these are
//! all the script needs to watch.
use std::path::Path;
use std::process::Command;

fn output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The files that change when HEAD moves: HEAD itself, the branch it names
/// (loose or packed). Only existing files are returned: cargo reruns a script
/// on every build while a watched path is missing.
fn head_files() -> Vec<String> {
    let mut names = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = output("git", &["symbolic-ref", "-q", "HEAD"]) {
        names.push(branch);
    }
    names
        .iter()
        .filter_map(|name| output("git", &["rev-parse", "--path-format=absolute", "--git-path", name]))
        .filter(|path| Path::new(path).exists())
        .collect()
}

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = output(&rustc, &["--version"]).unwrap_or_else(|| "unknown".into());
    let commit = output("git", &["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let status = output(
        "git",
        &["status", "--porcelain", "--untracked-files=no", "--", "src", "build.rs", "Cargo.toml", "Cargo.lock"],
    );
    let dirty = status.is_some_and(|s| !s.is_empty());
    println!("cargo:rustc-env=C4BDD_RUSTC_VERSION={version}");
    println!("cargo:rustc-env=C4BDD_COMMIT={commit}");
    println!("cargo:rustc-env=C4BDD_DIRTY={dirty}");
    let revision = if dirty { format!("{commit}-dirty") } else { commit.clone() };
    println!("cargo:rustc-env=C4BDD_REVISION={revision}");
    for path in ["build.rs", "src", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={path}");
    }
    for path in head_files() {
        println!("cargo:rerun-if-changed={path}");
    }
}

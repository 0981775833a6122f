//! Records the compiler version and the source revision the binary is built
//! from, for results metadata.
use std::process::Command;

fn output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
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
    for path in ["build.rs", "src", "Cargo.toml", "Cargo.lock", ".git/HEAD", ".git/index", ".git/refs"] {
        println!("cargo:rerun-if-changed={path}");
    }
}

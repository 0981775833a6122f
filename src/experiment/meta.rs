//! `meta.json`: where, when, how and from which code a sweep's results came.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::spec::ExperimentSpec;

/// The machine and code a result was produced with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub host: String,
    pub cpu: String,
    pub cores: usize,
    pub memory_bytes: u64,
    pub os: String,
}

/// The source revision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    pub commit: String,
    pub dirty: bool,
    pub rustc: String,
    pub version: String,
}

/// One invocation that wrote into the directory (a sweep may be resumed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Invocation {
    pub date: String,
    pub command: Vec<String>,
    pub commit: String,
    pub dirty: bool,
    pub shard: Option<String>,
}

/// The content of `meta.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Meta {
    pub experiment: String,
    pub revision: Revision,
    pub machine: Machine,
    pub spec: ExperimentSpec,
    pub invocations: Vec<Invocation>,
}

impl Revision {
    /// The revision this binary was built from (recorded by `build.rs`;
    /// `dirty` when the sources differed from the commit).
    pub fn current() -> Revision {
        Revision {
            commit: env!("C4BDD_COMMIT").to_string(),
            dirty: env!("C4BDD_DIRTY") == "true",
            rustc: env!("C4BDD_RUSTC_VERSION").to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

impl Machine {
    /// This machine, as sysinfo sees it.
    pub fn current() -> Machine {
        let kind = sysinfo::RefreshKind::nothing()
            .with_cpu(sysinfo::CpuRefreshKind::nothing())
            .with_memory(sysinfo::MemoryRefreshKind::everything());
        let sys = sysinfo::System::new_with_specifics(kind).ok();
        let cpu = sys
            .as_ref()
            .and_then(|s| s.cpus().first().map(|c| c.brand().trim().to_string()))
            .unwrap_or_else(|| "unknown".into());
        Machine {
            host: sysinfo::System::host_name().unwrap_or_else(|_| "unknown".into()),
            cpu,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory_bytes: sys.as_ref().map_or(0, |s| s.total_memory()),
            os: sysinfo::System::long_os_version().unwrap_or_else(|_| std::env::consts::OS.into()),
        }
    }
}

/// The current UTC time, RFC 3339 to the second.
pub fn now_utc() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

impl Meta {
    /// Read a `meta.json`.
    pub fn load(path: &Path) -> Result<Meta> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{}: not a c4bdd meta.json", path.display()))
    }

    /// Write atomically (temporary file, then rename).
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self)? + "\n";
        crate::bdd::replace_file(path, |f| std::io::Write::write_all(f, text.as_bytes()))
            .with_context(|| format!("cannot write {}", path.display()))
    }
}

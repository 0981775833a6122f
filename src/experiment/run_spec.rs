//! One run of a sweep as the runner hands it to a worker: its board,
//! encoding, order, pass, strategies, limits and manager settings, and the
//! key that names it in results.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::bdd::{Config, GcCache};
use crate::encoding::EncodingKind;
use crate::game::BoardSize;
use crate::search::{ImageStrategy, TerminalStrategy};

/// A search pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pass {
    /// The forward pass: positions per ply.
    #[default]
    Count,
    /// Forward and retrograde passes: won, drawn, lost per ply.
    Solve,
}

impl Pass {
    pub fn name(self) -> &'static str {
        match self {
            Pass::Count => "count",
            Pass::Solve => "solve",
        }
    }
}

impl std::fmt::Display for Pass {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.pad(self.name())
    }
}

pub(super) fn one_repeat() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// Per-run limits; a run that reaches one is recorded with that status.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub time_s: Option<f64>,
    pub max_nodes: Option<usize>,
    pub memory_bytes: Option<f64>,
}

/// Manager settings shared by all runs of a spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ManagerSettings {
    /// Absent: the pass's default (`Config::for_count` for a count,
    /// `Config::default` for a solve), as for `min_cache_entries`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_min_live: Option<usize>,
    pub gc_growth: f64,
    pub cache_ratio: usize,
    /// Most computed-cache entries (a power of two).
    pub max_cache_entries: usize,
    /// The computed cache's floor (a power of two; `Config::min_cache_entries`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_cache_entries: Option<usize>,
    pub gc_cache: GcCache,
}

impl Default for ManagerSettings {
    fn default() -> ManagerSettings {
        let c = Config::default();
        ManagerSettings {
            gc_min_live: None,
            gc_growth: c.gc_growth,
            cache_ratio: c.cache_ratio,
            max_cache_entries: c.max_cache_entries,
            min_cache_entries: None,
            gc_cache: c.gc_cache,
        }
    }
}

impl ManagerSettings {
    /// Check the settings (errors name the key under `at`).
    pub(super) fn check(&self, at: &str) -> Result<(), String> {
        if self.gc_growth.is_nan() || self.gc_growth < 1.0 {
            return Err(format!("{at}.gc_growth: {} must be at least 1", self.gc_growth));
        }
        if self.cache_ratio == 0 {
            return Err(format!("{at}.cache_ratio: 0 must be at least 1"));
        }
        crate::bdd::check_cache_entries(self.max_cache_entries).map_err(|e| format!("{at}.max_cache_entries: {e}"))?;
        match self.min_cache_entries.map(crate::bdd::check_cache_entries) {
            Some(Err(e)) => Err(format!("{at}.min_cache_entries: {e}")),
            _ => Ok(()),
        }
    }
}

/// Which manager settings a run's grid sweeps as axes: those are named in
/// its key, so that runs differing only in them are told apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Swept {
    pub cache_ratio: bool,
    pub gc_growth: bool,
    #[serde(default)]
    pub max_cache_entries: bool,
    #[serde(default)]
    pub gc_cache: bool,
    #[serde(default)]
    pub min_cache_entries: bool,
}

impl Swept {
    fn is_none(&self) -> bool {
        *self == Swept::default()
    }
}

/// One run of a sweep: everything a worker needs, and the row's identity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    pub width: u8,
    pub height: u8,
    pub encoding: EncodingKind,
    pub order: String,
    pub pass: Pass,
    pub terminal: TerminalStrategy,
    pub image: ImageStrategy,
    /// Threads of the BDD operations (part of the key when more than one).
    #[serde(default = "crate::bdd::one_thread")]
    pub threads: usize,
    pub limits: Limits,
    pub manager: ManagerSettings,
    /// The manager settings its grid sweeps (part of the key).
    #[serde(default, skip_serializing_if = "Swept::is_none")]
    pub swept: Swept,
    /// Which repetition of the run this is, from 1 (part of the key when more).
    #[serde(default = "one_repeat", skip_serializing_if = "is_one")]
    pub repeat: u32,
    /// Where the run saves its finished plies and resumes from (set by the
    /// runner when the spec asks for checkpoints; not part of the key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<PathBuf>,
}

impl RunSpec {
    /// The run's key in results: `WxH/encoding/order/pass/terminal/image`,
    /// then `/N-threads` when the operations run on N > 1 threads, then
    /// `/cache-R`, `/gc-G`, `/max-cache-E`, `/gc-cache-P` and `/min-cache-E`
    /// when its grid sweeps the cache ratio, the GC growth factor, the cap on
    /// cache entries, what collections do with the cache or the cache's
    /// floor, then
    /// `/repeat-k` for its `k`-th repetition (`k > 1`).
    pub fn key(&self) -> String {
        let mut extra = if self.threads > 1 { format!("/{}-threads", self.threads) } else { String::new() };
        if self.swept.cache_ratio {
            extra += &format!("/cache-{}", self.manager.cache_ratio);
        }
        if self.swept.gc_growth {
            extra += &format!("/gc-{}", self.manager.gc_growth);
        }
        if self.swept.max_cache_entries {
            extra += &format!("/max-cache-{}", self.manager.max_cache_entries);
        }
        if self.swept.gc_cache {
            extra += &format!("/gc-cache-{}", self.manager.gc_cache);
        }
        if self.swept.min_cache_entries {
            extra += &format!("/min-cache-{}", self.config().min_cache_entries);
        }
        if self.repeat > 1 {
            extra += &format!("/repeat-{}", self.repeat);
        }
        format!(
            "{}x{}/{}/{}/{}/{}/{}{extra}",
            self.width,
            self.height,
            self.encoding.name(),
            self.order,
            self.pass.name(),
            self.terminal,
            self.image
        )
    }

    pub fn size(&self) -> BoardSize {
        BoardSize { width: self.width, height: self.height }
    }

    /// The manager configuration of this run: its pass's defaults
    /// (`Config::for_count` or `Config::default`) with the spec's settings.
    pub fn config(&self) -> Config {
        let defaults = match self.pass {
            Pass::Count => Config::for_count(),
            Pass::Solve => Config::default(),
        };
        Config {
            max_nodes: self.limits.max_nodes.unwrap_or(defaults.max_nodes),
            gc_min_live: self.manager.gc_min_live.unwrap_or(defaults.gc_min_live),
            gc_growth: self.manager.gc_growth,
            cache_ratio: self.manager.cache_ratio,
            max_cache_entries: self.manager.max_cache_entries,
            min_cache_entries: self.manager.min_cache_entries.unwrap_or(defaults.min_cache_entries),
            gc_cache: self.manager.gc_cache,
            threads: self.threads,
            ..defaults
        }
    }
}

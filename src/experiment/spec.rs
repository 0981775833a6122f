//! Experiment specs (TOML): a grid of boards × encodings × orders × passes ×
//! strategies, with per-run limits and manager settings, expanded into runs.
//!
//! ```toml
//! name = "quick"
//! description = "Table 1 boards that finish in seconds"
//! checkpoints = true          # runs save finished plies; an interrupted run resumes
//! solutions = true            # solves keep their solutions in solution/RUN/
//! repeats = 3                 # run the whole list 3 times, round after round, so
//!                             # that the machine's drift meets every setting alike
//! [grid]
//! widths = [4, 5, 6]          # crossed with heights, filtered by max_cells
//! heights = [4, 5]
//! max_cells = 25
//! boards = ["7x4"]            # added as they are
//! encodings = ["compressed"]  # default: compressed
//! orders = ["paper"]          # default: paper; "columns:all" = every column
//!                             # order up to mirror image (boards up to 8 wide)
//! passes = ["count"]          # default: count
//! terminal = ["whole"]        # default: whole (off = no termination)
//! image = ["in-place"]        # default: in-place (or in-place-columns, monolithic, columns)
//! image_split = [0, 3]        # default: 0 (K > 0: each image's operand cut on its top K variables of cells)
//! split_parts = [0, 3]        # default: 0 (K > 0: a solve splits each ply in 2^K parts)
//! threads = [1, 2]            # threads of the BDD operations; default 1
//! cache_ratio = [1, 4]        # manager settings as axes (named in the run's
//! gc_growth = [1.5, 2.0]      # key); default: [manager]'s value, not in the key
//! max_cache_entries = [4194304, 67108864]  # caps on cache entries (powers of two)
//! gc_cache = ["keep", "clear"] # what a collection does with the computed cache
//! min_cache_entries = [256, 4194304]       # floors of the cache (powers of two)
//! split3_cache_ratio = [1, 16] # cache entries per three-way split table entry
//! traversal = ["depth-first", "breadth-first"] # how one thread walks the operations
//! full_bdd = true             # counts also build the BDD of all plies
//! [[also]]                  # further grids (same keys); their runs are appended
//! boards = ["6x5"]
//! passes = ["solve"]
//! [limits]
//! time_s = 600                # wall time per run; the run is killed after it
//! max_nodes = 100_000_000     # node limit per run
//! memory_bytes = 20e9         # address-space limit per run
//!                             # (with checkpoints, `sweep --retry` continues
//!                             # a run a limit stopped under raised limits)
//! [manager]
//! gc_growth = 2.0
//! max_requests = 8388608      # most requests of a breadth-first walk
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::bdd::{GcCache, Traversal};
use crate::encoding::order::column_permutations;
use crate::encoding::{EncodingKind, OrderSpec};
use crate::game::{BoardSize, MAX_SIDE};
use crate::run::one_repeat;
pub use crate::run::{Limits, ManagerSettings, Pass, RunSpec, Swept};
use crate::search::{ImageStrategy, TerminalStrategy};

/// The order list entry that stands for every column permutation.
const ALL_COLUMN_ORDERS: &str = "columns:all";
/// Widest board for which `columns:all` is expanded (8!/2 = 20,160 orders).
const MAX_PERMUTED_WIDTH: u8 = 8;

/// A spec that cannot be used; the message names the file and the key.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct SpecError {
    pub path: PathBuf,
    pub message: String,
}

/// The spec file as written.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// Experiment name: results go to `results/<name>/`.
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub grid: Grid,
    /// Further grids, written `[[also]]`: their runs follow the main grid's
    /// (a run already listed is not repeated).
    #[serde(default)]
    pub also: Vec<Grid>,
    /// Checkpoint every run (under the sweep directory's `checkpoints/`), so
    /// that a run interrupted with its sweep resumes where it stopped.
    #[serde(default)]
    pub checkpoints: bool,
    /// Solve runs store their solution (as `solve --out` does) under the
    /// sweep directory's `solution/`, one folder per run, kept after the run
    /// for `query`, `best --solution`, `book` and `export`.
    #[serde(default)]
    pub solutions: bool,
    /// How many times every run is made (1 to [`MAX_REPEATS`]): the list of
    /// runs once, then again, round after round; repetition `k > 1` is named
    /// `/repeat-k` in its key.
    #[serde(default = "one_repeat")]
    pub repeats: u32,
    #[serde(default)]
    pub limits: Limits,
    #[serde(default)]
    pub manager: ManagerSettings,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grid {
    #[serde(default)]
    pub widths: Vec<u32>,
    #[serde(default)]
    pub heights: Vec<u32>,
    /// Keep only crossed boards with at most this many cells.
    pub max_cells: Option<u32>,
    /// Boards added as given, `"WxH"`.
    #[serde(default)]
    pub boards: Vec<String>,
    #[serde(default = "default_encodings")]
    pub encodings: Vec<EncodingKind>,
    #[serde(default = "default_orders")]
    pub orders: Vec<String>,
    #[serde(default = "default_passes")]
    pub passes: Vec<Pass>,
    #[serde(default = "default_terminal")]
    pub terminal: Vec<TerminalStrategy>,
    #[serde(default = "default_image")]
    pub image: Vec<ImageStrategy>,
    /// Image splits (top variables each image's operand is cut on), as an
    /// axis; default `[0]` (no split).
    #[serde(default = "default_no_split")]
    pub image_split: Vec<u8>,
    /// Splits in parts of a solve's plies (top variables of cells), as an
    /// axis; default `[0]` (each ply split whole).
    #[serde(default = "default_no_split")]
    pub split_parts: Vec<u8>,
    /// Threads of the BDD operations (runs still run one at a time).
    #[serde(default = "default_threads")]
    pub threads: Vec<usize>,
    /// Node slots per computed-cache entry, as an axis; empty: `[manager]`'s.
    #[serde(default)]
    pub cache_ratio: Vec<usize>,
    /// GC growth factors, as an axis; empty: `[manager]`'s.
    #[serde(default)]
    pub gc_growth: Vec<f64>,
    /// Caps on the computed cache's entries, as an axis; empty: `[manager]`'s.
    #[serde(default)]
    pub max_cache_entries: Vec<usize>,
    /// What collections do with the computed cache, as an axis; empty: `[manager]`'s.
    #[serde(default)]
    pub gc_cache: Vec<GcCache>,
    /// Floors of the computed cache's entries, as an axis; empty: `[manager]`'s.
    #[serde(default)]
    pub min_cache_entries: Vec<usize>,
    /// Cache entries per entry of the three-way split's table, as an axis;
    /// empty: `[manager]`'s.
    #[serde(default)]
    pub split3_cache_ratio: Vec<usize>,
    /// How one thread walks the operations, as an axis; empty: `[manager]`'s.
    #[serde(default)]
    pub traversal: Vec<Traversal>,
    /// Counts also put all plies into one BDD and record its nodes
    /// (`full_bdd_nodes`; not with checkpoints).
    #[serde(default)]
    pub full_bdd: bool,
}

/// Most repetitions a spec may ask for.
pub const MAX_REPEATS: u32 = 100;

fn default_encodings() -> Vec<EncodingKind> {
    vec![EncodingKind::Compressed]
}
fn default_orders() -> Vec<String> {
    vec!["paper".into()]
}
fn default_passes() -> Vec<Pass> {
    vec![Pass::Count]
}
fn default_terminal() -> Vec<TerminalStrategy> {
    vec![TerminalStrategy::Whole]
}
fn default_image() -> Vec<ImageStrategy> {
    vec![ImageStrategy::InPlace]
}
fn default_no_split() -> Vec<u8> {
    vec![0]
}
fn default_threads() -> Vec<usize> {
    vec![crate::bdd::one_thread()]
}

/// Each of `items` once per value in `values` (set by `set`), in order, the
/// items outermost; `items` as they are when `values` is empty (the grid
/// does not sweep that axis).
fn cross<I: Clone, T: Clone>(items: Vec<I>, values: &[T], set: impl Fn(&mut I, T)) -> Vec<I> {
    if values.is_empty() {
        return items;
    }
    let mut out = Vec::with_capacity(items.len() * values.len());
    for item in &items {
        for v in values {
            let mut item = item.clone();
            set(&mut item, v.clone());
            out.push(item);
        }
    }
    out
}

/// Parse a board written `WxH`.
fn parse_board(text: &str) -> Option<(u32, u32)> {
    let (w, h) = text.trim().split_once(['x', 'X'])?;
    Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
}

impl ExperimentSpec {
    /// Read and validate a spec file.
    pub fn load(path: &Path) -> Result<ExperimentSpec, SpecError> {
        let err = |message: String| SpecError { path: path.to_path_buf(), message };
        let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read: {e}")))?;
        let spec: ExperimentSpec = toml::from_str(&text).map_err(|e| err(crate::error::toml_message(&text, &e)))?;
        spec.runs().map_err(err)?;
        Ok(spec)
    }

    /// The boards of a grid (keys named `{at}.key` in errors), in order, without duplicates.
    fn boards(g: &Grid, at: &str) -> Result<Vec<BoardSize>, String> {
        let check = |key: &str, v: u32| {
            if v == 0 || v > MAX_SIDE as u32 {
                Err(format!("{at}.{key}: {v} is outside 1..={MAX_SIDE}"))
            } else {
                Ok(v)
            }
        };
        let mut out = Vec::new();
        for &w in &g.widths {
            check("widths", w)?;
            for &h in &g.heights {
                check("heights", h)?;
                if g.max_cells.is_none_or(|m| w * h <= m) {
                    out.push(BoardSize::new(w, h).map_err(|e| e.to_string())?);
                }
            }
        }
        if g.widths.is_empty() != g.heights.is_empty() {
            let (empty, other) = if g.widths.is_empty() { ("widths", "heights") } else { ("heights", "widths") };
            return Err(format!("{at}.{empty} is empty or missing while {at}.{other} is not: give both, or neither"));
        }
        for text in &g.boards {
            let (w, h) = parse_board(text).ok_or_else(|| format!("{at}.boards: '{text}' is not a board like 7x6"))?;
            check("boards", w)?;
            check("boards", h)?;
            out.push(BoardSize::new(w, h).map_err(|e| e.to_string())?);
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|b| seen.insert(*b));
        Ok(out)
    }

    /// Expand the grids into runs (board-major, so small boards come first
    /// when a grid lists them first). Errors name the key.
    pub fn runs(&self) -> Result<Vec<RunSpec>, String> {
        self.check_settings()?;
        let mut runs: Vec<RunSpec> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let grids = std::iter::once(("grid".to_string(), &self.grid))
            .chain(self.also.iter().enumerate().map(|(i, g)| (format!("also[{}]", i + 1), g)));
        for (at, g) in grids {
            for run in self.grid_runs(g, &at)? {
                if seen.insert(run.key()) {
                    runs.push(run);
                }
            }
        }
        let once = runs.len();
        for repeat in 2..=self.repeats {
            let round: Vec<RunSpec> = runs[..once].iter().map(|r| RunSpec { repeat, ..r.clone() }).collect();
            runs.extend(round);
        }
        Ok(runs)
    }

    /// Validate limits and manager settings.
    fn check_settings(&self) -> Result<(), String> {
        // The name is a folder under the results root: one plain component.
        let plain = std::path::Path::new(&self.name).components().collect::<Vec<_>>();
        if !matches!(plain[..], [std::path::Component::Normal(_)]) {
            return Err(format!("name: '{}' must be a plain folder name (no '/', '..' or absolute path)", self.name));
        }
        if !(1..=MAX_REPEATS).contains(&self.repeats) {
            return Err(format!("repeats: {} must be 1 to {MAX_REPEATS}", self.repeats));
        }
        self.limits.check().map_err(|e| format!("limits.{e}"))?;
        self.manager.check().map_err(|e| format!("manager.{e}"))
    }

    /// The manager settings of a grid's runs: `[manager]` crossed with the
    /// grid's own values of the settings it sweeps.
    fn managers(&self, g: &Grid, at: &str) -> Result<Vec<(ManagerSettings, Swept)>, String> {
        let swept = Swept {
            cache_ratio: !g.cache_ratio.is_empty(),
            gc_growth: !g.gc_growth.is_empty(),
            max_cache_entries: !g.max_cache_entries.is_empty(),
            gc_cache: !g.gc_cache.is_empty(),
            min_cache_entries: !g.min_cache_entries.is_empty(),
            split3_cache_ratio: !g.split3_cache_ratio.is_empty(),
            traversal: !g.traversal.is_empty(),
            image_split: g.image_split.len() > 1,
            split_parts: g.split_parts.len() > 1,
        };
        // Each axis multiplies the settings so far, the earlier axes outermost.
        let mut settings = vec![self.manager.clone()];
        settings = cross(settings, &g.cache_ratio, |m, v| m.cache_ratio = Some(v));
        settings = cross(settings, &g.gc_growth, |m, v| m.gc_growth = v);
        settings = cross(settings, &g.max_cache_entries, |m, v| m.max_cache_entries = Some(v));
        settings = cross(settings, &g.gc_cache, |m, v| m.gc_cache = v);
        settings = cross(settings, &g.min_cache_entries, |m, v| m.min_cache_entries = Some(v));
        settings = cross(settings, &g.split3_cache_ratio, |m, v| m.split3_cache_ratio = Some(v));
        settings = cross(settings, &g.traversal, |m, v| m.traversal = Some(v));
        let mut out = Vec::with_capacity(settings.len());
        for m in settings {
            m.check().map_err(|e| format!("{at}.{e}"))?;
            out.push((m, swept));
        }
        Ok(out)
    }

    /// A grid's orders on board `b`, with `columns:all` expanded.
    fn orders(g: &Grid, b: &BoardSize) -> Vec<String> {
        g.orders
            .iter()
            .flat_map(|o| match o.as_str() {
                ALL_COLUMN_ORDERS => {
                    column_permutations(b.width as u32).into_iter().map(|p| OrderSpec::Columns(p).name()).collect()
                }
                _ => vec![o.clone()],
            })
            .collect()
    }

    /// The runs of one grid.
    fn grid_runs(&self, g: &Grid, at: &str) -> Result<Vec<RunSpec>, String> {
        let boards = Self::boards(g, at)?;
        for order in g.orders.iter().filter(|o| *o != ALL_COLUMN_ORDERS) {
            order.parse::<OrderSpec>().map_err(|e| format!("{at}.orders: {e}"))?;
        }
        if g.orders.iter().any(|o| o == ALL_COLUMN_ORDERS) {
            if let Some(b) = boards.iter().find(|b| b.width > MAX_PERMUTED_WIDTH) {
                let reason = format!("{ALL_COLUMN_ORDERS} on the {b} board: at most {MAX_PERMUTED_WIDTH} columns");
                return Err(format!("{at}.orders: {reason} (list the orders instead)"));
            }
        }
        let lists = [
            ("boards", boards.len()),
            ("encodings", g.encodings.len()),
            ("orders", g.orders.len()),
            ("passes", g.passes.len()),
            ("terminal", g.terminal.len()),
            ("image", g.image.len()),
            ("image_split", g.image_split.len()),
            ("split_parts", g.split_parts.len()),
            ("threads", g.threads.len()),
        ];
        if let Some((key, _)) = lists.iter().find(|(_, n)| *n == 0) {
            return Err(format!("{at}.{key} is empty: the grid has no runs"));
        }
        let managers = self.managers(g, at)?;
        // Board-major: each axis multiplies the runs so far, the earlier axes outermost.
        let mut runs = Vec::new();
        for b in &boards {
            for &encoding in &g.encodings {
                for order in Self::orders(g, b) {
                    let run = RunSpec::new(Pass::Count, *b, encoding, order);
                    runs.push(RunSpec { limits: self.limits.clone(), full_bdd: g.full_bdd, ..run });
                }
            }
        }
        runs = cross(runs, &g.passes, |r, v| r.pass = v);
        runs = cross(runs, &g.terminal, |r, v| r.terminal = v);
        runs = cross(runs, &g.image, |r, v| r.image = v);
        runs = cross(runs, &g.image_split, |r, v| r.image_split = v);
        // A count splits no ply: it runs once, unsplit.
        runs = runs
            .into_iter()
            .flat_map(|r| {
                let parts = if r.pass == Pass::Solve { g.split_parts.clone() } else { vec![0] };
                parts.into_iter().map(move |split_parts| RunSpec { split_parts, ..r.clone() })
            })
            .collect();
        runs = cross(runs, &g.threads, |r, v| r.threads = v);
        runs = cross(runs, &managers, |r, (manager, swept)| {
            r.manager = manager.clone();
            r.swept = swept;
        });
        for run in &runs {
            // A sweep with checkpoints gives every run one.
            let checkpoint = self.checkpoints.then(|| PathBuf::from("checkpoint"));
            RunSpec { checkpoint, ..run.clone() }.validate().map_err(|e| format!("{at}.{e}"))?;
        }
        Ok(runs)
    }
}

//! The memory of a long solve in parts, as its archive records it from
//! outside the process: `rss-trace-*.csv`, the resident size of every
//! process of the run summed every 30 seconds (`trace-all.sh`), and
//! `part-records.csv`, each saved part's record with the time it was saved
//! (`parts.sh`). A ply solved in parts spans the time from its first part's
//! start to its last part's save; the trace's samples in that span give the
//! ply's peak for all of the run's processes together, which a row's
//! `peak_rss_bytes` (one process's peak so far) cannot.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use serde::Deserialize;

use crate::experiment::record::read_rows;

/// One sample of `trace-all.sh`: the resident size of all the run's
/// processes together.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
pub struct RssSample {
    /// Seconds since the Unix epoch; absent in traces that wrote the time
    /// of day only (their samples count towards the peak, not towards a ply).
    #[serde(default)]
    pub unix_time: Option<u64>,
    /// Kibibytes resident, summed over the processes.
    pub rss_kb: u64,
}

impl RssSample {
    pub fn bytes(&self) -> u64 {
        self.rss_kb * 1024
    }
}

/// One row of `part-records.csv`: a saved part.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct PartRecord {
    pub ply: u32,
    pub part: u32,
    /// Won and lost nodes of the part's files.
    pub nodes: u64,
    /// The part's own seconds.
    pub time_s: f64,
    /// When the part's record was written (Unix seconds); absent in records
    /// collected before the column existed.
    #[serde(default)]
    pub saved_unix: Option<f64>,
}

/// One row of `solution-kept.csv`: a ply whose won and lost part files
/// were on disk when the archive was collected.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct KeptPly {
    pub ply: u32,
    pub files: u32,
    pub bytes: u64,
}

/// What a partial solve's directory records of its memory and disk from
/// outside the process.
#[derive(Clone, Debug, Default)]
pub struct RunTrace {
    /// Every sample of every `rss-trace-*.csv`, in time order.
    pub samples: Vec<RssSample>,
    /// Every saved part.
    pub parts: Vec<PartRecord>,
    /// The plies whose solution files were kept; `None` where the
    /// directory does not say.
    pub kept: Option<Vec<KeptPly>>,
}

impl RunTrace {
    /// Read `rss-trace-*.csv`, `part-records.csv` and `solution-kept.csv`
    /// of `dir` (any may be missing); a malformed file is an error naming it.
    pub fn load(dir: &Path) -> Result<RunTrace> {
        let mut samples = Vec::new();
        let mut traces: Vec<_> = std::fs::read_dir(dir)?
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("rss-trace-") && n.ends_with(".csv"))
            })
            .collect();
        traces.sort();
        for path in traces {
            samples.extend(read_rows::<RssSample>(&path)?);
        }
        samples.sort_by_key(|s| s.unix_time);
        let records = dir.join("part-records.csv");
        let parts = if records.is_file() { read_rows(&records)? } else { Vec::new() };
        let kept = dir.join("solution-kept.csv");
        let kept = if kept.is_file() { Some(read_rows(&kept)?) } else { None };
        Ok(RunTrace { samples, parts, kept })
    }

    /// The largest sample, in bytes.
    pub fn peak_bytes(&self) -> Option<u64> {
        self.samples.iter().map(RssSample::bytes).max()
    }

    /// Per ply solved in parts whose every part has its save time: the span
    /// from its earliest part's start (save time less the part's seconds) to
    /// its last save, in Unix seconds.
    pub fn ply_spans(&self) -> BTreeMap<u32, (f64, f64)> {
        let mut spans: BTreeMap<u32, Option<(f64, f64)>> = BTreeMap::new();
        for r in &self.parts {
            let span = spans.entry(r.ply).or_insert(Some((f64::MAX, f64::MIN)));
            *span = match (*span, r.saved_unix) {
                (Some((start, end)), Some(saved)) => Some((start.min(saved - r.time_s), end.max(saved))),
                _ => None,
            };
        }
        spans.into_iter().filter_map(|(ply, span)| Some((ply, span?))).collect()
    }

    /// Per ply of [`RunTrace::ply_spans`] with a sample in its span: the
    /// largest such sample, in bytes.
    pub fn ply_peaks(&self) -> BTreeMap<u32, u64> {
        let peak_in = |(start, end): (f64, f64)| {
            let inside =
                self.samples.iter().filter(|s| s.unix_time.is_some_and(|t| (start..=end).contains(&(t as f64))));
            inside.map(RssSample::bytes).max()
        };
        self.ply_spans().into_iter().filter_map(|(ply, span)| Some((ply, peak_in(span)?))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(ply: u32, time_s: f64, saved_unix: Option<f64>) -> PartRecord {
        PartRecord { ply, part: 0, nodes: 1, time_s, saved_unix }
    }

    fn sample(unix_time: u64, rss_kb: u64) -> RssSample {
        RssSample { unix_time: Some(unix_time), rss_kb }
    }

    #[test]
    fn a_plys_peak_is_the_largest_sample_between_its_first_start_and_last_save() {
        let trace = RunTrace {
            samples: vec![
                sample(90, 50),
                sample(100, 7),
                sample(130, 9),
                sample(160, 8),
                sample(200, 30),
                sample(260, 5),
            ],
            parts: vec![part(5, 20.0, Some(140.0)), part(5, 5.0, Some(170.0)), part(4, 50.0, Some(260.0))],
            kept: None,
        };
        assert_eq!(trace.ply_spans(), BTreeMap::from([(5, (120.0, 170.0)), (4, (210.0, 260.0))]));
        assert_eq!(trace.ply_peaks(), BTreeMap::from([(5, 9 * 1024), (4, 5 * 1024)]));
        assert_eq!(trace.peak_bytes(), Some(50 * 1024));
    }

    #[test]
    fn a_ply_with_a_part_of_unknown_save_time_or_no_sample_has_no_peak() {
        let trace = RunTrace {
            samples: vec![sample(100, 7)],
            parts: vec![part(5, 1.0, Some(100.0)), part(5, 1.0, None), part(4, 1.0, Some(500.0))],
            kept: None,
        };
        assert_eq!(trace.ply_spans(), BTreeMap::from([(4, (499.0, 500.0))]));
        assert!(trace.ply_peaks().is_empty());
    }

    #[test]
    fn the_archive_files_are_read_and_joined_in_time_order() {
        let dir = std::env::temp_dir().join(format!("c4bdd-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("rss-trace-part2.csv"), "unix_time,rss_kb,vsz_kb\n300,4,9\n").unwrap();
        std::fs::write(dir.join("rss-trace-part1.csv"), "unix_time,rss_kb,vsz_kb\n100,2,9\n200,3,9\n").unwrap();
        std::fs::write(
            dir.join("part-records.csv"),
            "ply,part,win,draw,lost,nodes,time_s,peak_rss_bytes,peak_nodes,saved_unix\n7,0,1,2,3,40,50.5,9,9,250.5\n",
        )
        .unwrap();
        assert_eq!(RunTrace::load(&dir).unwrap().kept, None);
        std::fs::write(dir.join("solution-kept.csv"), "ply,files,bytes\n3,2,4096\n").unwrap();
        let trace = RunTrace::load(&dir).unwrap();
        assert_eq!(trace.kept, Some(vec![KeptPly { ply: 3, files: 2, bytes: 4096 }]));
        assert_eq!(trace.samples, vec![sample(100, 2), sample(200, 3), sample(300, 4)]);
        assert_eq!(trace.parts, vec![PartRecord { ply: 7, part: 0, nodes: 40, time_s: 50.5, saved_unix: Some(250.5) }]);
        std::fs::write(dir.join("rss-trace-old.csv"), "utc,rss_kb,vsz_kb\n21:23:46,11,12\n").unwrap();
        let with_old = RunTrace::load(&dir).unwrap();
        assert_eq!(with_old.samples[0], RssSample { unix_time: None, rss_kb: 11 });
        assert_eq!(with_old.peak_bytes(), Some(11 * 1024));
        std::fs::write(dir.join("rss-trace-part3.csv"), "unix_time,rss_kb\nsoon,1\n").unwrap();
        let err = format!("{:#}", RunTrace::load(&dir).unwrap_err());
        assert!(err.contains("rss-trace-part3.csv") && err.contains("malformed row 2"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

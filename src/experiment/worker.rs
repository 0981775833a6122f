//! The child side of a sweep: run one `RunSpec` and report on stdout, one
//! JSON line per ply and a final line with the totals.

use std::io::Write;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::spec::{Pass, RunSpec};
use crate::encoding::{OrderSpec, StateSpace};
use crate::search::{forward, solve, ForwardOptions, PlyRecord, SolvePly, Value};

/// Totals of a run, finished or stopped.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub positions: Option<u128>,
    pub value: Option<Value>,
    pub solution_bytes: Option<u64>,
    pub time_s: f64,
    pub gc_s: f64,
    pub peak_nodes: u64,
}

/// One line of the worker's output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Line {
    Ply(PlyRecord),
    Solved(SolvePly),
    /// The run finished.
    Done(Totals),
    /// The run stopped with an error (reported on stderr); what it had reached.
    Stopped(Totals),
}

fn emit(line: &Line) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, line)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// Run one spec given as JSON; errors go to the caller (and so to stderr and
/// the exit status).
pub fn run(json: &str) -> Result<()> {
    let spec: RunSpec = serde_json::from_str(json)?;
    let order: OrderSpec = spec.order.parse().map_err(anyhow::Error::msg)?;
    let start = std::time::Instant::now();
    let mut space = StateSpace::new(spec.encoding, spec.size(), &order, spec.config())?;
    let opts = ForwardOptions { image: spec.image, terminal: spec.terminal };
    let stopped = |space: &StateSpace| {
        let stats = space.manager.stats();
        Line::Stopped(Totals {
            positions: None,
            value: None,
            solution_bytes: None,
            time_s: start.elapsed().as_secs_f64(),
            gc_s: stats.gc_time.as_secs_f64(),
            peak_nodes: stats.peak_live,
        })
    };
    // The first failure to report a line stops the run: the parent is gone.
    let mut write_error = None;
    let mut send = |line: Line| {
        if write_error.is_none() {
            write_error = emit(&line).err();
        }
    };
    let totals = match spec.pass {
        Pass::Solve => {
            let mut solution_bytes = 0u64;
            let result = solve(
                &mut space,
                &opts,
                |p| send(Line::Solved(*p)),
                |space, _, win, lost| {
                    // The exact size of the ply's file, counted without writing it.
                    let mut counter = ByteCounter(0);
                    space
                        .manager
                        .save_to(&[win, lost], &mut counter)
                        .map_err(|source| crate::Error::Io { path: "(solution size)".into(), source })?;
                    solution_bytes += counter.0;
                    Ok(())
                },
            );
            result.map(|summary| Totals {
                positions: Some(summary.plies.iter().map(|p| p.total).sum()),
                value: Some(summary.value),
                solution_bytes: Some(solution_bytes),
                time_s: summary.time_s,
                gc_s: summary.gc_s,
                peak_nodes: summary.peak_nodes,
            })
        }
        Pass::Count => forward(&mut space, &opts, false, |r| send(Line::Ply(*r))).map(|(summary, _)| Totals {
            positions: Some(summary.positions),
            value: None,
            solution_bytes: None,
            time_s: summary.time_s,
            gc_s: summary.gc_s,
            peak_nodes: summary.peak_nodes,
        }),
    };
    if let Some(e) = write_error {
        return Err(e);
    }
    match totals {
        Ok(t) => emit(&Line::Done(t)),
        Err(e) => {
            emit(&stopped(&space))?;
            Err(e.into())
        }
    }
}

/// A writer that only counts the bytes written to it.
struct ByteCounter(u64);

impl Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

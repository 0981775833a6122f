//! The child side of a sweep: run one `RunSpec` and report on stdout, one
//! JSON line per ply and a final line with the totals.

use std::io::Write;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::spec::{Pass, RunSpec};
use crate::encoding::{OrderSpec, StateSpace};
use crate::search::backward::solve_resumable;
use crate::search::{
    forward, forward_from, Checkpoint, ForwardOptions, Phases, PlyRecord, SolveCheckpoint, SolvePly, Transition, Value,
};

/// Totals of a run, finished or stopped.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub positions: Option<u128>,
    pub value: Option<Value>,
    pub solution_bytes: Option<u64>,
    pub time_s: f64,
    pub gc_s: f64,
    /// The plies' phases, added; `None` when a ply has none (resumed from a
    /// checkpoint written before phases were kept) or the run stopped.
    #[serde(default)]
    pub phases: Option<Phases>,
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
            phases: None,
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
    let totals = match (spec.pass, &spec.checkpoint) {
        (Pass::Solve, checkpoint) => {
            let mut opened = match checkpoint {
                Some(dir) => Some(SolveCheckpoint::open(dir, &mut space, &opts)?),
                None => None,
            };
            // Time of the plies solved before an interruption, if resumed.
            let earlier: f64 = opened.as_ref().map_or(0.0, |(_, r)| {
                r.forward.iter().map(|p| p.time_s).sum::<f64>() + r.solved.iter().map(|p| p.time_s).sum::<f64>()
            });
            let mut solution_bytes = 0u64;
            let result = solve_resumable(
                &mut space,
                &opts,
                opened.as_mut().map(|(c, r)| (c, std::mem::take(r))),
                |p| send(Line::Solved(*p)),
                |_, _, _, _| Ok(()),
            );
            result.map(|summary| {
                // The exact size of the stored solution: each ply's file holds
                // its win and lost BDDs.
                for p in &summary.plies {
                    solution_bytes += space.manager.saved_size(p.nodes, 2);
                }
                Totals {
                    positions: Some(summary.plies.iter().map(|p| p.total).sum()),
                    value: Some(summary.value),
                    solution_bytes: Some(solution_bytes),
                    time_s: earlier + summary.time_s,
                    gc_s: summary.gc_s,
                    phases: summary.phases,
                    peak_nodes: summary.peak_nodes,
                }
            })
        }
        (Pass::Count, None) => forward(&mut space, &opts, false, |r| send(Line::Ply(*r))).map(|(summary, _)| Totals {
            positions: Some(summary.positions),
            value: None,
            solution_bytes: None,
            time_s: summary.time_s,
            gc_s: summary.gc_s,
            phases: summary.phases,
            peak_nodes: summary.peak_nodes,
        }),
        (Pass::Count, Some(dir)) => {
            let rules = Transition::build(&mut space, &opts)?;
            let (mut checkpoint, resume) = Checkpoint::open(dir, &mut space, &opts)?;
            let mut records = resume.as_ref().map_or(Vec::new(), |r| r.records.clone());
            for r in &records {
                send(Line::Ply(*r));
            }
            let earlier: f64 = records.iter().map(|r| r.time_s).sum();
            let result = forward_from(&mut space, &rules, resume, false, false, |space, r, states| {
                send(Line::Ply(*r));
                records.push(*r);
                checkpoint.save(space, &records, states)
            });
            result.map(|(summary, _)| Totals {
                positions: Some(summary.positions),
                value: None,
                solution_bytes: None,
                time_s: earlier + summary.time_s,
                gc_s: summary.gc_s,
                phases: summary.phases,
                peak_nodes: summary.peak_nodes,
            })
        }
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

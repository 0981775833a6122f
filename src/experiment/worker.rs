//! The child side of a sweep: run one `RunSpec` and report on stdout, one
//! JSON line per ply and a final line with the totals.

use std::io::Write;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::run::{execute, RunSpec, Sink, Totals};
use crate::search::{PlyRecord, SolvePly};

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
    /// The run stopped at its node limit; what it had reached.
    NodeLimit(Totals),
}

fn emit(line: &Line) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, line)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// Sends each ply as a line; the first failure to send is kept (the parent
/// is gone) and ends the run once the executor returns.
#[derive(Default)]
struct Lines {
    error: Option<anyhow::Error>,
}

impl Lines {
    fn send(&mut self, line: Line) {
        if self.error.is_none() {
            self.error = emit(&line).err();
        }
    }
}

impl Sink for Lines {
    fn counted(&mut self, ply: &PlyRecord) {
        self.send(Line::Ply(*ply));
    }

    fn solved(&mut self, ply: &SolvePly) {
        self.send(Line::Solved(*ply));
    }
}

/// Run one spec given as JSON; errors go to the caller (and so to stderr and
/// the exit status).
pub fn run(json: &str) -> Result<()> {
    let spec: RunSpec = serde_json::from_str(json)?;
    let mut lines = Lines::default();
    let result = execute(&spec, &mut lines);
    if let Some(e) = lines.error {
        return Err(e);
    }
    match result {
        Ok(finished) => emit(&Line::Done(finished.totals)),
        Err(stopped) => {
            let node_limit = matches!(stopped.error.downcast_ref(), Some(crate::Error::NodeLimit { .. }));
            let reached = *stopped.reached;
            emit(&if node_limit { Line::NodeLimit(reached) } else { Line::Stopped(reached) })?;
            Err(stopped.error)
        }
    }
}

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
    /// An allocation failed under the run's memory limit (`memory_bytes`):
    /// the worker wrote this line and exited with [`MEMORY_EXIT`].
    MemoryLimit,
}

/// The exit status of a worker stopped by an allocation failure.
pub const MEMORY_EXIT: i32 = 4;

/// The end of a worker whose allocation failed: one line on stdout (on a
/// line of its own, whatever another thread was writing), one on stderr
/// naming the phase and the size, and exit status [`MEMORY_EXIT`], without
/// allocating (this runs inside the allocator).
fn memory_stop(size: usize) -> ! {
    // SAFETY: write(2) of a static buffer: async-signal-safe.
    unsafe { libc::write(1, MEMORY_LINE.as_ptr().cast(), MEMORY_LINE.len()) };
    crate::search::write_allocation_failure(2, b"\nout of memory", size, b" bytes failed\n");
    // SAFETY: _exit(2) is async-signal-safe and allocates nothing.
    unsafe { libc::_exit(MEMORY_EXIT) }
}

/// [`Line::MemoryLimit`] as JSON, on a line of its own.
const MEMORY_LINE: &[u8] = b"\n\"memory_limit\"\n";

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
    fn counted(&mut self, ply: &PlyRecord) -> crate::Result<()> {
        self.send(Line::Ply(*ply));
        Ok(())
    }

    fn solved(&mut self, ply: &SolvePly) -> crate::Result<()> {
        self.send(Line::Solved(*ply));
        Ok(())
    }
}

/// Run one spec given as JSON; errors go to the caller (and so to stderr and
/// the exit status).
pub fn run(json: &str) -> Result<()> {
    let spec: RunSpec = serde_json::from_str(json)?;
    if spec.limits.memory_bytes.is_some() {
        crate::bdd::on_allocation_failure(memory_stop);
    }
    let mut lines = Lines::default();
    let result = execute(&spec, &mut lines);
    if let Some(e) = lines.error {
        return Err(e);
    }
    match result {
        Ok(finished) => emit(&Line::Done(finished.totals)),
        Err(stopped) => {
            let node_limit = crate::error::is_node_limit(&stopped.error);
            let reached = *stopped.reached;
            emit(&if node_limit { Line::NodeLimit(reached) } else { Line::Stopped(reached) })?;
            Err(stopped.error)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Line, MEMORY_LINE};

    #[test]
    fn the_memory_line_is_the_memory_limit_line() {
        let text = std::str::from_utf8(MEMORY_LINE).unwrap().trim();
        assert!(matches!(serde_json::from_str::<Line>(text), Ok(Line::MemoryLimit)));
    }
}

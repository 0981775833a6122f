//! The `c4bdd` command: [`cli`] parses the command line, [`commands`] runs
//! it on the library.

mod cli;
mod commands;

use std::process::ExitCode;

use c4bdd::error::CoreError;
use c4bdd::Error;
use clap::Parser;

use cli::{Cli, InputError};
use commands::run;

/// Large blocks (the BDD tables) in huge pages: see [`c4bdd::bdd::HugePageAlloc`].
#[global_allocator]
static ALLOCATOR: c4bdd::bdd::HugePageAlloc = c4bdd::bdd::HugePageAlloc;

/// Exit status for invalid input (also clap's).
const EXIT_INPUT: u8 = 2;
/// Exit status for a run stopped by its node or memory limit.
const EXIT_LIMIT: u8 = 3;

fn main() -> ExitCode {
    // End quietly when stdout is a closed pipe (`c4bdd ... | head`), as Unix
    // tools do, instead of a panic on the next print.
    // SAFETY: restoring the default disposition of one signal before any thread starts.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    if !(std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("bmi2")) {
        eprintln!("error: this build needs an x86-64-v3 processor (AVX2, BMI2); rebuild without .cargo/config.toml's target-cpu");
        return ExitCode::FAILURE;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // A bare `c4bdd` (or a bare subcommand group): the usage, on stderr.
            let _ = e.print();
            return ExitCode::from(EXIT_INPUT);
        }
        Err(e) => {
            eprintln!("{}", one_line(&e));
            return ExitCode::from(EXIT_INPUT);
        }
    };
    #[cfg(unix)]
    c4bdd::bdd::on_allocation_failure(out_of_memory);
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One line: each cause once (an error's own text may already end with its source's).
            let mut message = String::new();
            for cause in err.chain().map(|c| c.to_string()) {
                if !message.ends_with(&cause) {
                    if !message.is_empty() {
                        message += ": ";
                    }
                    message += &cause;
                }
            }
            eprintln!("error: {}", message.replace('\n', " "));
            ExitCode::from(exit_status(&err))
        }
    }
}

/// The end of a command whose allocation failed (at the process's
/// address-space limit, or with the machine's memory used up): one line on
/// stderr naming the phase running (`Phase::current`) and the size asked
/// for, and [`EXIT_LIMIT`], as at a node limit.
/// It runs inside the allocator, so it allocates nothing; a run with a
/// checkpoint has saved every ply it finished. A sweep's worker installs its
/// own (`experiment::worker`).
#[cfg(unix)]
fn out_of_memory(size: usize) -> ! {
    let tail = b" bytes failed (the process's address-space limit or the machine's memory)\n";
    c4bdd::search::write_allocation_failure(2, b"\nerror: out of memory", size, tail);
    // SAFETY: _exit(2) is async-signal-safe and allocates nothing.
    unsafe { libc::_exit(EXIT_LIMIT.into()) }
}

/// Clap's error as one line: its first paragraph (the message, the missing
/// arguments or the valid values), without the usage and hint paragraphs.
fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let lines: Vec<&str> = text.lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
    if lines.is_empty() {
        "error: invalid arguments".to_string()
    } else {
        lines.join(" ")
    }
}

/// Map an error to the documented exit status (a full disk is not invalid
/// input, whatever file it struck).
fn exit_status(err: &anyhow::Error) -> u8 {
    if err.chain().any(|e| e.downcast_ref::<std::io::Error>().is_some_and(c4bdd::error::is_disk_full)) {
        return 1;
    }
    match c4bdd::error::core_error(err) {
        Some(CoreError::NodeLimit { .. }) => return EXIT_LIMIT,
        Some(
            CoreError::InvalidOrder { .. }
            | CoreError::UnknownVar { .. }
            | CoreError::TooManyVars { .. }
            | CoreError::BadFile { .. }
            | CoreError::Io { .. },
        ) => return EXIT_INPUT,
        Some(CoreError::ThreadPool { .. }) | None => {}
    }
    match err.downcast_ref::<Error>() {
        Some(Error::UnsupportedBoard { .. } | Error::BadMoves { .. }) => EXIT_INPUT,
        _ if err.downcast_ref::<InputError>().is_some() => EXIT_INPUT,
        _ if err.downcast_ref::<c4bdd::experiment::SpecError>().is_some() => EXIT_INPUT,
        _ => 1,
    }
}

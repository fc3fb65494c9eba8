//! `lineup`: the command line of lineup's checker of recorded histories.
//!
//! ```text
//! lineup check-history --model <register|kv|set|queue|stack|counter> [--format etcd|edn|jsonl|auto]
//!                      [--no-partition] [--time-limit SECS] [--max-memory SIZE] [--explain]
//!                      [--html REPORT.html] FILE...
//! ```
//!
//! Prints one verdict line per file (`PASS`, `FAIL` or `UNKNOWN`, the number of operations and
//! the check time); after a `FAIL`, the explanation: the longest linearizable prefix, the
//! operations that could not be placed and a per-client timeline, with the file line of each
//! operation shown. `--explain` also prints the linearization found for a `PASS`. `--html FILE` also
//! writes a self-contained HTML report (one section per failing file) and prints
//! `html report: FILE` last.
//!
//! Exit status: 0 if every file is linearizable; 1 if any file is not (this takes precedence);
//! otherwise 2 if a verdict is unknown (a limit was reached: the time limit, or the memory
//! budget, by default half of the memory available) or a file could not be read (the
//! error names the file, the line and what was expected).
#![forbid(unsafe_code)]

mod check_history;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// lineup: check recorded histories for linearizability.
#[derive(Parser, Debug)]
#[command(name = "lineup", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check history files against a built-in model; exit 0 if all are linearizable, 1 if any
    /// is not, 2 if a verdict is unknown or a file is malformed.
    CheckHistory(check_history::CheckHistoryArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::CheckHistory(args) => check_history::run(&args),
    }
}

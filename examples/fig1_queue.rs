//! The Line-Up paper's Fig. 1 bug, found automatically.
//!
//! `cargo run --release --example fig1_queue`
//!
//! Checks `GiveUpQueue` (whose `try_take` gives up when the lock is busy, like the .NET 4.0 CTP
//! `ConcurrentQueue` of the paper) on the matrix `[add(200), try_take()] | [add(400), try_take()]`
//! and prints the violation report; then checks the correct `BlockingQueue` on the same matrix
//! and prints its PASS line. Exits 0 when the bug was found as expected, 1 otherwise, so that
//! the example cannot silently rot.

#[path = "objects/mod.rs"]
mod objects;

use std::process::ExitCode;

use lineup::{check, CheckStats, Config, TestMatrix, Verdict, ViolationKind};
use objects::queues::{blocking_queue, give_up_queue};

/// The PASS line of a check, with what it explored.
fn pass_line(subject: &str, stats: &CheckStats) -> String {
    format!(
        "lineup: PASS: `{subject}`: phase 1 {} serial executions ({} full, {} stuck serial histories) in {:.1?}; \
         phase 2 {} executions ({} distinct histories, {} stuck) in {:.1?} at preemption bound {}",
        stats.serial_executions,
        stats.serial_full,
        stats.serial_stuck,
        stats.phase1_time,
        stats.concurrent_executions,
        stats.distinct_histories,
        stats.stuck_histories,
        stats.phase2_time,
        stats.preemption_bound
    )
}

fn main() -> ExitCode {
    // add(200), try_take() | add(400), try_take(): invocations 0, 2 | 1, 2 of both queues.
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    let config = Config::default();

    let buggy = give_up_queue();
    match check(&buggy, &matrix, &config) {
        Ok(Verdict::Fail(violation)) if matches!(violation.kind, ViolationKind::NotLinearizable { .. }) => {
            println!("{violation}");
        }
        Ok(Verdict::Fail(violation)) => {
            eprintln!(
                "fig1_queue: expected a full history without serial witness, got another violation:\n{violation}"
            );
            return ExitCode::FAILURE;
        }
        Ok(Verdict::Pass(stats)) => {
            eprintln!(
                "fig1_queue: the Fig. 1 bug of `{}` was NOT found: {}",
                buggy.name(),
                pass_line(buggy.name(), &stats)
            );
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("fig1_queue: checking `{}` failed: {e}", buggy.name());
            return ExitCode::FAILURE;
        }
    }

    println!();
    println!("{}", "-".repeat(100));
    println!();

    let correct = blocking_queue();
    match check(&correct, &matrix, &config) {
        Ok(Verdict::Pass(stats)) => {
            println!("{}", pass_line(correct.name(), &stats));
            ExitCode::SUCCESS
        }
        Ok(Verdict::Fail(violation)) => {
            eprintln!("fig1_queue: the correct queue failed:\n{violation}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("fig1_queue: checking `{}` failed: {e}", correct.name());
            ExitCode::FAILURE
        }
    }
}

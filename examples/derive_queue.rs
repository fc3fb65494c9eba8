//! Describing an object's invocations with `#[invocations]` instead of by hand.
//!
//! `cargo run --release --example derive_queue`
//!
//! The queue's `try_take` gives up when the lock is busy (the Line-Up paper's Fig. 1 bug).
//! `#[invocations]` turns the `#[invoke(...)]` methods into the invocation set `add(200)`,
//! `add(400)`, `try_take()` (in that order: methods in block order, then values in order), and
//! `lineup::check` finds the bug on `[add(200), try_take()] | [add(400), try_take()]` and prints
//! the report. Exits 1 if the bug is not found.

use std::process::ExitCode;

#[path = "objects/mod.rs"]
mod objects;

use lineup::{check, Config, Invocations, Subject, TestMatrix, Verdict};
use objects::queues::GiveUpQueue;

fn main() -> ExitCode {
    let labels: Vec<String> = GiveUpQueue::invocations()
        .iter()
        .map(|i| i.label().to_string())
        .collect();
    println!("invocations: {}", labels.join(", "));
    println!();

    let subject = Subject::of("GiveUpQueue", GiveUpQueue::default);
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    match check(&subject, &matrix, &Config::default()) {
        Ok(Verdict::Fail(violation)) => {
            println!("{violation}");
            ExitCode::SUCCESS
        }
        Ok(Verdict::Pass(stats)) => {
            eprintln!("derive_queue: the bug was NOT found: {stats:?}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("derive_queue: checking failed: {e}");
            ExitCode::FAILURE
        }
    }
}

//! The example of "checking a crate you did not write" (docs/loom-backend.md), verbatim: a
//! published crate, switched to loom by its own `loom` feature and `--cfg loom`, checked with
//! nothing but lineup's public API.
#![cfg(loom)]

use concurrent_queue::ConcurrentQueue;
use lineup::{check, Config, Invocation, Subject, TestMatrix};

#[test]
fn concurrent_queue_single_slot_is_linearizable() {
    // The object: built fresh for every execution. The invocations: what lineup may call.
    let subject = Subject::new("concurrent-queue 2.5.0 bounded(1)", || {
        ConcurrentQueue::<u32>::bounded(1)
    })
    .with(Invocation::new("push", |q: &ConcurrentQueue<u32>| q.push(1)).arg(1))
    .with(Invocation::new("push", |q: &ConcurrentQueue<u32>| q.push(2)).arg(2))
    .with(Invocation::new("pop", ConcurrentQueue::pop))
    .with(Invocation::new("is_full", ConcurrentQueue::is_full));
    // Two threads: A pushes 1 then pops, B pushes 2 then asks whether the queue is full.
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 3]]);
    let verdict = check(&subject, &matrix, &Config::default()).expect("the check runs");
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
    let stats = verdict.stats();
    eprintln!(
        "PASS: {} serial and {} concurrent executions (preemption bound {})",
        stats.serial_executions, stats.concurrent_executions, stats.preemption_bound
    );
}

//! The `native` objects written against tokio (`lineup_zoo::native::tokio_*`, shuttle-tokio on
//! shuttle's runtime), on the `native` bench's matrices at `Config::default()`: the replicated
//! register passes and its stale-read twin fails; the blocking queue and the stack pass. The
//! register's actors are tasks on tokio's `mpsc` and `oneshot`, which lineup's
//! `vendor/shuttle-tokio-impl-inner` names to the reduction: phase 1 of the correct register's 2x2
//! matrix is 75 serial executions (one worker; on `lineup::sync::mpsc` 74), and the stale twin's
//! phase 1 stops at its proof of nondeterminism after 4 (its primary replies before the backups
//! have the value, so that a read after a write may find the old one even in a serial execution).
//! The correct register's check at bound 2 takes 2.9 s in a release build (the register on
//! `lineup::sync::mpsc`: 1.8 s),
//! far longer in a debug build: that test is ignored in the debug suite (run it with `--ignored`).
//! The queue's default `LineupTest` is checked too: it found a lost wake-up in the queue's first
//! version (see `native::tokio_queue::TokioQueue::take`).

use lineup::{check, synthesize_spec, Config, TestMatrix};
use lineup_zoo::native;

fn m(columns: &[&[usize]]) -> TestMatrix {
    TestMatrix::new(columns.iter().map(|c| c.to_vec()).collect())
}

#[test]
#[ignore = "phase 2 of the 2x2 matrix at bound 2 takes 2.9 s in a release build on two cores (far longer in a debug build); the register on lineup::sync::mpsc takes 1.8 s"]
fn the_tokio_register_is_linearizable() {
    let verdict = check(
        &native::tokio_register(false),
        &m(&[&[0, 2], &[1, 2]]),
        &Config::default(),
    )
    .unwrap();
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
}

#[test]
fn the_tokio_register_with_a_stale_read_fails() {
    let verdict = check(
        &native::tokio_register(true),
        &m(&[&[0, 2], &[1, 2]]),
        &Config::default(),
    )
    .unwrap();
    // Found as a phase-1 nondeterminism or a history without witness, as on the other lines.
    assert!(!verdict.is_pass(), "the stale read is missed: {:?}", verdict.stats());
}

/// The actors' receives stop at the batch semaphore's switch before their look; the step before
/// and the look after it count as one step when the look finds the mailbox empty
/// (docs/partial-order-reduction.md §3.12, extended to tokio's receives). Without that, phase 2 of
/// this matrix at bound 0 ran 92,328 executions and found 20 distinct histories (at bound 1,
/// 790,009 executions; 74 distinct histories since the unbounded send's scheduling point moved
/// before its message, 92,865 executions): the same histories must be found, in far fewer executions. (The register
/// is too large to compare with the reduction off; `tokio_reduction_superset.rs` compares the
/// counter actor, on which the same rule applies.)
#[test]
fn the_tokio_register_keeps_its_histories_with_its_receives_joined() {
    let config = Config {
        preemption_bound: 0,
        workers: 1,
        interlude: None,
        ..Config::default()
    };
    let verdict = check(&native::tokio_register(false), &m(&[&[0, 2], &[1, 2]]), &config).unwrap();
    let stats = verdict.stats();
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
    assert_eq!(stats.distinct_histories, 20, "{stats:?}");
    // 11,216 with the receives joined.
    assert!(stats.concurrent_executions < 20_000, "{stats:?}");
}

/// Regression: shuttle-tokio's unbounded send pushed its message with no scheduling point before
/// it (the bounded send has its acquire's), so that a message's place in a mailbox was decided
/// together with the sender's step before it. The primary's reply (a oneshot) and its update to the
/// first backup were one step, and the client's read could never reach that backup between them:
/// the stale read was no serial history (phase 1 of `write(2) read()` ran 70 serial executions and
/// found the register deterministic), and phase 2 of the correct register's 2x2 matrix found 40
/// distinct histories at bound 1 and 54 at bound 2, where the register on `lineup::sync::mpsc`
/// has 74 and 120. `vendor/shuttle-tokio-impl-inner`'s unbounded send now has one scheduling point,
/// before the message, which it pushes in the same step as the receiver's permit.
#[test]
fn a_message_may_come_between_a_reply_and_the_next_send() {
    let config = Config {
        workers: 1,
        ..Config::default()
    };
    let synthesis = synthesize_spec(&native::tokio_register(true), &m(&[&[1, 2]]), &config).unwrap();
    assert!(
        synthesis.nondeterminism.is_some(),
        "write(2) read() always reads 2 in {} serial executions",
        synthesis.executions
    );
    // The register's twin on lineup::sync finds it after 4 serial executions (6 here).
    let synthesis = synthesize_spec(&native::tokio_register(true), &m(&[&[0, 2], &[1, 2]]), &config).unwrap();
    assert!(
        synthesis.nondeterminism.is_some() && synthesis.executions <= 8,
        "{}",
        synthesis.executions
    );
}

#[test]
fn the_tokio_queue_is_linearizable() {
    // [add(200), try_take()] | [add(400), take()]
    let verdict = check(&native::tokio_queue(), &m(&[&[0, 2], &[1, 3]]), &Config::default()).unwrap();
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
}

#[test]
fn the_tokio_stack_is_linearizable() {
    let verdict = check(&native::tokio_stack(), &m(&[&[0, 2], &[1, 2]]), &Config::default()).unwrap();
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
}

/// The `native` bench's `default_check` of the tokio queue: `LineupTest` at its defaults.
#[test]
fn the_default_lineup_test_of_the_tokio_queue() {
    let outcome = lineup::LineupTest::new("native::BlockingQueue(tokio)")
        .seed(1)
        .check_subject(&native::tokio_queue());
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}

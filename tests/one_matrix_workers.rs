//! One matrix explored by several workers (`Config::workers`): both phases split their tree of
//! schedules among OS threads, and the outcome is the one a single worker gives. A passing check
//! explores exactly the same executions and finds the same histories (a lost or doubled subtree
//! changes the counts); a failing one reports the same violation with the same replay token (the
//! first in depth-first order); nondeterminism is proved by the same pair of serial histories.
//! (How many executions ran before a failure was found may differ: workers explore some
//! executions after it before they hear of it.)

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, Config, Subject, TestMatrix, Verdict};
use objects::{counters, queues, spin};

/// What must not depend on the number of workers.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Pass {
        serial_executions: u64,
        serial_full: usize,
        serial_stuck: usize,
        concurrent_executions: u64,
        distinct_histories: usize,
        stuck_histories: usize,
    },
    Fail {
        kind: String,
        replay: String,
    },
    Error(String),
}

fn outcome<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix, workers: usize) -> Outcome {
    let config = Config {
        workers,
        ..Config::default()
    };
    match check(subject, matrix, &config) {
        Ok(Verdict::Pass(s)) => Outcome::Pass {
            serial_executions: s.serial_executions,
            serial_full: s.serial_full,
            serial_stuck: s.serial_stuck,
            concurrent_executions: s.concurrent_executions,
            distinct_histories: s.distinct_histories,
            stuck_histories: s.stuck_histories,
        },
        Ok(Verdict::Fail(v)) => Outcome::Fail {
            kind: format!("{:?}", v.kind),
            replay: v.replay.to_string(),
        },
        Err(e) => Outcome::Error(e.to_string()),
    }
}

/// Checks `matrix` with 1, 2 and 3 workers and asserts one outcome; returns it.
fn same_for_any_workers<O: Send + Sync + 'static>(subject: &Subject<O>, columns: Vec<Vec<usize>>) -> Outcome {
    let matrix = TestMatrix::new(columns);
    let alone = outcome(subject, &matrix, 1);
    for workers in [2, 3] {
        assert_eq!(
            outcome(subject, &matrix, workers),
            alone,
            "{} on {matrix:?} with {workers} workers",
            subject.name()
        );
    }
    alone
}

#[test]
fn a_passing_check_explores_the_same_executions_on_any_number_of_workers() {
    let outcome = same_for_any_workers(&counters::atomic_counter(), vec![vec![0, 1], vec![0, 1], vec![1]]);
    assert!(matches!(outcome, Outcome::Pass { concurrent_executions, .. } if concurrent_executions > 100));
    // Stuck histories too: take() on an empty queue blocks.
    let outcome = same_for_any_workers(&queues::blocking_queue(), vec![vec![0, 3], vec![3, 1], vec![2]]);
    assert!(
        matches!(outcome, Outcome::Pass { stuck_histories, .. } if stuck_histories > 0),
        "{outcome:?}"
    );
}

#[test]
fn a_failing_check_reports_the_same_first_violation_on_any_number_of_workers() {
    let fail = |o: &Outcome| matches!(o, Outcome::Fail { .. });
    let outcome = same_for_any_workers(&counters::counter1(), vec![vec![0, 1], vec![0, 1]]);
    assert!(fail(&outcome), "{outcome:?}");
    let outcome = same_for_any_workers(&counters::counter2(), vec![vec![1], vec![0, 0]]);
    assert!(fail(&outcome), "{outcome:?}");
    let outcome = same_for_any_workers(&queues::give_up_queue(), vec![vec![0, 2], vec![1, 2], vec![2]]);
    assert!(fail(&outcome), "{outcome:?}");
    let outcome = same_for_any_workers(&queues::lost_wake_up_queue(), vec![vec![1, 1], vec![0, 0]]);
    assert!(fail(&outcome), "{outcome:?}");
}

#[test]
fn nondeterminism_is_proved_by_the_same_serial_histories_on_any_number_of_workers() {
    let outcome = same_for_any_workers(&spin::race(), vec![vec![0, 0], vec![0]]);
    assert!(
        matches!(&outcome, Outcome::Fail { kind, .. } if kind.contains("Nondetermin")),
        "{outcome:?}"
    );
}

//! One matrix explored by several workers (`Config::workers`): both phases split their tree of
//! schedules among OS threads, and the outcome is the one a single worker gives. A passing check
//! explores exactly the same executions and finds the same histories (a lost or doubled subtree
//! changes the counts); a failing one reports the same violation with the same replay token (the
//! first in depth-first order); nondeterminism is proved by the same pair of serial histories.
//! (How many executions ran before a failure was found may differ: workers explore some
//! executions after it before they hear of it.) The executions of the `random` strategy are split
//! by index: a passing check runs the same executions, a failing one reports the first failing
//! index, with its token.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, Config, Strategy, Subject, TestMatrix, Verdict};
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
    outcome_with(subject, matrix, workers, Strategy::PbDfs)
}

fn outcome_with<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    workers: usize,
    strategy: Strategy,
) -> Outcome {
    let config = Config {
        workers,
        strategy,
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
        // The schedule phase 2 found, before it is shortened for the report (two found schedules
        // may shorten to one).
        Ok(Verdict::Fail(v)) => Outcome::Fail {
            kind: format!("{:?}", v.kind),
            replay: v.schedule.as_ref().map_or(&v.replay, |shown| &shown.found).to_string(),
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

/// `random` with `executions` from seed `seed`, checked with 1 to 4 workers: one outcome.
fn random_same_for_any_workers<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    columns: Vec<Vec<usize>>,
    executions: u64,
    seed: u64,
) -> Outcome {
    sample_same_for_any_workers(subject, columns, Strategy::Random { executions, seed })
}

/// `strategy` (a sampling one), checked with 1 to 4 workers: one outcome.
fn sample_same_for_any_workers<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    columns: Vec<Vec<usize>>,
    strategy: Strategy,
) -> Outcome {
    let matrix = TestMatrix::new(columns);
    let alone = outcome_with(subject, &matrix, 1, strategy);
    for workers in [2, 3, 4] {
        assert_eq!(
            outcome_with(subject, &matrix, workers, strategy),
            alone,
            "{} on {matrix:?} with {workers} workers, {strategy}",
            subject.name()
        );
    }
    alone
}

#[test]
fn random_executions_split_by_index_run_the_same_executions_on_any_number_of_workers() {
    let outcome = random_same_for_any_workers(&queues::blocking_queue(), vec![vec![0, 3], vec![3, 1], vec![2]], 600, 3);
    assert!(
        matches!(outcome, Outcome::Pass { concurrent_executions: 600, stuck_histories, .. } if stuck_histories > 0),
        "{outcome:?}"
    );
    // Fewer executions than workers: each runs at most one.
    let outcome = random_same_for_any_workers(&counters::atomic_counter(), vec![vec![0, 1], vec![1]], 2, 1);
    assert!(
        matches!(
            outcome,
            Outcome::Pass {
                concurrent_executions: 2,
                ..
            }
        ),
        "{outcome:?}"
    );
}

#[test]
fn random_executions_split_by_index_report_the_first_failing_index_on_any_number_of_workers() {
    // Seeds whose first failing execution comes late (each worker runs many before it) and early.
    let mut late = 0;
    for seed in 0..6 {
        let outcome = random_same_for_any_workers(&counters::counter2(), vec![vec![1], vec![0, 0]], 2000, seed);
        let Outcome::Fail { replay, .. } = &outcome else {
            panic!("seed {seed}: {outcome:?}");
        };
        // The token of the failing execution alone: the single worker's first failing index.
        let single = Config {
            workers: 1,
            strategy: Strategy::Random { executions: 2000, seed },
            ..Config::default()
        };
        let Ok(Verdict::Fail(v)) = check(
            &counters::counter2(),
            &TestMatrix::new(vec![vec![1], vec![0, 0]]),
            &single,
        ) else {
            panic!("seed {seed}: one worker passed");
        };
        assert_eq!(
            &v.schedule.as_ref().map_or(&v.replay, |shown| &shown.found).to_string(),
            replay
        );
        late += usize::from(v.stats.concurrent_executions > 8);
    }
    assert!(late > 0, "no seed fails after the workers' first executions");
}

/// PCT's executions split by index: each draws its change points from the longest execution of the
/// rounds before its own, the same on any number of workers.
#[test]
fn pct_executions_split_by_index_give_the_same_outcome_on_any_number_of_workers() {
    let pct = |executions, seed| Strategy::Pct {
        depth: 3,
        executions,
        seed,
    };
    let outcome = sample_same_for_any_workers(
        &queues::blocking_queue(),
        vec![vec![0, 3], vec![3, 1], vec![2]],
        pct(300, 3),
    );
    assert!(
        matches!(outcome, Outcome::Pass { concurrent_executions: 300, stuck_histories, .. } if stuck_histories > 0),
        "{outcome:?}"
    );
    // A spinning lock: executions of many more steps than PCT's first range, of varied lengths, so
    // that which histories a seed meets depends on the range each execution draws from (a worker
    // that drew from the longest execution it happened to know of met other ones).
    for seed in 0..4 {
        let outcome = sample_same_for_any_workers(
            &spin::ticket_lock_counter(),
            vec![vec![0, 1], vec![0, 0], vec![1]],
            pct(400, seed),
        );
        assert!(matches!(outcome, Outcome::Pass { .. }), "{outcome:?}");
    }
    let mut failed = 0;
    for seed in 0..6 {
        let outcome = sample_same_for_any_workers(&counters::counter2(), vec![vec![1], vec![0, 0]], pct(500, seed));
        failed += usize::from(matches!(outcome, Outcome::Fail { .. }));
    }
    assert!(failed > 0, "PCT never found counter2's bug");
}

//! Shrinking a failure stops within its time and says so. A smaller matrix that passes is
//! explored to its end, which can take far longer than the failing check (that one stopped at its
//! first violation): without a limit, a `LineupTest` that had found a bug ran on in silence for
//! minutes. With `Config::max_duration`, `shrink` stops within it and `Shrunk::complete` is
//! `false`; a `LineupTest` gives shrinking its time budget again and its report says when the time
//! ran out. Where every smaller matrix is quick, shrinking is complete and reaches the smallest
//! failing matrix.

use std::time::{Duration, Instant};

use lineup::shuttle::sync::atomic::{AtomicU64, Ordering::SeqCst};
use lineup::{check, shrink, Config, Invocation, LineupTest, Subject, TestFailure, TestMatrix, Verdict};

/// A counter whose `inc` loses updates (a load, then a store; it returns the count it wrote), beside a `churn` of many
/// scheduling points on an atomic of its own: a matrix with two `inc`s on two threads fails at
/// once, and one with a single `inc` passes only after every schedule of the `churn`s around it.
#[derive(Default)]
struct ChurningCounter {
    count: AtomicU64,
    noise: AtomicU64,
}

/// Scheduling points in one `churn`.
const CHURN_STEPS: u64 = 200;

fn subject() -> Subject<ChurningCounter> {
    Subject::new("ChurningCounter", ChurningCounter::default)
        .with(Invocation::new("inc", |c: &ChurningCounter| {
            let seen = c.count.load(SeqCst);
            c.count.store(seen + 1, SeqCst);
            seen + 1
        }))
        .with(Invocation::new("churn", |c: &ChurningCounter| {
            for _ in 0..CHURN_STEPS {
                c.noise.fetch_add(1, SeqCst);
            }
        }))
        .with(Invocation::new("get", |c: &ChurningCounter| c.count.load(SeqCst)))
}

/// Two racing `inc`s with `churn`s on three threads: every smaller matrix that keeps one `inc`
/// has three threads of `churn` and passes only after far more than a few seconds (`inc churn |
/// churn | churn` at bound 2: 3.75 million executions, 96 s in a release build on two cores).
fn churning_matrix() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 1], vec![0, 1], vec![1]])
}

/// The first violation of `matrix`, at `Config::default()`.
fn violation_of(matrix: &TestMatrix) -> Box<lineup::Violation> {
    match check(&subject(), matrix, &Config::default()).expect("the check runs") {
        Verdict::Fail(v) => v,
        Verdict::Pass(_) => panic!("{matrix:?} passed"),
    }
}

#[test]
fn shrinking_stops_within_its_time_and_says_that_it_did() {
    let matrix = churning_matrix();
    let config = Config {
        max_duration: Some(Duration::from_secs(3)),
        ..Config::default()
    };
    let start = Instant::now();
    let shrunk = shrink(&subject(), &matrix, violation_of(&matrix), &config).unwrap();
    assert!(
        !shrunk.complete,
        "shrinking within 3 s cannot have checked every smaller matrix: {shrunk:?}"
    );
    // What it reports still fails: a proof, however far it got.
    assert!(shrunk.matrix.op_count() <= matrix.op_count());
    assert!(!check(&subject(), &shrunk.matrix, &Config::default()).unwrap().is_pass());
    // Loose: the bound is 3 s; the margin is for the failing check's replay and a loaded machine.
    assert!(start.elapsed() < Duration::from_secs(60), "took {:?}", start.elapsed());
}

#[test]
fn a_quick_shrink_is_complete_and_reaches_the_smallest_failing_matrix() {
    // inc get | inc: every smaller matrix is quick, and the smallest failing one is inc | inc.
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![0]]);
    let config = Config {
        max_duration: Some(Duration::from_secs(120)),
        ..Config::default()
    };
    let shrunk = shrink(&subject(), &matrix, violation_of(&matrix), &config).unwrap();
    assert!(shrunk.complete, "{shrunk:?}");
    assert_eq!(shrunk.matrix, TestMatrix::new(vec![vec![0], vec![0]]));
}

#[test]
fn a_lineup_test_gives_shrinking_its_time_budget_and_its_report_says_when_it_ran_out() {
    let failure = LineupTest::new("shrink_budget::churning")
        .matrix(&[&["inc()", "churn()"], &["inc()", "churn()"], &["churn()"]])
        .samples(0)
        // One worker and a seed: the failing check of the whole matrix finds its violation in the
        // same place every time (its depth-first search alone takes a minute to reach it; the
        // interlude's random schedules, drawn from the seed, find it at once).
        .workers(1)
        .seed(1)
        .time_budget(Duration::from_secs(2))
        .check_subject(&subject())
        .expect_err("two racing incs fail");
    let TestFailure::Violation {
        shrink_complete,
        ref smallest,
        ..
    } = failure
    else {
        panic!("not a violation: {failure}");
    };
    assert!(!shrink_complete);
    assert!(smallest.matrix.op_count() <= 5);
    let report = failure.to_string();
    assert!(report.contains("Shrinking stopped after"), "{report}");
    assert!(report.contains("a smaller failing matrix may exist"), "{report}");
}

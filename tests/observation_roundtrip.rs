//! Phase 1 written as an observation file, read back, and phase 2 run from the file
//! (`check_against_spec`): PASS for the correct queue, FAIL for the Fig. 1 bug, and a clear
//! error for a file that belongs to another matrix.

#[path = "../examples/objects/mod.rs"]
mod objects;

use std::path::Path;

use lineup::observation_file::{read_observation_file, write_observation_file, ObservationFileError};
use lineup::{
    check, check_against_spec, replay, synthesize_spec, CheckError, Config, ObservationSet, TestMatrix, Verdict,
    Violation, ViolationKind,
};
use objects::queues::{blocking_queue, give_up_queue, stack_under_queue_labels};
use objects::spin::race;

/// `add(200), try_take() | take(), add(400)` on the blocking queue: a `take` on the empty queue
/// blocks, so phase 1 finds full and stuck serial histories.
fn blocking_matrix() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 2], vec![3, 1]])
}

/// `add(200), try_take() | add(400), try_take()`: the paper's Fig. 1 matrix.
fn fig1_matrix() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 2], vec![1, 2]])
}

/// Writes `spec` to `path` and reads it back, asserting that it reads back unchanged.
fn round_trip(path: &Path, spec: &ObservationSet) -> ObservationSet {
    write_observation_file(path, spec).unwrap_or_else(|e| panic!("{e}"));
    let read = read_observation_file(path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&read, spec, "{} reads back as another specification", path.display());
    read
}

#[test]
fn blocking_queue_passes_phase_2_from_a_file_with_full_and_stuck_histories() {
    let subject = blocking_queue();
    let matrix = blocking_matrix();
    let config = Config::default();
    let synthesis = synthesize_spec(&subject, &matrix, &config).unwrap();
    assert!(synthesis.nondeterminism.is_none());
    let spec = &synthesis.spec;
    assert!(spec.full_count() > 0, "some serial orders complete: {spec:?}");
    assert!(
        spec.stuck_count() > 0,
        "take() before any add blocks serially: {spec:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("blocking_queue.xml");
    let read = round_trip(&path, spec);
    assert_eq!(read.full_count(), spec.full_count());
    assert_eq!(read.stuck_count(), spec.stuck_count());
    let xml = std::fs::read_to_string(&path).unwrap();
    assert!(xml.contains("<history>"), "{xml}");
    assert!(xml.contains(" #</history>"), "stuck histories end in #: {xml}");

    let verdict = check_against_spec(&subject, &matrix, &read, &config).unwrap();
    let Verdict::Pass(stats) = &verdict else {
        panic!("expected PASS, got:\n{}", verdict.violation().unwrap());
    };
    assert!(stats.spec_from_file);
    assert_eq!(stats.serial_executions, 0, "no phase 1 ran: {stats:?}");
    assert_eq!(stats.serial_full, spec.full_count());
    assert_eq!(stats.serial_stuck, spec.stuck_count());
    assert!(stats.concurrent_executions > 0);
    assert!(
        stats.stuck_histories > 0,
        "phase 2 justified stuck histories from the file: {stats:?}"
    );

    // The same exploration as a fresh check.
    let fresh = check(&subject, &matrix, &config).unwrap();
    assert!(fresh.is_pass());
    assert!(!fresh.stats().spec_from_file);
    assert_eq!(fresh.stats().concurrent_executions, stats.concurrent_executions);
    assert_eq!(fresh.stats().distinct_histories, stats.distinct_histories);
}

#[test]
fn fig1_bug_still_fails_against_a_spec_read_from_a_file() {
    let subject = give_up_queue();
    let matrix = fig1_matrix();
    let config = Config::default();
    let synthesis = synthesize_spec(&subject, &matrix, &config).unwrap();
    assert!(synthesis.nondeterminism.is_none(), "serially the bug cannot show");

    let dir = tempfile::tempdir().unwrap();
    let read = round_trip(&dir.path().join("give_up_queue.xml"), &synthesis.spec);

    let verdict = check_against_spec(&subject, &matrix, &read, &config).unwrap();
    let Some(violation) = verdict.violation() else {
        panic!("expected FAIL, got PASS: {:?}", verdict.stats());
    };
    let ViolationKind::NotLinearizable { history, .. } = &violation.kind else {
        panic!("expected a full history without serial witness:\n{violation}");
    };
    assert!(history.is_complete() && !history.is_stuck());
    assert!(violation.stats.spec_from_file);
    let report = violation.to_string();
    assert!(report.contains("FULL HISTORY WITHOUT SERIAL WITNESS"), "{report}");
    assert!(report.contains("read from an observation file"), "{report}");
}

#[test]
fn a_spec_file_of_another_matrix_is_rejected_with_what_differs() {
    let subject = blocking_queue();
    let config = Config::default();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fig1.xml");
    let fig1 = synthesize_spec(&subject, &fig1_matrix(), &config).unwrap();
    let read = round_trip(&path, &fig1.spec);

    // Op 3 is add(400) on thread B in the file, take() on thread B in the test.
    let err = check_against_spec(&subject, &blocking_matrix(), &read, &config).unwrap_err();
    let CheckError::ObservationFile(ObservationFileError::Mismatch { message, .. }) = &err else {
        panic!("expected a mismatch, got {err:?}");
    };
    assert_eq!(
        message,
        "op 3 is `add(400)` on thread B in the file but `take()` on thread B in the test (and 1 more differing ops)"
    );
    let text = err.to_string();
    assert!(text.contains("does not belong to this test"), "{text}");
    assert!(text.contains("op 3 is `add(400)`"), "{text}");

    // A matrix with fewer operations: the error names the first op the test lacks.
    let shorter = TestMatrix::new(vec![vec![0, 2], vec![1]]);
    let err = check_against_spec(&subject, &shorter, &read, &config).unwrap_err();
    assert!(
        err.to_string()
            .contains("op 4 is `try_take()` on thread B in the file but the test has only 3 ops"),
        "{err}"
    );
}

/// `race()` on one thread, checked against its own (nondeterministic) specification read back
/// from a file: the violation `check_against_spec` reports.
fn race_violation_from_file() -> Violation {
    let matrix = TestMatrix::new(vec![vec![0]]);
    let config = Config::default();
    let synthesis = synthesize_spec(&race(), &matrix, &config).unwrap();
    assert!(synthesis.nondeterminism.is_some(), "race() depends on the schedule");
    let dir = tempfile::tempdir().unwrap();
    let read = round_trip(&dir.path().join("race.xml"), &synthesis.spec);
    let verdict = check_against_spec(&race(), &matrix, &read, &config).unwrap();
    verdict.violation().expect("a nondeterministic file fails").clone()
}

#[test]
fn a_nondeterministic_spec_file_fails_the_determinism_check() {
    let violation = race_violation_from_file();
    let ViolationKind::Nondeterministic(n) = &violation.kind else {
        panic!("expected nondeterminism:\n{violation}");
    };
    assert_ne!(n.first.response(n.op), n.second.response(n.op));
    assert!(violation.stats.spec_from_file);
    assert_eq!(violation.stats.concurrent_executions, 0, "phase 2 does not run");
    assert!(violation.to_string().contains("NONDETERMINISM"), "{violation}");
}

/// Regression (fixed): for a nondeterministic specification given to `check_against_spec`, the
/// violation carries the empty serial token `lineup:p1:` (check.rs builds it with
/// `choices: Vec::new()`), and the report says `lineup_core::replay(.., &"lineup:p1:".parse()?,
/// ..) re-runs the second serial execution`. It re-runs the first serial schedule instead
/// (here race() returns 1, while the second serial history returns 2). A specification read
/// from a file has no schedules, so the report should not offer a token, or the token should
/// come from a fresh phase 1.
#[test]
fn the_replay_token_of_a_nondeterministic_spec_file_replays_the_second_history() {
    let violation = race_violation_from_file();
    let ViolationKind::Nondeterministic(n) = &violation.kind else {
        panic!("expected nondeterminism:\n{violation}");
    };
    let matrix = TestMatrix::new(vec![vec![0]]);
    let replayed = replay(&race(), &matrix, &violation.replay, &Config::default()).unwrap();
    assert_eq!(
        replayed.history, n.second,
        "the report says {} re-runs the second serial execution",
        violation.replay
    );
}

/// A failure against a specification the object no longer matches is not reported as a bug of
/// the object: the check confirms it against a fresh phase 1 and reports a stale
/// specification instead, naming the file.
#[test]
fn a_stale_specification_file_is_an_error_not_a_violation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("queue_fig1.xml");
    let matrix = fig1_matrix();
    let queue_spec = synthesize_spec(&blocking_queue(), &matrix, &Config::default())
        .unwrap()
        .spec;
    write_observation_file(&path, &queue_spec).unwrap();

    let stack = stack_under_queue_labels();
    assert!(
        check(&stack, &matrix, &Config::default()).unwrap().is_pass(),
        "a stack is linearizable"
    );
    let err = lineup::check_against_file(&stack, &matrix, &path, &Config::default()).unwrap_err();
    assert!(matches!(err, CheckError::StaleSpec { .. }), "{err}");
    let message = err.to_string();
    assert!(message.contains("queue_fig1.xml"), "{message}");
    assert!(message.contains("out of date"), "{message}");
}

#[test]
fn a_nondeterministic_object_with_a_committed_specification_fails_with_its_nondeterminism() {
    // Phase 1 stops at its proof of nondeterminism, so its specification is partial: it is not
    // compared with (or blessed into) the committed file; the test reports the nondeterminism.
    let dir = tempfile::tempdir().unwrap();
    let failure = lineup::LineupTest::new("race_snapshot")
        .time_budget(None)
        .samples(0)
        .observations(dir.path().to_str().unwrap())
        .matrix(&[&["race()"], &["race()"]])
        .check_subject(&race())
        .expect_err("race() is nondeterministic");
    let lineup::TestFailure::Violation { smallest, .. } = &failure else {
        panic!("expected the nondeterminism, got: {failure}");
    };
    assert!(smallest.kind.is_nondeterminism(), "{failure}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no partial specification is written"
    );
}

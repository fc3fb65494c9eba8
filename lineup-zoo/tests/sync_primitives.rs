//! The synchronization primitives of the zoo (Table 1): every correct class passes small
//! explicit matrices (including ones where operations block and stuck histories must be
//! justified), every buggy variant fails with the kind of violation its root cause produces on
//! the paper's smallest failing matrix or a smaller one, the barrier fails (L), the phase-1
//! specifications of the regression matrices are committed under `observations/zoo/`, and every
//! registered entry meets its expectation on a small random sample.

use std::path::PathBuf;
use std::time::Instant;

use lineup::spec_snapshot::{bless_requested, compare_or_bless, SnapshotOutcome};
use lineup::{
    check, synthesize_spec, Config, Invocations, ObservationSet, StuckKind, Subject, TestMatrix, Verdict, ViolationKind,
};
use lineup_zoo::sync_primitives::{
    entries, Barrier, CancellationTokenSource, CountdownEvent, LateCancellationTokenSource, Lazy, ManualResetEvent,
    ManualResetEventPre, SemaphoreSlim, TaskCompletionSource, TaskCompletionSourceBeta, TaskCompletionSourcePre,
};
use lineup_zoo::{run_entry, Expected, TableSettings};

/// The subject of a zoo type, as the Table 2 run builds it.
fn subject<O: Invocations + Default>(name: &str) -> Subject<O> {
    Subject::of(name, O::default)
}

/// A matrix given by invocation labels, one column per thread.
fn matrix<O>(subject: &Subject<O>, columns: &[&[&str]]) -> TestMatrix {
    let labels: Vec<String> = subject.labels().iter().map(ToString::to_string).collect();
    TestMatrix::new(
        columns
            .iter()
            .map(|column| {
                column
                    .iter()
                    .map(|name| {
                        labels
                            .iter()
                            .position(|l| l == name)
                            .unwrap_or_else(|| panic!("`{name}` is not one of {labels:?}"))
                    })
                    .collect()
            })
            .collect(),
    )
}

fn run<O: Send + Sync + 'static>(subject: &Subject<O>, columns: &[&[&str]]) -> Verdict {
    check(subject, &matrix(subject, columns), &Config::default()).unwrap()
}

/// Checks `columns` and requires a PASS; returns the verdict for further assertions.
fn assert_pass<O: Send + Sync + 'static>(subject: &Subject<O>, columns: &[&[&str]]) -> Verdict {
    let verdict = run(subject, columns);
    if let Some(v) = verdict.violation() {
        panic!("{}: expected PASS on {columns:?}, got:\n{v}", subject.name());
    }
    verdict
}

/// Checks `columns` and requires a FAIL; returns the violation kind.
fn fail_kind<O: Send + Sync + 'static>(subject: &Subject<O>, columns: &[&[&str]]) -> ViolationKind {
    match run(subject, columns) {
        Verdict::Pass(stats) => panic!("{}: expected FAIL on {columns:?}, got PASS ({stats:?})", subject.name()),
        Verdict::Fail(v) => v.kind.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// Lazy initialization

const LAZY_2X2: &[&[&str]] = &[&["value()", "to_string()"], &["value()", "is_value_created()"]];

#[test]
fn lazy_passes() {
    let lazy = subject::<Lazy>("Lazy");
    assert_pass(&lazy, LAZY_2X2);
    assert_pass(
        &lazy,
        &[
            &["is_value_created()", "value()"],
            &["to_string()", "value()", "to_string()"],
        ],
    );
    assert_pass(
        &lazy,
        &[&["value()"], &["value()"], &["is_value_created()", "to_string()"]],
    );
}

// ---------------------------------------------------------------------------------------------
// ManualResetEvent

/// Fig. 9 of the paper: bug A's matrix.
const FIG9: &[&[&str]] = &[&["wait()"], &["set()", "reset()", "set()"]];

#[test]
fn manual_reset_event_passes_including_blocking_waits() {
    let mre = subject::<ManualResetEvent>("ManualResetEvent");
    let verdict = assert_pass(&mre, FIG9);
    assert!(
        verdict.stats().serial_stuck > 0,
        "wait blocks serially before set: {:?}",
        verdict.stats()
    );
    // A wait that misses the open window blocks for good: justified by `set, reset, wait`.
    let verdict = assert_pass(&mre, &[&["wait()", "is_set()"], &["set()", "reset()"]]);
    assert!(verdict.stats().stuck_histories > 0, "{:?}", verdict.stats());
    assert_pass(&mre, &[&["wait()", "try_wait()"], &["wait()"], &["set()"]]);
    assert_pass(&mre, &[&["set()", "wait()"], &["reset()", "is_set()"]]);
}

#[test]
fn manual_reset_event_pre_bug_a_gets_stuck_in_fig9() {
    let pre = subject::<ManualResetEventPre>("ManualResetEvent(Pre)");
    let ViolationKind::StuckNotLinearizable { stuck, .. } = fail_kind(&pre, FIG9) else {
        panic!("expected a stuck-history violation");
    };
    assert_eq!(stuck, StuckKind::Deadlock);
    // The values are all right: classic linearizability cannot see bug A (§5.5).
    let classic = Config {
        check_stuck: false,
        ..Config::default()
    };
    assert!(check(&pre, &matrix(&pre, FIG9), &classic).unwrap().is_pass());
}

#[test]
fn manual_reset_event_pre_bug_a_also_resurrects_the_flag() {
    // The second wait returns after the reset although no set follows it.
    let pre = subject::<ManualResetEventPre>("ManualResetEvent(Pre)");
    let columns: &[&[&str]] = &[&["set()"], &["reset()"], &["wait()", "wait()"]];
    let kind = fail_kind(&pre, columns);
    assert!(matches!(kind, ViolationKind::NotLinearizable { .. }), "{kind:?}");
    assert_pass(&subject::<ManualResetEvent>("ManualResetEvent"), columns);
}

// ---------------------------------------------------------------------------------------------
// SemaphoreSlim

const SEMAPHORE_2X2: &[&[&str]] = &[&["wait()", "wait()"], &["try_wait()", "release(1)"]];

#[test]
fn semaphore_slim_passes_including_blocking_waits() {
    let sem = subject::<SemaphoreSlim>("SemaphoreSlim");
    let verdict = assert_pass(&sem, SEMAPHORE_2X2);
    assert!(verdict.stats().stuck_histories > 0, "{:?}", verdict.stats());
    assert_pass(&sem, &[&["wait()", "current_count()"], &["wait()", "release(2)"]]);
    assert_pass(
        &sem,
        &[
            &["release(1)", "wait()"],
            &["try_wait()", "current_count()"],
            &["wait()"],
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// CountdownEvent

const COUNTDOWN_2X2: &[&[&str]] = &[&["wait()", "current_count()"], &["signal(1)", "signal(1)"]];

#[test]
fn countdown_event_passes_including_blocking_waits_and_exceptions() {
    let cde = subject::<CountdownEvent>("CountdownEvent");
    let verdict = assert_pass(&cde, COUNTDOWN_2X2);
    assert!(verdict.stats().serial_stuck > 0, "{:?}", verdict.stats());
    assert_pass(&cde, &[&["signal(2)", "add_count()"], &["try_add_count()", "is_set()"]]);
    assert_pass(&cde, &[&["wait()"], &["signal(1)", "add_count()"], &["signal(2)"]]);
}

// ---------------------------------------------------------------------------------------------
// TaskCompletionSource

/// Bug F's matrix: two producers.
const TCS_F: &[&[&str]] = &[&["try_set_result(1)"], &["try_set_canceled()"]];
/// Bug G's matrix: a consumer and a producer.
const TCS_G: &[&[&str]] = &[&["wait()"], &["try_set_result(1)"]];

#[test]
fn task_completion_source_passes_including_blocking_waits_and_exceptions() {
    let tcs = subject::<TaskCompletionSource>("TaskCompletionSource");
    assert_pass(&tcs, TCS_F);
    assert_pass(&tcs, TCS_G);
    assert_pass(
        &tcs,
        &[
            &["try_set_result(1)", "try_result()"],
            &["try_set_canceled()", "set_result(2)"],
        ],
    );
    let verdict = assert_pass(&tcs, &[&["wait()", "try_set_exception()"], &["try_result()", "wait()"]]);
    assert!(verdict.stats().stuck_histories > 0, "{:?}", verdict.stats());
    assert_pass(
        &tcs,
        &[&["wait()"], &["try_set_result(1)"], &["try_set_canceled()", "wait()"]],
    );
}

#[test]
fn task_completion_source_pre_bug_f_completes_twice() {
    let pre = subject::<TaskCompletionSourcePre>("TaskCompletionSource(Pre)");
    let kind = fail_kind(&pre, TCS_F);
    assert!(matches!(kind, ViolationKind::NotLinearizable { .. }), "{kind:?}");
}

#[test]
fn task_completion_source_beta_bug_g_loses_the_wake_up() {
    let beta = subject::<TaskCompletionSourceBeta>("TaskCompletionSource");
    let kind = fail_kind(&beta, TCS_G);
    let ViolationKind::StuckNotLinearizable { stuck, .. } = kind else {
        panic!("expected a stuck-history violation: {kind:?}");
    };
    assert_eq!(stuck, StuckKind::Deadlock);
}

// ---------------------------------------------------------------------------------------------
// CancellationTokenSource

const CTS_2X2: &[&[&str]] = &[
    &["register_increment()", "increments()"],
    &["cancel()", "register_increment()"],
];
/// Root cause K's matrix: one thread.
const CTS_K: &[&[&str]] = &[&["register_increment()", "cancel()", "increments()"]];

#[test]
fn cancellation_token_source_passes() {
    let cts = subject::<CancellationTokenSource>("CancellationTokenSource");
    assert_pass(&cts, CTS_2X2);
    assert_pass(&cts, CTS_K);
    assert_pass(
        &cts,
        &[
            &["register_increment()", "register_increment()"],
            &["cancel()", "increments()"],
        ],
    );
    assert_pass(
        &cts,
        &[
            &["register_increment()", "is_cancellation_requested()"],
            &["cancel()"],
            &["increments()"],
        ],
    );
}

#[test]
fn late_cancellation_k_takes_effect_after_cancel_returns() {
    let late = subject::<LateCancellationTokenSource>("CancellationTokenSource(K)");
    let kind = fail_kind(&late, CTS_K);
    assert!(matches!(kind, ViolationKind::Nondeterministic(_)), "{kind:?}");
}

// ---------------------------------------------------------------------------------------------
// Barrier

/// Root cause L's matrix: both participants arrive.
const BARRIER_L: &[&[&str]] = &[&["signal_and_wait()"], &["signal_and_wait()"]];

#[test]
fn barrier_fails_l_by_design() {
    let barrier = subject::<Barrier>("Barrier");
    // Both calls return, while every serial execution blocks in the first one.
    let kind = fail_kind(&barrier, BARRIER_L);
    assert!(matches!(kind, ViolationKind::NotLinearizable { .. }), "{kind:?}");
    // A waiting participant is visible to others, while serially nothing runs after it blocks.
    let kind = fail_kind(&barrier, &[&["signal_and_wait()"], &["participants_remaining()"]]);
    assert!(matches!(kind, ViolationKind::StuckNotLinearizable { .. }), "{kind:?}");
}

#[test]
fn barrier_operations_other_than_signal_and_wait_pass() {
    let barrier = subject::<Barrier>("Barrier");
    assert_pass(
        &barrier,
        &[
            &["add_participant()", "participants_remaining()"],
            &["remove_participant()", "participant_count()"],
        ],
    );
    // One participant left: signal_and_wait ends the phase alone.
    assert_pass(
        &barrier,
        &[
            &["remove_participant()", "signal_and_wait()"],
            &["current_phase_number()", "participants_remaining()"],
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Committed specifications and the registry

/// `observations/zoo/<file>` in the workspace.
fn observation_file(file: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../observations/zoo")).join(file)
}

fn fresh_spec<O: Send + Sync + 'static>(subject: &Subject<O>, columns: &[&[&str]]) -> ObservationSet {
    let synthesis = synthesize_spec(subject, &matrix(subject, columns), &Config::default()).unwrap();
    assert!(
        synthesis.nondeterminism.is_none(),
        "{}: nondeterministic",
        subject.name()
    );
    synthesis.spec
}

/// Compares a fresh phase 1 with the committed file (rewritten under `LINEUP_BLESS=1`).
fn committed<O: Send + Sync + 'static>(subject: &Subject<O>, file: &str, columns: &[&[&str]]) {
    let spec = fresh_spec(subject, columns);
    if let Err(e) = compare_or_bless(&observation_file(file), &spec, bless_requested()) {
        panic!("{e}");
    }
}

/// A buggy variant's serial behaviour is the correct class's committed one: serial runs do not
/// show the bug.
fn same_serial_behaviour<O: Send + Sync + 'static>(subject: &Subject<O>, file: &str, columns: &[&[&str]]) {
    let spec = fresh_spec(subject, columns);
    match compare_or_bless(&observation_file(file), &spec, false) {
        Ok(SnapshotOutcome::Unchanged(_)) => {}
        other => panic!("{}: serial behaviour differs from {file}: {other:?}", subject.name()),
    }
}

#[test]
fn regression_specifications_are_committed() {
    committed(&subject::<Lazy>("Lazy"), "Lazy-0.xml", LAZY_2X2);
    committed(
        &subject::<ManualResetEvent>("ManualResetEvent"),
        "ManualResetEvent-0.xml",
        FIG9,
    );
    committed(
        &subject::<SemaphoreSlim>("SemaphoreSlim"),
        "SemaphoreSlim-0.xml",
        SEMAPHORE_2X2,
    );
    committed(
        &subject::<CountdownEvent>("CountdownEvent"),
        "CountdownEvent-0.xml",
        COUNTDOWN_2X2,
    );
    let tcs = subject::<TaskCompletionSource>("TaskCompletionSource");
    committed(&tcs, "TaskCompletionSource-0.xml", TCS_F);
    committed(&tcs, "TaskCompletionSource-1.xml", TCS_G);
    committed(
        &subject::<CancellationTokenSource>("CancellationTokenSource"),
        "CancellationTokenSource-0.xml",
        CTS_2X2,
    );
    committed(&subject::<Barrier>("Barrier"), "Barrier-0.xml", BARRIER_L);

    // The bugs are concurrency bugs: each variant's phase 1 is its correct class's.
    same_serial_behaviour(
        &subject::<ManualResetEventPre>("ManualResetEvent(Pre)"),
        "ManualResetEvent-0.xml",
        FIG9,
    );
    same_serial_behaviour(
        &subject::<TaskCompletionSourcePre>("TaskCompletionSource(Pre)"),
        "TaskCompletionSource-0.xml",
        TCS_F,
    );
    same_serial_behaviour(
        &subject::<TaskCompletionSourceBeta>("TaskCompletionSource"),
        "TaskCompletionSource-1.xml",
        TCS_G,
    );
    same_serial_behaviour(
        &subject::<TaskCompletionSourcePre>("TaskCompletionSource(Pre)"),
        "TaskCompletionSource-1.xml",
        TCS_G,
    );
    same_serial_behaviour(
        &subject::<TaskCompletionSourceBeta>("TaskCompletionSource"),
        "TaskCompletionSource-0.xml",
        TCS_F,
    );
}

#[test]
fn every_entry_meets_its_expectation_on_a_seeded_random_sample() {
    let start = Instant::now();
    let all = entries();
    assert_eq!(all.len(), 11);
    for entry in all {
        // Bug A needs a wait with a set, a reset and a set around it; no 2x2 matrix has that.
        let (threads, ops, samples) = if entry.bugs == "A" { (3, 2, 10) } else { (2, 2, 20) };
        let settings = TableSettings {
            samples,
            threads,
            ops,
            seed: 1,
            workers: 1,
        };
        let row = run_entry(&entry, &settings);
        assert_eq!(row.errors, 0, "{entry:?}: {row:?}");
        match entry.expected {
            Expected::Pass => assert_eq!(row.failed, 0, "{entry:?} must pass: {row:?}"),
            Expected::Fail => {
                assert!(row.failed > 0, "{entry:?} must fail: {row:?}");
                let (_, _, kind) = row.smallest_failing.expect("shrunk");
                let expected_kind = match (entry.bugs, entry.nonlinearizability) {
                    ("F", _) => Some("full history"),
                    ("G", _) => Some("stuck history"),
                    (_, "K") => Some("nondeterminism"),
                    _ => None,
                };
                if let Some(expected_kind) = expected_kind {
                    assert_eq!(kind, expected_kind, "{entry:?}: {row:?}");
                }
            }
        }
    }
    eprintln!("every entry checked in {:?}", start.elapsed());
}

//! `Check(X, m)` end to end on the example objects: each verdict and its kind.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, Config, Response, StuckKind, TestMatrix, Verdict, ViolationKind};
use objects::{counters, queues, spin};

fn fail_kind(verdict: &Verdict) -> &ViolationKind {
    match verdict {
        Verdict::Pass(stats) => panic!("expected FAIL, got PASS ({stats:?})"),
        Verdict::Fail(v) => &v.kind,
    }
}

fn assert_pass(verdict: &Verdict) {
    if let Some(v) = verdict.violation() {
        panic!("expected PASS, got:\n{v}");
    }
}

/// inc, get | inc, get
fn inc_get_2x2() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 1], vec![0, 1]])
}

#[test]
fn counter1_fails_with_a_full_history_without_witness() {
    let verdict = check(&counters::counter1(), &inc_get_2x2(), &Config::default()).unwrap();
    let ViolationKind::NotLinearizable { history, .. } = fail_kind(&verdict) else {
        panic!("expected a full-history violation: {}", verdict.violation().unwrap());
    };
    assert!(!history.is_stuck());
    assert!(history.is_complete());
    let report = verdict.violation().unwrap().to_string();
    assert!(report.contains("FULL HISTORY WITHOUT SERIAL WITNESS"), "{report}");
    assert!(
        report.contains("lineup:p2-b2:"),
        "the report carries a replay token: {report}"
    );
}

#[test]
fn atomic_counter_passes() {
    let verdict = check(&counters::atomic_counter(), &inc_get_2x2(), &Config::default()).unwrap();
    assert_pass(&verdict);
    let stats = verdict.stats();
    assert_eq!(stats.serial_full, 6, "2x2: 4!/(2!2!) serial orders");
    assert!(stats.concurrent_executions > stats.serial_executions);
}

#[test]
fn counter2_fails_only_because_of_the_stuck_history_check() {
    // get() | inc(), inc(): the leaking thread calls nothing afterwards (shuttle would report its
    // own re-lock as a panic), so the lock leak shows only as an operation that never returns.
    let matrix = TestMatrix::new(vec![vec![1], vec![0, 0]]);
    let verdict = check(&counters::counter2(), &matrix, &Config::default()).unwrap();
    let ViolationKind::StuckNotLinearizable {
        history,
        stuck,
        pending_op,
        ..
    } = fail_kind(&verdict)
    else {
        panic!("expected a stuck-history violation: {}", verdict.violation().unwrap());
    };
    assert!(history.is_stuck());
    assert_eq!(*stuck, StuckKind::Deadlock);
    assert!(history.pending_ops().contains(pending_op));
    assert_eq!(
        verdict.stats().serial_stuck,
        0,
        "no serial execution of Counter2 blocks"
    );
    let report = verdict.violation().unwrap().to_string();
    assert!(
        report.contains("STUCK HISTORY WITHOUT STUCK SERIAL WITNESS"),
        "{report}"
    );

    // Classic linearizability (Def. 1 only) cannot see the bug: every value Counter2 returns is right.
    let classic = Config {
        check_stuck: false,
        ..Config::default()
    };
    assert_pass(&check(&counters::counter2(), &matrix, &classic).unwrap());
}

#[test]
fn blocking_queue_passes_with_blocking_take_justified_by_stuck_serial_witnesses() {
    // add(200), take() | take(), try_take()
    let matrix = TestMatrix::new(vec![vec![0, 3], vec![3, 2]]);
    let verdict = check(&queues::blocking_queue(), &matrix, &Config::default()).unwrap();
    assert_pass(&verdict);
    let stats = verdict.stats();
    assert!(
        stats.serial_stuck > 0,
        "a take on an empty queue blocks serially: {stats:?}"
    );
    assert!(
        stats.stuck_histories > 0,
        "phase 2 met stuck histories and justified them: {stats:?}"
    );
}

#[test]
fn blocking_queue_passes_the_paper_fig1_matrix() {
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    assert_pass(&check(&queues::blocking_queue(), &matrix, &Config::default()).unwrap());
}

#[test]
fn fig1_queue_bug_fails() {
    // [add(200), try_take()] | [add(400), try_take()]
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    let verdict = check(&queues::give_up_queue(), &matrix, &Config::default()).unwrap();
    let ViolationKind::NotLinearizable { history, .. } = fail_kind(&verdict) else {
        panic!("expected a full-history violation: {}", verdict.violation().unwrap());
    };
    let empty = Response::returned(&None::<u32>);
    assert!(
        history
            .called_ops()
            .iter()
            .any(|&op| history.response(op) == Some(&empty)),
        "a try_take failed on a non-empty queue: {}",
        verdict.violation().unwrap()
    );
}

#[test]
fn schedule_dependent_result_fails_the_determinism_check() {
    let matrix = TestMatrix::new(vec![vec![0]]);
    let verdict = check(&spin::race(), &matrix, &Config::default()).unwrap();
    let ViolationKind::Nondeterministic(n) = fail_kind(&verdict) else {
        panic!("expected nondeterminism: {}", verdict.violation().unwrap());
    };
    assert_ne!(n.first.response(n.op), n.second.response(n.op));
    let report = verdict.violation().unwrap().to_string();
    assert!(report.contains("NONDETERMINISM"), "{report}");
}

#[test]
fn spin_wait_passes_without_false_stuck_histories() {
    // wait(), is_set() | set()
    let matrix = TestMatrix::new(vec![vec![1, 2], vec![0]]);
    let verdict = check(&spin::spin_flag(), &matrix, &Config::default()).unwrap();
    assert_pass(&verdict);
    assert_eq!(
        verdict.stats().stuck_histories,
        0,
        "wait always ends once set runs: {:?}",
        verdict.stats()
    );
    assert!(
        verdict.stats().serial_stuck > 0,
        "wait before set spins forever serially"
    );
}

#[test]
fn spin_wait_without_a_setter_is_stuck_and_justified() {
    // wait() | is_set()
    let matrix = TestMatrix::new(vec![vec![1], vec![2]]);
    let verdict = check(&spin::spin_flag(), &matrix, &Config::default()).unwrap();
    assert_pass(&verdict);
    assert!(verdict.stats().stuck_histories > 0);
}

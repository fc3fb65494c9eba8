//! Verdicts under fair schedules: a thread that spins without yielding (`std::hint::spin_loop()`)
//! is switched away from for free once it has run `Config::fair_switch_steps` steps in a row, so a
//! correct object that spins is never failed by an unfair schedule, while a real livelock and a
//! lost wake-up still fail.
//!
//! The same file runs on loom (`RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test
//! --release --test fair_schedules`), where loom's branch limit plays the step limit's part: an
//! execution that reaches it is a livelock only when every pending operation's thread yielded
//! (or waits for good) since the last call or return, and otherwise inconclusive. loom cannot be
//! made to switch fairly, so a livelock of threads that never yield is inconclusive there.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, Config, StuckKind, TestMatrix, Verdict, ViolationKind};
use objects::queues::lost_wake_up_queue;
use objects::spin::{ticket_lock_counter, two_flag_lock_counter, Spin};

fn config(bound: u32) -> Config {
    Config {
        preemption_bound: bound,
        ..Config::default()
    }
}

fn assert_pass(verdict: &Verdict) {
    if let Some(v) = verdict.violation() {
        panic!("expected PASS, got:\n{v}");
    }
}

fn stuck_kind(verdict: &Verdict) -> StuckKind {
    match verdict {
        Verdict::Fail(v) => match &v.kind {
            ViolationKind::StuckNotLinearizable { stuck, .. } => *stuck,
            _ => panic!("expected a stuck-history violation, got:\n{v}"),
        },
        Verdict::Pass(stats) => panic!("expected FAIL, got PASS ({stats:?})"),
    }
}

#[test]
fn a_ticket_lock_spinning_without_yield_passes_at_bounds_0_to_3() {
    // get() | get(): the second ticket holder spins on a CPU hint until the first returns.
    let matrix = TestMatrix::new(vec![vec![1], vec![1]]);
    for bound in 0..=3 {
        let verdict = check(&ticket_lock_counter(), &matrix, &config(bound)).unwrap();
        assert_pass(&verdict);
        let stats = verdict.stats();
        assert_eq!(stats.stuck_histories, 0, "bound {bound}: {stats:?}");
        if !cfg!(loom) {
            // loom lets the spinner run unfairly into its branch limit: inconclusive there.
            assert_eq!(stats.inconclusive_executions, 0, "bound {bound}: {stats:?}");
        }
    }
}

#[test]
fn a_ticket_lock_counter_passes_inc_get_against_inc_get() {
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
    let verdict = check(&ticket_lock_counter(), &matrix, &Config::default()).unwrap();
    assert_pass(&verdict);
    if !cfg!(loom) {
        assert_eq!(verdict.stats().inconclusive_executions, 0, "{:?}", verdict.stats());
    }
}

#[test]
fn a_real_livelock_fails_whether_the_waiters_yield_or_not() {
    // inc_a() | inc_b(): both flags up, each thread waits for the other's to come down.
    let matrix = TestMatrix::new(vec![vec![0], vec![2]]);
    let spins: &[Spin] = if cfg!(loom) {
        &[Spin::Yield]
    } else {
        &[Spin::CpuHint, Spin::Yield]
    };
    for &spin in spins {
        for bound in 1..=2 {
            let verdict = check(&two_flag_lock_counter(spin), &matrix, &config(bound)).unwrap();
            assert_eq!(stuck_kind(&verdict), StuckKind::Livelock, "{spin:?}, bound {bound}");
            let report = verdict.violation().unwrap().to_string();
            assert!(report.contains("livelock"), "{report}");
        }
    }
}

#[cfg(loom)]
#[test]
fn under_loom_a_livelock_without_yields_is_inconclusive_not_a_failure() {
    // loom cannot tell it from a spinner that its spent preemption budget keeps running.
    let matrix = TestMatrix::new(vec![vec![0], vec![2]]);
    let verdict = check(&two_flag_lock_counter(Spin::CpuHint), &matrix, &Config::default()).unwrap();
    assert_pass(&verdict);
    assert!(verdict.stats().inconclusive_executions > 0, "{:?}", verdict.stats());
}

#[test]
fn the_two_flag_lock_passes_when_its_threads_never_overlap() {
    // Serially every operation returns: the spec has no stuck history.
    let matrix = TestMatrix::new(vec![vec![0, 1]]);
    for spin in [Spin::CpuHint, Spin::Yield] {
        let verdict = check(&two_flag_lock_counter(spin), &matrix, &Config::default()).unwrap();
        assert_pass(&verdict);
        assert_eq!(verdict.stats().serial_stuck, 0);
    }
}

#[test]
fn a_lost_wake_up_still_fails_as_a_deadlock() {
    // take() | add(200)
    let matrix = TestMatrix::new(vec![vec![1], vec![0]]);
    let verdict = check(&lost_wake_up_queue(), &matrix, &Config::default()).unwrap();
    assert_eq!(stuck_kind(&verdict), StuckKind::Deadlock);
}

#[test]
// Config::max_steps is shuttle's; loom's branch limit is LOOM_MAX_BRANCHES.
#[cfg(not(loom))]
fn a_concurrent_execution_that_reaches_the_step_limit_is_counted_not_judged() {
    // Serial get()s take a few steps; a concurrent one that spins takes more than 40 (with the
    // fair switch after 64 steps: the default spin bound would switch it after 5).
    let matrix = TestMatrix::new(vec![vec![1], vec![1]]);
    let short = Config {
        max_steps: 40,
        spin_pruning: lineup::SpinPruning::Off,
        ..Config::default()
    };
    let verdict = check(&ticket_lock_counter(), &matrix, &short).unwrap();
    assert_pass(&verdict);
    let stats = verdict.stats();
    assert!(stats.inconclusive_executions > 0, "{stats:?}");
    assert!(stats.inconclusive_executions < stats.concurrent_executions, "{stats:?}");
}

#[test]
// Config::max_steps is shuttle's; loom's branch limit is LOOM_MAX_BRANCHES.
#[cfg(not(loom))]
fn a_serial_execution_that_reaches_the_step_limit_is_an_error_not_a_verdict() {
    // The ticket lock with a step limit too small for even one serial get(): phase 1 cannot
    // finish its serial executions, so no verdict can be reached; an error says which limit.
    let matrix = TestMatrix::new(vec![vec![1], vec![1]]);
    let tiny = Config {
        max_steps: 3,
        ..Config::default()
    };
    let error = check(&ticket_lock_counter(), &matrix, &tiny).unwrap_err().to_string();
    assert!(error.contains("max_steps"), "{error}");
}

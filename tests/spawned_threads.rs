//! Threads that an operation spawns belong to that operation (role.rs): the scheduler must
//! interleave them with the other threads like the operation itself.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::shuttle::sync::atomic::{AtomicBool, Ordering};
use lineup::shuttle::sync::Arc;
use lineup::{check, Config, Invocation, Subject, TestMatrix, Verdict, ViolationKind};

/// `fire` hands the work to a detached helper thread and returns at once, without a scheduling
/// point after the spawn; the helper sets the flag some time later. So `get` after `fire` may
/// return `false` or `true`: no deterministic sequential specification explains both.
#[derive(Default)]
struct AsyncFlag {
    flag: Arc<AtomicBool>,
}

impl AsyncFlag {
    fn fire(&self) {
        let flag = Arc::clone(&self.flag);
        lineup::shuttle::thread::spawn(move || flag.store(true, Ordering::SeqCst));
    }

    fn get(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

/// Invocations 0: `fire()`, 1: `get()`.
fn async_flag() -> Subject<AsyncFlag> {
    Subject::new("AsyncFlag", AsyncFlag::default)
        .with(Invocation::new("fire", AsyncFlag::fire))
        .with(Invocation::new("get", AsyncFlag::get))
}

/// The kind of a failed check.
fn fail_kind(verdict: &Verdict) -> &ViolationKind {
    match verdict {
        Verdict::Pass(stats) => panic!("expected FAIL, got PASS ({stats:?})"),
        Verdict::Fail(v) => &v.kind,
    }
}

#[test]
fn an_operation_that_joins_its_helpers_is_checked_like_any_other() {
    // race() joins its two helpers; which one wins depends on the schedule.
    let verdict = check(
        &objects::spin::race(),
        &TestMatrix::new(vec![vec![0]]),
        &Config::default(),
    )
    .unwrap();
    assert!(fail_kind(&verdict).is_nondeterminism());
}

#[test]
fn a_detached_helper_on_the_same_thread_is_nondeterministic() {
    // fire(), get() on one thread: phase 1 runs the helper before or after get().
    let verdict = check(&async_flag(), &TestMatrix::new(vec![vec![0, 1]]), &Config::default()).unwrap();
    let ViolationKind::Nondeterministic(n) = fail_kind(&verdict) else {
        panic!("expected nondeterminism:\n{}", verdict.violation().unwrap());
    };
    assert_eq!(
        n.op, 2,
        "get() returns false in one serial history and true in the other"
    );
}

/// Regression: a thread spawned by an operation once took the role its parent had at the
/// *next* scheduling point (`shuttle::thread::spawn` switches before it creates the thread,
/// not after), here `Harness`, so it ran at once without branching and the schedule "A: fire()
/// returns; B: get() -> false; helper sets the flag" was never explored: the check PASSed an
/// object that is not deterministically linearizable. A new thread now takes the role its
/// parent had when the scheduler last let it run, which is its role at the spawn.
#[test]
fn a_detached_helper_is_interleaved_with_the_other_threads() {
    // fire() | get()
    let verdict = check(
        &async_flag(),
        &TestMatrix::new(vec![vec![0], vec![1]]),
        &Config::default(),
    )
    .unwrap();
    assert!(
        !verdict.is_pass(),
        "get() after fire() returned can see false or true: {:?}",
        verdict.stats()
    );
}

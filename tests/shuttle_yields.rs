//! shuttle's own `thread::yield_now` and `hint::spin_loop`, called inside an object, are yields to
//! lineup's scheduler (shuttle hands `is_yielding` to `Scheduler::next_task`): a spin loop that
//! can never exit is a livelock, a stuck history that is judged, not an execution stopped at the
//! step limit and counted as inconclusive.

use lineup::shuttle::sync::atomic::{AtomicBool, Ordering};
use lineup::{check, Config, Invocation, StuckKind, Subject, TestMatrix, ViolationKind};

/// The defaults with a livelock called after 8 yields instead of 500 (small trees: every step of
/// a spin on shuttle's atomics is a preemption point).
fn config() -> Config {
    Config {
        spin_bound: 8,
        ..Config::default()
    }
}

/// How the object's loops yield: shuttle's `thread::yield_now` or its `hint::spin_loop`.
#[derive(Clone, Copy, Debug)]
enum ShuttleYield {
    YieldNow,
    SpinLoop,
}

impl ShuttleYield {
    fn pause(self) {
        match self {
            ShuttleYield::YieldNow => lineup::shuttle::thread::yield_now(),
            ShuttleYield::SpinLoop => lineup::shuttle::hint::spin_loop(),
        }
    }
}

/// A broken two-flag lock on shuttle's atomics: each thread raises its flag, then waits while the
/// other's is up. Two threads that raise theirs together wait for each other forever, however
/// fairly they run; serially every operation returns. Invocations 0: `lock_a()`, 1: `lock_b()`
/// (each takes and releases the lock).
struct TwoFlags {
    flags: [AtomicBool; 2],
    pause: ShuttleYield,
}

impl TwoFlags {
    fn locked(&self, me: usize) {
        self.flags[me].store(true, Ordering::SeqCst);
        while self.flags[1 - me].load(Ordering::SeqCst) {
            self.pause.pause();
        }
        self.flags[me].store(false, Ordering::SeqCst);
    }
}

fn two_flags(pause: ShuttleYield) -> Subject<TwoFlags> {
    Subject::new("TwoFlags(shuttle)", move || TwoFlags {
        flags: [AtomicBool::new(false), AtomicBool::new(false)],
        pause,
    })
    .with(Invocation::new("lock_a", |l: &TwoFlags| l.locked(0)))
    .with(Invocation::new("lock_b", |l: &TwoFlags| l.locked(1)))
}

#[test]
fn a_spin_on_shuttle_s_yields_that_never_exits_is_a_livelock() {
    for pause in [ShuttleYield::YieldNow, ShuttleYield::SpinLoop] {
        let verdict = check(
            &two_flags(pause),
            &TestMatrix::new(vec![vec![0], vec![1]]),
            &Config::default(),
        )
        .unwrap();
        let violation = verdict
            .violation()
            .unwrap_or_else(|| panic!("{pause:?}: the livelock was not found: {:?}", verdict.stats()));
        assert!(
            matches!(
                violation.kind,
                ViolationKind::StuckNotLinearizable {
                    stuck: StuckKind::Livelock,
                    ..
                }
            ),
            "{pause:?}: {violation}"
        );
        assert_eq!(verdict.stats().inconclusive_executions, 0, "{pause:?}");
    }
}

/// A flag nobody sets: `wait` spins on shuttle's yields forever, serially too. Every history is
/// stuck (a livelock, which phase 1 explains), none is inconclusive.
struct NeverSet(AtomicBool, ShuttleYield);

#[test]
fn a_wait_for_a_flag_never_set_is_stuck_not_inconclusive() {
    for pause in [ShuttleYield::YieldNow, ShuttleYield::SpinLoop] {
        let subject = Subject::new("NeverSet", move || NeverSet(AtomicBool::new(false), pause)).with(Invocation::new(
            "wait",
            |n: &NeverSet| {
                while !n.0.load(Ordering::SeqCst) {
                    n.1.pause();
                }
            },
        ));
        let verdict = check(&subject, &TestMatrix::new(vec![vec![0], vec![0]]), &config()).unwrap();
        assert!(verdict.is_pass(), "{pause:?}: {:?}", verdict.violation());
        let stats = verdict.stats();
        assert!(stats.serial_stuck > 0, "{pause:?}: {stats:?}");
        assert!(stats.stuck_histories > 0, "{pause:?}: {stats:?}");
        assert_eq!(stats.inconclusive_executions, 0, "{pause:?}: {stats:?}");
    }
}

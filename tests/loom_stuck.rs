//! Stuck executions of objects built on `lineup::sync`, with threads of their own, locks held
//! while blocking, and destructors: the verdicts must be the same on shuttle and on loom (whose
//! backend ends such executions itself, see `lineup-core/src/loom_backend/wait_registry.rs`).
//! Each case is a regression test of a false alarm, crash or cut exploration the loom backend
//! once had.

use std::sync::Arc;

use lineup::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use lineup::sync::{Condvar, Mutex};
use lineup::{check, Config, Invocation, Subject, TestMatrix, Verdict};

fn passes<O: Send + Sync + 'static>(subject: Subject<O>, matrix: Vec<Vec<usize>>, bound: u32) -> Verdict {
    let config = Config {
        preemption_bound: bound,
        ..Config::default()
    };
    let verdict = check(&subject, &TestMatrix::new(matrix), &config)
        .unwrap_or_else(|e| panic!("the check of {} runs: {e}", subject.name()));
    if let Some(v) = verdict.violation() {
        panic!("{} at bound {bound}: expected a pass\n{v}", subject.name());
    }
    // Every stuck execution was ended by lineup, none by loom's deadlock assertion.
    assert_eq!(verdict.stats().stuck_resumed, 0, "{:?}", verdict.stats());
    verdict
}

/// `open_later()` spawns a thread that opens the gate; `wait()` waits until it is open.
#[derive(Default)]
struct GateInner {
    open: Mutex<bool>,
    cv: Condvar,
}
struct Gate(Arc<GateInner>);

fn gate() -> Subject<Gate> {
    Subject::new("Gate", || Gate(Arc::new(GateInner::default())))
        .with(Invocation::new("open_later", |g: &Gate| {
            let inner = Arc::clone(&g.0);
            let _ = lineup::thread::spawn(move || {
                *inner.open.lock().unwrap() = true;
                inner.cv.notify_all();
            });
        }))
        .with(Invocation::new("wait", |g: &Gate| {
            let mut open = g.0.open.lock().unwrap();
            while !*open {
                open = g.0.cv.wait(open).unwrap();
            }
        }))
}

#[test]
fn a_thread_an_operation_spawned_wakes_a_waiter() {
    // Regression (loom): with every worker waiting, the execution was declared stuck although
    // the operation's own thread was still going to open the gate.
    for bound in [0, 1, 2] {
        passes(gate(), vec![vec![1], vec![0]], bound);
    }
}

/// `blocker()` holds `stats` while it waits for good; `touch()` only tries `stats`.
#[derive(Default)]
struct Stats {
    stats: Mutex<u32>,
    gate: Mutex<bool>,
    cv: Condvar,
}

fn stats() -> Subject<Stats> {
    Subject::new("Stats", Stats::default)
        .with(Invocation::new("blocker", |s: &Stats| {
            let _held = s.stats.lock().unwrap();
            let mut open = s.gate.lock().unwrap();
            while !*open {
                open = s.cv.wait(open).unwrap();
            }
        }))
        .with(Invocation::new("touch", |s: &Stats| {
            if let Ok(mut n) = s.stats.try_lock() {
                *n += 1;
            }
        }))
}

#[test]
fn try_lock_on_a_lock_held_for_good_returns() {
    // Regression (loom): a try_lock of a loom mutex blocks while another thread holds it, so
    // `touch` was reported stuck; a real try_lock returns WouldBlock.
    passes(stats(), vec![vec![0], vec![1]], 2);
}

/// A counter whose operations only lock.
#[derive(Default)]
struct LockCounter {
    n: Mutex<u32>,
}

fn lock_counter() -> Subject<LockCounter> {
    Subject::new("LockCounter", LockCounter::default)
        .with(Invocation::new("inc", |c: &LockCounter| {
            *c.n.lock().unwrap() += 1;
        }))
        .with(Invocation::new("get", |c: &LockCounter| *c.n.lock().unwrap()))
}

#[test]
fn a_mutex_counter_never_deadlocks() {
    // Regression (loom): lock() tried loom's mutex while holding its queue's lock, and a thread
    // loom blocked on the mutex and the releaser waiting for the queue deadlocked each other.
    for bound in [2, 3] {
        passes(lock_counter(), vec![vec![0], vec![0], vec![1]], bound);
        passes(lock_counter(), vec![vec![0, 0], vec![0, 1]], bound);
    }
}

/// `spawn_waiter()` spawns a thread that waits for good; `wait()` waits for good too.
#[derive(Default)]
struct Flag {
    set: Mutex<bool>,
    cv: Condvar,
}
struct Waiters(Arc<Flag>);

fn waiters() -> Subject<Waiters> {
    Subject::new("Waiters", || Waiters(Arc::new(Flag::default())))
        .with(Invocation::new("spawn_waiter", |w: &Waiters| {
            let flag = Arc::clone(&w.0);
            let _ = lineup::thread::spawn(move || {
                let mut set = flag.set.lock().unwrap();
                while !*set {
                    set = flag.cv.wait(set).unwrap();
                }
            });
        }))
        .with(Invocation::new("wait", |w: &Waiters| {
            let mut set = w.0.set.lock().unwrap();
            while !*set {
                set = w.0.cv.wait(set).unwrap();
            }
        }))
}

#[test]
fn a_thread_an_operation_spawned_may_wait_for_good() {
    // Regression (loom): abandoning the stuck execution unwound that thread too, and nothing
    // caught it: the child process died.
    passes(waiters(), vec![vec![1], vec![0]], 2);
}

/// Each operation drops a guard that bumps a shared atomic, then waits for good.
#[derive(Default)]
struct Bumps {
    n: AtomicUsize,
    flag: Mutex<bool>,
    cv: Condvar,
}
struct Bump<'a>(&'a AtomicUsize);
impl Drop for Bump<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

fn bumps() -> Subject<Bumps> {
    let op = |t: &Bumps| {
        let _bump = Bump(&t.n);
        let mut set = t.flag.lock().unwrap();
        while !*set {
            set = t.cv.wait(set).unwrap();
        }
    };
    Subject::new("Bumps", Bumps::default)
        .with(Invocation::new("wait_a", op))
        .with(Invocation::new("wait_b", op))
}

#[test]
fn destructors_run_while_a_stuck_execution_is_ended() {
    // Regression (loom): a destructor's loom operation let another abandoned thread run while
    // the first was unwinding, and it parked for good: loom's deadlock assertion cut the
    // exploration.
    passes(bumps(), vec![vec![0], vec![1]], 2);
}

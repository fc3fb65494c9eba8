//! Objects with threads of their own (spawned by the constructor): they run at any point in both
//! phases, and an execution whose background thread never ends still ends.

use lineup::shuttle::sync::{Arc, Condvar, Mutex};
use lineup::{check, Config, Invocation, Subject, TestMatrix, Verdict, ViolationKind};

/// A counter served by a background thread: `inc` hands a request over and waits until the
/// server has applied it. The server thread waits for requests forever (it is never joined).
struct Served {
    state: Arc<(Mutex<(u64, u64)>, Condvar)>,
}

impl Served {
    fn new() -> Self {
        let state = Arc::new((Mutex::new((0u64, 0u64)), Condvar::new()));
        let server = Arc::clone(&state);
        lineup::shuttle::thread::spawn(move || {
            let (lock, cond) = &*server;
            let mut guard = lock.lock().unwrap();
            loop {
                // (requested, applied): apply every outstanding request.
                while guard.1 < guard.0 {
                    guard.1 += 1;
                    cond.notify_all();
                }
                guard = cond.wait(guard).unwrap();
            }
        });
        Self { state }
    }

    fn inc(&self) {
        let (lock, cond) = &*self.state;
        let mut guard = lock.lock().unwrap();
        guard.0 += 1;
        let wanted = guard.0;
        cond.notify_all();
        while guard.1 < wanted {
            guard = cond.wait(guard).unwrap();
        }
    }

    fn get(&self) -> u64 {
        self.state.0.lock().unwrap().1
    }
}

fn served() -> Subject<Served> {
    Subject::new("Served", Served::new)
        .with(Invocation::new("inc", Served::inc))
        .with(Invocation::new("get", Served::get))
}

#[test]
fn a_counter_served_by_a_background_thread_passes() {
    let verdict = check(
        &served(),
        &TestMatrix::new(vec![vec![0, 1], vec![0]]),
        &Config::default(),
    )
    .unwrap();
    if let Verdict::Fail(v) = &verdict {
        panic!("{v}");
    }
    assert_eq!(verdict.stats().serial_stuck, 0, "{:?}", verdict.stats());
}

/// A background thread that applies a request *after* `inc` has returned: `get` may see the
/// old value right after the `inc` in the same thread. Serially too: nondeterminism.
struct LazyServed(Served);

impl LazyServed {
    fn inc(&self) {
        let (lock, cond) = &*self.0.state;
        lock.lock().unwrap().0 += 1;
        cond.notify_all(); // BUG: returns before the server has applied the request
    }
}

#[test]
fn a_background_thread_that_lags_behind_is_caught() {
    let subject = Subject::new("LazyServed", || LazyServed(Served::new()))
        .with(Invocation::new("inc", LazyServed::inc))
        .with(Invocation::new("get", |s: &LazyServed| s.0.get()));
    let verdict = check(&subject, &TestMatrix::new(vec![vec![0, 1]]), &Config::default()).unwrap();
    let Verdict::Fail(v) = &verdict else {
        panic!("expected a failure: {:?}", verdict.stats())
    };
    assert!(matches!(v.kind, ViolationKind::Nondeterministic(_)), "{v}");
}

#[test]
fn phase_1_stops_at_its_proof_on_a_3x3_matrix_racing_a_background_thread() {
    // The matrix an earlier attempt at stopping phase 1 early got stuck on for minutes: every
    // operation races the server thread. Phase 1 now stops at the first pair of serial executions
    // that proves nondeterminism, long before it has enumerated all of them.
    let subject = Subject::new("LazyServed", || LazyServed(Served::new()))
        .with(Invocation::new("inc", LazyServed::inc))
        .with(Invocation::new("get", |s: &LazyServed| s.0.get()));
    let matrix = TestMatrix::new(vec![vec![0, 1, 0], vec![1, 0, 1], vec![0, 1, 1]]);
    let verdict = check(&subject, &matrix, &Config::default()).unwrap();
    let Verdict::Fail(v) = &verdict else {
        panic!("expected a failure: {:?}", verdict.stats())
    };
    assert!(matches!(v.kind, ViolationKind::Nondeterministic(_)), "{v}");
    eprintln!("serial executions to the proof: {}", v.stats.serial_executions);
    assert!(v.stats.serial_executions < 1_000, "{:?}", v.stats);
}

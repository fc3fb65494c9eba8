//! Stuck executions of objects built on `lineup::sync`, with threads of their own, locks held
//! while blocking, and destructors: the verdicts must be the same on shuttle and on loom (whose
//! backend ends such executions itself, see `lineup-core/src/loom_backend/wait_registry.rs`).
//! Each case is a regression test of a false alarm, crash or cut exploration the loom backend
//! once had.

use std::sync::Arc;

use lineup::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use lineup::sync::{Condvar, Mutex};
use lineup::{check, Config, Invocation, Subject, TestMatrix, Verdict};

fn verdict<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix, bound: u32) -> Verdict {
    let config = Config {
        preemption_bound: bound,
        ..Config::default()
    };
    check(subject, matrix, &config).unwrap_or_else(|e| panic!("the check of {} runs: {e}", subject.name()))
}

/// Passes, and every stuck execution was ended by lineup, none by loom's deadlock assertion.
fn passes<O: Send + Sync + 'static>(subject: Subject<O>, matrix: Vec<Vec<usize>>, bound: u32) -> Verdict {
    passes_matrix(subject, TestMatrix::new(matrix), bound)
}

fn passes_matrix<O: Send + Sync + 'static>(subject: Subject<O>, matrix: TestMatrix, bound: u32) -> Verdict {
    let verdict = verdict(&subject, &matrix, bound);
    if let Some(v) = verdict.violation() {
        panic!("{} at bound {bound}: expected a pass\n{v}", subject.name());
    }
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

/// A latch a thread can wait on until it is opened.
#[derive(Default)]
struct Latch {
    open: Mutex<bool>,
    cv: Condvar,
}

impl Latch {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.cv.wait(open).unwrap();
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.cv.notify_all();
    }
}

/// Spawns a background thread that waits on the returned latch until it is opened.
fn background_thread() -> Arc<Latch> {
    let latch = Arc::new(Latch::default());
    let waited = Arc::clone(&latch);
    let _ = lineup::thread::spawn(move || waited.wait());
    latch
}

/// A ticket counter that loses tickets (read, then write, under two lock acquisitions), and
/// owns a background thread that idles until the counter is dropped.
struct Tickets {
    n: Mutex<u32>,
    background: Arc<Latch>,
}

impl Drop for Tickets {
    fn drop(&mut self) {
        self.background.open();
    }
}

fn tickets() -> Subject<Tickets> {
    Subject::new("Tickets", || {
        let background = background_thread();
        Tickets {
            n: Mutex::new(0),
            background,
        }
    })
    .with(Invocation::new("ticket", |t: &Tickets| {
        let v = *t.n.lock().unwrap();
        *t.n.lock().unwrap() = v + 1; // BUG: two tickets can get the same number
        v
    }))
}

#[test]
fn an_idle_background_thread_does_not_hide_a_bug() {
    // Regression (loom): with the workers done and the background thread idle, every execution
    // counted as stuck, and a history without a pending operation cannot fail.
    let verdict = verdict(&tickets(), &TestMatrix::new(vec![vec![0], vec![0]]), 2);
    let v = verdict.violation().expect("two tickets with the same number");
    assert_eq!(verdict.stats().stuck_histories, 0, "{v}");
}

/// A service whose background thread (spawned when it is built) answers `call()`s, and is told
/// to stop, and joined, when the service is dropped.
#[derive(Default)]
struct ServiceState {
    requested: usize,
    done: usize,
    shutdown: bool,
}
#[derive(Default)]
struct ServiceInner {
    state: Mutex<ServiceState>,
    cv: Condvar,
}
struct Service {
    inner: Arc<ServiceInner>,
    background: std::sync::Mutex<Option<lineup::thread::JoinHandle<()>>>,
}

impl Drop for Service {
    fn drop(&mut self) {
        self.inner.state.lock().unwrap().shutdown = true;
        self.inner.cv.notify_all();
        if let Some(h) = self.background.lock().unwrap().take() {
            h.join().unwrap();
        }
    }
}

fn service() -> Subject<Service> {
    Subject::new("Service", || {
        let inner = Arc::new(ServiceInner::default());
        let server = Arc::clone(&inner);
        let background = lineup::thread::spawn(move || {
            let mut state = server.state.lock().unwrap();
            loop {
                while state.requested == state.done && !state.shutdown {
                    state = server.cv.wait(state).unwrap();
                }
                if state.shutdown {
                    return;
                }
                state.done += 1;
                server.cv.notify_all();
            }
        });
        Service {
            inner,
            background: std::sync::Mutex::new(Some(background)),
        }
    })
    .with(Invocation::new("call", |s: &Service| {
        let mut state = s.inner.state.lock().unwrap();
        state.requested += 1;
        let me = state.requested;
        s.inner.cv.notify_all();
        while state.done < me {
            state = s.inner.cv.wait(state).unwrap();
        }
        me
    }))
}

#[test]
fn a_background_thread_joined_on_drop() {
    // Regression (loom): the idle background thread was abandoned before the object was
    // dropped, and the drop's join().unwrap() failed the execution.
    passes(service(), vec![vec![0], vec![0]], 1);
    passes_matrix(service(), TestMatrix::new(vec![vec![0]]).with_final(vec![0]), 1);
}

/// Each operation waits for good; one holds `m` while waiting, the other's guard locks `m` when
/// it is dropped.
#[derive(Default)]
struct Holders {
    m: Mutex<u32>,
    latch: Latch,
}
struct TouchOnDrop<'a>(&'a Mutex<u32>);
impl Drop for TouchOnDrop<'_> {
    fn drop(&mut self) {
        *self.0.lock().unwrap() += 1;
    }
}

fn holders() -> Subject<Holders> {
    Subject::new("Holders", Holders::default)
        .with(Invocation::new("hold_and_wait", |h: &Holders| {
            let _m = h.m.lock().unwrap();
            h.latch.wait();
        }))
        .with(Invocation::new("touch_later_and_wait", |h: &Holders| {
            let _touch = TouchOnDrop(&h.m);
            h.latch.wait();
        }))
}

#[test]
fn a_destructor_of_an_abandoned_operation_waits_for_a_lock() {
    // Regression (loom): the destructor's wait, started during the abandonment's unwind, parked
    // for good although the other abandoned thread released the lock: loom's deadlock
    // assertion cut the exploration.
    passes(holders(), vec![vec![0], vec![1]], 2);
}

/// `spawn_and_wait()` spawns a thread that waits for good, and waits for good itself; a guard
/// joins the spawned thread when the operation unwinds.
#[derive(Default)]
struct Joiner(Arc<Latch>);
struct JoinOnDrop(Option<lineup::thread::JoinHandle<()>>);
impl Drop for JoinOnDrop {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            h.join().unwrap();
        }
    }
}

fn joiner() -> Subject<Joiner> {
    Subject::new("Joiner", Joiner::default).with(Invocation::new("spawn_and_wait", |j: &Joiner| {
        let latch = Arc::clone(&j.0);
        let _join = JoinOnDrop(Some(lineup::thread::spawn(move || latch.wait())));
        j.0.wait();
    }))
}

#[test]
fn a_destructor_joins_a_thread_that_waits_for_good() {
    // Regression (loom): the spawned thread was abandoned with the worker, its join returned Err
    // inside the worker's unwind, and the unwrap's panic aborted the child process. The worker's
    // join now blocks (the spawned thread is only abandoned after the workers), which loom's
    // deadlock assertion ends: the exploration may be resumed, but the check completes.
    let verdict = verdict(&joiner(), &TestMatrix::new(vec![vec![0]]), 1);
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
}

/// `spawn_forever()` spawns a thread that waits for good and returns 7 at once.
#[derive(Default)]
struct Forever(Arc<Latch>);

fn forever() -> Subject<Forever> {
    Subject::new("Forever", Forever::default).with(Invocation::new("spawn_forever", |f: &Forever| {
        let latch = Arc::clone(&f.0);
        let _ = lineup::thread::spawn(move || latch.wait());
        7u32
    }))
}

#[test]
fn a_thread_left_waiting_does_not_make_a_history_stuck() {
    // Regression (loom): every operation returned, but the spawned threads still waited when the
    // execution ended, and loom's deadlock assertion made phase 1's serial histories stuck.
    let verdict = passes(forever(), vec![vec![0], vec![0]], 2);
    let s = verdict.stats();
    assert_eq!((s.serial_full, s.serial_stuck, s.stuck_histories), (2, 0, 0), "{s:?}");
}

/// Two operations hold `m` in turn and wait for good; a background thread waits for good too.
struct HoldersWithBackground {
    m: Mutex<u32>,
    latch: Latch,
    _background: Arc<Latch>,
}

fn holders_with_background() -> Subject<HoldersWithBackground> {
    Subject::new("HoldersWithBackground", || {
        let background = background_thread();
        HoldersWithBackground {
            m: Mutex::new(0),
            latch: Latch::default(),
            _background: background,
        }
    })
    .with(Invocation::new("hold_and_wait", |h: &HoldersWithBackground| {
        let _m = h.m.lock().unwrap();
        h.latch.wait();
    }))
}

/// `wait()` waits for good on a condition variable the drop notifies; a background thread
/// waits for good too.
struct Notified {
    flag: Mutex<bool>,
    cv: Condvar,
    _background: Arc<Latch>,
}

impl Drop for Notified {
    fn drop(&mut self) {
        self.cv.notify_all();
    }
}

fn notified() -> Subject<Notified> {
    Subject::new("Notified", || {
        let background = background_thread();
        Notified {
            flag: Mutex::new(false),
            cv: Condvar::new(),
            _background: background,
        }
    })
    .with(Invocation::new("wait", |n: &Notified| {
        let mut set = n.flag.lock().unwrap();
        while !*set {
            set = n.cv.wait(set).unwrap();
        }
    }))
    .with(Invocation::new("noop", |_: &Notified| 0u32))
}

#[test]
fn wake_ups_of_abandoned_threads_do_not_keep_helpers_waiting() {
    // Regression (loom): an abandoned worker woken by another's unwind (or by the drop's
    // notify_all, through its stale queue entry) stayed in the registry's woken set, so the
    // helpers never looked settled, and loom's deadlock assertion cut the exploration.
    passes(holders_with_background(), vec![vec![0], vec![0]], 2);
    passes(notified(), vec![vec![0], vec![1]], 2);
}

/// `spawn_pair()` spawns a thread that spawns a second one, both waiting for good; the first
/// joins the second (with `unwrap`) when it unwinds.
#[derive(Default)]
struct Nest(Arc<Latch>);

fn nest() -> Subject<Nest> {
    Subject::new("Nest", Nest::default).with(Invocation::new("spawn_pair", |n: &Nest| {
        let (outer, inner) = (Arc::clone(&n.0), Arc::clone(&n.0));
        let _ = lineup::thread::spawn(move || {
            let _join = JoinOnDrop(Some(lineup::thread::spawn(move || inner.wait())));
            outer.wait();
        });
        1u32
    }))
}

#[test]
fn a_thread_that_joins_an_abandoned_thread_while_unwinding() {
    // Regression (loom): both threads were abandoned at once, the join inside the first one's
    // unwind returned Err, and its unwrap panicked inside the unwind: the check failed with an
    // error. That join now waits for good (loom's deadlock assertion ends the execution, which
    // may cut the exploration), and the check completes.
    let verdict = verdict(&nest(), &TestMatrix::new(vec![vec![0]]), 1);
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
}

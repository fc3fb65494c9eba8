//! Where the threads of a phase-2 execution wait inside `lineup::sync`'s blocking primitives, so
//! that a stuck execution can end normally and loom's exploration goes on past it.
//!
//! loom asserts when every thread is blocked ("deadlock"), and that assertion loses the state of
//! its exploration (see [`super`]). `lineup::sync`'s [`Mutex`](super::observable_mutex::Mutex)
//! and [`Condvar`](super::observable_mutex::Condvar) therefore block by parking
//! ([`park_until_woken`]) and are woken by [`wake`], and this registry knows which threads are
//! parked there and which of them were woken since. It tracks the matrix's workers and every
//! thread spawned through `lineup::thread::spawn` ([`spawn`], *helpers*) until it ends. The
//! harness's main thread parks instead of joining the workers ([`await_workers`]); when a worker
//! has not finished and every tracked thread that has not ended is parked here and none was
//! woken, the last one to park wakes the main thread, which confirms the state by yielding
//! (below) and then:
//!
//! * takes the stuck history (every pending operation blocks forever),
//! * abandons the workers' waits ([`abandon_workers`]): each returns from its park with an
//!   [`Abandoned`] unwind, which the harness catches, so the workers end;
//! * joins them and drops the object (whose `Drop` may stop its helpers).
//!
//! After the workers (and, in a finished execution, the final operations and the object's drop),
//! [`settle_helpers`] waits until every helper has ended, or abandons the helpers that wait here
//! for good ([`spawn`]'s wrapper catches the unwind), so that every thread ends and the execution
//! ends normally. A helper idling in a wait while the workers run (a background thread) does not
//! make the execution stuck.
//!
//! The confirmation: a thread that could still run although the registry has it parked (one
//! unparked by a raw `thread::unpark`) leaves the registry as soon as it runs, since its first
//! step is the return from its park. A yielding thread is not chosen again while another thread
//! can run; after another thread ran a step, loom may switch back to it. So the main thread
//! yields once more than there can be threads: a thread that can still run gets a step, and the
//! registry changes, unless none can.
//!
//! A thread blocked anywhere else (loom's own primitives, a crate's) is not parked here: the main
//! thread stays parked, loom asserts its deadlock, and the execution takes the old path (a stuck
//! history from the panic hook, exploration resumed from loom's stored path). So does a wait
//! that a destructor run by the abandonment's unwind starts, if nothing ends it (it is an
//! ordinary wait: a lock another abandoned thread releases is taken).
//!
//! Not covered: threads spawned with loom's `thread::spawn` or `thread::Builder` directly, whose
//! wake-ups this registry cannot see, and a wait abandoned while its own thread is already
//! unwinding from a panic of the operation (the abandonment's unwind would abort the child
//! process; the check then fails with an error, never with a verdict).
//!
//! loom runs every thread of a model on one OS thread, so the registry is a plain thread-local:
//! bookkeeping that loom does not see, and that only steers the harness's main thread.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use loom::thread::{Thread, ThreadId};

/// The unwind payload of an abandoned wait: the execution got stuck and the harness ends it.
#[derive(Debug)]
pub(crate) struct Abandoned;

#[derive(Default)]
struct Registry {
    /// The harness's main thread, while phase 2 watches this execution.
    main: Option<Thread>,
    /// The main thread is parked in [`settle`] (for [`await_workers`] or [`settle_helpers`]), and
    /// nowhere else: an unpark must never reach a thread that loom blocked in one of its own
    /// primitives, such as `join`.
    main_parked: bool,
    /// The matrix's workers.
    workers: HashSet<ThreadId>,
    /// Tracked threads (workers, helpers spawned through [`spawn`]) that have not ended.
    unfinished: HashSet<ThreadId>,
    /// Threads parked in a `lineup::sync` wait.
    parked: HashMap<ThreadId, Thread>,
    /// Threads woken by [`wake`] that have not yet returned from their wait.
    woken: HashSet<ThreadId>,
    /// Threads whose wait must unwind with [`Abandoned`].
    abandoned: HashSet<ThreadId>,
    /// Abandoned threads that are unwinding (a wait they start is an ordinary one).
    unwinding: HashSet<ThreadId>,
    /// Changes on every park, return from a park, wake and ended thread.
    generation: u64,
}

thread_local! {
    static REGISTRY: RefCell<Registry> = RefCell::new(Registry::default());
}

fn with<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    REGISTRY.with(|r| f(&mut r.borrow_mut()))
}

impl Registry {
    /// Every tracked thread that has not ended waits here, and none of them was woken. (A wake-up
    /// of a thread that ended, or was abandoned, left in a queue, does not count.)
    fn quiescent(&self) -> bool {
        !self.unfinished.is_empty()
            && self
                .unfinished
                .iter()
                .all(|t| self.parked.contains_key(t) && !self.woken.contains(t))
    }

    fn workers_running(&self) -> bool {
        self.workers.iter().any(|w| self.unfinished.contains(w))
    }

    /// The main thread, if it is parked in [`settle`] and must look again.
    fn main_to_wake(&mut self) -> Option<Thread> {
        if self.main_parked {
            self.main_parked = false;
            self.main.clone()
        } else {
            None
        }
    }
}

/// Whether `thread` waits in a `lineup::sync` wait and was not woken since.
pub(crate) fn waits(thread: ThreadId) -> bool {
    with(|r| r.parked.contains_key(&thread) && !r.woken.contains(&thread))
}

/// Whether a tracked thread (one that `lineup::thread::spawn` started) has not ended and does not
/// wait in `lineup::sync`: it could still run.
pub(crate) fn tracked_thread_could_run() -> bool {
    with(|r| {
        r.unfinished
            .iter()
            .any(|t| !r.parked.contains_key(t) || r.woken.contains(t))
    })
}

/// Forgets everything: a new execution starts.
pub(crate) fn reset() {
    with(|r| *r = Registry::default());
}

/// Phase 2's main thread watches the execution whose workers are `workers`.
pub(crate) fn watch(workers: impl IntoIterator<Item = ThreadId>) {
    let main = loom::thread::current();
    with(|r| {
        r.main = Some(main);
        for worker in workers {
            r.workers.insert(worker);
            r.unfinished.insert(worker);
        }
    });
}

/// The calling tracked thread has ended its work (its operations returned, or were abandoned).
pub(crate) fn finished() {
    let id = loom::thread::current().id();
    let main = with(|r| {
        r.unfinished.remove(&id);
        r.woken.remove(&id);
        r.generation += 1;
        r.main_to_wake()
    });
    if let Some(main) = main {
        main.unpark();
    }
}

/// `lineup::thread::spawn` under loom: loom's `spawn`, with the new thread tracked until it ends.
/// If the execution is abandoned while the thread waits in `lineup::sync`, its closure unwinds
/// and `join` returns the `Err` of a panicked thread.
pub(crate) fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let inner = loom::thread::spawn(move || {
        let outcome = catch_unwind(AssertUnwindSafe(f));
        finished();
        match outcome {
            Ok(value) => Ok(value),
            Err(payload) if payload.is::<Abandoned>() => Err(payload),
            Err(payload) => resume_unwind(payload),
        }
    });
    // `spawn` is not a scheduling point: the new thread has not run yet.
    let id = inner.thread().id();
    with(|r| {
        r.unfinished.insert(id);
    });
    JoinHandle { inner }
}

/// The handle of a thread spawned through `lineup::thread::spawn` under loom.
#[derive(Debug)]
pub struct JoinHandle<T> {
    inner: loom::thread::JoinHandle<std::thread::Result<T>>,
}

impl<T> JoinHandle<T> {
    /// Waits for the thread to end: its result, or `Err` with the payload if it panicked (or was
    /// abandoned in a stuck execution). A thread that is itself unwinding from an abandoned wait
    /// (a destructor that joins) waits for good instead of getting that `Err`, which an
    /// `unwrap` would turn into a panic inside the unwind, aborting the process: loom's deadlock
    /// assertion then ends the execution the old way.
    pub fn join(self) -> std::thread::Result<T> {
        let result = self.inner.join().and_then(|r| r);
        if matches!(&result, Err(payload) if payload.is::<Abandoned>()) {
            let me = loom::thread::current().id();
            if with(|r| r.unwinding.contains(&me)) {
                loop {
                    loom::thread::park();
                }
            }
        }
        result
    }

    /// The thread's handle.
    pub fn thread(&self) -> &Thread {
        self.inner.thread()
    }
}

/// Blocks the calling thread until [`wake`] wakes it. Unwinds with [`Abandoned`] (without the
/// panic hook) if the execution is abandoned meanwhile.
pub(crate) fn park_until_woken() {
    let current = loom::thread::current();
    let me = current.id();
    loop {
        enum Next {
            Return,
            Unwind,
            Park(Option<Thread>),
        }
        let next = with(|r| {
            // Abandonment first: a thread woken by another's unwind (which releases locks that
            // thread would have held for good) must not go on.
            if r.abandoned.contains(&me) && r.unwinding.insert(me) {
                r.woken.remove(&me);
                return Next::Unwind;
            }
            if r.woken.remove(&me) {
                r.generation += 1;
                return Next::Return;
            }
            r.parked.insert(me, current.clone());
            r.generation += 1;
            Next::Park(if r.quiescent() { r.main_to_wake() } else { None })
        });
        match next {
            Next::Return => return,
            Next::Unwind => resume_unwind(Box::new(Abandoned)),
            Next::Park(main) => {
                // No loom operation between the registration above and the park: nothing can
                // run between them.
                if let Some(main) = main {
                    main.unpark();
                }
                loom::thread::park();
                with(|r| {
                    r.parked.remove(&me);
                    r.generation += 1;
                });
            }
        }
    }
}

/// Wakes `thread` from [`park_until_woken`] (or makes its next one return at once). Only a
/// thread parked there is unparked: one that was queued but has not parked yet may be blocked
/// in a loom primitive on its way (a queue's mutex), which an unpark must not disturb.
pub(crate) fn wake(thread: &Thread) {
    let parked = with(|r| {
        r.woken.insert(thread.id());
        r.generation += 1;
        r.parked.contains_key(&thread.id())
    });
    if parked {
        thread.unpark();
    }
}

/// Phase 2's main thread: parks until every worker finished (`false`) or the execution is stuck
/// (`true`: a worker has not finished, and every tracked thread that has not ended is parked in
/// a `lineup::sync` wait, for good). If a thread blocks elsewhere, this parks for good too, and
/// loom reports the deadlock.
pub(crate) fn await_workers() -> bool {
    settle(|r| !r.workers_running())
}

/// Phase 2's main thread, after the workers, the final operations and the object's drop: parks
/// until every helper has ended, or abandons the helpers that wait for good.
pub(crate) fn settle_helpers() {
    if settle(|r| r.unfinished.is_empty()) {
        abandon(|r| r.unfinished.iter().copied().collect());
    }
}

/// Parks until `done` (`false`) or until every tracked thread that has not ended waits for good
/// (`true`, confirmed: see the module).
fn settle(done: impl Fn(&Registry) -> bool) -> bool {
    'look: loop {
        let (finished, quiescent, generation) = with(|r| (done(r), r.quiescent(), r.generation));
        if finished {
            return false;
        }
        if quiescent {
            // Confirm (see the module): one yield more than there can be threads.
            for _ in 0..=loom::MAX_THREADS {
                loom::thread::yield_now();
                if with(|r| r.generation != generation) {
                    continue 'look;
                }
            }
            return true;
        }
        with(|r| r.main_parked = true);
        // No loom operation between the flag and the park.
        loom::thread::park();
        with(|r| r.main_parked = false);
    }
}

/// Abandons the waits of a stuck execution's workers: each unwinds with [`Abandoned`].
pub(crate) fn abandon_workers() {
    abandon(|r| r.workers.iter().copied().collect());
}

/// Abandons the waits of the parked threads among `targets`.
fn abandon(targets: impl FnOnce(&Registry) -> Vec<ThreadId>) {
    let parked: Vec<Thread> = with(|r| {
        let targets = targets(r);
        r.generation += 1;
        let mut parked = Vec::new();
        for id in targets {
            if let Some(thread) = r.parked.get(&id) {
                r.abandoned.insert(id);
                parked.push(thread.clone());
            }
        }
        parked
    });
    for thread in parked {
        thread.unpark();
    }
}

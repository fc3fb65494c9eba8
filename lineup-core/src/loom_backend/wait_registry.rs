//! Where the threads of a phase-2 execution wait inside `lineup::sync`'s blocking primitives, so
//! that a stuck execution can end normally and loom's exploration goes on past it.
//!
//! loom asserts when every thread is blocked ("deadlock"), and that assertion loses the state of
//! its exploration (see [`super`]). `lineup::sync`'s [`Mutex`](super::observable_mutex::Mutex)
//! and [`Condvar`](super::observable_mutex::Condvar) therefore block by parking
//! ([`park_until_woken`]) and are woken by [`wake`], and this registry knows, exactly, which
//! threads are parked there and which of them were woken since. The harness's main thread parks
//! instead of joining the workers; when every unfinished worker is parked here and none has been
//! woken, the last one to park wakes the main thread, which confirms the state with a yield (a
//! yielding thread runs again only when no other thread can run, or after another thread ran
//! and, if it was a parked worker, deregistered) and then:
//!
//! * takes the stuck history (every pending operation blocks forever),
//! * abandons the workers: each returns from its park with an [`Abandoned`] unwind that the
//!   harness catches, so every thread ends and the execution ends normally.
//!
//! A worker blocked anywhere else (loom's own primitives, a crate's) is not parked here: the
//! main thread stays parked, loom asserts its deadlock, and the execution takes the old path (a
//! stuck history from the panic hook, exploration resumed from loom's stored path).
//!
//! Assumption: threads that an operation spawns itself do not unpark, with `thread::unpark`,
//! a worker that waits in `lineup::sync` (this registry cannot see such a wake-up; the worker's
//! own raw unparks are seen, through the main thread's confirming yield).
//!
//! loom runs every thread of a model on one OS thread, so the registry is a plain thread-local:
//! it is bookkeeping that loom does not see, and it only steers the harness's main thread.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use loom::thread::{Thread, ThreadId};

/// The unwind payload of an abandoned wait: the execution got stuck and the harness ends it.
#[derive(Debug)]
pub(crate) struct Abandoned;

#[derive(Default)]
struct Registry {
    /// The harness's main thread, while phase 2 watches this execution.
    main: Option<Thread>,
    /// The main thread is parked in [`await_workers`] (and nowhere else: an unpark must never
    /// reach a thread that loom blocked in one of its own primitives, such as `join`).
    main_parked: bool,
    /// Workers whose operations have not all returned.
    unfinished: HashSet<ThreadId>,
    /// Threads parked in a `lineup::sync` wait.
    parked: HashMap<ThreadId, Thread>,
    /// Threads woken by [`wake`] that have not yet returned from their wait.
    woken: HashSet<ThreadId>,
    /// Changes on every park, unpark, wake and finished worker.
    generation: u64,
    /// The execution is stuck: parked threads unwind with [`Abandoned`].
    abandon: bool,
}

thread_local! {
    static REGISTRY: RefCell<Registry> = RefCell::new(Registry::default());
}

fn with<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    REGISTRY.with(|r| f(&mut r.borrow_mut()))
}

impl Registry {
    /// The main thread, if it is parked in [`await_workers`] and must look again.
    fn main_to_wake(&mut self) -> Option<Thread> {
        if self.main_parked {
            self.main_parked = false;
            self.main.clone()
        } else {
            None
        }
    }
}

impl Registry {
    fn stuck(&self) -> bool {
        !self.unfinished.is_empty()
            && self.unfinished.iter().all(|t| self.parked.contains_key(t))
            && self.woken.is_empty()
    }
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
        r.unfinished = workers.into_iter().collect();
    });
}

/// The calling worker's operations have all returned (or were abandoned).
pub(crate) fn finished() {
    let id = loom::thread::current().id();
    let main = with(|r| {
        r.unfinished.remove(&id);
        r.generation += 1;
        r.main_to_wake()
    });
    if let Some(main) = main {
        main.unpark();
    }
}

/// Blocks the calling thread until [`wake`] wakes it. Panics with [`Abandoned`] (without the
/// panic hook) if the execution is abandoned meanwhile.
pub(crate) fn park_until_woken() {
    let current = loom::thread::current();
    let me = current.id();
    loop {
        let (done, abandon, main) = with(|r| {
            if r.woken.remove(&me) {
                r.generation += 1;
                return (true, false, None);
            }
            if r.abandon {
                return (false, true, None);
            }
            r.parked.insert(me, current.clone());
            r.generation += 1;
            (false, false, if r.stuck() { r.main_to_wake() } else { None })
        });
        if done {
            return;
        }
        // A wait that starts while the execution is abandoned (a destructor run by the unwind)
        // unwinds too; during an unwind it parks for good, and loom's deadlock assertion ends the
        // execution the old way.
        if abandon && !std::thread::panicking() {
            std::panic::resume_unwind(Box::new(Abandoned));
        }
        // No loom operation between the check above and the park: nothing can run between.
        if let Some(main) = main {
            main.unpark();
        }
        loom::thread::park();
        let abandon = with(|r| {
            r.parked.remove(&me);
            r.generation += 1;
            r.abandon
        });
        if abandon && !std::thread::panicking() {
            std::panic::resume_unwind(Box::new(Abandoned));
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
/// (`true`: every unfinished worker is parked in a `lineup::sync` wait, for good). If the
/// workers block elsewhere, this parks for good too, and loom reports the deadlock.
pub(crate) fn await_workers() -> bool {
    loop {
        let (all_finished, stuck, generation) = with(|r| (r.unfinished.is_empty(), r.stuck(), r.generation));
        if all_finished {
            return false;
        }
        if stuck {
            // A yielding thread is scheduled again only when no other thread can run. A thread
            // that could (a parked worker unparked by some raw `unpark`) runs first and
            // deregisters as soon as it returns from its park, which changes the generation.
            loom::thread::yield_now();
            let confirmed = with(|r| r.generation == generation && r.stuck());
            if confirmed {
                return true;
            }
            continue;
        }
        with(|r| r.main_parked = true);
        // No loom operation between the flag and the park.
        loom::thread::park();
        with(|r| r.main_parked = false);
    }
}

/// Abandons a stuck execution: every parked thread unwinds with [`Abandoned`].
pub(crate) fn abandon() {
    let parked: Vec<Thread> = with(|r| {
        r.abandon = true;
        r.generation += 1;
        r.parked.values().cloned().collect()
    });
    for thread in parked {
        thread.unpark();
    }
}

//! An object on shuttle's own `park` and `unpark` (`lineup::shuttle::thread::{park, current}` and
//! `Thread::unpark` used directly), which lineup's partial-order reduction sees through the events
//! of its `vendor/shuttle-std` (`[patch.crates-io]` in the workspace's `Cargo.toml`; without it an
//! unpark's steps are opaque): the step that parks and the step that resumes after an unpark's
//! switch write the thread's park token.
//!
//! [`ParkLockCounter`] counts under a lock built on a shuttle `AtomicBool`, a list of waiting
//! threads and `park`: a thread that finds the lock taken puts itself on the list and parks, and
//! `unlock` unparks one. shuttle's `park` may return spuriously (shuttle offers a parked thread to
//! the scheduler whenever another can run), so a thread that wakes tries the lock again. With
//! `handoff`, a woken thread takes the lock as handed over without trying it: after a spurious
//! wake, or when the lock was released and taken again before it ran, two threads count at once
//! and one update is lost (tests/shuttle_parks.rs).

use lineup::shuttle::sync::atomic::{AtomicBool, AtomicU32, Ordering::SeqCst};
use lineup::shuttle::sync::Mutex;
use lineup::shuttle::thread::{self, Thread};
use lineup::{invocations, Subject};

/// A counter under a lock whose waiters park (see the module); with `handoff`, the buggy one.
pub struct ParkLockCounter {
    locked: AtomicBool,
    waiters: Mutex<Vec<Thread>>,
    count: AtomicU32,
    handoff: bool,
}

impl ParkLockCounter {
    /// A counter at 0; with `handoff`, the buggy one.
    pub fn new(handoff: bool) -> Self {
        Self {
            locked: AtomicBool::new(false),
            waiters: Mutex::new(Vec::new()),
            count: AtomicU32::new(0),
            handoff,
        }
    }

    fn lock(&self) {
        loop {
            if self.locked.compare_exchange(false, true, SeqCst, SeqCst).is_ok() {
                return;
            }
            // On the list before looking again: an unlock after this look unparks this thread.
            self.waiters.lock().unwrap().push(thread::current());
            if self.locked.load(SeqCst) {
                thread::park();
                if self.handoff {
                    return;
                }
            }
        }
    }

    fn unlock(&self) {
        self.locked.store(false, SeqCst);
        let waiter = self.waiters.lock().unwrap().pop();
        if let Some(waiter) = waiter {
            waiter.unpark();
        }
    }
}

#[invocations]
impl ParkLockCounter {
    /// Adds one under the lock; the count before.
    #[invoke]
    pub fn incr(&self) -> u32 {
        self.lock();
        let before = self.count.load(SeqCst);
        self.count.store(before + 1, SeqCst);
        self.unlock();
        before
    }
}

/// [`ParkLockCounter`]: `incr()`; with `handoff`, the buggy one.
pub fn park_lock_counter(handoff: bool) -> Subject<ParkLockCounter> {
    Subject::of(
        if handoff {
            "ParkLockCounter(shuttle park, handoff)"
        } else {
            "ParkLockCounter(shuttle park)"
        },
        move || ParkLockCounter::new(handoff),
    )
}

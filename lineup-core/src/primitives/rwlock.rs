//! `lineup::sync::RwLock` on shuttle: shuttle's reader-writer lock step for step (the same batch
//! semaphore, the same scheduling points, so that lineup explores the same executions), which
//! announces the lock before each step (see [`footprint`](crate::explore::footprint)) and whose
//! waits lineup can *abandon* when it finds an execution stuck (see
//! [`abandonment`](crate::explore::abandonment)), so that the stuck execution ends cleanly.
//!
//! Every step of the lock is a write of it, a read lock's too: two read locks of one `RwLock` do
//! not commute in every state (an unfair batch semaphore wakes the writers it has enough permits
//! for when a reader releases, so a read lock and a read unlock, taken in the other order, leave a
//! writer blocked or runnable), and lineup does not guess which states those are.
//!
//! The lock drives the semaphore's `Acquire` itself (shuttle's `RwLock` calls `block_on`), so
//! that a waiter that the harness's driver wakes to abandon the execution can drop its request
//! and unwind.

use std::cell::RefCell;
use std::fmt::{Debug, Display};
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::pin::pin;
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};
use std::task::Context;

use shuttle_engine::future::batch_semaphore::{BatchSemaphore, Fairness};
use shuttle_engine::runtime::execution::ExecutionState;
use shuttle_engine::runtime::task::{TaskId, TaskSet};
use shuttle_engine::runtime::thread;
use shuttle_engine::sync_types::{ResourceSignature, ResourceType};

use crate::explore::abandonment;
use std::panic::Location;

use crate::explore::footprint::{announce_sync, InFlight, ObjectIdentity};
use crate::explore::trace::Action;
use crate::explore::trace::{self, Pending};

/// The permits of the semaphore: a reader takes one, a writer all (as shuttle's `RwLock`).
const MAX_READS: usize = (u32::MAX >> 3) as usize;

/// A reader-writer lock, the same as [`std::sync::RwLock`]: shuttle's (the same scheduling
/// points), whose steps lineup's partial-order reduction sees and whose waits lineup can abandon
/// when an execution is stuck. As shuttle's, a thread may not take the read side twice.
pub struct RwLock<T: ?Sized> {
    identity: ObjectIdentity,
    holder: RefCell<Holder>,
    semaphore: BatchSemaphore,
    inner: std::sync::RwLock<T>,
}

/// Who holds the lock.
#[derive(PartialEq, Eq, Debug)]
enum Holder {
    Read(TaskSet),
    Write(TaskId),
    None,
}

/// The side of the lock a request takes.
#[derive(PartialEq, Eq, Debug, Clone, Copy)]
enum Side {
    Read,
    Write,
}

impl Side {
    fn permits(self) -> usize {
        match self {
            Side::Read => 1,
            Side::Write => MAX_READS,
        }
    }
}

// SAFETY: as shuttle's `RwLock`: it is never shared across OS threads, only across the tasks of
// one execution, which run one at a time and switch only at scheduling points, never in the
// middle of a borrow of the holder.
unsafe impl<T: Send + ?Sized> Send for RwLock<T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync + ?Sized> Sync for RwLock<T> {}

impl<T> RwLock<T> {
    /// Creates a new reader-writer lock in an unlocked state ready for use.
    #[track_caller]
    pub const fn new(value: T) -> Self {
        Self {
            identity: ObjectIdentity::at(Location::caller()),
            holder: RefCell::new(Holder::None),
            semaphore: BatchSemaphore::const_new_with_signature(
                MAX_READS,
                Fairness::Unfair,
                ResourceSignature::new_const(ResourceType::RwLock),
            ),
            inner: std::sync::RwLock::new(value),
        }
    }

    /// Consumes this lock, returning the underlying data.
    pub fn into_inner(self) -> LockResult<T> {
        assert_eq!(*self.holder.borrow(), Holder::None);
        {
            let _seen = announce_sync(&self.identity, false);
            // As shuttle's: the caller's clock takes the lock's (a scheduling point).
            self.semaphore.try_acquire(MAX_READS).expect("an owned lock is free");
        }
        self.inner.into_inner()
    }
}

/// The guard of the side of std's lock (`result`) that the semaphore has just granted, wrapped
/// by `wrap`: std's lock cannot be held the other way then, so only poisoning can fail.
fn granted<G, H>(result: TryLockResult<G>, wrap: impl FnOnce(G) -> H) -> LockResult<H> {
    match result {
        Ok(guard) => Ok(wrap(guard)),
        Err(TryLockError::Poisoned(poisoned)) => Err(PoisonError::new(wrap(poisoned.into_inner()))),
        Err(TryLockError::WouldBlock) => panic!("rwlock state out of sync"),
    }
}

/// `result`, unless the execution is being abandoned while the lock was taken: then the guard is
/// dropped (the lock released) and the thread unwinds.
fn unless_abandoned<H>(result: LockResult<H>) -> LockResult<H> {
    if abandonment::should_abandon() {
        drop(result);
        abandonment::unwind();
    }
    result
}

impl<T: ?Sized> RwLock<T> {
    /// Locks this lock with shared read access, blocking the current thread until it can be
    /// acquired.
    #[track_caller]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        let step = self.step(Some(Location::caller()));
        let seen = self.lock(Side::Read);
        let result = granted(self.inner.try_read(), |guard| self.read_guard(guard));
        drop(seen);
        step.done(|| Action::Lock { kind: "read" });
        unless_abandoned(result)
    }

    /// Locks this lock with exclusive write access, blocking the current thread until it can be
    /// acquired.
    #[track_caller]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        let step = self.step(Some(Location::caller()));
        let seen = self.lock(Side::Write);
        let result = granted(self.inner.try_write(), |guard| self.write_guard(guard));
        drop(seen);
        step.done(|| Action::Lock { kind: "write" });
        unless_abandoned(result)
    }

    /// Attempts to acquire this lock with shared read access without blocking (as shuttle's, it
    /// fails if the current thread holds the read side already).
    #[track_caller]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        let _seen = announce_sync(&self.identity, false);
        let step = self.step(Some(Location::caller()));
        let acquired = self.try_lock(Side::Read);
        step.done(|| Action::TryLock {
            kind: "try_read",
            acquired,
        });
        if !acquired {
            return Err(TryLockError::WouldBlock);
        }
        granted(self.inner.try_read(), |guard| self.read_guard(guard)).map_err(TryLockError::from)
    }

    /// Attempts to acquire this lock with exclusive write access without blocking.
    #[track_caller]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        let _seen = announce_sync(&self.identity, false);
        let step = self.step(Some(Location::caller()));
        let acquired = self.try_lock(Side::Write);
        step.done(|| Action::TryLock {
            kind: "try_write",
            acquired,
        });
        if !acquired {
            return Err(TryLockError::WouldBlock);
        }
        granted(self.inner.try_write(), |guard| self.write_guard(guard)).map_err(TryLockError::from)
    }

    /// Returns a mutable reference to the underlying data (no locking: the borrow is exclusive).
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }

    /// Whether the lock is poisoned.
    pub fn is_poisoned(&self) -> bool {
        self.inner.is_poisoned()
    }

    /// Clears the poisoned state of the lock.
    pub fn clear_poison(&self) {
        self.inner.clear_poison()
    }

    fn read_guard<'a>(&'a self, inner: std::sync::RwLockReadGuard<'a, T>) -> RwLockReadGuard<'a, T> {
        RwLockReadGuard {
            inner: Some(inner),
            lock: self,
            me: ExecutionState::me(),
        }
    }

    fn write_guard<'a>(&'a self, inner: std::sync::RwLockWriteGuard<'a, T>) -> RwLockWriteGuard<'a, T> {
        RwLockWriteGuard {
            inner: Some(inner),
            lock: self,
            me: ExecutionState::me(),
        }
    }

    /// The step of a call in progress on this lock (`site`: the user's call, if known), for the
    /// record of steps.
    fn step(&self, site: Option<&'static Location<'static>>) -> Pending {
        trace::begin(Some((&self.identity, "RwLock")), site)
    }

    /// Takes the lock's `side`, blocking until it can (an abandonment point while it waits): the
    /// lock's announcement, in flight until the caller drops it.
    fn lock(&self, side: Side) -> InFlight {
        let me = ExecutionState::me();
        assert!(
            match &*self.holder.borrow() {
                Holder::Write(writer) => *writer != me,
                Holder::Read(readers) => !readers.contains(me),
                Holder::None => true,
            },
            "deadlock! task {me:?} tried to acquire a RwLock it already holds"
        );
        // A request that blocks registers itself before its switch (the double-yield of an unfair
        // semaphore): it also counts in the step running now.
        let seen = announce_sync(&self.identity, true);
        self.acquire(side.permits(), me);
        self.take(side, me);
        seen
    }

    /// `block_on` of the semaphore's acquire (as shuttle's), with a wait that the driver of a stuck
    /// execution can end: the request is dropped and the task unwinds.
    fn acquire(&self, permits: usize, me: TaskId) {
        let mut request = pin!(self.semaphore.acquire(permits));
        let waker = ExecutionState::with(|s| s.current_mut().waker());
        let cx = &mut Context::from_waker(&waker);
        // The acquire fails only if the semaphore was closed by a release after the execution
        // stopped: the lock is taken as if it were free (as shuttle's).
        while request.as_mut().poll(cx).is_pending() {
            // A wait that a destructor starts while its thread unwinds cannot be abandoned (a second
            // unwind would abort): it is not registered, and its execution is stopped if stuck.
            if !std::thread::panicking() {
                abandonment::begin_wait(me);
            }
            // If execution teardown unwinds the task from the switch below, it no longer waits.
            struct StopWaitingOnUnwind(TaskId);
            impl Drop for StopWaitingOnUnwind {
                fn drop(&mut self) {
                    abandonment::end_wait(self.0);
                }
            }
            let stop_waiting_on_unwind = StopWaitingOnUnwind(me);
            ExecutionState::with(|s| s.current_mut().sleep_unless_woken());
            thread::switch();
            std::mem::forget(stop_waiting_on_unwind);
            if abandonment::end_wait(me) {
                // Woken to unwind: the execution is stuck and being abandoned. Dropping the request
                // takes it off the semaphore's waiters.
                abandonment::unwind();
            }
        }
    }

    /// Records `me` as a holder of `side`, once the permits are taken.
    fn take(&self, side: Side, me: TaskId) {
        let mut holder = self.holder.borrow_mut();
        match (side, &mut *holder) {
            (Side::Write, Holder::None) => *holder = Holder::Write(me),
            (Side::Read, Holder::None) => {
                let mut readers = TaskSet::new();
                readers.insert(me);
                *holder = Holder::Read(readers);
            }
            (Side::Read, Holder::Read(readers)) => assert!(readers.insert(me)),
            (side, holder) => panic!("resumed a waiting {side:?} thread while the lock was in state {holder:?}"),
        }
    }

    /// Takes `side` without blocking (after the semaphore's scheduling point): whether it did.
    fn try_lock(&self, side: Side) -> bool {
        let me = ExecutionState::me();
        if self.semaphore.try_acquire(side.permits()).is_err() {
            return false;
        }
        let mut holder = self.holder.borrow_mut();
        match (side, &mut *holder) {
            (Side::Write, Holder::None) => *holder = Holder::Write(me),
            (Side::Read, Holder::None) => {
                let mut readers = TaskSet::new();
                readers.insert(me);
                *holder = Holder::Read(readers);
            }
            // A thread that holds the read side already fails (as shuttle's), keeping its permit
            // taken: shuttle's does the same.
            (Side::Read, Holder::Read(readers)) => return readers.insert(me),
            _ => {}
        }
        true
    }

    /// Releases `me`'s hold of `side` (the release's scheduling point comes first): as shuttle's,
    /// also when execution teardown unwinds the task from that scheduling point.
    fn release(&self, side: Side, me: TaskId) {
        struct Unlock<'a, T: ?Sized>(&'a RwLock<T>, Side, TaskId);
        impl<T: ?Sized> Drop for Unlock<'_, T> {
            fn drop(&mut self) {
                let mut holder = self.0.holder.borrow_mut();
                match (self.1, &mut *holder) {
                    (Side::Read, Holder::Read(readers)) => {
                        assert!(readers.remove(self.2));
                        if readers.is_empty() {
                            *holder = Holder::None;
                        }
                    }
                    (Side::Write, Holder::Write(writer)) if *writer == self.2 => *holder = Holder::None,
                    (side, holder) => panic!("releasing the {side:?} side of a rwlock in state {holder:?}"),
                }
            }
        }
        let unlock = Unlock(self, side, me);
        self.semaphore.release(side.permits());
        drop(unlock);
    }
}

impl<T: Default> Default for RwLock<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: ?Sized + Debug> Debug for RwLock<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Debug::fmt(&self.inner, f)
    }
}

/// The guard of a read lock of an [`RwLock`], the same as [`std::sync::RwLockReadGuard`]; the
/// read side is released when it is dropped.
pub struct RwLockReadGuard<'a, T: ?Sized> {
    inner: Option<std::sync::RwLockReadGuard<'a, T>>,
    lock: &'a RwLock<T>,
    me: TaskId,
}

/// The guard of a write lock of an [`RwLock`], the same as [`std::sync::RwLockWriteGuard`]; the
/// write side is released when it is dropped.
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    inner: Option<std::sync::RwLockWriteGuard<'a, T>>,
    lock: &'a RwLock<T>,
    me: TaskId,
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        let seen = announce_sync(&self.lock.identity, false);
        let step = self.lock.step(None);
        self.inner = None;
        self.lock.release(Side::Read, self.me);
        drop(seen);
        step.done(|| Action::Unlock);
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        let seen = announce_sync(&self.lock.identity, false);
        let step = self.lock.step(None);
        // An abandoned operation (or teardown) unwinding is no panic of the object: the threads
        // that still run while the execution ends must not find the lock poisoned.
        let clear_poison = std::thread::panicking()
            && !self.lock.inner.is_poisoned()
            && (abandonment::is_abandoning() || ExecutionState::unwinding_for_teardown());
        self.inner = None;
        if clear_poison {
            self.lock.inner.clear_poison();
        }
        self.lock.release(Side::Write, self.me);
        drop(seen);
        step.done(|| Action::Unlock);
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.inner.as_ref().expect("a live guard holds the lock")
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.inner.as_ref().expect("a live guard holds the lock")
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.inner.as_mut().expect("a live guard holds the lock")
    }
}

impl<T: ?Sized + Debug> Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + Debug> Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + Display> Display for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Display::fmt(&**self, f)
    }
}

impl<T: ?Sized + Display> Display for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Display::fmt(&**self, f)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::check::check;
    use crate::config::{Config, Reduction};
    use crate::explore::abandonment::stopped_executions;
    use crate::judge::verdict::CheckStats;
    use crate::model::invocation::Invocation;
    use crate::model::matrix::TestMatrix;
    use crate::model::subject::Subject;

    /// An object whose `hold` takes the write lock of the `RwLock` in scope for good (it leaks
    /// the guard) and whose `read` takes the read lock: `read` blocks for good once `hold` ran,
    /// serially too, and the execution is stuck in the `RwLock`.
    macro_rules! held_lock {
        ($name:ident, $rwlock:path) => {
            mod $name {
                use $rwlock as RwLock;

                #[derive(Default)]
                pub struct Held {
                    pub lock: RwLock<u32>,
                }

                impl Held {
                    pub fn hold(&self) -> u32 {
                        let value = self.lock.write().unwrap();
                        let seen = *value;
                        std::mem::forget(value);
                        seen
                    }

                    pub fn read(&self) -> u32 {
                        *self.lock.read().unwrap()
                    }
                }
            }
        };
    }
    held_lock!(ours, crate::sync::RwLock);
    held_lock!(theirs, shuttle::sync::RwLock);

    /// `hold` takes the write lock and waits for good on a condition variable while it holds it;
    /// `read` takes the read lock.
    #[derive(Default)]
    struct HeldWhileWaiting {
        lock: crate::sync::RwLock<u32>,
        gate: crate::sync::Mutex<()>,
        never: crate::sync::Condvar,
    }

    impl HeldWhileWaiting {
        fn hold(&self) -> u32 {
            let value = self.lock.write().unwrap();
            let gate = self.gate.lock().unwrap();
            let _gate = self.never.wait(gate).unwrap();
            *value
        }

        fn read(&self) -> u32 {
            *self.lock.read().unwrap()
        }
    }

    #[test]
    fn a_writer_abandoned_in_a_wait_releases_the_lock_unpoisoned_and_the_blocked_reader_unwinds() {
        let subject = Subject::new("HeldWhileWaiting", HeldWhileWaiting::default)
            .with(Invocation::new("hold", HeldWhileWaiting::hold))
            .with(Invocation::new("read", HeldWhileWaiting::read));
        let config = Config {
            reduction: Reduction::Off,
            workers: 1,
            ..Config::default()
        };
        let before = stopped_executions();
        let verdict = check(&subject, &TestMatrix::new(vec![vec![0], vec![1]]), &config).unwrap();
        // `read` blocks concurrently, never serially (`hold` blocks first): a stuck history
        // without a stuck serial witness, found in an execution that ended cleanly.
        let violation = verdict.violation().expect("a stuck history without a serial witness");
        assert!(violation.to_string().contains("STUCK HISTORY"), "{violation}");
        assert_eq!(stopped_executions() - before, 0);
    }

    /// Checks `subject` on `hold() | read()` without the reduction, on one worker: its
    /// statistics and the executions the scheduler stopped (as `abandonment`'s tests do).
    fn run<O: Send + Sync + 'static>(subject: &Subject<O>) -> (CheckStats, u64) {
        let config = Config {
            reduction: Reduction::Off,
            workers: 1,
            ..Config::default()
        };
        let before = stopped_executions();
        let verdict = check(subject, &TestMatrix::new(vec![vec![0], vec![1]]), &config).unwrap();
        assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
        (verdict.stats().clone(), stopped_executions() - before)
    }

    #[test]
    fn a_stuck_execution_blocked_in_the_rwlock_ends_cleanly_and_explores_as_shuttle_s() {
        let ours = Subject::new("Held", ours::Held::default)
            .with(Invocation::new("hold", ours::Held::hold))
            .with(Invocation::new("read", ours::Held::read));
        let theirs = Subject::new("Held", theirs::Held::default)
            .with(Invocation::new("hold", theirs::Held::hold))
            .with(Invocation::new("read", theirs::Held::read));
        let (ours, ours_stopped) = run(&ours);
        let (theirs, theirs_stopped) = run(&theirs);
        assert!(ours.stuck_histories > 0 && ours.serial_stuck > 0);
        // No execution in which `read` blocks is stopped (its stacks leaked): neither with
        // lineup's `RwLock` nor with shuttle's when it is lineup's `vendor/shuttle-std` (as in
        // this workspace: with the published crate, each would be).
        assert_eq!((ours_stopped, theirs_stopped), (0, 0));
        // The same executions, histories and verdict: the same scheduling points.
        assert_eq!(
            (ours.serial_executions, ours.serial_full, ours.serial_stuck),
            (theirs.serial_executions, theirs.serial_full, theirs.serial_stuck)
        );
        assert_eq!(
            (
                ours.concurrent_executions,
                ours.distinct_histories,
                ours.stuck_histories
            ),
            (
                theirs.concurrent_executions,
                theirs.distinct_histories,
                theirs.stuck_histories
            )
        );
    }
}

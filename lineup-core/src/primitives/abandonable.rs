//! `lineup::sync`'s `Mutex` and `Condvar` on shuttle: shuttle's, with waits that lineup can
//! *abandon* when it finds an execution stuck (see
//! [`abandonment`](crate::explore::abandonment)), so that the stuck execution ends cleanly and
//! shuttle reuses its tasks' stacks.
//!
//! [`Mutex`] is shuttle's mutex, wrapped so that a [`Condvar`] can release and take it again.
//! [`Condvar`] follows shuttle's condition variable step for step (the same scheduling points:
//! one per lock, wait and notification, so that lineup explores the same executions), and
//! registers its waiters, so that an abandoned waiter can be woken and unwind. Neither adds a
//! scheduling point.

use std::collections::VecDeque;
use std::fmt::{Debug, Display};
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};
use std::time::Duration;

use shuttle_engine::current;
use shuttle_engine::runtime::execution::ExecutionState;
use shuttle_engine::runtime::task::clock::VectorClock;
use shuttle_engine::runtime::task::TaskId;
use shuttle_engine::runtime::thread;
use std::cell::RefCell;

use crate::explore::abandonment;
use crate::explore::footprint::{announce, announce_blocking, ObjectIdentity};
use crate::explore::trace;
use crate::explore::trace::Action;
use std::panic::Location;

/// A mutual-exclusion lock, the same as [`std::sync::Mutex`]: shuttle's mutex, whose `lock` is
/// also a point where lineup abandons a stuck execution.
pub struct Mutex<T: ?Sized> {
    identity: ObjectIdentity,
    inner: shuttle::sync::Mutex<T>,
}

/// The guard of a [`Mutex`], the same as [`std::sync::MutexGuard`]; the lock is released when it
/// is dropped.
pub struct MutexGuard<'a, T: ?Sized> {
    inner: ManuallyDrop<shuttle::sync::MutexGuard<'a, T>>,
    mutex: &'a Mutex<T>,
}

impl<T> Mutex<T> {
    /// Creates a new mutex in an unlocked state ready for use.
    #[track_caller]
    pub const fn new(value: T) -> Self {
        Self {
            identity: ObjectIdentity::at(Location::caller()),
            inner: shuttle::sync::Mutex::new(value),
        }
    }

    /// Consumes this mutex, returning the underlying data.
    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    fn guard<'a>(&'a self, inner: shuttle::sync::MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        MutexGuard {
            inner: ManuallyDrop::new(inner),
            mutex: self,
        }
    }

    /// Acquires the mutex, blocking the current thread until it is able to do so.
    #[track_caller]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        let seen = announce_blocking(&self.identity, true);
        let step = trace::begin(Some((&self.identity, "Mutex")), Some(Location::caller()));
        let result = match self.inner.lock() {
            Ok(guard) => Ok(self.guard(guard)),
            Err(poisoned) => Err(PoisonError::new(self.guard(poisoned.into_inner()))),
        };
        drop(seen);
        step.done(|| Action::Lock { kind: "lock" });
        if abandonment::should_abandon() {
            drop(result);
            abandonment::unwind();
        }
        result
    }

    /// Attempts to acquire the mutex without blocking.
    #[track_caller]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        let _seen = announce(&self.identity, true);
        let step = trace::begin(Some((&self.identity, "Mutex")), Some(Location::caller()));
        let result = self.inner.try_lock();
        step.done(|| Action::TryLock {
            kind: "try_lock",
            acquired: !matches!(result, Err(TryLockError::WouldBlock)),
        });
        match result {
            Ok(guard) => Ok(self.guard(guard)),
            Err(TryLockError::Poisoned(poisoned)) => Err(TryLockError::Poisoned(PoisonError::new(
                self.guard(poisoned.into_inner()),
            ))),
            Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
        }
    }

    /// Returns a mutable reference to the underlying data (no locking: the borrow is exclusive).
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }

    /// Clears the poisoned state of the mutex.
    pub fn clear_poison(&self) {
        self.inner.clear_poison()
    }
}

impl<T: Default> Default for Mutex<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: ?Sized + Debug> Debug for Mutex<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Debug::fmt(&self.inner, f)
    }
}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// Releases the lock (a scheduling point, as dropping the guard), returning the mutex so that
    /// it can be locked again.
    #[track_caller]
    fn unlock(self) -> &'a Mutex<T> {
        let mut this = ManuallyDrop::new(self);
        let _seen = announce(&this.mutex.identity, true);
        let step = trace::begin(Some((&this.mutex.identity, "Mutex")), Some(Location::caller()));
        // SAFETY: `this` is never used again, and its own destructor does not run.
        unsafe { ManuallyDrop::drop(&mut this.inner) };
        step.done(|| Action::Unlock);
        this.mutex
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        let seen = announce(&self.mutex.identity, true);
        // A guard's drop knows no caller of the user's: no location.
        let step = trace::begin(Some((&self.mutex.identity, "Mutex")), None);
        // SAFETY: dropped once, here.
        unsafe { ManuallyDrop::drop(&mut self.inner) }
        drop(seen);
        step.done(|| Action::Unlock);
        if std::thread::panicking() && abandonment::is_abandoning() {
            // An abandoned operation unwinding is no panic of the object: the threads that still
            // run while the execution ends must not find the lock poisoned.
            self.mutex.clear_poison();
        }
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T: ?Sized + Debug> Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + Display> Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Display::fmt(&**self, f)
    }
}

/// Why a waiter of a [`Condvar`] may run again; the notifier's clock is kept for shuttle's
/// causality tracking (as in shuttle's own condition variable).
#[derive(PartialEq, Eq, Debug)]
enum WaitStatus {
    Waiting,
    /// The `notify_one` epochs this waiter may consume (never empty).
    Signal(VecDeque<(usize, VectorClock)>),
    Broadcast(VectorClock),
}

#[derive(Debug)]
struct CondvarState {
    waiters: Vec<(TaskId, WaitStatus)>,
    next_epoch: usize,
}

impl CondvarState {
    fn remove(&mut self, task: TaskId) -> Option<WaitStatus> {
        let i = self.waiters.iter().position(|(t, _)| *t == task)?;
        Some(self.waiters.swap_remove(i).1)
    }
}

/// A condition variable, the same as [`std::sync::Condvar`]: shuttle's (the same scheduling
/// points, the same choice of which waiter a `notify_one` wakes), with waits that lineup can
/// abandon. It never wakes a thread spuriously, and its timed waits never time out.
pub struct Condvar {
    identity: ObjectIdentity,
    state: RefCell<CondvarState>,
}

impl Debug for Condvar {
    /// As std's: `Condvar { .. }`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Condvar").finish_non_exhaustive()
    }
}

// SAFETY: as shuttle's `Condvar`: it is never shared across OS threads, only across the tasks of
// one execution, which run one at a time and switch only at scheduling points, never in the
// middle of a borrow of the state.
unsafe impl Send for Condvar {}
// SAFETY: as above.
unsafe impl Sync for Condvar {}

impl Default for Condvar {
    #[track_caller]
    fn default() -> Self {
        Self::new()
    }
}

impl Condvar {
    /// Creates a new condition variable.
    #[track_caller]
    pub const fn new() -> Self {
        Self {
            identity: ObjectIdentity::at(Location::caller()),
            state: RefCell::new(CondvarState {
                waiters: Vec::new(),
                next_epoch: 0,
            }),
        }
    }

    /// Releases the lock, blocks the current thread until this condition variable is notified,
    /// and takes the lock again.
    #[track_caller]
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        if abandonment::should_abandon() {
            drop(guard);
            abandonment::unwind();
        }
        let me = ExecutionState::me();
        // The whole wait touches the condition variable (and the lock, which releasing and taking
        // it again announce).
        let _seen = announce(&self.identity, true);
        let step = trace::begin(Some((&self.identity, "Condvar")), Some(Location::caller()));
        // Releasing the lock is the scheduling point of the wait; nothing after it is visible
        // before this task switches out.
        let mutex = guard.unlock();
        self.state.borrow_mut().waiters.push((me, WaitStatus::Waiting));
        // A wait that a destructor starts while its thread unwinds cannot be abandoned (a second
        // unwind would abort): it is not registered, and its execution is stopped if it is stuck.
        if !std::thread::panicking() {
            abandonment::begin_wait(me);
        }

        // If execution teardown unwinds the task from the switch below, it no longer waits.
        struct StopWaitingOnUnwind<'a>(&'a Condvar, TaskId);
        impl Drop for StopWaitingOnUnwind<'_> {
            fn drop(&mut self) {
                self.0.state.borrow_mut().remove(self.1);
                abandonment::end_wait(self.1);
            }
        }
        let stop_waiting_on_unwind = StopWaitingOnUnwind(self, me);
        ExecutionState::with(|s| s.current_mut().block(false));
        thread::switch();
        std::mem::forget(stop_waiting_on_unwind);

        if abandonment::end_wait(me) {
            // Woken to unwind: the execution is stuck and being abandoned.
            self.state.borrow_mut().remove(me);
            abandonment::unwind();
        }
        // Consume the notification that woke this thread.
        let mut state = self.state.borrow_mut();
        let status = state.remove(me).expect("a woken waiter is still queued");
        match status {
            WaitStatus::Broadcast(clock) => ExecutionState::with(|s| s.update_clock(&clock)),
            WaitStatus::Signal(mut epochs) => {
                let (epoch, clock) = epochs.pop_front().expect("a signalled waiter has an epoch");
                // No other waiter may be woken by the same epoch.
                for (task, status) in state.waiters.iter_mut() {
                    if let WaitStatus::Signal(epochs) = status {
                        if let Some(i) = epochs.iter().position(|e| e.0 == epoch) {
                            epochs.remove(i);
                            if epochs.is_empty() {
                                *status = WaitStatus::Waiting;
                                ExecutionState::with(|s| s.get_mut(*task).block(false));
                            }
                        }
                    }
                }
                ExecutionState::with(|s| s.update_clock(&clock));
            }
            WaitStatus::Waiting => panic!("a condvar waiter was woken without a notification"),
        }
        drop(state);
        step.done(|| Action::Wait { kind: "wait" });
        mutex.lock()
    }

    /// Waits while `condition` holds.
    #[track_caller]
    pub fn wait_while<'a, T, F>(&self, mut guard: MutexGuard<'a, T>, mut condition: F) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        while condition(&mut *guard) {
            guard = self.wait(guard)?;
        }
        Ok(guard)
    }

    /// Waits for a notification; never times out (as shuttle's).
    #[track_caller]
    pub fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        _dur: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        self.wait(guard)
            .map(|guard| (guard, WaitTimeoutResult(false)))
            .map_err(|e| PoisonError::new((e.into_inner(), WaitTimeoutResult(false))))
    }

    /// Waits while `condition` holds; never times out (as shuttle's).
    #[track_caller]
    pub fn wait_timeout_while<'a, T, F>(
        &self,
        guard: MutexGuard<'a, T>,
        _dur: Duration,
        condition: F,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>
    where
        F: FnMut(&mut T) -> bool,
    {
        self.wait_while(guard, condition)
            .map(|guard| (guard, WaitTimeoutResult(false)))
            .map_err(|e| PoisonError::new((e.into_inner(), WaitTimeoutResult(false))))
    }

    /// Wakes one waiting thread (the scheduler chooses which: every waiter becomes runnable, and
    /// the first to run consumes the notification).
    #[track_caller]
    pub fn notify_one(&self) {
        let _seen = announce(&self.identity, true);
        let step = trace::begin(Some((&self.identity, "Condvar")), Some(Location::caller()));
        thread::switch();
        step.done(|| Action::Notify { kind: "notify_one" });
        let mut state = self.state.borrow_mut();
        let epoch = state.next_epoch;
        for (task, status) in state.waiters.iter_mut() {
            let clock = current::clock();
            match status {
                WaitStatus::Waiting => *status = WaitStatus::Signal(VecDeque::from([(epoch, clock)])),
                WaitStatus::Signal(epochs) => epochs.push_back((epoch, clock)),
                WaitStatus::Broadcast(_) => {}
            }
            ExecutionState::with(|s| s.get_mut(*task).unblock());
        }
        state.next_epoch += 1;
    }

    /// Wakes every waiting thread.
    #[track_caller]
    pub fn notify_all(&self) {
        let _seen = announce(&self.identity, true);
        let step = trace::begin(Some((&self.identity, "Condvar")), Some(Location::caller()));
        thread::switch();
        step.done(|| Action::Notify { kind: "notify_all" });
        let mut state = self.state.borrow_mut();
        for (task, status) in state.waiters.iter_mut() {
            *status = WaitStatus::Broadcast(current::clock());
            ExecutionState::with(|s| s.get_mut(*task).unblock());
        }
    }
}

/// Whether a timed wait on a [`Condvar`] timed out (never, on shuttle).
#[derive(Debug, PartialEq, Eq, Copy, Clone)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    /// Whether the wait timed out.
    pub fn timed_out(&self) -> bool {
        self.0
    }
}

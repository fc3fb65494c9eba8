//! A mutex and a condition variable for loom, built so that loom explores a `try_lock` while
//! another thread holds the lock, and so that a thread blocked in them is parked where lineup can
//! see it.
//!
//! The lock word is a loom `AtomicBool`, taken with an acquire compare-and-swap and released
//! with a release store. loom schedules threads only at its own operations, and a `try_lock` of
//! loom's own mutex never finds it held unless the critical section has a loom operation inside
//! (shuttle does switch threads there); the lock word's accesses conflict, so loom's DPOR also
//! runs a `try_lock` while another thread holds the lock. loom's own mutex is not used for the
//! lock: loom blocks a thread whose next operation is on a held loom mutex, even a `try_lock`,
//! which a real `try_lock` never does.
//!
//! A thread that finds the lock taken queues itself and parks
//! ([`wait_registry`](super::wait_registry)); `unlock` wakes the first queued thread, which tries
//! again. The condition variable queues and parks its waiters the same way. The queues have a
//! loom mutex of their own, held for a few steps and never while blocking. So when every thread
//! of a phase-2 execution blocks in these, lineup knows the execution is stuck, takes its stuck
//! history and ends it normally, and loom's exploration goes on past it (loom's own deadlock
//! assertion would end the exploration).

use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::atomic::Ordering::{Acquire, Release};
use std::sync::{LockResult, TryLockError, TryLockResult};

use loom::sync::atomic::AtomicBool;
use loom::thread::Thread;

use super::steps::{self, Action, Pending};
use super::wait_registry::{park_until_woken, wake};

/// A step on the primitive at `at` (of kind `kind`), called by the user's code at `site` (see
/// [`steps`]).
fn step<P>(kind: &'static str, at: &P, site: Option<&'static Location<'static>>) -> Pending {
    steps::begin(Some((kind, std::ptr::from_ref(at).cast::<()>() as usize, None)), site)
}

/// The threads waiting for a lock or a notification, first come first served. Its own loom
/// mutex is held only for a few steps, never while blocking.
#[derive(Debug, Default)]
struct WaitQueue(loom::sync::Mutex<VecDeque<Thread>>);

impl WaitQueue {
    fn lock(&self) -> loom::sync::MutexGuard<'_, VecDeque<Thread>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A mutual-exclusion lock for loom whose held state loom's exploration sees and whose waiting
/// threads lineup sees (see the module). It is never poisoned.
pub struct Mutex<T> {
    locked: AtomicBool,
    waiters: WaitQueue,
    value: UnsafeCell<T>,
}

// SAFETY: as std's `Mutex`: the value is only reached through a guard, and the lock word's
// acquire/release accesses give a guard exclusive access.
unsafe impl<T: Send> Send for Mutex<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Mutex<T> {}

impl<T> std::fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mutex").finish_non_exhaustive()
    }
}

/// The guard of a [`Mutex`]; the lock is released when it is dropped. Like std's, it stays on
/// the thread that locked (`!Send`).
pub struct MutexGuard<'a, T> {
    mutex: &'a Mutex<T>,
    _not_send: std::marker::PhantomData<*const ()>,
}

// SAFETY: as std's `MutexGuard`: sharing the guard shares `&T`.
unsafe impl<T: Sync> Sync for MutexGuard<'_, T> {}

impl<T: std::fmt::Debug> std::fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl<T> Mutex<T> {
    /// A new unlocked mutex holding `value`.
    pub fn new(value: T) -> Self {
        Self {
            locked: AtomicBool::new(false),
            waiters: WaitQueue::default(),
            value: UnsafeCell::new(value),
        }
    }

    fn try_acquire(&self) -> Option<MutexGuard<'_, T>> {
        self.locked
            .compare_exchange(false, true, Acquire, Acquire)
            .ok()
            .map(|_| MutexGuard {
                mutex: self,
                _not_send: std::marker::PhantomData,
            })
    }

    /// Blocks until the lock is acquired.
    #[track_caller]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        let step = step("Mutex", self, Some(Location::caller()));
        let guard = self.acquire();
        step.done(|| Action::Lock { kind: "lock" });
        Ok(guard)
    }

    fn acquire(&self) -> MutexGuard<'_, T> {
        loop {
            if let Some(guard) = self.try_acquire() {
                return guard;
            }
            {
                // Try again with the queue locked: the holder releases with the queue locked
                // too, so it either finds this thread queued or this try succeeds.
                let mut queue = self.waiters.lock();
                if let Some(guard) = self.try_acquire() {
                    return guard;
                }
                queue.push_back(loom::thread::current());
            }
            park_until_woken();
        }
    }

    /// Acquires the lock if it is free, else fails with `WouldBlock`.
    #[track_caller]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        let step = step("Mutex", self, Some(Location::caller()));
        let guard = self.try_acquire();
        step.done(|| Action::TryLock {
            kind: "try_lock",
            acquired: guard.is_some(),
        });
        guard.ok_or(TryLockError::WouldBlock)
    }

    /// Releases the lock and wakes the first waiting thread (a step with no location: a guard's
    /// drop has none).
    fn release(&self) {
        let step = step("Mutex", self, None);
        self.release_unrecorded();
        step.done(|| Action::Unlock);
    }

    fn release_unrecorded(&self) {
        let mut queue = self.waiters.lock();
        self.locked.store(false, Release);
        let next = queue.pop_front();
        drop(queue);
        if let Some(thread) = next {
            wake(&thread);
        }
    }

    /// A mutable reference to the value: the mutex is borrowed mutably, so no guard exists.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        Ok(self.value.get_mut())
    }

    /// Consumes the mutex, returning its value.
    pub fn into_inner(self) -> LockResult<T> {
        Ok(self.value.into_inner())
    }
}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.mutex.value.get() }
    }
}

impl<T> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock, and `&mut self` makes this the only reference.
        unsafe { &mut *self.mutex.value.get() }
    }
}

impl<T> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        self.mutex.release();
    }
}

/// A condition variable for the guards of [`Mutex`]: its waiters are queued and parked where
/// lineup sees them (see the module). It never wakes a thread spuriously.
#[derive(Debug, Default)]
pub struct Condvar {
    waiters: WaitQueue,
}

impl Condvar {
    /// A new condition variable.
    pub fn new() -> Self {
        Self::default()
    }

    /// Releases the lock, blocks until notified, and takes the lock again.
    #[track_caller]
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        let step = step("Condvar", self, Some(Location::caller()));
        let me = loom::thread::current();
        let id = me.id();
        // Queued before the lock is released: a notification after the release finds it.
        self.waiters.lock().push_back(me);
        let mutex = guard.mutex;
        std::mem::forget(guard);
        mutex.release();
        loop {
            park_until_woken();
            // Woken by a notification when it is no longer queued.
            if !self.waiters.lock().iter().any(|t| t.id() == id) {
                break;
            }
        }
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

    /// Wakes one waiting thread.
    #[track_caller]
    pub fn notify_one(&self) {
        let step = step("Condvar", self, Some(Location::caller()));
        let next = self.waiters.lock().pop_front();
        if let Some(thread) = next {
            wake(&thread);
        }
        step.done(|| Action::Notify { kind: "notify_one" });
    }

    /// Wakes every waiting thread.
    #[track_caller]
    pub fn notify_all(&self) {
        let step = step("Condvar", self, Some(Location::caller()));
        let all: Vec<Thread> = self.waiters.lock().drain(..).collect();
        for thread in &all {
            wake(thread);
        }
        step.done(|| Action::Notify { kind: "notify_all" });
    }
}

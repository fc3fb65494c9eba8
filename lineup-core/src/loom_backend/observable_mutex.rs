//! loom's `Mutex` and a `Condvar`, wrapped so that loom also explores a `try_lock` while another
//! thread holds the lock, and so that a thread blocked in them is parked where lineup can see it.
//!
//! loom schedules threads only at its own operations, and releasing a mutex is not one: a
//! critical section without a loom operation inside is atomic under loom, so a `try_lock` never
//! finds the mutex held (shuttle does switch threads there). The wrapper marks the lock as held
//! in a loom atomic right after acquiring it and clears the mark right before releasing it, and
//! `try_lock` reads the mark first: the mark's loads and stores conflict, so loom's DPOR runs a
//! `try_lock` between them, when the lock is held. The wrapper adds schedules loom did not
//! explore, never behaviours a real mutex cannot have.
//!
//! Blocking never happens inside loom's mutex: `lock` takes it with `try_lock` and otherwise
//! queues the thread and parks it ([`wait_registry`](super::wait_registry)); `unlock` wakes the
//! first queued thread, which tries again. The condition variable queues and parks its waiters
//! the same way. So when every worker of a phase-2 execution blocks in these, lineup knows the
//! execution is stuck, takes its stuck history and ends it normally, and loom's exploration goes
//! on past it (loom's own deadlock assertion would end the exploration).

use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};
use std::sync::{LockResult, TryLockError, TryLockResult};

use loom::sync::atomic::{AtomicBool, Ordering::SeqCst};
use loom::thread::Thread;

use super::wait_registry::{park_until_woken, wake};

/// The threads waiting for a lock or a notification, first come first served. Its own loom
/// mutex is held only for a few steps, never while blocking.
#[derive(Debug, Default)]
struct WaitQueue(loom::sync::Mutex<VecDeque<Thread>>);

impl WaitQueue {
    fn lock(&self) -> loom::sync::MutexGuard<'_, VecDeque<Thread>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// loom's `Mutex`, with its held state visible to loom's exploration and its waiting threads
/// visible to lineup (see the module).
#[derive(Debug)]
pub struct Mutex<T> {
    inner: loom::sync::Mutex<T>,
    held: AtomicBool,
    waiters: WaitQueue,
}

/// The guard of a [`Mutex`]; the lock is released when it is dropped.
#[derive(Debug)]
pub struct MutexGuard<'a, T> {
    guard: Option<loom::sync::MutexGuard<'a, T>>,
    mutex: &'a Mutex<T>,
}

impl<T> Mutex<T> {
    /// A new unlocked mutex holding `value`.
    pub fn new(value: T) -> Self {
        Self {
            inner: loom::sync::Mutex::new(value),
            held: AtomicBool::new(false),
            waiters: WaitQueue::default(),
        }
    }

    fn acquired<'a>(&'a self, guard: loom::sync::MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.held.store(true, SeqCst);
        MutexGuard {
            guard: Some(guard),
            mutex: self,
        }
    }

    fn try_inner(&self) -> Option<loom::sync::MutexGuard<'_, T>> {
        match self.inner.try_lock() {
            Ok(guard) => Some(guard),
            Err(TryLockError::WouldBlock) => None,
            Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
        }
    }

    /// Blocks until the lock is acquired. (loom never poisons a lock.)
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        loop {
            if let Some(guard) = self.try_inner() {
                return Ok(self.acquired(guard));
            }
            {
                // Try again with the queue locked: the holder releases with the queue locked
                // too, so it either finds this thread queued or this try succeeds.
                let mut queue = self.waiters.lock();
                if let Some(guard) = self.try_inner() {
                    drop(queue);
                    return Ok(self.acquired(guard));
                }
                queue.push_back(loom::thread::current());
            }
            park_until_woken();
        }
    }

    /// Releases the lock held through `guard` and wakes the first waiting thread.
    fn release(&self, guard: loom::sync::MutexGuard<'_, T>) {
        self.held.store(false, SeqCst);
        let mut queue = self.waiters.lock();
        drop(guard);
        let next = queue.pop_front();
        drop(queue);
        if let Some(thread) = next {
            wake(&thread);
        }
    }

    /// Acquires the lock if it is free, else fails with `WouldBlock`.
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        // Read the held mark first: this conflicts with the holder's marks, so loom's DPOR
        // also tries the lock while another thread holds it.
        let _ = self.held.load(SeqCst);
        match self.try_inner() {
            Some(guard) => Ok(self.acquired(guard)),
            None => Err(TryLockError::WouldBlock),
        }
    }

    /// Consumes the mutex, returning its value.
    pub fn into_inner(self) -> LockResult<T> {
        Ok(self.inner.into_inner().unwrap_or_else(|e| e.into_inner()))
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
        self.guard.as_ref().expect("a live guard")
    }
}

impl<T> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.guard.as_mut().expect("a live guard")
    }
}

impl<T> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        if let Some(guard) = self.guard.take() {
            self.mutex.release(guard);
        }
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
    pub fn wait<'a, T>(&self, mut guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        let me = loom::thread::current();
        let id = me.id();
        // Queued before the lock is released: a notification after the release finds it.
        self.waiters.lock().push_back(me);
        let mutex = guard.mutex;
        let inner = guard.guard.take().expect("a live guard");
        mutex.release(inner);
        loop {
            park_until_woken();
            // Woken by a notification when it is no longer queued.
            if !self.waiters.lock().iter().any(|t| t.id() == id) {
                break;
            }
        }
        mutex.lock()
    }

    /// Waits while `condition` holds.
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
    pub fn notify_one(&self) {
        let next = self.waiters.lock().pop_front();
        if let Some(thread) = next {
            wake(&thread);
        }
    }

    /// Wakes every waiting thread.
    pub fn notify_all(&self) {
        let all: Vec<Thread> = self.waiters.lock().drain(..).collect();
        for thread in &all {
            wake(thread);
        }
    }
}

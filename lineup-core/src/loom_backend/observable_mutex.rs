//! loom's `Mutex` and `Condvar`, wrapped so that loom also explores a `try_lock` while another
//! thread holds the lock.
//!
//! loom schedules threads only at its own operations, and releasing a mutex is not one: a
//! critical section without a loom operation inside is atomic under loom, so a `try_lock` never
//! finds the mutex held (shuttle does switch threads there). The wrapper marks the lock as held
//! in a loom atomic right after acquiring it and clears the mark right before releasing it, and
//! `try_lock` reads the mark first: the mark's loads and stores conflict, so loom's DPOR runs a
//! `try_lock` between them, when the lock is held. The wrapper adds schedules loom did not
//! explore, never behaviours a real mutex cannot have.

use std::ops::{Deref, DerefMut};
use std::sync::{LockResult, TryLockError, TryLockResult};

use loom::sync::atomic::{AtomicBool, Ordering::SeqCst};

/// loom's `Mutex`, with its held state visible to loom's exploration (see the module).
#[derive(Debug)]
pub struct Mutex<T> {
    inner: loom::sync::Mutex<T>,
    held: AtomicBool,
}

/// The guard of a [`Mutex`]; the lock is released when it is dropped.
#[derive(Debug)]
pub struct MutexGuard<'a, T> {
    guard: Option<loom::sync::MutexGuard<'a, T>>,
    held: &'a AtomicBool,
}

impl<T> Mutex<T> {
    /// A new unlocked mutex holding `value`.
    pub fn new(value: T) -> Self {
        Self {
            inner: loom::sync::Mutex::new(value),
            held: AtomicBool::new(false),
        }
    }

    /// Blocks until the lock is acquired. (loom never poisons a lock.)
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        let guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        self.held.store(true, SeqCst);
        Ok(MutexGuard {
            guard: Some(guard),
            held: &self.held,
        })
    }

    /// Acquires the lock if it is free, else fails with `WouldBlock`.
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        // Read the held mark first: this conflicts with the holder's marks, so loom's DPOR
        // also tries the lock while another thread holds it.
        let _ = self.held.load(SeqCst);
        match self.inner.try_lock() {
            Ok(guard) => {
                self.held.store(true, SeqCst);
                Ok(MutexGuard {
                    guard: Some(guard),
                    held: &self.held,
                })
            }
            Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
            Err(TryLockError::Poisoned(e)) => {
                let guard = e.into_inner();
                self.held.store(true, SeqCst);
                Ok(MutexGuard {
                    guard: Some(guard),
                    held: &self.held,
                })
            }
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
            self.held.store(false, SeqCst);
            drop(guard);
        }
    }
}

/// loom's `Condvar`, for the guards of [`Mutex`].
#[derive(Debug, Default)]
pub struct Condvar {
    inner: loom::sync::Condvar,
}

impl Condvar {
    /// A new condition variable.
    pub fn new() -> Self {
        Self {
            inner: loom::sync::Condvar::new(),
        }
    }

    /// Releases the lock, blocks until notified, and takes the lock again. (loom's condition
    /// variables do not wake spuriously.)
    pub fn wait<'a, T>(&self, mut guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        let held = guard.held;
        let inner = guard.guard.take().expect("a live guard");
        held.store(false, SeqCst);
        let inner = self.inner.wait(inner).unwrap_or_else(|e| e.into_inner());
        held.store(true, SeqCst);
        Ok(MutexGuard {
            guard: Some(inner),
            held,
        })
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
        self.inner.notify_one();
    }

    /// Wakes every waiting thread.
    pub fn notify_all(&self) {
        self.inner.notify_all();
    }
}

//! [`saa`](https://crates.io/crates/saa) 5.6.2, switched to loom by its `loom` feature alone (no
//! cfg: the feature replaces its lock word, wait-queue atomics, `park`, `yield_now` and spin hints
//! with loom's): `saa::Lock`, the reader-writer lock under `scc`'s containers and `sdd`.
//!
//! `saa::Lock` is a raw lock (no guards): `lock_sync`/`try_lock` take it exclusively,
//! `share_sync`/`try_share` take a share, `release_lock`/`release_share` give them back, and the
//! caller must only release what it holds. So each thread remembers what it took in its own
//! handle ([`Holds`], made when the thread starts: [`Subject::with_handles`]), and `release` gives
//! back the last thing the calling thread took (or answers `None`). What a thread still holds when
//! its last operation ends is given back after it, in the thread's `drop(handle)` operation
//! (lineup drops the thread's handle there, and [`Holds`] releases on drop, as a guard would). In a serial execution
//! the lock's state is then a function of what the threads hold, `try_lock`/`try_share` have
//! deterministic answers, and a `lock` of a held lock (or a `share` of an exclusively held one)
//! blocks for good: a stuck serial history.

use std::sync::Arc;

use lineup::{Invocation, MatrixThread, Subject};
use saa::Lock;

/// What a thread took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// The lock, exclusively.
    Exclusive,
    /// A share.
    Shared,
}

/// A `saa::Lock`; what each thread holds of it is in the thread's [`Holds`].
#[derive(Debug, Default)]
pub struct RwLock {
    lock: Lock,
}

/// One thread's handle: what it took of the lock, the last taken last. Dropping it gives back
/// everything it still holds, last taken first.
#[derive(Debug)]
pub struct Holds {
    lock: Arc<RwLock>,
    held: Vec<Held>,
}

impl Holds {
    /// The handle of `thread` (every thread gets one, holding nothing).
    pub fn new(lock: &Arc<RwLock>, _thread: &MatrixThread) -> Self {
        Self {
            lock: Arc::clone(lock),
            held: Vec::new(),
        }
    }
}

impl Drop for Holds {
    fn drop(&mut self) {
        while let Some(held) = self.held.pop() {
            self.lock.give_back(held);
        }
    }
}

impl RwLock {
    /// `release_lock` or `release_share`, as `held` says; their answer.
    fn give_back(&self, held: Held) -> bool {
        match held {
            Held::Exclusive => self.lock.release_lock(),
            Held::Shared => self.lock.release_share(),
        }
    }

    /// `lock_sync()` (blocks while the lock is held); its answer (`false`: poisoned, never here).
    pub fn lock(&self, holds: &mut Holds) -> bool {
        let locked = self.lock.lock_sync();
        if locked {
            holds.held.push(Held::Exclusive);
        }
        locked
    }

    /// `try_lock()`: whether it took the lock.
    pub fn try_lock(&self, holds: &mut Holds) -> bool {
        let locked = self.lock.try_lock().is_ok();
        if locked {
            holds.held.push(Held::Exclusive);
        }
        locked
    }

    /// `share_sync()` (blocks while the lock is held exclusively); its answer.
    pub fn share(&self, holds: &mut Holds) -> bool {
        let shared = self.lock.share_sync();
        if shared {
            holds.held.push(Held::Shared);
        }
        shared
    }

    /// `try_share()`: whether it took a share.
    pub fn try_share(&self, holds: &mut Holds) -> bool {
        let shared = self.lock.try_share().is_ok();
        if shared {
            holds.held.push(Held::Shared);
        }
        shared
    }

    /// Gives back what the calling thread took last (`release_lock` or `release_share`, whose
    /// answer must be `true`); `None` if it holds nothing.
    pub fn release(&self, holds: &mut Holds) -> Option<(Held, bool)> {
        let held = holds.held.pop()?;
        Some((held, self.give_back(held)))
    }

    /// A deliberately wrong operation, to show that the harness is not vacuous: `try_lock`, then
    /// `release_lock`, in one operation; whether it got the lock. It fails when it meets another
    /// thread's `with_lock` inside its operation, which no serial execution shows: lineup must
    /// reject it.
    pub fn try_with_lock(&self) -> bool {
        let locked = self.lock.try_lock().is_ok();
        if locked {
            self.lock.release_lock();
        }
        locked
    }

    /// `lock_sync`, then `release_lock`, in one operation (a critical section); whether it got the
    /// lock.
    pub fn with_lock(&self) -> bool {
        let locked = self.lock.lock_sync();
        if locked {
            self.lock.release_lock();
        }
        locked
    }
}

/// Positions of the invocations of [`rw_lock`] and [`scoped_try_lock`].
pub mod op {
    /// `lock()`: `true` (`lock_sync`, kept).
    pub const LOCK: usize = 0;
    /// `try_lock()`: whether it took the lock (kept).
    pub const TRY_LOCK: usize = 1;
    /// `share()`: `true` (`share_sync`, kept).
    pub const SHARE: usize = 2;
    /// `try_share()`: whether it took a share (kept).
    pub const TRY_SHARE: usize = 3;
    /// `release()`: `Some((Exclusive or Shared, true))`, or `None`.
    pub const RELEASE: usize = 4;
    /// `with_lock()`: `lock_sync` and `release_lock` in one operation.
    pub const WITH_LOCK: usize = 5;
    /// `try_with_lock()` (only in [`scoped_try_lock`](super::scoped_try_lock)).
    pub const TRY_WITH_LOCK: usize = 6;
}

fn named(name: &str) -> Subject<RwLock> {
    Subject::new(name, RwLock::default)
        .with_handles(Holds::new)
        .with(Invocation::on_handle("lock", RwLock::lock))
        .with(Invocation::on_handle("try_lock", RwLock::try_lock))
        .with(Invocation::on_handle("share", RwLock::share))
        .with(Invocation::on_handle("try_share", RwLock::try_share))
        .with(Invocation::on_handle("release", RwLock::release))
        .with(Invocation::new("with_lock", RwLock::with_lock))
}

/// `saa::Lock` with `lock`, `try_lock`, `share`, `try_share`, `release` and `with_lock` (see
/// [`op`]).
pub fn rw_lock() -> Subject<RwLock> {
    named("saa 5.6.2 Lock")
}

/// [`rw_lock`] plus the deliberately wrong `try_with_lock` (see [`RwLock::try_with_lock`]):
/// lineup must reject it.
pub fn scoped_try_lock() -> Subject<RwLock> {
    named("saa 5.6.2 Lock with a scoped try_lock").with(Invocation::new("try_with_lock", RwLock::try_with_lock))
}

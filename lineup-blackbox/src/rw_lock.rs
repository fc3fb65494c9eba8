//! [`saa`](https://crates.io/crates/saa) 5.6.2, switched to loom by its `loom` feature alone (no
//! cfg: the feature replaces its lock word, wait-queue atomics, `park`, `yield_now` and spin hints
//! with loom's): `saa::Lock`, the reader-writer lock under `scc`'s containers and `sdd`.
//!
//! `saa::Lock` is a raw lock (no guards): `lock_sync`/`try_lock` take it exclusively,
//! `share_sync`/`try_share` take a share, `release_lock`/`release_share` give them back, and the
//! caller must only release what it holds. So the object remembers, per thread ([`PerThread`]),
//! what each thread took, and `release` gives back the last thing the calling thread took (or
//! answers `None`). In a serial execution the lock's state is then a function of what the threads
//! hold, `try_lock`/`try_share` have deterministic answers, and a `lock` of a held lock (or a
//! `share` of an exclusively held one) blocks for good: a stuck serial history.

use lineup::{Invocation, Subject};
use saa::Lock;

use crate::per_thread::PerThread;

/// What a thread took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// The lock, exclusively.
    Exclusive,
    /// A share.
    Shared,
}

/// A `saa::Lock` and what each thread holds of it.
#[derive(Debug, Default)]
pub struct RwLock {
    lock: Lock,
    held: PerThread<Held>,
}

impl RwLock {
    /// `lock_sync()` (blocks while the lock is held); its answer (`false`: poisoned, never here).
    pub fn lock(&self) -> bool {
        let locked = self.lock.lock_sync();
        if locked {
            self.held.hold(Held::Exclusive);
        }
        locked
    }

    /// `try_lock()`: whether it took the lock.
    pub fn try_lock(&self) -> bool {
        let locked = self.lock.try_lock().is_ok();
        if locked {
            self.held.hold(Held::Exclusive);
        }
        locked
    }

    /// `share_sync()` (blocks while the lock is held exclusively); its answer.
    pub fn share(&self) -> bool {
        let shared = self.lock.share_sync();
        if shared {
            self.held.hold(Held::Shared);
        }
        shared
    }

    /// `try_share()`: whether it took a share.
    pub fn try_share(&self) -> bool {
        let shared = self.lock.try_share().is_ok();
        if shared {
            self.held.hold(Held::Shared);
        }
        shared
    }

    /// Gives back what the calling thread took last (`release_lock` or `release_share`, whose
    /// answer must be `true`); `None` if it holds nothing.
    pub fn release(&self) -> Option<(Held, bool)> {
        let held = self.held.take_mine()?;
        let released = match held {
            Held::Exclusive => self.lock.release_lock(),
            Held::Shared => self.lock.release_share(),
        };
        Some((held, released))
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
        .with(Invocation::new("lock", RwLock::lock))
        .with(Invocation::new("try_lock", RwLock::try_lock))
        .with(Invocation::new("share", RwLock::share))
        .with(Invocation::new("try_share", RwLock::try_share))
        .with(Invocation::new("release", RwLock::release))
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

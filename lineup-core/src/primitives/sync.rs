//! Synchronization primitives for the object under test, from the backend lineup runs on:
//! shuttle's by default, loom's when the crate is built with `RUSTFLAGS="--cfg loom"`.
//!
//! Build an object from `lineup::sync` (and [`thread`](crate::thread), [`hint`](crate::hint),
//! [`future`](crate::future)) and the same tests check it on either backend. Under loom, the
//! atomics of [`sync::atomic`](self::atomic) are loom's, wrapped so that lineup can tell when a
//! load returned an older value than the latest store of the interleaving (a weak-memory
//! behaviour, which loom explores and shuttle does not): a violation that needs one is labelled
//! as such in the report.
//!
//! ```
//! use lineup_core::sync::atomic::{AtomicU64, Ordering};
//! use lineup_core::sync::Mutex;
//!
//! struct Counter {
//!     hits: AtomicU64,
//!     log: Mutex<Vec<u64>>,
//! }
//! let _ = Counter { hits: AtomicU64::new(0), log: Mutex::new(Vec::new()) };
//! let _ = Ordering::SeqCst;
//! ```

#[cfg(not(loom))]
pub use shuttle::sync::*;

#[cfg(loom)]
pub use loom::sync::*;

/// On shuttle, shuttle's mutex and condition variable (the same scheduling points), whose waits
/// lineup can abandon when an execution is stuck, so that the stuck execution ends cleanly and
/// shuttle reuses its threads' stacks. A thread blocked in shuttle's primitives used directly
/// (`lineup::shuttle::sync`) is abandoned the same way with lineup's shuttle-std
/// (`vendor/README.md`); with the published one, its stuck execution is stopped instead.
#[cfg(not(loom))]
pub use crate::primitives::abandonable::{Condvar, Mutex, MutexGuard, WaitTimeoutResult};

/// On shuttle, shuttle's reader-writer lock step for step, whose steps lineup's partial-order
/// reduction sees (each one a write of the lock: a read lock too) and whose waits lineup can
/// abandon when an execution is stuck (see [`Mutex`]).
#[cfg(not(loom))]
pub use crate::primitives::rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// On shuttle, shuttle's barrier step for step, whose waits lineup's partial-order reduction sees
/// and lineup can abandon when an execution is stuck. Under loom (whose own `Barrier` is a stub
/// that panics), a barrier on loom's mutex and condition variable.
#[cfg(not(loom))]
pub use crate::primitives::barrier::{Barrier, BarrierWaitResult};

/// Under loom, a barrier on lineup's loom mutex and condition variable (loom's own `Barrier` is a
/// stub that panics).
#[cfg(loom)]
pub use crate::primitives::loom_barrier::{Barrier, BarrierWaitResult};

/// On shuttle, shuttle's `Once` step for step (its state is the execution's), whose steps lineup's
/// partial-order reduction sees; `OnceLock`, which shuttle does not have, is a `Once` and its
/// value. Under loom (which has no `Once`), a `Once` is a mutex and a flag.
pub use crate::primitives::once::{Once, OnceLock, OnceState};

/// On shuttle, shuttle's atomics, each of which tells lineup's partial-order reduction what it
/// touches (see [`Config::reduction`](crate::Config)).
#[cfg(not(loom))]
pub mod atomic {
    pub use crate::primitives::atomic::*;
}

/// On shuttle, shuttle's channels, whose sends and receives tell lineup's partial-order reduction
/// which channel they touch (see [`Config::reduction`](crate::Config)): actors that talk over
/// them are tractable in phase 1.
#[cfg(not(loom))]
pub mod mpsc {
    pub use crate::primitives::mpsc::*;
}

/// Under loom, a mutex whose held state loom's exploration sees, so that `try_lock` is also tried
/// while another thread holds the lock (loom alone never preempts a critical section that has no
/// loom operation inside), and a mutex and condition variable whose waiting threads lineup sees,
/// so that an execution stuck in them ends normally and loom's exploration goes on past it.
#[cfg(loom)]
pub use crate::loom_backend::observable_mutex::{Condvar, Mutex, MutexGuard};

/// Atomic types. Under loom, the integer and boolean atomics are tracked for weak-memory loads.
#[cfg(loom)]
pub mod atomic {
    pub use crate::loom_backend::tracked_atomic::*;
    pub use loom::sync::atomic::{fence, AtomicPtr, Ordering};
}

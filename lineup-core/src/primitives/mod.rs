//! What the object under test is built from: the backend's synchronization primitives, threads,
//! spin hints and `block_on` (shuttle's, or loom's under `--cfg loom`).

#[cfg(not(loom))]
pub(crate) mod abandonable;
#[cfg(not(loom))]
pub(crate) mod atomic;
#[cfg(not(loom))]
pub(crate) mod barrier;
pub mod future;
#[cfg(loom)]
pub(crate) mod loom_barrier;
#[cfg(not(loom))]
pub(crate) mod mpsc;
pub(crate) mod once;
#[cfg(not(loom))]
pub(crate) mod rwlock;
pub mod sync;
pub(crate) mod threads;

//! What the object under test is built from: the backend's synchronization primitives, threads,
//! spin hints and `block_on` (shuttle's, or loom's under `--cfg loom`).

#[cfg(not(loom))]
pub(crate) mod abandonable;
#[cfg(not(loom))]
pub(crate) mod atomic;
pub mod future;
#[cfg(not(loom))]
pub(crate) mod mpsc;
pub mod sync;
pub(crate) mod threads;

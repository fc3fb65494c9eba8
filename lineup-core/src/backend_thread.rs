//! Threads, spin hints and `block_on` for the object under test, from the backend lineup runs
//! on: shuttle's by default, loom's under `--cfg loom` (see [`sync`](crate::sync)).

/// Threads of the backend: `spawn`, `yield_now`, `JoinHandle`, ...
pub mod thread {
    #[cfg(loom)]
    pub use loom::thread::*;
    #[cfg(not(loom))]
    pub use shuttle::thread::*;
}

/// Spin-loop hints of the backend.
pub mod hint {
    #[cfg(loom)]
    pub use loom::hint::*;
    #[cfg(not(loom))]
    pub use shuttle::hint::*;
}

/// Running a future to completion on the current thread of the backend, for asynchronous
/// operations (`lock().await`).
pub mod future {
    #[cfg(loom)]
    pub use loom::future::block_on;
    #[cfg(not(loom))]
    pub use shuttle::future::block_on;
}

//! Threads, spin hints and `block_on` for the object under test, from the backend lineup runs
//! on: shuttle's by default, loom's under `--cfg loom` (see [`sync`](crate::sync)).

/// Threads of the backend: `spawn`, `yield_now`, `JoinHandle`, ...
pub mod thread {
    #[cfg(not(loom))]
    pub use shuttle::thread::*;
    #[cfg(loom)]
    pub use loom::thread::*;
}

/// Spin-loop hints of the backend.
pub mod hint {
    #[cfg(not(loom))]
    pub use shuttle::hint::*;
    #[cfg(loom)]
    pub use loom::hint::*;
}

/// Running a future to completion on the current thread of the backend, for asynchronous
/// operations (`lock().await`).
pub mod future {
    #[cfg(not(loom))]
    pub use shuttle::future::block_on;
    #[cfg(loom)]
    pub use loom::future::block_on;
}

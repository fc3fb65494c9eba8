//! Black-box checks of published crates with lineup's loom backend: each crate is pinned
//! exactly, used as published (no patch, no fork), and switched to loom by its *own* switch
//! (`--cfg loom` plus its `loom` feature, or `--cfg oneshot_loom` for `oneshot`). lineup needs
//! nothing else from it: no specification, no annotation, no source change. Phase 1 learns what
//! the crate's operations return when they run one after another; phase 2 asks loom for the
//! interleavings and looks for a history that no serial execution explains.
//!
//! Everything here exists only under `RUSTFLAGS="--cfg loom"` (and `--cfg oneshot_loom` for the
//! [`oneshot`](https://crates.io/crates/oneshot) channel): without it the crate is empty and the
//! normal workspace build does not even compile the crates under test. Run the checks with
//!
//! ```text
//! RUSTFLAGS="--cfg loom --cfg oneshot_loom" CARGO_TARGET_DIR=/work/target-blackbox \
//!     cargo test --release -p lineup-blackbox -- --test-threads=1
//! ```
//!
//! Each module wraps one crate into a lineup [`Subject`](https://docs.rs/lineup) (an object and
//! its invocations) and says what each invocation returns; the tests in `tests/` hold the
//! matrices and the verdicts, and the `expectation` module (under `--cfg loom`) prints the
//! figures of every check. The documentation of every crate, its version, switch, matrices, bound,
//! verdict and time, is `docs/black-box-crates.md`.
//!
//! One caveat holds for every crate here: their atomics are loom's own, not
//! `lineup::sync::atomic`, so lineup's report cannot tell whether a violating execution needed a
//! weak-memory load (it says so). Every matrix is therefore checked twice, in loom's bare C11
//! model and with real-time order as happens-before (lineup's default,
//! `lineup::Config::real_time_happens_before`): a C11 failure next to a real-time pass is a
//! weak-memory-only finding (the `expectation` module explains why).

#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[cfg(loom)]
pub mod append_vec;
#[cfg(loom)]
pub mod channels;
#[cfg(loom)]
pub mod expectation;
#[cfg(loom)]
pub mod hazard_pointer;
#[cfg(loom)]
pub mod left_right_buffer;
#[cfg(loom)]
pub mod locks;
#[cfg(all(loom, oneshot_loom))]
pub mod oneshot_channel;
#[cfg(loom)]
pub mod parker;
#[cfg(loom)]
pub mod queues;
#[cfg(loom)]
pub mod rw_lock;

//! lineup: find concurrency bugs in thread-safe objects automatically.
//!
//! This facade re-exports the engine ([`lineup_core`]) and its macros, so that a user adds one
//! dependency. See the README for a walk-through.

pub use lineup_core::*;
/// The procedural macros (they arrive with `#[lineup_test]`; they only generate calls into
/// the public traits of `lineup-core`).
pub use lineup_derive;
/// `#[invocations]` on an `impl` block and `#[lineup_test]` on a function that builds the
/// object (see `lineup-derive`).
pub use lineup_derive::{invocations, lineup_test};
/// Checking long recorded histories (stress runs, Jepsen logs) for linearizability against a
/// sequential model: the WGL search with P-compositional partitioning, and an online checker
/// (see `lineup-histories`).
pub use lineup_histories as histories;

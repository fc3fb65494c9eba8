//! The example objects, shared by `examples/`, `tests/` and the benchmarks through `#[path]`.
#![allow(dead_code)]

pub mod actors;
pub mod cancel;
pub mod counters;
pub mod deep;
pub mod handles;
pub mod queues;
pub mod spin;

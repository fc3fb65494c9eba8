//! The case-study zoo: Rust ports of the thirteen .NET Framework 4.0 classes of the Line-Up
//! paper (§5, Table 1), written fresh on lineup's model-checkable primitives
//! (`lineup::sync`), each correct and, where the paper reports root causes A to L,
//! in buggy variants that reproduce them. Every entry is registered in [`entries`] for the
//! Table 2 benchmark (`cargo run --release -p lineup-bench -- table2`).
#![forbid(unsafe_code)]

pub mod announced;
pub mod collections;
mod first_bug;
pub mod native;
pub mod reduction;
pub mod shuttle_atomics;
pub mod shuttle_channels;
pub mod shuttle_futures;
pub mod shuttle_joins;
pub mod shuttle_parks;
pub mod shuttle_sync;
pub mod shuttle_yields;
pub mod single_consumer;
pub mod sync_primitives;
mod table;
mod trace;

pub use first_bug::FirstBug;
pub use table::{
    compare_reduction, entries, first_bugs, measure_trace, run_entry, Expected, TableRow, TableSettings, ZooEntry,
};
pub use trace::TraceRow;

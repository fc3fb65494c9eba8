//! Checking long recorded histories for linearizability.
//!
//! A *history* is what a run of a concurrent object recorded: for each operation, who called
//! it, with which input, what it returned (or that its outcome is unknown), and when it was
//! called and returned. A history is *linearizable* with respect to a sequential *model* if its
//! operations can be put in one sequence that respects real time (an operation that returned
//! before another was called comes first) and that the model accepts.
//!
//! - [`History`], [`HistoryBuilder`], [`Event`]: recorded histories, built from call/return/info
//!   events or from operations with explicit times.
//! - [`Model`]: an executable sequential specification; [`PartitionedModel`] for the
//!   P-compositional ones. Built-in [`models`]: register with compare-and-set, key-value map,
//!   set, FIFO queue, stack, counter.
//! - [`check`]: the WGL search (Wing & Gong, with Lowe's memoization; Horn & Kroening's
//!   Algorithm 1), exact, with operations of unknown outcome (Jepsen `:info`) that may take
//!   effect at any time after their call, or never.
//! - [`check_partitioned`]: P-compositional partitioning (Horn & Kroening's Algorithm 3): the
//!   parts are checked independently, in parallel.
//! - [`OnlineChecker`]: events fed as they happen, a violation reported as soon as no
//!   possibility is left.
//! - [`CheckOutcome`]: a linearization, or a [`Violation`] (longest linearizable prefix and the
//!   operations that could not be placed, drawn as a per-client [`Timeline`]), or unknown when a
//!   limit of [`CheckOptions`] was reached (never a guess). Every check has a memory budget
//!   ([`MemoryLimit`], by default half of the memory available): past it the verdict is
//!   unknown, never an out-of-memory kill.
//!
//! ```
//! use lineup_histories::{check, CheckOptions, HistoryBuilder};
//! use lineup_histories::models::{RegisterInput as I, RegisterModel, RegisterOutput as O};
//!
//! let mut b = HistoryBuilder::new();
//! b.call(0, I::Write(Some(3))).unwrap();
//! b.info(0).unwrap(); // timed out: it may or may not have happened
//! b.call(1, I::Read).unwrap();
//! b.ret(1, O::Value(Some(3))).unwrap(); // so it did
//! b.call(1, I::Read).unwrap();
//! b.ret(1, O::Value(None)).unwrap(); // and cannot be undone
//! let report = check(&RegisterModel::new(None), &b.build(), &CheckOptions::default());
//! assert!(report.outcome.is_violation());
//! println!("{}", report.outcome);
//! ```
//!
//! See `docs/checking-histories.md` in the repository for a guide.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod check;
mod event;
pub mod formats;
mod history;
mod history_builder;
mod history_error;
mod memory;
mod model;
pub mod models;
mod online;
mod options;
mod outcome;
mod partition;
mod picture;
pub mod stress;
mod timeline;
mod verify;
mod wgl;

pub use check::check;
pub use event::Event;
pub use history::{ClientId, History, OpId, Operation, Outcome, NEVER};
pub use history_builder::HistoryBuilder;
pub use history_error::HistoryError;
pub use memory::{default_memory_budget, MemoryLimit};
pub use model::{Model, PartitionedModel, Successors, SuccessorsIter};
pub use online::{OnlineChecker, OnlineStatus, OnlineVerdict, OnlineViolation, DEFAULT_MAX_POSSIBILITIES};
pub use options::CheckOptions;
pub use outcome::{CheckOutcome, CheckReport, CheckStats, LinearizedStep, UnknownReason, Violation};
pub use partition::{check_partitioned, partition_history, PartitionError, Partitions};
pub use picture::{partition_members, violation_section};
pub use timeline::{Timeline, TimelineMark, TimelineOp};
pub use verify::{verify_linearization, LinearizationError};

//! The engine of lineup: an automatic checker of *deterministic linearizability* after Line-Up
//! (Burckhardt, Dern, Musuvathi, Tan; PLDI 2010), on the shuttle model checker, and on loom when
//! built with `RUSTFLAGS="--cfg loom"`.
//!
//! Users depend on the `lineup` crate, which re-exports this one with its macros; its crate docs are
//! the guide (building objects, `#[lineup_test]`, reports, replay, observation files, async
//! operations). This page is the map of the engine for someone who reads or changes it;
//! `docs/architecture.md` in the repository says which folder owns what and may use what.
//!
//! # What a check does
//!
//! Given an object ([`Subject`], built from [`Invocation`]s or a type's [`Invocations`]) and a
//! [`TestMatrix`], [`check`] runs `Check(X, m)` of the paper (Fig. 5):
//!
//! 1. **phase 1** enumerates every serial execution of the matrix (never bounded) and synthesizes
//!    the sequential specification as an [`ObservationSet`] ([`synthesize_spec`] alone); it fails
//!    if that set is nondeterministic;
//! 2. **phase 2** explores concurrent schedules (by default every schedule within
//!    [`Config::preemption_bound`] preemptions) and looks for a serial witness of every full
//!    history (Def. 1) and a stuck serial witness for every pending operation of every stuck
//!    history (Def. 2), with the search of [`witness`].
//!
//! The result is a [`Verdict`] (a PASS with its statistics, or a [`Violation`] whose `Display` is
//! the report), or a [`CheckError`] when no verdict can be reached. A reported failure is a proof
//! that the object is not linearizable with respect to *any* deterministic sequential
//! specification.
//!
//! ```
//! use lineup_core::sync::atomic::{AtomicU64, Ordering};
//! use lineup_core::{check, Config, Invocation, Subject, TestMatrix};
//!
//! let subject = Subject::new("counter", || AtomicU64::new(0))
//!     .with(Invocation::new("inc", |c: &AtomicU64| c.fetch_add(1, Ordering::SeqCst)))
//!     .with(Invocation::new("get", |c: &AtomicU64| c.load(Ordering::SeqCst)));
//! let matrix = TestMatrix::new(vec![vec![0], vec![0, 1]]);
//! assert!(check(&subject, &matrix, &Config::default()).unwrap().is_pass());
//! ```
//!
//! # Where things are
//!
//! * The primitives objects are built from, on either backend, with std's names and shapes: [`sync`]
//!   (`Mutex`, `Condvar`, `RwLock`, `Barrier`, `Once`, `OnceLock`, atomics, `mpsc`), [`thread`]
//!   (`spawn`, `current`, `park`, `Thread::unpark`, `yield_now`), [`hint`], [`future`]: the one
//!   import path objects use. They report the object of every step to the partial-order reduction
//!   and let lineup end a stuck execution cleanly. shuttle's own (`lineup_core::shuttle::sync`)
//!   used directly get less: only their `Mutex`, `Condvar`, `RwLock`, `Barrier`, `Once` and thread
//!   spawns are seen by the reduction, and their `mpsc` channels and atomics only with lineup's
//!   `vendor/shuttle-std` (the other steps are opaque), a stuck execution in them is stopped rather
//!   than ended, and they do not switch to loom.
//! * Settings: [`Config`]. Stored specifications: [`observation_file`], and committed ones compared
//!   like snapshots in [`spec_snapshot`]. Reports: the text of [`Violation`]'s `Display`, and HTML
//!   pages from [`report_html`].
//! * Running many matrices: [`LineupTest`] (what `#[lineup_test]` calls: saved failures from
//!   [`regressions`], explicit matrices, RandomCheck, shrinking, deeper stages within a time
//!   budget), and [`check_matrices`] for a batch on every core.
//! * Replaying one schedule from a report's token: [`replay`].

#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

/// The model checker lineup runs on, re-exported so that one dependency is enough (its
/// schedulers, `check_*` functions and `current`). Build the object under test from [`sync`],
/// [`thread`], [`hint`] and [`future`] instead of `shuttle::sync` / `shuttle::thread`: see
/// [`sync`].
pub use shuttle;

mod backend;
mod check;
mod config;
pub mod environment;
mod error;
mod explore;
mod judge;
#[cfg(loom)]
mod loom_backend;
#[cfg_attr(loom, allow(dead_code))]
mod memory_limit;
mod model;
mod pool;
mod primitives;
pub mod profile;
mod report;
mod runner;
mod spec;
mod survey;

pub use check::{
    check, check_against_file, check_against_spec, record_steps, replay, shorten_schedule, synthesize_spec, Replayed,
};
pub use config::Config;
pub use config::Interlude;
pub use config::Reduction;
#[doc(hidden)]
pub use config::ReductionFault;
pub use config::{
    SpinPruning, DEFAULT_MAX_CANCELLATIONS, DEFAULT_SHORTEST_SCHEDULE, DEFAULT_SPIN_READS, DEFAULT_YIELD_CHOICES,
};
pub use config::{Strategy, StrategyParseError};
pub use environment::REPLAY_ENV;
pub use error::CheckError;
pub use judge::verdict::{CheckStats, LoomEvidence, ShownSchedule, Verdict, Violation, ViolationKind};
pub use judge::witness;
pub use memory_limit::{allocation_size, default_memory_budget, MemoryLimit};
pub use model::groups::{GroupViolation, OperationGroups};
pub use model::handles::{Column, Handles, MatrixThread};
pub use model::history::{op_table, Event, History, HistoryBuilder, HistoryError, NotationError, OpInfo, OpTable};
pub use model::interleaving::{Action, Interleaving, ObjectName, SourceLocation, StateAfter, Step, SwitchReason};
pub use model::invocation::{Invocation, InvocationLabel};
pub use model::invocations::Invocations;
pub use model::matrix::{MatrixDisplay, OpSlot, TestMatrix};
pub use model::replay_token::{Phase, ReplayToken, ScheduleCost};
pub use model::response::Response;
pub use model::stuck_kind::StuckKind;
pub use model::subject::Subject;
pub use model::thread_id::{ThreadId, ThreadIdParseError};
pub use primitives::future;
pub use primitives::sync;
pub use primitives::threads::{hint, thread};
pub use report::html as report_html;
pub use report::interleaving::RenderedInterleaving;
pub use runner::deepening::{DeepeningStage, Stage};
pub use runner::lineup_test::{
    LineupTest, MatrixOrigin, Phase2Coverage, TestFailure, TestSummary, DEFAULT_TIME_BUDGET,
    SHRINK_BUDGET_WITHOUT_TIME_BUDGET,
};
pub use runner::parallel::{
    check_matrices, BatchFailure, BatchOutcome, DeepenedMatrix, Inconclusiveness, SmallMatrixDeepening,
};
pub use runner::progress::Progress;
pub use runner::regressions;
pub use runner::sampling::{
    auto_matrices, auto_matrices_grouped, sample_matrices, sample_matrices_grouped, shard_indices,
};
pub use runner::shapes::{sample_shaped, sample_shaped_grouped, ShapeCounts, Shapes};
pub use runner::shrink::{same_kind, shrink, Shrunk};
pub use spec::determinism::{find_nondeterminism, find_nondeterminism_tolerating, Nondeterminism};
pub use spec::observation::{Observation, ObservationKey, ObservationSet};
pub use spec::synthesis::Synthesis;
pub use spec::vacuity::{vacuity, vacuity_warning, Vacuity};
pub use spec::{observation_file, spec_snapshot};
#[cfg(not(loom))]
pub use survey::{survey, survey_against_spec, Survey, SurveyedHistory};

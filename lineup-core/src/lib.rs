//! The engine of lineup: an automatic checker of *deterministic linearizability* after
//! Line-Up (Burckhardt, Dern, Musuvathi, Tan; PLDI 2010), built on the shuttle model checker.
//!
//! Given an object, a set of invocations and a test matrix, [`check`] runs `Check(X, m)` of
//! the paper (Fig. 5): phase 1 enumerates every serial execution of the matrix (never bounded)
//! and synthesizes the sequential specification as an [`ObservationSet`]; it fails if that set
//! is nondeterministic. Phase 2 explores preemption-bounded concurrent schedules and looks for a
//! serial witness of every full history (Def. 1) and a stuck serial witness for every pending
//! operation of every stuck history (Def. 2). A reported failure is a proof that the object is
//! not linearizable with respect to *any* deterministic sequential specification.

#![warn(missing_docs)]

/// The model checker lineup runs on, re-exported so that one dependency is enough: build the
/// object under test from `lineup::shuttle::sync` and `lineup::shuttle::thread`.
pub use shuttle;

mod backend;
mod check;
mod config;
mod error;
mod explore;
mod judge;
#[cfg(loom)]
mod loom_backend;
#[cfg_attr(loom, allow(dead_code))]
mod memory_limit;
mod model;
mod primitives;
mod report;
mod runner;
mod spec;
mod survey;

pub use check::{check, check_against_file, check_against_spec, replay, synthesize_spec, Replayed};
pub use config::Config;
pub use config::Interlude;
pub use config::Reduction;
#[doc(hidden)]
pub use config::ReductionFault;
pub use config::{Strategy, StrategyParseError};
pub use error::CheckError;
pub use judge::verdict::{CheckStats, LoomEvidence, Verdict, Violation, ViolationKind};
pub use judge::witness;
pub use memory_limit::{allocation_size, default_memory_budget, MemoryLimit};
pub use model::history::{op_table, Event, History, HistoryBuilder, HistoryError, NotationError, OpInfo, OpTable};
pub use model::invocation::{Invocation, InvocationLabel};
pub use model::invocations::Invocations;
pub use model::matrix::{MatrixDisplay, OpSlot, TestMatrix};
pub use model::replay_token::{Phase, ReplayToken, REPLAY_ENV};
pub use model::response::Response;
pub use model::stuck_kind::StuckKind;
pub use model::subject::Subject;
pub use model::thread_id::{ThreadId, ThreadIdParseError};
pub use primitives::future;
pub use primitives::sync;
pub use primitives::threads::{hint, thread};
pub use report::html as report_html;
pub use runner::lineup_test::{DeepeningStage, LineupTest, MatrixOrigin, TestFailure, TestSummary};
pub use runner::parallel::{check_matrices, BatchFailure, BatchOutcome};
pub use runner::progress::Progress;
pub use runner::sampling::{auto_matrices, sample_matrices, shard_indices};
pub use runner::shapes::{sample_shaped, ShapeCounts, Shapes};
pub use runner::shrink::{same_kind, shrink, Shrunk};
pub use runner::{regressions, sweep_env};
pub use spec::determinism::{find_nondeterminism, find_nondeterminism_tolerating, Nondeterminism};
pub use spec::observation::{Observation, ObservationKey, ObservationSet};
pub use spec::synthesis::Synthesis;
pub use spec::vacuity::{vacuity, vacuity_warning, Vacuity};
pub use spec::{observation_file, spec_snapshot};
#[cfg(not(loom))]
pub use survey::{survey, survey_against_spec, Survey, SurveyedHistory};

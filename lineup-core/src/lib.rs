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

mod backend_thread;
mod check;
mod config;
mod decision_tree;
mod determinism;
mod error;
mod explore;
mod full_spec_index;
mod harness;
mod history;
mod invocation;
mod invocations;
mod lineup_test;
#[cfg(loom)]
mod loom_backend;
mod matrix;
mod observation;
pub mod observation_file;
mod parallel;
mod phase1;
mod phase2;
mod progress;
mod recording;
pub mod regressions;
mod replay;
mod report;
mod response;
mod role;
mod sampling;
mod scheduler;
mod shrink;
pub mod spec_snapshot;
mod subject;
pub mod sweep_env;
pub mod sync;
mod thread_id;
mod trace_set;
mod vacuity;
mod verdict;
pub mod witness;

pub use backend_thread::{future, hint, thread};
pub use check::{check, check_against_file, check_against_spec, replay, Replayed};
pub use config::Config;
pub use determinism::{find_nondeterminism, Nondeterminism};
pub use error::CheckError;
pub use history::{op_table, Event, History, HistoryBuilder, HistoryError, NotationError, OpInfo, OpTable};
pub use invocation::{Invocation, InvocationLabel};
pub use invocations::Invocations;
pub use lineup_test::{LineupTest, MatrixOrigin, TestFailure, TestSummary};
pub use matrix::{MatrixDisplay, OpSlot, TestMatrix};
pub use observation::{Observation, ObservationKey, ObservationSet};
pub use parallel::{check_matrices, BatchFailure, BatchOutcome};
pub use phase1::{synthesize_spec, Synthesis};
pub use progress::Progress;
pub use replay::{Phase, ReplayToken, REPLAY_ENV};
pub use response::Response;
pub use sampling::{auto_matrices, sample_matrices, shard_indices};
pub use scheduler::StuckKind;
pub use shrink::{same_kind, shrink, Shrunk};
pub use subject::Subject;
pub use thread_id::{ThreadId, ThreadIdParseError};
pub use vacuity::vacuity_warning;
pub use verdict::{CheckStats, LoomEvidence, Verdict, Violation, ViolationKind};

//! The outcome of a check: PASS with statistics, or FAIL with a violation that proves the object
//! is not deterministically linearizable.

use std::time::Duration;

use crate::judge::report_file::ReportFile;
use crate::model::history::History;
use crate::model::interleaving::Interleaving;
use crate::model::invocation::InvocationLabel;
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::{ReplayToken, ScheduleCost};
use crate::model::stuck_kind::StuckKind;
use crate::spec::determinism::Nondeterminism;
use crate::spec::observation::Observation;

/// What a check explored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckStats {
    /// Serial executions in phase 1.
    pub serial_executions: u64,
    /// Distinct full serial histories.
    pub serial_full: usize,
    /// Distinct stuck serial histories.
    pub serial_stuck: usize,
    /// Time spent in phase 1.
    pub phase1_time: Duration,
    /// Concurrent executions in phase 2.
    pub concurrent_executions: u64,
    /// Distinct histories phase 2 checked.
    pub distinct_histories: usize,
    /// Of those, stuck ones.
    pub stuck_histories: usize,
    /// Phase-2 executions stopped at the step limit ([`Config::max_steps`](crate::Config)) or, under
    /// loom, at loom's branch limit while some thread was still making progress: their histories
    /// were not judged, so the PASS does not cover them. Never a FAIL.
    pub inconclusive_executions: u64,
    /// Time spent in phase 2.
    pub phase2_time: Duration,
    /// Cancellation points phase 2 offered over all its executions: the points after a poll of a
    /// [cancellable](crate::Invocation::cancellable) operation that returned `Pending` at which
    /// dropping its future was one of the choices (see
    /// [`Config::max_cancellations`](crate::Config::max_cancellations)). 0 without
    /// cancellable invocations.
    pub cancellation_points: u64,
    /// The preemption bound of phase 2.
    pub preemption_bound: u32,
    /// Whether phase 2 ran from a specification read from a file rather than a fresh phase 1.
    pub spec_from_file: bool,
    /// Under loom: stuck executions after which phase 2 resumed from loom's stored path (a thread
    /// blocked outside `lineup::sync`, or a spin loop), skipping the schedules only they would
    /// have led to. Always 0 on shuttle.
    pub stuck_resumed: usize,
    /// Executions of both phases that the partial-order reduction ([`Config::reduction`](crate::Config))
    /// ended early because every thread that could run was asleep: each reaches only histories
    /// found before. Counted in `serial_executions` and `concurrent_executions` too.
    pub redundant_executions: u64,
    /// The [interlude](crate::Interlude) phase 2 ran, if it ran (its tree was larger than the
    /// interlude's `after`), and how many of `concurrent_executions` were its own, in all its
    /// rounds ([`Interlude::rounds_for`](crate::Interlude::rounds_for) says how many).
    pub interlude: Option<(crate::config::Interlude, u64)>,
    /// Phase 2 stopped before its search was done, when the check's time
    /// ([`Config::max_duration`](crate::Config)) ran out: the verdict covers only the executions
    /// that ran (a violation found is still a violation).
    pub unfinished: bool,
}

/// Why a check failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViolationKind {
    /// Phase 1: two serial histories share a prefix that ends in a call and then differ (§2.3).
    Nondeterministic(Nondeterminism),
    /// Phase 2: a full history has no serial witness among the full serial histories (Def. 1).
    NotLinearizable {
        /// The violating history.
        history: History,
        /// The serial histories with the same per-thread results, if any serial execution
        /// produced them.
        group: Option<Observation>,
    },
    /// Phase 2: a stuck history has a pending operation `e` for which no stuck serial history is
    /// a witness of `H[e]` (Def. 2).
    StuckNotLinearizable {
        /// The violating stuck history.
        history: History,
        /// Why it is stuck.
        stuck: StuckKind,
        /// The pending operation without a stuck serial witness.
        pending_op: usize,
        /// The stuck serial histories with the same per-thread results as `H[e]`, if any.
        group: Option<Observation>,
    },
}

impl ViolationKind {
    /// Whether the violation is about a stuck history.
    pub fn is_stuck(&self) -> bool {
        matches!(self, ViolationKind::StuckNotLinearizable { .. })
    }

    /// Whether the violation is the determinism check of phase 1.
    pub fn is_nondeterminism(&self) -> bool {
        matches!(self, ViolationKind::Nondeterministic(_))
    }

    /// The violating history (for nondeterminism, the second serial history).
    pub fn history(&self) -> &History {
        match self {
            ViolationKind::Nondeterministic(n) => &n.second,
            ViolationKind::NotLinearizable { history, .. } | ViolationKind::StuckNotLinearizable { history, .. } => {
                history
            }
        }
    }
}

/// A failed check: everything a person needs to understand and replay the failure. Its
/// `Display` is the violation report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The subject's name.
    pub subject: String,
    /// The test matrix.
    pub matrix: TestMatrix,
    /// The subject's invocation labels (the matrix's entries index them).
    pub labels: Vec<InvocationLabel>,
    /// What went wrong.
    pub kind: ViolationKind,
    /// Re-runs exactly the violating execution (see [`replay`](crate::replay) and
    /// [`REPLAY_ENV`](crate::REPLAY_ENV)).
    pub replay: ReplayToken,
    /// What the check explored up to the failure.
    pub stats: CheckStats,
    /// Under the loom backend: how the violating execution used memory, and where its stored
    /// path is. `None` on shuttle, whose atomics are sequentially consistent.
    pub loom: Option<LoomEvidence>,
    /// How the schedule of `replay` was chosen: for a violation of phase 2 on shuttle, the schedule
    /// phase 2 found and, if one reaching the same history costs less, that one instead (see
    /// [`shorten_schedule`](crate::shorten_schedule)). `None` for nondeterminism, under loom, for a
    /// replayed schedule ([`REPLAY_ENV`](crate::REPLAY_ENV)), and where no shortening was tried.
    pub schedule: Option<ShownSchedule>,
    /// The HTML report written for this violation when
    /// [`LINEUP_REPORT_DIR`](crate::report_html::REPORT_DIR_ENV) is set (or why it could not
    /// be); the text report names it in its last line.
    pub html_report: Option<ReportFile>,
    /// Every step of the violating execution, recorded by one more replay of its schedule after
    /// the check failed (under loom: of loom's stored path, in a child process, with the steps of
    /// lineup's loom primitives in full and loom's own as loom's events name them). `None` when
    /// the replay did not give the same history, and for a violation of phase 1 under loom. The
    /// text report shows it as its "interleaving" section.
    pub interleaving: Option<Interleaving>,
}

/// The schedule a violation shows, against the one phase 2 found: the shown one has the fewest
/// preemptions, then the fewest context switches, that the search for it met among the schedules
/// that reach the same violating history, and never more than the found one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownSchedule {
    /// The token of the schedule phase 2 found.
    pub found: ReplayToken,
    /// Its preemptions and context switches.
    pub found_cost: ScheduleCost,
    /// The preemptions and context switches of the schedule shown ([`Violation::replay`]).
    pub shown_cost: ScheduleCost,
    /// The executions the search for a shorter schedule ran.
    pub executions: u64,
}

impl ShownSchedule {
    /// Whether the schedule shown is not the one found (it costs less).
    pub fn is_shortened(&self) -> bool {
        self.shown_cost < self.found_cost
    }

    /// The preemptions of the schedule phase 2 found.
    pub fn preemptions_before(&self) -> u32 {
        self.found_cost.preemptions
    }

    /// The preemptions of the schedule shown (never more than [`preemptions_before`](Self::preemptions_before)).
    pub fn preemptions_after(&self) -> u32 {
        self.shown_cost.preemptions
    }
}

/// What lineup knows about a violating execution found by loom.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LoomEvidence {
    /// Loads (of the atomics of [`lineup::sync::atomic`](crate::sync::atomic), which lineup
    /// tracks) that returned an older value than the latest store of the interleaving. Not empty:
    /// the violation needs weak memory, it is not an interleaving bug. Empty: no tracked atomic
    /// was read weakly; atomics the object takes from loom directly are not tracked.
    pub weak_loads: Vec<String>,
    /// loom's stored path of the violating execution: `LOOM_CHECKPOINT_FILE=<it>` makes loom run
    /// that execution first.
    pub checkpoint: Option<std::path::PathBuf>,
    /// The memory setting the violation was found in
    /// ([`Config::real_time_happens_before`](crate::Config)).
    pub real_time_happens_before: bool,
    /// When no tracked load was weak: the same matrix checked again in the other memory setting
    /// (real-time order as happens-before, or loom's bare C11), and whether it failed there too.
    /// `None` when it was not re-checked (weak loads were found, or a stored path is replayed).
    pub other_setting_fails: Option<bool>,
}

impl LoomEvidence {
    /// Whether the violating execution needed a weak-memory load.
    pub fn is_weak_memory(&self) -> bool {
        !self.weak_loads.is_empty()
    }
}

/// PASS or FAIL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No violation within the explored schedules.
    Pass(CheckStats),
    /// A violation of deterministic linearizability: a proof that the object is not linearizable
    /// with respect to any deterministic sequential specification.
    Fail(Box<Violation>),
}

impl Verdict {
    /// Whether the check passed.
    pub fn is_pass(&self) -> bool {
        matches!(self, Verdict::Pass(_))
    }

    /// The violation of a failed check.
    pub fn violation(&self) -> Option<&Violation> {
        match self {
            Verdict::Pass(_) => None,
            Verdict::Fail(v) => Some(v),
        }
    }

    /// The statistics of the check.
    pub fn stats(&self) -> &CheckStats {
        match self {
            Verdict::Pass(stats) => stats,
            Verdict::Fail(v) => &v.stats,
        }
    }
}

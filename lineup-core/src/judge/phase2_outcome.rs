//! What phase 2 found, whichever backend explored it, and what it tells an observer as it goes.

use std::time::Duration;

use crate::judge::verdict::{LoomEvidence, ViolationKind};
use crate::model::replay_token::ReplayToken;

/// The result of phase 2.
#[derive(Clone, Debug, Default)]
pub(crate) struct Phase2Outcome {
    pub violation: Option<(ViolationKind, ReplayToken)>,
    pub executions: u64,
    /// Of those, the ones the partial-order reduction ended early.
    pub redundant: u64,
    /// Cancellation points offered (see [`Config::max_cancellations`](crate::Config)).
    pub cancellation_points: u64,
    pub distinct: usize,
    pub stuck: usize,
    /// Executions stopped at the step limit (or loom's branch limit) without a verdict.
    pub inconclusive: u64,
    /// Under loom: stuck executions after which the exploration resumed from a stored path.
    pub resumed: usize,
    pub elapsed: Duration,
    /// What the loom backend knows about the violating execution.
    pub loom: Option<LoomEvidence>,
    /// The interlude that ran, with its executions (counted in `executions` too).
    pub interlude: Option<(crate::config::Interlude, u64)>,
    /// The check's time ([`Config::max_duration`](crate::Config)) ran out before the search did.
    pub unfinished: bool,
}

/// Listens to phase 2 as it goes (a [`survey`](crate::survey::survey) does): the executions that
/// ended and every distinct history met, judged. The exploration reports to it without knowing
/// who listens; it is shared by phase 2's workers.
pub(crate) trait Phase2Observer: Send + Sync {
    /// `n` executions ended (one handed over, and the redundant ones the reduction ended since the
    /// one before, which are not).
    fn executions(&self, n: u64);

    /// A distinct history was met: its fingerprint, whether it violates the specification, and
    /// whether it is stuck.
    fn history(&self, fingerprint: u128, violating: bool, stuck: bool);
}

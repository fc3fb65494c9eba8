//! The one backend seam: the check picks the backend that runs phase 1's serial executions and
//! phase 2's concurrent ones here, once: shuttle ([`explore`](crate::explore)), or loom
//! ([`loom_backend`](crate::loom_backend)) when the crate is built with `RUSTFLAGS="--cfg loom"`.
//! Both backends take the same arguments and return the same results; neither calls back into
//! the check above it. Replay runs here too: a shuttle token is re-run by shuttle in either build
//! (loom replays its own executions from its stored path).

use std::sync::Arc;

use crate::config::Config;
use crate::environment::Environment;
use crate::error::CheckError;
use crate::explore::replay::ReplayedExecution;
pub(crate) use crate::explore::shorten::Shortening;
#[cfg(not(loom))]
use crate::judge::phase2_outcome::Phase2Observer;
use crate::judge::phase2_outcome::Phase2Outcome;
use crate::judge::verdict::Violation;
use crate::model::interleaving::Interleaving;
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::{Phase, ReplayToken};
use crate::model::subject::Subject;
use crate::spec::observation::ObservationSet;
use crate::spec::synthesis::Synthesis;

/// Phase 1: every serial execution of `matrix`, and the specification they make (`environment`:
/// the check's, whose loom settings the loom backend reads; shuttle reads none).
pub(crate) fn serial_executions<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    environment: &Environment,
) -> Result<Synthesis, CheckError> {
    #[cfg(loom)]
    return crate::loom_backend::serial_executions(subject, matrix, config, environment);
    #[cfg(not(loom))]
    {
        let _ = environment;
        crate::explore::serial::serial_executions(subject, matrix, config)
    }
}

/// Phase 2: the concurrent executions the configured strategy chooses (or the one schedule of
/// `replay`; loom explores with its own DPOR and ignores both), each distinct history judged
/// against `spec`, until the first violation (`environment` as for [`serial_executions`]).
pub(crate) fn concurrent_executions<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: Arc<ObservationSet>,
    config: &Config,
    replay: Option<&ReplayToken>,
    environment: &Environment,
) -> Result<Phase2Outcome, CheckError> {
    #[cfg(loom)]
    return {
        let _ = replay;
        crate::loom_backend::concurrent_executions(subject, matrix, spec, config, environment)
    };
    #[cfg(not(loom))]
    {
        let _ = environment;
        crate::explore::concurrent::concurrent_executions(subject, matrix, spec, config, replay, None)
    }
}

/// Phase 2 that explores every schedule on one worker and reports each execution and each
/// distinct history to `observer` without stopping at a violation (a
/// [`survey`](crate::survey::survey)'s). Shuttle backend only.
#[cfg(not(loom))]
pub(crate) fn observed_concurrent_executions<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: Arc<ObservationSet>,
    config: &Config,
    observer: &Arc<dyn Phase2Observer>,
) -> Result<Phase2Outcome, CheckError> {
    crate::explore::concurrent::concurrent_executions(subject, matrix, spec, config, None, Some(observer))
}

/// The one execution a shuttle replay token (phase 1's or phase 2's) describes, re-run on shuttle
/// whatever the build (the caller refuses loom's tokens); `None` when its schedule does not fit
/// `matrix`.
pub(crate) fn replay_execution<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    token: &ReplayToken,
    config: &Config,
) -> Result<Option<ReplayedExecution>, CheckError> {
    crate::explore::replay::replay_execution(subject, matrix, token, config)
}

/// A schedule of fewer preemptions (then context switches) than the phase-2 shuttle token
/// `found` that reaches the same history on `matrix`, searched on shuttle within `budget`
/// executions whatever the build (the caller passes no loom token); `None` when `found` does not
/// replay to a judged execution.
pub(crate) fn shortest_schedule<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    found: &ReplayToken,
    config: &Config,
    budget: u64,
) -> Result<Option<Shortening>, CheckError> {
    crate::explore::shorten::shortest_schedule(subject, matrix, found, config, budget)
}

/// The steps of the one execution `violation` describes, recorded by a replay with step
/// recording on, if its history is the violation's. A shuttle token is replayed by shuttle; a
/// loom violation's stored path by loom, in a child process (a phase-1 loom violation has none:
/// `None`).
pub(crate) fn record_interleaving<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    violation: &Violation,
    config: &Config,
    environment: &Environment,
) -> Result<Option<Interleaving>, CheckError> {
    let expected = violation.kind.history();
    match violation.replay.phase {
        Phase::LoomSerial => Ok(None),
        Phase::LoomConcurrent { .. } => record_loom_interleaving(subject, matrix, violation, config, environment),
        _ => {
            let recorded = crate::explore::replay::record_interleaving(subject, matrix, &violation.replay, config)?;
            Ok(recorded
                .filter(|(execution, _)| &execution.history == expected)
                .map(|(_, interleaving)| interleaving))
        }
    }
}

#[cfg(loom)]
fn record_loom_interleaving<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    violation: &Violation,
    config: &Config,
    environment: &Environment,
) -> Result<Option<Interleaving>, CheckError> {
    let Some(evidence) = violation.loom.as_ref() else {
        return Ok(None);
    };
    crate::loom_backend::record_interleaving(subject, matrix, evidence, config, environment, violation.kind.history())
}

/// A loom token outside a loom build: nothing to replay it with.
#[cfg(not(loom))]
fn record_loom_interleaving<O: Send + Sync + 'static>(
    _: &Subject<O>,
    _: &TestMatrix,
    _: &Violation,
    _: &Config,
    _: &Environment,
) -> Result<Option<Interleaving>, CheckError> {
    Ok(None)
}

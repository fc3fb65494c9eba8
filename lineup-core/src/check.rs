//! `Check(X, m)` (paper Fig. 5), checking phase 2 against a given specification, and replay.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::decision_tree::DecisionTree;
use crate::explore::explore;
use crate::phase1::synthesize_spec;
use crate::phase2::{check_concurrent, judge, Exploration2};
use crate::recording::Trace;
use crate::scheduler::{Control, Mode};
use crate::{
    observation_file, op_table, CheckError, CheckStats, Config, History, ObservationSet, Phase, ReplayToken, StuckKind,
    Subject, TestMatrix, Verdict, Violation, ViolationKind, REPLAY_ENV,
};

/// Runs `Check(X, m)`: phase 1 synthesizes the specification from every serial execution of
/// `matrix` and fails if it is nondeterministic; phase 2 explores concurrent schedules within
/// `config.preemption_bound` and fails on the first history without a serial witness (Def. 1)
/// or a stuck history with an unjustified pending operation (Def. 2).
///
/// If the environment variable [`REPLAY_ENV`] holds a replay token from a report, phase 2 runs
/// that one schedule instead of exploring.
///
/// ```
/// use lineup_core::{check, Config, Invocation, Subject, TestMatrix};
/// use shuttle::sync::atomic::{AtomicU64, Ordering};
///
/// let counter = Subject::new("atomic counter", || AtomicU64::new(0))
///     .with(Invocation::new("inc", |c: &AtomicU64| { c.fetch_add(1, Ordering::SeqCst); }))
///     .with(Invocation::new("get", |c: &AtomicU64| c.load(Ordering::SeqCst)));
/// let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
/// let verdict = check(&counter, &matrix, &Config::default()).unwrap();
/// assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
/// ```
pub fn check<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
) -> Result<Verdict, CheckError> {
    let synthesis = synthesize_spec(subject, matrix, config)?;
    let mut stats = CheckStats {
        serial_executions: synthesis.executions,
        serial_full: synthesis.spec.full_count(),
        serial_stuck: synthesis.spec.stuck_count(),
        phase1_time: synthesis.elapsed,
        preemption_bound: config.preemption_bound,
        ..CheckStats::default()
    };
    if let Some((nondeterminism, replay)) = synthesis.nondeterminism {
        return Ok(fail(
            subject,
            matrix,
            ViolationKind::Nondeterministic(nondeterminism),
            replay,
            stats,
        ));
    }
    let tree = replay_tree_from_env()?;
    let phase2 = check_concurrent(subject, matrix, Arc::new(synthesis.spec), config, tree)?;
    Ok(conclude(subject, matrix, phase2, &mut stats))
}

/// Runs phase 2 of `Check(X, m)` against a specification obtained earlier (typically read from
/// an observation file with [`read_observation_file`](crate::observation_file::read_observation_file)),
/// without a fresh phase 1. The specification must belong to `matrix`.
pub fn check_against_spec<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: &ObservationSet,
    config: &Config,
) -> Result<Verdict, CheckError> {
    subject.validate(matrix)?;
    observation_file::check_matches(spec, &op_table(matrix, &subject.labels()), "the given specification")?;
    let mut stats = CheckStats {
        serial_full: spec.full_count(),
        serial_stuck: spec.stuck_count(),
        preemption_bound: config.preemption_bound,
        spec_from_file: true,
        ..CheckStats::default()
    };
    if let Some(nondeterminism) = crate::find_nondeterminism(spec.histories()) {
        let replay = ReplayToken {
            phase: Phase::Serial,
            choices: Vec::new(),
        };
        return Ok(fail(
            subject,
            matrix,
            ViolationKind::Nondeterministic(nondeterminism),
            replay,
            stats,
        ));
    }
    let tree = replay_tree_from_env()?;
    let phase2 = check_concurrent(subject, matrix, Arc::new(spec.clone()), config, tree)?;
    Ok(conclude(subject, matrix, phase2, &mut stats))
}

/// One execution re-run from a replay token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The history of the execution.
    pub history: History,
    /// Why it is stuck, if it is.
    pub stuck: Option<StuckKind>,
    /// For a phase-2 token: why the history violates the specification of a fresh phase 1, if it
    /// does.
    pub violation: Option<ViolationKind>,
}

/// Re-runs exactly the execution a [`ReplayToken`] from a report describes, and for a phase-2
/// token judges its history against a fresh phase 1.
pub fn replay<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    token: &ReplayToken,
    config: &Config,
) -> Result<Replayed, CheckError> {
    subject.validate(matrix)?;
    let (mode, config) = match token.phase {
        Phase::Serial => (Mode::Serial, config.clone()),
        Phase::Concurrent { preemption_bound } => (
            Mode::Preemptive {
                bound: preemption_bound,
            },
            Config {
                preemption_bound,
                ..config.clone()
            },
        ),
    };
    let captured: Rc<RefCell<Option<(Trace, Option<StuckKind>)>>> = Rc::default();
    let sink_captured = Rc::clone(&captured);
    explore(
        subject,
        matrix,
        mode,
        DecisionTree::replaying(&token.choices),
        &config,
        move |result| {
            *sink_captured.borrow_mut() = Some((result.trace.to_owned(), result.stuck));
            Control::Stop
        },
    )?;
    let (trace, stuck) = captured.borrow_mut().take().ok_or_else(|| CheckError::BadReplayToken {
        token: token.to_string(),
        problem: "the schedule does not fit this matrix".into(),
    })?;
    let ops = op_table(matrix, &subject.labels());
    let history = trace.as_ref().history(&ops);
    let violation = match token.phase {
        Phase::Serial => None,
        Phase::Concurrent { .. } => {
            let synthesis = synthesize_spec(subject, matrix, &config)?;
            judge(&synthesis.spec, &history, stuck, config.check_stuck)
        }
    };
    Ok(Replayed {
        history,
        stuck,
        violation,
    })
}

/// The decision tree for phase 2: exhaustive, or one schedule from [`REPLAY_ENV`].
fn replay_tree_from_env() -> Result<DecisionTree, CheckError> {
    match std::env::var(REPLAY_ENV) {
        Ok(token) if !token.trim().is_empty() => {
            let token: ReplayToken = token.parse()?;
            match token.phase {
                Phase::Concurrent { .. } => {
                    eprintln!("lineup: {REPLAY_ENV} is set: phase 2 replays the schedule {token} only");
                    Ok(DecisionTree::replaying(&token.choices))
                }
                Phase::Serial => Err(CheckError::BadReplayToken {
                    token: token.to_string(),
                    problem: format!(
                        "{REPLAY_ENV} replays phase-2 schedules; phase 1 always runs every serial execution \
                         (use lineup_core::replay for a serial one)"
                    ),
                }),
            }
        }
        _ => Ok(DecisionTree::new()),
    }
}

fn conclude<O>(subject: &Subject<O>, matrix: &TestMatrix, phase2: Exploration2, stats: &mut CheckStats) -> Verdict {
    stats.concurrent_executions = phase2.executions;
    stats.distinct_histories = phase2.distinct;
    stats.stuck_histories = phase2.stuck;
    stats.phase2_time = phase2.elapsed;
    match phase2.violation {
        None => Verdict::Pass(stats.clone()),
        Some((kind, replay)) => fail(subject, matrix, kind, replay, stats.clone()),
    }
}

fn fail<O>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    kind: ViolationKind,
    replay: ReplayToken,
    stats: CheckStats,
) -> Verdict {
    Verdict::Fail(Box::new(Violation {
        subject: subject.name().to_string(),
        matrix: matrix.clone(),
        labels: subject.labels(),
        kind,
        replay,
        stats,
    }))
}

//! Replay on shuttle: how a token's schedule is followed, and the one execution it describes
//! re-run.

use std::cell::RefCell;
use std::rc::Rc;

use crate::config::{Config, Strategy};
use crate::error::CheckError;
use crate::explore::decision_tree::DecisionTree;
use crate::explore::recording::history_of;
use crate::explore::run::explore;
use crate::explore::scheduler::Control;
use crate::explore::strategy;
use crate::explore::trace::Recorder;
use crate::model::history::History;
use crate::model::interleaving::Interleaving;
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::{Phase, ReplayToken, ScheduleCost};
use crate::model::stuck_kind::StuckKind;
use crate::model::subject::Subject;
use crate::model::trace::Trace;

/// How the schedule of a shuttle token is followed.
pub(crate) struct ReplayPlan<'t> {
    /// The settings it runs under: a pb-dfs token ([`Phase::Concurrent`]) carries its bound and is
    /// followed by pb-dfs.
    pub config: Config,
    /// A pb-dfs token (and a serial one) is followed through the decision tree.
    pub tree: DecisionTree,
    /// Any other phase-2 token by the strategy that replays thread indices, these.
    pub by_index: Option<&'t [u32]>,
}

/// How `token`'s schedule is followed under `config`.
pub(crate) fn plan<'t>(token: &'t ReplayToken, config: &Config) -> ReplayPlan<'t> {
    match token.phase {
        Phase::Concurrent { preemption_bound } => ReplayPlan {
            config: Config {
                preemption_bound,
                strategy: Strategy::PbDfs,
                ..config.clone()
            },
            tree: DecisionTree::replaying(&token.choices),
            by_index: None,
        },
        Phase::ConcurrentYields {
            preemption_bound,
            yield_choices,
            yield_to_self,
        } => ReplayPlan {
            config: Config {
                preemption_bound,
                yield_choices,
                yield_to_self,
                strategy: Strategy::PbDfs,
                ..config.clone()
            },
            tree: DecisionTree::replaying(&token.choices),
            by_index: None,
        },
        Phase::Scheduled => ReplayPlan {
            config: config.clone(),
            tree: DecisionTree::new(),
            by_index: Some(token.choices.as_slice()),
        },
        Phase::Serial | Phase::LoomSerial | Phase::LoomConcurrent { .. } => ReplayPlan {
            config: config.clone(),
            tree: DecisionTree::replaying(&token.choices),
            by_index: None,
        },
    }
}

/// The one execution a token describes, re-run.
pub(crate) struct ReplayedExecution {
    /// Its history.
    pub history: History,
    /// Why it is stuck, if it is.
    pub stuck: Option<StuckKind>,
    /// It reached the step limit.
    pub inconclusive: bool,
    /// Its preemptions and context switches.
    pub cost: ScheduleCost,
}

/// Re-runs the one execution of `matrix` that a shuttle token (phase 1's or phase 2's; the caller
/// refuses loom's) describes; `None` when its schedule does not fit the matrix.
pub(crate) fn replay_execution<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    token: &ReplayToken,
    config: &Config,
) -> Result<Option<ReplayedExecution>, CheckError> {
    let ReplayPlan { config, tree, by_index } = plan(token, config);
    let strategy = match token.phase {
        Phase::Serial => None,
        _ => Some(strategy::for_phase2(&config, by_index)),
    };
    type Captured = Option<(Trace, Option<StuckKind>, bool, ScheduleCost)>;
    let captured: Rc<RefCell<Captured>> = Rc::default();
    let sink_captured = Rc::clone(&captured);
    explore(subject, matrix, tree, strategy, None, &config, move |result| {
        *sink_captured.borrow_mut() = Some((result.trace.to_owned(), result.stuck, result.inconclusive, result.cost));
        Control::Stop
    })?;
    let Some((trace, stuck, inconclusive, cost)) = captured.borrow_mut().take() else {
        return Ok(None);
    };
    let ops = subject.op_table(matrix);
    Ok(Some(ReplayedExecution {
        history: history_of(trace.as_ref(), &ops),
        stuck,
        inconclusive,
        cost,
    }))
}

/// [`replay_execution`] with every step recorded (see [`trace`](crate::explore::trace)): the one
/// execution of a violation's report, re-run once more. Recording is on only on this OS thread and
/// only during this replay.
pub(crate) fn record_interleaving<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    token: &ReplayToken,
    config: &Config,
) -> Result<Option<(ReplayedExecution, Interleaving)>, CheckError> {
    let recorder = Recorder::start();
    let replayed = replay_execution(subject, matrix, token, config);
    let interleaving = recorder.finish();
    Ok(replayed?.map(|execution| (execution, interleaving)))
}

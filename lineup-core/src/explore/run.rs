//! Runs one exploration (many executions of a matrix) on shuttle with lineup's scheduler.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use shuttle::{FailurePersistence, MaxSteps, Runner};

use crate::config::{Config, Reduction};
use crate::error::CheckError;
use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::harness::{panic_message, remember_panic_hook, test_body};
use crate::explore::recording;
use crate::explore::scheduler::{
    Control, ExecutionResult, ExplorationTotals, LineupScheduler, Mode, SchedulerState, Settings,
};
use crate::explore::split::SplitQueue;
use crate::explore::strategy::serial_dfs::SerialDfs;
use crate::explore::strategy::SchedulingStrategy;
use crate::model::matrix::TestMatrix;
use crate::model::subject::Subject;

/// Whether the object has threads of its own ([`Reduction::Auto`]): one serial execution, without
/// the reduction, sees a thread that runs outside every pending operation (spawned by the
/// constructor, or outliving its operation). A probe that fails says no: the exploration that
/// follows meets the same failure and reports it.
pub(crate) fn has_threads_of_its_own<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
) -> bool {
    let probe = Config {
        reduction: Reduction::Off,
        ..config.clone()
    };
    explore_keeping_tree(subject, matrix, DecisionTree::new(), None, None, &probe, |_| {
        Control::Stop
    })
    .is_ok_and(|(explored, _)| explored.background)
}

/// Explores `matrix`: its serial executions (phase 1) without a `strategy`, else the concurrent
/// ones the strategy chooses, handing every execution to `sink` until it says stop or the
/// exploration is complete (or, with `split`, until the workers sharing the tree are done).
pub(crate) fn explore<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    tree: DecisionTree,
    strategy: Option<Box<dyn SchedulingStrategy>>,
    split: Option<&Arc<SplitQueue>>,
    config: &Config,
    sink: impl for<'a> FnMut(ExecutionResult<'a>) -> Control + 'static,
) -> Result<ExplorationTotals, CheckError> {
    explore_keeping_tree(subject, matrix, tree, strategy, split, config, sink).map(|(explored, _)| explored)
}

/// [`explore`], giving back the tree as the exploration left it: at its last execution, which
/// [`DecisionTree::advance`] moves past (to resume an exploration stopped at `max_executions`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn explore_keeping_tree<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    tree: DecisionTree,
    strategy: Option<Box<dyn SchedulingStrategy>>,
    split: Option<&Arc<SplitQueue>>,
    config: &Config,
    sink: impl for<'a> FnMut(ExecutionResult<'a>) -> Control + 'static,
) -> Result<(ExplorationTotals, DecisionTree), CheckError> {
    let (mode, strategy) = match strategy {
        Some(strategy) => (Mode::Concurrent, strategy),
        None => (Mode::Serial, Box::new(SerialDfs) as Box<dyn SchedulingStrategy>),
    };
    let phase = match mode {
        Mode::Serial => "phase 1 (serial executions)",
        Mode::Concurrent => "phase 2 (concurrent executions)",
    };
    let settings = settings_for(subject, matrix, config, mode, &tree, strategy.as_ref());
    // shuttle's own primitives seen by the reduction (the spin bound has no use for them: their
    // steps are never repeated reads of lineup's atomics).
    // Every exploration keeps `tracing`'s interest in the callsites lineup reads, whether or not it
    // reads them: one that does not may be the first of the process to reach them.
    crate::explore::shuttle_events::keep_interest();
    // What code outside lineup tells the reduction (lineup's vendor/shuttle-tokio-impl-inner).
    crate::explore::observed::install();
    let _shuttle_events = settings.reduction.then(crate::explore::shuttle_events::install);
    let state = Rc::new(RefCell::new(SchedulerState::new(
        settings,
        tree,
        strategy,
        split.cloned(),
        Box::new(sink),
    )));
    let ran = run_on_shuttle(subject, matrix, &state, mode);
    // Whatever the outcome: an execution that failed while it was abandoned never reached the
    // start of the next one, which ends the abandonment, and its flag must not outlive the
    // exploration (lineup's `vendor/shuttle-std` reads it in any shuttle test on this thread).
    lineup_signals::abandonment::end();
    crate::explore::footprint::end_exploration();
    let elapsed = ran.map_err(|message| CheckError::ExecutionFailed { phase, message })?;
    let mut state = state.borrow_mut();
    if let Some(divergence) = &state.divergence {
        return Err(divergence_error(divergence, phase));
    }
    let totals = ExplorationTotals {
        elapsed,
        ..state.totals
    };
    Ok((totals, state.take_tree()))
}

/// The settings of an exploration in `mode` of `tree` with `strategy`.
fn settings_for<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    mode: Mode,
    tree: &DecisionTree,
    strategy: &dyn SchedulingStrategy,
) -> Settings {
    let cancels = config.max_cancellations > 0 && subject.invocations().iter().any(|i| i.is_cancellable());
    Settings {
        mode,
        op_count: subject.op_count(matrix),
        spin_bound: config.spin_bound,
        fair_switch_steps: config.fair_switch_steps.max(1),
        max_steps: config.max_steps,
        max_executions: match mode {
            Mode::Serial => None,
            Mode::Concurrent => config.max_executions,
        },
        // Replays (no branch point to prune) and the strategies other than pb-dfs go without;
        // so do explorations with cancellation points, whose choices are no thread's steps.
        reduction: config.reduction != Reduction::Off
            && !tree.is_replay()
            && !cancels
            && match mode {
                Mode::Serial => true,
                Mode::Concurrent => config.strategy == crate::config::Strategy::PbDfs && strategy.supports_reduction(),
            }
            && (config.reduction == Reduction::On || has_threads_of_its_own(subject, matrix, config)),
        reduction_fault: config.reduction_fault,
        max_cancellations: if cancels { config.max_cancellations } else { 0 },
        // pb-dfs is the one strategy that follows it; phase 1 has no preemption to prune. A
        // replay prunes as the search did: a pruned point has no branch in the token.
        spin_pruning: if mode == Mode::Concurrent && config.strategy == crate::config::Strategy::PbDfs {
            config.spin_pruning
        } else {
            crate::config::SpinPruning::Off
        },
    }
}

/// Runs every execution of the exploration `state` on shuttle: how long it took, or the message
/// of a panic that escaped an execution.
fn run_on_shuttle<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    state: &Rc<RefCell<SchedulerState>>,
    mode: Mode,
) -> Result<Duration, String> {
    let mut shuttle_config = shuttle::Config::new();
    shuttle_config.max_steps = MaxSteps::None;
    shuttle_config.failure_persistence = FailurePersistence::None;
    shuttle_config.silence_warnings = true;
    remember_panic_hook();
    recording::reset_interner();
    let runner = Runner::new(LineupScheduler::new(Rc::clone(state)), shuttle_config);
    // Phase 1 chooses at every gate, so that an operation without a scheduling point of its own
    // can follow another thread's (harness.rs).
    let body = test_body(subject.clone(), matrix, mode == Mode::Serial);
    let start = Instant::now();
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| runner.run(body)));
    let elapsed = start.elapsed();
    outcome
        .map(|_| elapsed)
        .map_err(|payload| panic_message(payload.as_ref()))
}

/// The error of an exploration whose schedule diverged in `phase`: a replay token that does not
/// fit the execution, or nondeterminism the model checker does not control.
fn divergence_error(d: &Divergence, phase: &'static str) -> CheckError {
    if d.from_token {
        let problem = if d.found_options == 0 {
            format!(
                "the execution has {} branch points, the token more choices than that",
                d.depth
            )
        } else {
            format!(
                "choice {} at branch point {} is out of range: there are {} options",
                d.expected_options - 1,
                d.depth,
                d.found_options
            )
        };
        // The caller knows the token and fills it in.
        return CheckError::BadReplayToken {
            token: String::new(),
            problem,
        };
    }
    CheckError::UncontrolledNondeterminism {
        phase,
        depth: d.depth,
        expected: d.expected_options,
        found: d.found_options,
    }
}

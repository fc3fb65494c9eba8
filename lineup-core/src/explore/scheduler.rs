//! lineup's shuttle scheduler: every serial execution for phase 1, the concurrent executions its
//! [strategy](crate::explore::strategy) chooses for phase 2, over a [`DecisionTree`].
//!
//! Its state, [`SchedulerState`], keeps apart what lasts for the exploration (its [`Settings`],
//! the tree, the strategy, the [`ExplorationTotals`]) and what lasts for one execution (an
//! `ExecutionState`, and the partial-order reduction's `ReductionState`), which each new
//! execution replaces whole; what the tasks of the execution record themselves lives in the
//! [execution context](crate::explore::context). A decision ([`SchedulerState`]'s `decide`) first
//! settles what is not a choice (the end, the step limit, fast paths, harness code, stuck and
//! redundant executions) and hands every choice to the strategy (phase 1's is
//! [`SerialDfs`](crate::explore::strategy::serial_dfs::SerialDfs)).
//!
//! At every scheduling point the scheduler looks at the [`Role`] of each runnable task:
//!
//! * Harness code runs without branching (it touches nothing shared).
//! * **Serial** (phase 1): while an operation is pending only its own threads (and background
//!   threads of the object) may run; between operations the scheduler branches over the workers
//!   waiting at their gates. Never bounded. If the pending operation cannot run, the serial
//!   history is stuck.
//! * **Preemptive** (phase 2): a thread keeps running for free; switching away from it while it
//!   could still run (inside an operation, or at the gate of its next one) is a preemption, as in
//!   CHESS, allowed while fewer than the bound have been spent. Switches away from blocked or
//!   finished threads are free.
//! * A yield (`yield_now`, spin hints) is a free switch to the thread that ran least recently,
//!   so spin-waits are explored fairly.
//! * A thread that has run `fair_switch_steps` scheduling steps in a row (a loop that spins on
//!   `std::hint::spin_loop()`, which yields to no scheduler) gets the same free, fair switch, in
//!   both modes: with the preemption budget spent, an unfair scheduler would let it spin forever
//!   while the thread it waits for never runs again, a schedule no real machine keeps up.
//! * A thread that spins on an unchanged value (it ran the last two steps, the last one read one
//!   of lineup's atomics and nothing else, and its next step reads it again: `repeats_read`) gets
//!   its fair switch after `n` steps in a row instead of `fair_switch_steps` (the default,
//!   [`SpinPruning::SwitchAfter`]: a bound, nothing pruned), or is offered no preemption there
//!   ([`SpinPruning::Preemptions`]), or gets its fair switch at once ([`SpinPruning::Switch`]):
//!   those two presume a preemption there reaches what the preemption one iteration earlier
//!   reached.
//! * Yields and fair switches are counted per operation since the last progress (a call or a
//!   return anywhere): when every thread that could run is inside an operation that has counted
//!   `spin_bound` of them, no fair continuation lets an operation return and the history is stuck
//!   (livelock). When only the watchdog can run, every thread is blocked (deadlock).
//! * An execution that still reaches `max_steps` is stopped and *inconclusive*: it is counted,
//!   never judged.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use shuttle::current::TaskId;
use shuttle::scheduler::{Schedule, Scheduler, Task};

use crate::config::{ReductionFault, SpinPruning};
use crate::explore::abandonment::{self, Abandonment};
use crate::explore::context::ExecutionContext;
use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::footprint::{Footprint, FootprintLog, Kind};
use crate::explore::recording;
use crate::explore::recording::Recording;
use crate::explore::role::Role;
use crate::explore::sleep::{commutes_with_all, covers_siblings, SleepRecord, SleepSet};
use crate::explore::split::{SplitQueue, SplitWorker};
use crate::explore::strategy::{Point, SchedulingStrategy};
use crate::explore::trace;
use crate::judge::live;
use crate::model::replay_token::{Phase, ScheduleCost};
use crate::model::stuck_kind::StuckKind;
use crate::model::trace::TraceRef;

/// How the scheduler explores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Phase 1: serial executions only, all of them.
    Serial,
    /// Phase 2: the concurrent schedules the exploration's
    /// [strategy](crate::explore::strategy) chooses.
    Concurrent,
}

/// What one execution produced.
#[derive(Clone, Debug)]
pub(crate) struct ExecutionResult<'a> {
    pub trace: TraceRef<'a>,
    pub stuck: Option<StuckKind>,
    /// Redundant executions (never handed over) since the one before this.
    pub redundant_before: u64,
    /// The execution reached the step limit: its history is not judged.
    pub inconclusive: bool,
    /// Its preemptions and context switches.
    pub cost: ScheduleCost,
    tree: &'a DecisionTree,
    strategy: &'a dyn SchedulingStrategy,
    by_index: &'a [u32],
}

impl ExecutionResult<'_> {
    /// The choices of the execution: its replay token's.
    pub fn schedule(&self) -> Vec<u32> {
        self.token().1
    }

    /// The execution's place in the exploration: executions compare in depth-first order (or, for
    /// a sampling strategy, by index) by it.
    pub fn position(&self) -> Vec<u32> {
        self.strategy.position(self.tree)
    }

    /// The phase and the choices of the execution's replay token.
    pub fn token(&self) -> (Phase, Vec<u32>) {
        self.strategy.token(self.tree, self.by_index)
    }
}

/// Whether to go on exploring after an execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Control {
    Continue,
    Stop,
}

/// How an exploration explores, and the bounds on each of its executions: fixed for the
/// exploration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    pub mode: Mode,
    /// The operations of the matrix, and the workers' handle drops after them.
    pub op_count: usize,
    pub spin_bound: u32,
    pub fair_switch_steps: u32,
    pub max_steps: u64,
    pub max_executions: Option<u64>,
    /// Sleep sets over the steps lineup's primitives announce (see
    /// [`sleep`](crate::explore::sleep)).
    pub reduction: bool,
    pub reduction_fault: Option<ReductionFault>,
    /// Mark the points where the current thread re-reads an unchanged value (see
    /// [`Config::spin_pruning`](crate::Config::spin_pruning)); footprints are recorded for it
    /// even without the reduction.
    pub spin_pruning: SpinPruning,
    /// The most operations an execution cancels (see
    /// [`Config::max_cancellations`](crate::Config::max_cancellations)): in phase 1 the skips of
    /// cancellable operations, in phase 2 the drops after a `Pending` poll.
    pub max_cancellations: u32,
}

/// The step granted at the last decision, for its sleep record.
#[derive(Clone, Copy, Debug)]
struct GrantedStep {
    task: TaskId,
    /// The branch point and option it was chosen at, if it was a choice.
    branch: Option<(usize, u32)>,
    /// Objects numbered when it began.
    young_from: u32,
    /// Events recorded when it began.
    events_before: usize,
    /// The current thread going on for free (it may sleep in later siblings under the bound).
    free_continuation: bool,
    /// Granted where the current thread gave way (its record never sleeps).
    give_way: bool,
}

type Sink = Box<dyn for<'a> FnMut(ExecutionResult<'a>) -> Control>;

/// Totals of one exploration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ExplorationTotals {
    /// Executions run to their end (or stopped), redundant ones included.
    pub executions: u64,
    /// Of those, the executions the partial-order reduction ended early (never judged).
    pub redundant: u64,
    /// Scheduling steps of every execution together (their abandonments not counted).
    pub steps: u64,
    /// Wall-clock time of the exploration (set by its [run](crate::explore::run) when it ends).
    pub elapsed: Duration,
    /// Some execution had a thread of the object's own running (see
    /// [`Reduction::Auto`](crate::config::Reduction::Auto)).
    pub background: bool,
    /// Cancellation points offered (a choice between dropping a cancellable future and going on),
    /// over every execution.
    pub cancellation_points: u64,
}

/// Where the exploration is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lifecycle {
    /// No execution has begun yet.
    NotStarted,
    /// An execution is in progress.
    Running,
    /// The exploration is over: no execution follows.
    Stopped,
}

/// How an execution ended before its last operation returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EarlyEnd {
    /// The history is stuck (recorded, then the execution is abandoned).
    Stuck(StuckKind),
    /// Every thread that could run was asleep (the execution is abandoned, never judged).
    Redundant,
    /// The execution reached the step limit (stopped, never judged).
    Inconclusive,
}

/// The state of the execution in progress, replaced whole when the next one begins (see
/// [`ExecutionState::next`]).
#[derive(Debug, Default)]
struct ExecutionState {
    /// Scheduling points decided so far (not those of its abandonment).
    step: u64,
    /// The step at which each task last ran, indexed by task id (0: not yet).
    last_run: Vec<u64>,
    /// The task that ran last, and how many steps in a row it has run since it was switched to
    /// (or since its last yield or fair switch).
    run: Option<(TaskId, u32)>,
    /// Set once, when the execution ends before its last operation returned.
    early_end: Option<EarlyEnd>,
    /// A thread of the object's own ran in this execution.
    saw_background: bool,
    /// Set when the execution is stuck or redundant, its history recorded: it is being ended
    /// cleanly, and every later scheduling point is the abandonment's.
    abandonment: Option<Abandonment>,
    /// Steps of the quiet end so far (see `quiet_end`).
    quiet_end_steps: u64,
    /// The index of the thread chosen at every point of this execution with more than one (the
    /// replay token of every strategy but `pb-dfs`).
    by_index: Vec<u32>,
    /// The spin pruning's record of the step granted last, while the reduction is off.
    spin: SpinWatch,
    /// The preemptions and context switches of the choices so far.
    switches: SwitchCount,
    /// The decision in progress switches for fairness (for the record of steps).
    fair_switch: bool,
    /// Operations cancelled so far (in phase 1, skipped).
    cancels: u32,
}

/// The [`ScheduleCost`] of the execution in progress, counted at each choice among the members.
#[derive(Debug, Default)]
struct SwitchCount {
    cost: ScheduleCost,
    /// The thread the previous choice ran.
    last: Option<TaskId>,
}

impl SwitchCount {
    /// The member at position `k` of `point` runs: a preemption when the current thread could go
    /// on and does not give way, a context switch when another thread than the previous choice's
    /// runs. The main thread (task 0, which builds the object, runs the initial and final
    /// operations and spawns the workers, never beside them) is not counted.
    fn note(&mut self, point: &Point<'_>, k: usize) {
        let chosen = point.members[k];
        if usize::from(chosen) == 0 {
            return;
        }
        if point.current.is_some_and(|c| c != k) && !point.gives_way() {
            self.cost.preemptions += 1;
        }
        if self.last.is_some_and(|last| last != chosen) {
            self.cost.context_switches += 1;
        }
        self.last = Some(chosen);
    }
}

/// What the spin pruning keeps of the step granted last when the reduction (which keeps its own)
/// is off: its task and the events recorded before it, and, once closed, its footprint.
#[derive(Debug, Default)]
struct SpinWatch {
    granted: Option<(TaskId, usize)>,
    closed: Footprint,
}

impl ExecutionState {
    /// The state of the next execution: fresh, in this one's buffers.
    fn next(self) -> Self {
        let Self {
            mut last_run,
            mut by_index,
            mut spin,
            ..
        } = self;
        last_run.clear();
        by_index.clear();
        spin.granted = None;
        Self {
            last_run,
            by_index,
            spin,
            ..Self::default()
        }
    }

    /// `task` runs at this step.
    fn note_run(&mut self, task: TaskId) {
        let i = usize::from(task);
        if self.last_run.len() <= i {
            self.last_run.resize(i + 1, 0);
        }
        self.last_run[i] = self.step;
        self.run = match self.run {
            Some((t, n)) if t == task => Some((t, n + 1)),
            _ => Some((task, 1)),
        };
    }
}

/// The partial-order reduction's state in the execution in progress (see
/// [`sleep`](crate::explore::sleep)), replaced whole with the [`ExecutionState`].
#[derive(Debug, Default)]
struct ReductionState {
    /// The threads asleep now.
    sleep: SleepSet,
    /// The step granted at the last decision, until the next decision closes it.
    granted: Option<GrantedStep>,
    /// The footprint of the step closed last (a buffer: valid right after `close_step` wrote it).
    closed: Footprint,
    /// The execution gave way with a choice of fair thread, or switched for fairness, after this
    /// many branch points (the deepest such point).
    taint_depth: Option<usize>,
    /// The execution gave way at all, or a second thread received from a channel, after this
    /// many branch points (the deepest such point).
    covers_nothing_depth: Option<usize>,
    /// The decision in progress gives way (a yield or a fair switch).
    gives_way: bool,
    /// The steps chosen at the branch points of this execution's path that may still cover their
    /// later siblings: no step of another thread has conflicted with them since (see
    /// [`covers_siblings`]).
    covering: Vec<Covering>,
    /// The step chosen at a branch point that stopped before the look of a receive of shuttle's
    /// `mpsc`: its record waits for the next step (see [`Deferred`]).
    deferred: Option<Deferred>,
}

/// A step chosen at a branch point whose thread stopped at the switch of a receive of shuttle's
/// `mpsc` before its look (mpsc.rs:328), runnable. `lineup::sync::mpsc`'s receive has no switch
/// there: its look belongs to the step before, and when it blocks, that step ends with its thread
/// unable to go on, which makes it eligible (it may sleep in, and cover, its later siblings).
/// shuttle's switch splits the two, so the first step alone is never eligible. Its record waits
/// for the next step: when that is its thread's look (the thread went on, at no cost under the
/// bound), commuting with every step (a receive of an unbounded channel's one consumer:
/// [`commutes_with_all`]), and blocks, the two count as one step that ends unable to go on
/// (see `docs/partial-order-reduction.md`, section 3.12); otherwise the first is recorded alone,
/// as before.
#[derive(Debug)]
struct Deferred {
    index: usize,
    option: u32,
    task: TaskId,
    young_from: u32,
    /// The first step's own accesses (without those it began with), its call or return, and
    /// whether it was opaque.
    footprint: Footprint,
}

/// A step chosen at a branch point that may cover the point's later options, while no step of
/// another thread conflicts with it before the history is complete.
#[derive(Debug)]
struct Covering {
    /// The branch point.
    index: usize,
    task: TaskId,
    /// All its accesses, numbered in this execution.
    footprint: Footprint,
}

impl ReductionState {
    /// The options taken at the first `depth` branch points of this execution may not cover their
    /// later siblings (see [`covers_siblings`]).
    fn covers_nothing_below(&mut self, depth: usize) {
        self.covers_nothing_depth = Some(self.covers_nothing_depth.map_or(depth, |d| d.max(depth)));
    }

    /// The state of the next execution: fresh, in this one's buffers.
    fn next(self) -> Self {
        let Self {
            mut sleep,
            mut closed,
            mut covering,
            ..
        } = self;
        sleep.clear();
        closed.accesses.clear();
        covering.clear();
        Self {
            sleep,
            closed: Footprint {
                accesses: closed.accesses,
                ..Footprint::default()
            },
            covering,
            ..Self::default()
        }
    }
}

/// The tasks that may run at one decision (its *members*), in task order, with their classes:
/// a buffer reused from decision to decision.
#[derive(Debug, Default)]
struct Members {
    ids: Vec<TaskId>,
    /// The class of each of `ids`, at the same position.
    classes: Vec<MemberClass>,
}

impl Members {
    fn clear(&mut self) {
        self.ids.clear();
        self.classes.clear();
    }

    fn push(&mut self, id: TaskId, class: MemberClass) {
        self.ids.push(id);
        self.classes.push(class);
    }

    fn len(&self) -> usize {
        self.ids.len()
    }
}

/// The scheduler's state over one exploration, shared between the scheduler that shuttle owns
/// and the phase that runs it.
pub(crate) struct SchedulerState {
    settings: Settings,
    /// The choices explored so far; the execution in progress follows its current path.
    tree: DecisionTree,
    /// Phase 1's [`SerialDfs`](crate::explore::strategy::serial_dfs::SerialDfs), or phase 2's
    /// strategy.
    strategy: Box<dyn SchedulingStrategy>,
    /// This worker's end of the queue shared with the other workers exploring the same tree, if
    /// any.
    split: Option<SplitWorker>,
    /// Where every execution that is not redundant goes when it ends.
    sink: Sink,
    /// `Running` from the first `new_execution` until the one that stops the exploration.
    lifecycle: Lifecycle,
    /// Set once, when the schedule diverges: the exploration stops at the end of that execution.
    pub divergence: Option<Divergence>,
    /// Of the totals' redundant executions, those since the last one handed to the sink.
    redundant_unreported: u64,
    /// Set once a quiet end of shuttle's threads reached its step limit: from then on, every
    /// execution of this exploration stops at its end as before (a thread that never finishes
    /// would cost that many steps in each).
    shuttle_quiet_end_off: bool,
    /// Counted as executions end (`elapsed` is the run's to set).
    pub totals: ExplorationTotals,
    /// Replaced whole by each `new_execution` that begins one.
    execution: ExecutionState,
    /// Replaced with `execution`; never touched while the reduction is off.
    reduction: ReductionState,
}

/// What the scheduler decided at one scheduling point.
enum Decision {
    Run(TaskId),
    /// The execution is over.
    End,
    /// The history is stuck.
    Stuck(StuckKind),
    /// Every thread that could run is asleep: the execution is redundant.
    Redundant,
    /// The execution reached the step limit: stop it without a verdict.
    Inconclusive,
    /// The schedule diverged from the one explored before.
    Diverged(Divergence),
}

/// The classification of a runnable task at one decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MemberClass {
    Gate,
    Active(usize),
    Background,
}

/// How the thread that ran last gives way at a decision, if it does.
#[derive(Clone, Copy, Debug)]
struct GiveWay {
    /// It yielded (`yield_now`, a spin hint).
    program_yield: bool,
    /// It ran `fair_switch_steps` steps in a row: fairness makes it give way.
    fair_switch: bool,
}

impl GiveWay {
    fn gives_way(self) -> bool {
        self.program_yield || self.fair_switch
    }
}

/// The members of one decision, classified, and what else could run.
#[derive(Clone, Copy, Debug, Default)]
struct Classified {
    /// The position among the members of the thread that ran last, if it is one.
    current_index: Option<usize>,
    /// The thread that ran last can run.
    current_runnable: bool,
    /// A task in harness code (the current one if it is one, else the first).
    harness: Option<TaskId>,
    /// The main thread waiting for the workers.
    waiting: Option<TaskId>,
}

impl SchedulerState {
    pub fn new(
        settings: Settings,
        tree: DecisionTree,
        strategy: Box<dyn SchedulingStrategy>,
        split: Option<Arc<SplitQueue>>,
        sink: Sink,
    ) -> Self {
        let split = split.map(|queue| SplitWorker::new(queue, &tree));
        Self {
            settings,
            tree,
            strategy,
            split,
            sink,
            lifecycle: Lifecycle::NotStarted,
            divergence: None,
            redundant_unreported: 0,
            shuttle_quiet_end_off: false,
            totals: ExplorationTotals::default(),
            execution: ExecutionState::default(),
            reduction: ReductionState::default(),
        }
    }

    /// The tree, as the exploration left it (see
    /// [`explore_keeping_tree`](crate::explore::run::explore_keeping_tree)).
    pub fn take_tree(&mut self) -> DecisionTree {
        std::mem::take(&mut self.tree)
    }

    /// Counts the execution that just ended and hands it to the sink, unless it was redundant.
    fn finish_execution(&mut self) -> Control {
        self.strategy.execution_ended();
        if let Some(depth) = self.reduction.taint_depth.take() {
            self.tree.taint_path(depth);
        }
        if let Some(depth) = self.reduction.covers_nothing_depth.take() {
            self.tree.mark_covers_nothing(depth);
        }
        self.totals.executions += 1;
        self.totals.steps += self.execution.step;
        live::execution_ended(self.settings.mode == Mode::Serial);
        if self.execution.early_end == Some(EarlyEnd::Redundant) {
            // Every history it could reach has been reached: not judged.
            self.totals.redundant += 1;
            self.redundant_unreported += 1;
            return Control::Continue;
        }
        let (events, responses) = recording::take();
        if self.divergence.is_none() {
            self.divergence = self
                .strategy
                .unused_choices()
                .or_else(|| self.tree.unused_replay_choices());
        }
        if self.divergence.is_some() {
            recording::give_back(events, responses);
            return Control::Stop;
        }
        let stuck = match self.execution.early_end {
            Some(EarlyEnd::Stuck(kind)) => Some(kind),
            _ => None,
        };
        let result = ExecutionResult {
            trace: TraceRef {
                events: &events,
                responses: &responses,
                stuck: stuck.is_some(),
            },
            stuck,
            redundant_before: std::mem::take(&mut self.redundant_unreported),
            inconclusive: self.execution.early_end == Some(EarlyEnd::Inconclusive),
            cost: self.execution.switches.cost,
            tree: &self.tree,
            strategy: self.strategy.as_ref(),
            by_index: &self.execution.by_index,
        };
        let control = (self.sink)(result);
        recording::give_back(events, responses);
        control
    }

    /// After an execution: whether another one follows (the tree, or the split queue, has one,
    /// and neither the sink, a divergence nor `max_executions` stops the exploration).
    fn another_execution(&mut self, control: Control) -> bool {
        let exhausted = self
            .settings
            .max_executions
            .is_some_and(|max| self.totals.executions >= max);
        if self.divergence.is_some() {
            if let Some(split) = &self.split {
                split.abort();
            }
        }
        if self.divergence.is_some() || exhausted {
            return false;
        }
        let more = control == Control::Continue && self.strategy.advance(&mut self.tree);
        let Some(split) = &mut self.split else {
            return more;
        };
        split.execution_ended();
        let fault = self.settings.reduction_fault == Some(ReductionFault::SplitCompletionsCover);
        split.publish(&mut self.tree, fault);
        // Shared with other workers: a stop, or what the others completed covering the rest, ends
        // this subtree (the sink told the queue why); the worker goes on with another one.
        if more && split.learn(&mut self.tree) && split.keep_going(&mut self.tree) {
            return true;
        }
        match split.next_subtree() {
            Some(tree) => {
                self.tree = tree;
                true
            }
            None => false,
        }
    }

    /// Begins the next execution: its state and the reduction's are replaced whole, and the
    /// records of this OS thread are cleared.
    fn begin_execution(&mut self) {
        self.lifecycle = Lifecycle::Running;
        self.execution = std::mem::take(&mut self.execution).next();
        self.reduction = std::mem::take(&mut self.reduction).next();
        self.strategy.begin_execution();
        ExecutionContext::begin_execution(
            self.settings.op_count,
            self.settings.reduction || self.settings.spin_pruning != SpinPruning::Off,
            self.settings.reduction_fault,
        );
    }

    fn new_execution(&mut self) -> Option<Schedule> {
        abandonment::end();
        match self.lifecycle {
            Lifecycle::Stopped => return None,
            Lifecycle::NotStarted => {}
            Lifecycle::Running => {
                let control = self.finish_execution();
                if !self.another_execution(control) {
                    self.lifecycle = Lifecycle::Stopped;
                    return None;
                }
            }
        }
        self.begin_execution();
        Some(Schedule::new(0))
    }

    /// Decides the scheduling point at which `runnable` may run (`current` ran last and yielded
    /// if `is_yielding`), with `members` as the decision's buffer: the task that runs, or `None`
    /// to stop the execution.
    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        is_yielding: bool,
        members: &mut Members,
    ) -> Option<TaskId> {
        if let Some(abandonment) = &mut self.execution.abandonment {
            return abandonment.next_task(runnable);
        }
        self.execution.step += 1;
        members.clear();
        // One access to the execution context for the whole decision.
        let decision = ExecutionContext::with(|cx| {
            let r = &mut *cx.recording();
            let closed = if self.settings.reduction {
                self.close_step(&mut cx.footprints(), r, runnable, is_yielding)
            } else if self.settings.spin_pruning != SpinPruning::Off {
                self.close_spin_step(&mut cx.footprints(), r, is_yielding)
            } else {
                None
            };
            let repeats_read =
                self.repeated_read_matters(current) && self.repeats_read(&cx.footprints(), closed, current);
            let depth_before = self.tree.depth();
            let decision = self.decide(r, runnable, current, is_yielding, repeats_read, members);
            if cx.is_tracing() {
                self.note_decision(cx, r, runnable, current, is_yielding, &decision);
            }
            if let Decision::Run(task) = decision {
                if self.settings.reduction {
                    self.grant(&mut cx.footprints(), r, task, depth_before, current, is_yielding);
                } else if self.settings.spin_pruning != SpinPruning::Off {
                    self.execution.spin.granted = Some((task, r.events.len()));
                    cx.footprints().begin_step(task);
                }
                // A worker let through its gate begins its operation now.
                r.let_run(task);
            }
            decision
        });
        self.carry_out(decision, runnable)
    }

    /// The record of steps is on (a replay for a report): what was decided, for it.
    #[cold]
    fn note_decision(
        &self,
        cx: &ExecutionContext,
        r: &Recording,
        runnable: &[&Task],
        current: Option<TaskId>,
        yielded: bool,
        decision: &Decision,
    ) {
        let decided = trace::Decided {
            current,
            current_runnable: current.is_some_and(|c| runnable.iter().any(|t| t.id() == c)),
            yielded,
            fair_switch: self.execution.fair_switch,
            next: match decision {
                Decision::Run(task) => Some(*task),
                _ => None,
            },
            stuck: matches!(decision, Decision::Stuck(_)),
            recording: r,
        };
        trace::note_decision(cx, &decided);
    }

    /// Carries out `decision`: the task that runs, or `None` to stop the execution.
    fn carry_out(&mut self, decision: Decision, runnable: &[&Task]) -> Option<TaskId> {
        match decision {
            Decision::Run(task) => {
                self.execution.note_run(task);
                Some(task)
            }
            Decision::End => None,
            Decision::Inconclusive => {
                self.execution.early_end = Some(EarlyEnd::Inconclusive);
                None
            }
            Decision::Stuck(kind) => self.abandon(EarlyEnd::Stuck(kind), runnable),
            Decision::Redundant => self.abandon(EarlyEnd::Redundant, runnable),
            Decision::Diverged(divergence) => {
                self.divergence = Some(divergence);
                None
            }
        }
    }

    /// The execution ends early (stuck or redundant), its history recorded: it is ended cleanly,
    /// without branching (or stopped, if it cannot be ended).
    fn abandon(&mut self, end: EarlyEnd, runnable: &[&Task]) -> Option<TaskId> {
        self.execution.early_end = Some(end);
        if !Abandonment::can_begin(runnable) {
            return None;
        }
        let mut abandonment = Abandonment::begin();
        let next = abandonment.next_task(runnable);
        self.execution.abandonment = Some(abandonment);
        next
    }

    /// The step granted at the last decision ended (while the reduction is off, for the spin
    /// pruning): its footprint goes to the [`SpinWatch`]; the task that ran it, if any.
    fn close_spin_step(&mut self, footprints: &mut FootprintLog, r: &Recording, yielded: bool) -> Option<TaskId> {
        let (task, events_before) = self.execution.spin.granted.take()?;
        let history = r.events.len() != events_before;
        footprints.end_step(yielded, history, &mut self.execution.spin.closed)?;
        Some(task)
    }

    /// Whether the decision in progress looks at a repeated read of `current` at all: never
    /// without the spin pruning, under [`SpinPruning::SwitchAfter`]`(n)` only once it has run `n`
    /// steps in a row (see `spin_switch_due`), always under the others.
    fn repeated_read_matters(&self, current: Option<TaskId>) -> bool {
        match self.settings.spin_pruning {
            SpinPruning::Off => false,
            SpinPruning::SwitchAfter(_) => self.spin_switch_due(current),
            SpinPruning::Preemptions | SpinPruning::Switch => true,
        }
    }

    /// Whether `current` spins on an unchanged value (see
    /// [`Point::repeats_read`](crate::explore::strategy::Point)): the step it just ran (`closed`
    /// names its task) read one object and nothing else, recorded no call or return and saw
    /// every primitive it touched; its next step (in flight now) is the same read, called at the
    /// same place in the source (a loop, not two loads in a row); and it ran the
    /// step before as well, with no yield or fair switch at the point between (so that point
    /// offered the same choices, on the same state but for this one read).
    fn repeats_read(&self, footprints: &FootprintLog, closed: Option<TaskId>, current: Option<TaskId>) -> bool {
        let Some(c) = current else {
            return false;
        };
        if closed != Some(c) || !matches!(self.execution.run, Some((t, n)) if t == c && n >= 2) {
            return false;
        }
        let step = if self.settings.reduction {
            &self.reduction.closed
        } else {
            &self.execution.spin.closed
        };
        let [read] = step.accesses.as_slice() else {
            return false;
        };
        if step.opaque || step.history || read.kind != Kind::Read {
            return false;
        }
        if self.settings.reduction_fault == Some(ReductionFault::SpinPruneAnyRead) {
            return true;
        }
        // The same load, called at the same place: back at the same point of its code.
        footprints.in_flight(c) == [*read]
            && footprints.closed_site().is_some()
            && footprints.site_in_flight(c) == footprints.closed_site()
    }

    /// The step granted at the last decision ended: its footprint wakes the sleepers it conflicts
    /// with, and, if it was a choice, it is kept for the sleep sets of its later siblings. The
    /// task that ran it, if any.
    fn close_step(
        &mut self,
        footprints: &mut FootprintLog,
        r: &Recording,
        runnable: &[&Task],
        yielded: bool,
    ) -> Option<TaskId> {
        let grant = self.reduction.granted.take()?;
        let task = grant.task;
        let role = r.roles.get(usize::from(task)).copied().flatten();
        let runs = runnable.iter().any(|t| t.id() == task);
        // A worker that blocked at the first scheduling point of its operation: its call is
        // recorded now, in this step.
        let history = r.events.len() != grant.events_before || (!runs && matches!(role, Some(Role::Gate(_))));
        let history = history && self.settings.reduction_fault != Some(ReductionFault::HistoryIndependent);
        let reduction = &mut self.reduction;
        footprints.end_step(yielded, history, &mut reduction.closed)?;
        if footprints.take_second_receiver() {
            // A receiver shared by two threads: a receive no longer covers its siblings.
            reduction.covers_nothing_below(self.tree.depth());
        }
        if !r.done && self.settings.reduction_fault != Some(ReductionFault::CoverRacedSteps) {
            // A step that conflicts with a covering step of another thread, before the history
            // is complete: that step covers nothing (its siblings may order the two otherwise).
            let tree = &mut self.tree;
            let closed = &reduction.closed;
            reduction.covering.retain(|c| {
                let raced = c.task != task && closed.conflicts(&c.footprint, u32::MAX);
                if raced {
                    tree.mark_covers_nothing_at(c.index);
                }
                !raced
            });
        }
        reduction.sleep.step(task, &reduction.closed, |t, step| {
            footprints.in_flight_conflicts(t, step)
        });
        if let Some(deferred) = self.reduction.deferred.take() {
            self.keep_deferred_record(deferred, task, runs, grant.give_way);
        }
        if let Some((index, option)) = grant.branch {
            let unable_to_go_on = !runs || matches!(role, Some(Role::Harness | Role::Waiting));
            let eligible = !grant.give_way
                && (self.settings.mode == Mode::Serial
                    || grant.free_continuation
                    || unable_to_go_on
                    || self.settings.reduction_fault == Some(ReductionFault::IgnoreBound));
            let closed = &self.reduction.closed;
            let any = self.settings.reduction_fault == Some(ReductionFault::CoverAnyStep);
            let covers = eligible && (covers_siblings(closed) || any);
            if !eligible && !grant.give_way && footprints.stopped_before_look(task) {
                self.defer_record(index, option, task, grant.young_from);
                return Some(task);
            }
            if covers && !any && !commutes_with_all(closed) {
                self.reduction.covering.push(Covering {
                    index,
                    task,
                    footprint: closed.clone(),
                });
            }
            let closed = &self.reduction.closed;
            self.tree.keep_record(
                index,
                SleepRecord {
                    option,
                    task,
                    footprint: closed.own_part(),
                    young_from: grant.young_from,
                    eligible,
                    covers,
                },
            );
        }
        Some(task)
    }

    /// The step just closed, chosen at branch point `index`, stopped before the look of a receive
    /// of shuttle's (see [`Deferred`]): its record waits for the next step. Its conflicts with
    /// other threads' steps are watched from now on, as those of a step that covers, in every
    /// execution through it (the record, kept once, may say that it covers).
    fn defer_record(&mut self, index: usize, option: u32, task: TaskId, young_from: u32) {
        let closed = &self.reduction.closed;
        let unwatched = self.settings.reduction_fault == Some(ReductionFault::ShuttleLookUnwatched);
        if !unwatched && covers_siblings(closed) && !commutes_with_all(closed) {
            self.reduction.covering.push(Covering {
                index,
                task,
                footprint: closed.clone(),
            });
        }
        self.reduction.deferred = Some(Deferred {
            index,
            option,
            task,
            young_from,
            footprint: closed.own_part(),
        });
    }

    /// Keeps the record of a [`Deferred`] step, now that the step after it, of `task` (which `runs`
    /// on after it; granted where the current thread gave way if `gave_way`), is closed: the two
    /// as one eligible step if that was the deferred thread's look, which commutes with every step
    /// and blocks, else the first alone, not eligible.
    fn keep_deferred_record(&mut self, deferred: Deferred, task: TaskId, runs: bool, gave_way: bool) {
        let look = &self.reduction.closed;
        let joins = task == deferred.task && !gave_way && !runs && commutes_with_all(look);
        let mut footprint = deferred.footprint;
        if joins {
            footprint.accesses.extend_from_slice(&look.accesses);
            footprint.history |= look.history;
            footprint.opaque |= look.opaque;
        }
        let covers = joins && covers_siblings(&footprint);
        self.tree.keep_record(
            deferred.index,
            SleepRecord {
                option: deferred.option,
                task: deferred.task,
                footprint,
                young_from: deferred.young_from,
                eligible: joins,
                covers,
            },
        );
    }

    /// The decision grants a step to `task`; if it was a choice at a branch point, the options
    /// explored there before it go to sleep.
    fn grant(
        &mut self,
        footprints: &mut FootprintLog,
        r: &Recording,
        task: TaskId,
        depth_before: usize,
        current: Option<TaskId>,
        yielded: bool,
    ) {
        let branch = self
            .tree
            .branch_index(depth_before)
            .and_then(|i| Some((i, self.tree.chosen_at(i)?)));
        if let Some((index, _)) = branch {
            for record in self.tree.sleepers_at(index) {
                self.reduction.sleep.add(record);
            }
        }
        let give_way = yielded || self.reduction.gives_way;
        self.reduction.granted = Some(GrantedStep {
            task,
            branch,
            young_from: footprints.objects_numbered(),
            events_before: r.events.len(),
            free_continuation: Some(task) == current && !give_way,
            give_way,
        });
        footprints.begin_step(task);
    }

    /// The members asleep, as a bit set over their positions (below 64).
    fn asleep_members(&self, members: &Members) -> u64 {
        let sleep = &self.reduction.sleep;
        if sleep.is_empty() {
            return 0;
        }
        members
            .ids
            .iter()
            .take(64)
            .enumerate()
            .filter(|&(_, &t)| sleep.contains(t))
            .fold(0, |mask, (k, _)| mask | (1 << k))
    }

    /// Decides one scheduling point, in one pass over the runnable tasks: what is not a choice
    /// first (the end, the step limit, fast paths, harness code, stuck and redundant executions),
    /// then the choice among the members.
    fn decide(
        &mut self,
        r: &mut Recording,
        runnable: &[&Task],
        current: Option<TaskId>,
        is_yielding: bool,
        repeats_read: bool,
        members: &mut Members,
    ) -> Decision {
        self.reduction.gives_way = false;
        if r.done {
            return self.finish_after_last_return(r, runnable);
        }
        if self.execution.step > self.settings.max_steps {
            return Decision::Inconclusive;
        }
        let switch_now = repeats_read && self.spin_switch_due(current);
        // Only `Preemptions` and `Switch` prune the preemptions at a repeated read.
        let repeats_read = repeats_read
            && matches!(
                self.settings.spin_pruning,
                SpinPruning::Preemptions | SpinPruning::Switch
            );
        let give_way = self.give_way_of(current, is_yielding, switch_now);
        self.execution.fair_switch = give_way.fair_switch;
        let current_role = current.and_then(|c| r.roles.get(usize::from(c)).copied().flatten());
        let current_op = match current_role {
            Some(Role::InOp(op)) if r.pending[op - 1] => Some(op),
            _ => None,
        };
        if let (true, Some(op)) = (give_way.gives_way(), current_op) {
            r.yields[op - 1] += 1;
        }
        if let Some(task) = self.fast_path(r, runnable, current, current_role, current_op, give_way) {
            return Decision::Run(task);
        }
        let classified = self.classify_members(r, runnable, current, members);
        if let (Some(c), false) = (current, classified.current_runnable) {
            // A worker that blocked at the first scheduling point of its operation has begun it.
            r.let_run(c);
        }
        if let Some(decision) = self.no_choice(r, &classified, members) {
            return decision;
        }
        // A thread that may go on gives way (harness threads yield too, but choose nothing).
        if give_way.gives_way() && classified.current_index.is_some() {
            self.give_way(give_way, members.len());
        }
        if self.settings.reduction
            && !self.reduction.sleep.is_empty()
            && members.ids.iter().all(|&t| self.reduction.sleep.contains(t))
        {
            return Decision::Redundant;
        }
        if self.strategy.abandons(&r.events) {
            // A guided search's execution that has left its target: ended like a redundant one.
            return Decision::Redundant;
        }
        let asleep = if self.settings.reduction {
            self.asleep_members(members)
        } else {
            0
        };
        let point = Point {
            members: &members.ids,
            current: classified.current_index,
            yielded: give_way.program_yield,
            fair_switch: give_way.fair_switch,
            least_recent: self.least_recent(members, classified.current_index, give_way),
            last: current,
            asleep,
            repeats_read,
        };
        self.choose(&point)
    }

    /// The last operation has returned. Let the watchdog end, unless the object has threads of
    /// its own that may never end: then stop the execution, or, in the quiet end (see
    /// `quiet_end`, lineup's threads or those of lineup's `vendor/shuttle-std`), run those
    /// threads that can, one at a time, until they finish.
    fn finish_after_last_return(&mut self, r: &Recording, runnable: &[&Task]) -> Decision {
        if self.execution.saw_background && r.own_threads.quiet_end && r.own_threads_running() {
            self.execution.quiet_end_steps += 1;
            let own = runnable
                .iter()
                .map(|t| t.id())
                .filter(|&t| r.is_own_thread_running(t))
                .min();
            return match own {
                Some(t) if self.execution.quiet_end_steps <= crate::explore::quiet_end::MAX_QUIET_END_STEPS => {
                    Decision::Run(t)
                }
                _ => Decision::End,
            };
        }
        if r.own_threads.shuttle_quiet_end && !self.shuttle_quiet_end_off {
            self.execution.quiet_end_steps += 1;
            if self.execution.quiet_end_steps > crate::explore::quiet_end::MAX_SHUTTLE_QUIET_END_STEPS {
                self.shuttle_quiet_end_off = true;
                crate::explore::quiet_end::note_cut();
                return Decision::End;
            }
            if r.own_threads.quiet_end_stuck {
                return Decision::End;
            }
            // The object's threads first; the harness, which ends the quiet end, when none can run.
            let own = runnable
                .iter()
                .map(|t| t.id())
                .filter(|&t| r.is_thread_of_its_own(t))
                .min();
            if let Some(t) = own {
                return Decision::Run(t);
            }
        } else if self.execution.saw_background && !r.own_threads.quiet_end {
            return Decision::End;
        }
        let role_of = |t: TaskId| r.roles.get(usize::from(t)).copied().flatten();
        let finishing = |wanted: Role| runnable.iter().map(|t| t.id()).find(|&t| role_of(t) == Some(wanted));
        finishing(Role::Watchdog)
            .or_else(|| finishing(Role::Harness))
            .map_or(Decision::End, Decision::Run)
    }

    /// Whether a repeated read of `current` ends its run now: at once under [`SpinPruning::Switch`],
    /// once it has run `n` steps in a row under [`SpinPruning::SwitchAfter`]`(n)`.
    fn spin_switch_due(&self, current: Option<TaskId>) -> bool {
        match self.settings.spin_pruning {
            SpinPruning::Switch => true,
            SpinPruning::SwitchAfter(n) => {
                matches!(self.execution.run, Some((t, steps)) if Some(t) == current && steps >= n)
            }
            SpinPruning::Off | SpinPruning::Preemptions => false,
        }
    }

    /// Whether the thread that ran last gives way: it yielded, or it has run `fair_switch_steps`
    /// steps in a row without yielding, or it spins on an unchanged value under
    /// [`SpinPruning::Switch`] (`switch_now`), and is
    /// treated as if it yielded (a free switch to the thread that ran least recently, counted
    /// towards livelock like a yield). Either ends its run.
    fn give_way_of(&mut self, current: Option<TaskId>, is_yielding: bool, switch_now: bool) -> GiveWay {
        let fair_switch = switch_now
            || matches!(self.execution.run, Some((t, n)) if Some(t) == current && n >= self.settings.fair_switch_steps);
        if is_yielding || fair_switch {
            self.execution.run = None;
        }
        GiveWay {
            program_yield: is_yielding,
            fair_switch,
        }
    }

    /// The thread that ran last goes on without a choice: in a serial execution, the one thread
    /// of the pending operation while every other thread waits at a gate; else a thread inside an
    /// operation (or at its gate) when the strategy allows no switch (pb-dfs with the preemption
    /// budget spent).
    fn fast_path(
        &self,
        r: &Recording,
        runnable: &[&Task],
        current: Option<TaskId>,
        current_role: Option<Role>,
        current_op: Option<usize>,
        give_way: GiveWay,
    ) -> Option<TaskId> {
        let c = current?;
        if give_way.gives_way() {
            return None;
        }
        if self.settings.mode == Mode::Serial && current_op.is_some() && Self::alone(r, runnable, c) {
            return Some(c);
        }
        let current_can_go_on = current_op.is_some() || matches!(current_role, Some(Role::Gate(_)));
        if current_can_go_on && self.strategy.keeps_current() && runnable.iter().any(|t| t.id() == c) {
            return Some(c);
        }
        None
    }

    /// Whether `current` can run and every other runnable task waits (at a gate, for the
    /// workers, or as the watchdog).
    fn alone(r: &Recording, runnable: &[&Task], current: TaskId) -> bool {
        let role_of = |t: TaskId| r.roles.get(usize::from(t)).copied().flatten();
        let mut alone = false;
        for t in runnable {
            if t.id() == current {
                alone = true;
            } else if !matches!(role_of(t.id()), Some(Role::Gate(_) | Role::Waiting | Role::Watchdog)) {
                return false;
            }
        }
        alone
    }

    /// One pass over the runnable tasks: the members (the tasks that may be chosen: in a serial
    /// execution, while an operation is pending, only its threads and the object's; between
    /// operations, the workers at their gates), and the tasks that run without a choice.
    fn classify_members(
        &mut self,
        r: &mut Recording,
        runnable: &[&Task],
        current: Option<TaskId>,
        members: &mut Members,
    ) -> Classified {
        let serial_pending = self.settings.mode == Mode::Serial && r.pending.iter().any(|&p| p);
        let mut classified = Classified::default();
        for t in runnable {
            let id = t.id();
            let is_current = Some(id) == current;
            classified.current_runnable |= is_current;
            let class = match r.role(id, t.parent_task_id()) {
                // Harness code first, without branching: the current task if it is in harness
                // code, else the first one.
                Role::Harness => {
                    if classified.harness.is_none() || is_current {
                        classified.harness = Some(id);
                    }
                    continue;
                }
                Role::Waiting => {
                    classified.waiting = Some(id);
                    continue;
                }
                Role::Watchdog => continue,
                Role::Gate(_) => MemberClass::Gate,
                Role::InOp(op) if r.pending[op - 1] => MemberClass::Active(op),
                Role::InOp(_) | Role::Background => {
                    if usize::from(id) != 0 {
                        self.execution.saw_background = true;
                        self.totals.background = true;
                    }
                    MemberClass::Background
                }
            };
            let member = match self.settings.mode {
                // While an operation is pending, only its threads (and the object's) may run.
                Mode::Serial if serial_pending => class != MemberClass::Gate,
                Mode::Serial => !matches!(class, MemberClass::Active(_)),
                Mode::Concurrent => true,
            };
            if member {
                if is_current {
                    classified.current_index = Some(members.len());
                }
                members.push(id, class);
            }
        }
        classified
    }

    /// The decisions that need no choice among the members: harness code runs, the main thread
    /// goes on once every worker has finished, and an execution in which no member can run, or
    /// every member spins for good, is stuck.
    fn no_choice(&self, r: &Recording, classified: &Classified, members: &Members) -> Option<Decision> {
        if let Some(t) = classified.harness {
            return Some(Decision::Run(t));
        }
        if r.workers_unfinished == 0 {
            if let Some(t) = classified.waiting {
                return Some(Decision::Run(t));
            }
        }
        if members.ids.is_empty() {
            // Only the watchdog (or threads barred from running in a serial execution) can run.
            return Some(Decision::Stuck(StuckKind::Deadlock));
        }
        let spin_bound = self.settings.spin_bound;
        if members
            .classes
            .iter()
            .all(|c| matches!(c, MemberClass::Active(op) if r.yields[op - 1] >= spin_bound))
        {
            return Some(Decision::Stuck(StuckKind::Livelock));
        }
        None
    }

    /// The current member gives way. The fair choice depends on the order in which threads ran,
    /// not on the state: every sleeper wakes (see `sleep`), and if it was a real choice (two or
    /// more others, or a fair switch), the options on the path so far may not sleep in their
    /// later siblings.
    fn give_way(&mut self, give_way: GiveWay, member_count: usize) {
        self.reduction.gives_way = true;
        self.reduction.sleep.clear();
        let depth = self.tree.depth();
        self.reduction.covers_nothing_below(depth);
        if give_way.fair_switch || member_count > 2 {
            self.reduction.taint_depth = Some(self.reduction.taint_depth.map_or(depth, |d| d.max(depth)));
        }
    }

    /// The member other than the current one that ran least recently: the fair choice after a
    /// yield (computed only then).
    fn least_recent(&self, members: &Members, current_index: Option<usize>, give_way: GiveWay) -> Option<usize> {
        if !give_way.gives_way() {
            return None;
        }
        let last_run = &self.execution.last_run;
        members
            .ids
            .iter()
            .enumerate()
            .filter(|&(k, _)| Some(k) != current_index)
            .min_by_key(|&(_, &t)| (last_run.get(usize::from(t)).copied().unwrap_or(0), t))
            .map(|(k, _)| k)
    }

    /// A cancellable future asks whether to be dropped after `polls` polls (see
    /// `lineup::future`'s `run_operation`): a choice of two (go on,
    /// drop) of the strategy, recorded in the tree and in the replay token as a choice among
    /// threads is, while the execution has cancelled fewer operations than the bound. Phase 1 offers the skip
    /// (before the first poll), phase 2 the drops after a `Pending` poll; an execution being
    /// abandoned offers none.
    fn cancellation_choice(&mut self, polls: u32) -> u64 {
        // The cancellations taken are bounded, not the points offered (every point stays
        // reachable): every set of up to the bound's operations is left out of some serial
        // execution, as phase 2 may cancel any such set.
        let offered = match self.settings.mode {
            Mode::Serial => polls == 0,
            Mode::Concurrent => polls > 0,
        };
        if !offered || self.execution.cancels >= self.settings.max_cancellations || self.execution.abandonment.is_some()
        {
            return 0;
        }
        self.totals.cancellation_points += 1;
        match self.strategy.pick_value(2, &mut self.tree) {
            Ok(k) => {
                if self.settings.mode == Mode::Concurrent {
                    self.execution.by_index.push(k as u32);
                }
                if k == 1 {
                    self.execution.cancels += 1;
                    recording::CANCEL
                } else {
                    0
                }
            }
            Err(divergence) => {
                // The token does not fit: the execution goes on without the drop and stops at
                // its next decision.
                self.divergence.get_or_insert(divergence);
                0
            }
        }
    }

    /// The strategy's choice among the members at `point`.
    fn choose(&mut self, point: &Point<'_>) -> Decision {
        match self.strategy.pick(point, &mut self.tree) {
            Ok(k) => {
                self.execution.switches.note(point, k);
                // Phase 1's tokens are the tree's choices: no index to keep.
                if point.members.len() > 1 && self.settings.mode == Mode::Concurrent {
                    self.execution.by_index.push(k as u32);
                }
                Decision::Run(point.members[k])
            }
            Err(divergence) => Decision::Diverged(divergence),
        }
    }
}

/// The [`Scheduler`] handed to shuttle; the exploration stays readable by the phase that runs it.
pub(crate) struct LineupScheduler {
    state: Rc<RefCell<SchedulerState>>,
    /// The members of each decision: a buffer, outside the shared state so that a decision
    /// borrows it without moving it.
    members: Members,
}

impl LineupScheduler {
    /// The scheduler of the exploration whose state is `state`.
    pub fn new(state: Rc<RefCell<SchedulerState>>) -> Self {
        Self {
            state,
            members: Members::default(),
        }
    }
}

impl Scheduler for LineupScheduler {
    fn new_execution(&mut self) -> Option<Schedule> {
        self.state.borrow_mut().new_execution()
    }

    fn next_task(&mut self, runnable: &[&Task], current: Option<TaskId>, is_yielding: bool) -> Option<TaskId> {
        let next = self
            .state
            .borrow_mut()
            .next_task(runnable, current, is_yielding, &mut self.members);
        if next.is_none() {
            abandonment::note_stopped();
        }
        next
    }

    fn next_u64(&mut self) -> u64 {
        if let Some(polls) = recording::with(|r| r.cancel_request.take()) {
            return self.state.borrow_mut().cancellation_choice(polls);
        }
        // Data nondeterminism (shuttle::rand) is not explored: a fixed stream keeps executions
        // replayable. An object whose results depend on it fails the determinism check.
        0x2545_f491_4f6c_dd1d
    }
}

//! lineup's shuttle scheduler: serial exploration for phase 1 and preemption-bounded
//! exploration for phase 2, both depth-first over a [`DecisionTree`].
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
//! * Yields and fair switches are counted per operation since the last progress (a call or a
//!   return anywhere): when every thread that could run is inside an operation that has counted
//!   `spin_bound` of them, no fair continuation lets an operation return and the history is stuck
//!   (livelock). When only the watchdog can run, every thread is blocked (deadlock).
//! * An execution that still reaches `max_steps` is stopped and *inconclusive*: it is counted,
//!   never judged.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use shuttle::current::TaskId;
use shuttle::scheduler::{Schedule, Scheduler, Task};

use crate::config::ReductionFault;
use crate::explore::abandonment::{self, Abandonment};
use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::footprint::{self, Footprint};
use crate::explore::recording;
use crate::explore::recording::Recording;
use crate::explore::role::Role;
use crate::explore::sleep::{SleepRecord, SleepSet};
use crate::explore::split::SplitQueue;
use crate::explore::strategy::{Point, SchedulingStrategy};
use crate::model::replay_token::Phase;
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
    tree: &'a DecisionTree,
    strategy: Option<&'a dyn SchedulingStrategy>,
    by_index: &'a [u32],
}

impl ExecutionResult<'_> {
    /// The choices of the execution: its replay token's.
    pub fn schedule(&self) -> Vec<u32> {
        self.token().1
    }

    /// The execution's place in the exploration's tree: executions compare in depth-first order
    /// by it.
    pub fn position(&self) -> Vec<u32> {
        self.tree.choices()
    }

    /// The phase and the choices of the execution's replay token.
    pub fn token(&self) -> (Phase, Vec<u32>) {
        match self.strategy {
            Some(strategy) => strategy.token(self.tree, self.by_index),
            None => (Phase::Serial, self.tree.choices()),
        }
    }
}

/// Whether to go on exploring after an execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Control {
    Continue,
    Stop,
}

/// Bounds on one execution.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub spin_bound: u32,
    pub fair_switch_steps: u32,
    pub max_steps: u64,
    pub max_executions: Option<u64>,
    /// Sleep sets over the steps lineup's primitives announce (see
    /// [`sleep`](crate::explore::sleep)).
    pub reduction: bool,
    pub reduction_fault: Option<ReductionFault>,
}

/// The step granted at the last decision, for its sleep record.
#[derive(Clone, Copy, Debug)]
struct Grant {
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

/// The scheduler's state over one exploration, shared between the scheduler that shuttle owns and the phase
/// that runs it.
pub(crate) struct SchedulerState {
    mode: Mode,
    limits: Limits,
    op_count: usize,
    tree: DecisionTree,
    /// Phase 2's strategy (`None` in phase 1).
    strategy: Option<Box<dyn SchedulingStrategy>>,
    /// The index of the thread chosen at every point of this execution with more than one (the
    /// replay token of every strategy but `pb-dfs`).
    by_index: Vec<u32>,
    /// The queue shared with the other workers exploring the same tree, if any.
    split: Option<Arc<SplitQueue>>,
    sink: Sink,
    started: bool,
    stopped: bool,
    pub executions: u64,
    /// Executions ended because every thread that could run was asleep (counted in
    /// `executions`, never judged).
    pub redundant: u64,
    /// Redundant executions since the last one handed to the sink.
    redundant_unreported: u64,
    pub steps: u64,
    pub divergence: Option<Divergence>,
    /// Some execution so far had a thread of the object's own (see `saw_background`).
    pub background_seen: bool,
    // Per execution.
    step: u64,
    last_run: Vec<u64>,
    /// The task that ran last, and how many steps in a row it has run since it was switched to
    /// (or since its last yield or fair switch).
    run: Option<(TaskId, u32)>,
    stuck: Option<StuckKind>,
    inconclusive: bool,
    diverged: bool,
    saw_background: bool,
    members_buffer: Vec<(TaskId, Class)>,
    ids_buffer: Vec<TaskId>,
    /// The execution is stuck, its history recorded, and it is being ended cleanly.
    abandonment: Option<Abandonment>,
    // The reduction, per execution.
    sleep: SleepSet,
    granted: Option<Grant>,
    closed: Footprint,
    /// The execution gave way with a choice of fair thread, or switched for fairness, after this
    /// many branch points (the deepest such point).
    taint_depth: Option<usize>,
    /// Every thread that could run was asleep: the execution is being ended.
    redundant_now: bool,
    /// Steps of the quiet end so far (see `quiet_end`).
    quiet_end_steps: u64,
    /// The decision in progress gives way (a yield or a fair switch).
    give_way_now: bool,
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
enum Class {
    Gate,
    Active(usize),
    Background,
}

impl SchedulerState {
    pub fn new(
        mode: Mode,
        limits: Limits,
        op_count: usize,
        tree: DecisionTree,
        strategy: Option<Box<dyn SchedulingStrategy>>,
        split: Option<Arc<SplitQueue>>,
        sink: Sink,
    ) -> Self {
        Self {
            mode,
            limits,
            op_count,
            tree,
            strategy,
            by_index: Vec::new(),
            split,
            sink,
            started: false,
            stopped: false,
            executions: 0,
            redundant: 0,
            redundant_unreported: 0,
            steps: 0,
            divergence: None,
            background_seen: false,
            step: 0,
            last_run: Vec::new(),
            run: None,
            stuck: None,
            inconclusive: false,
            diverged: false,
            saw_background: false,
            members_buffer: Vec::new(),
            ids_buffer: Vec::new(),
            abandonment: None,
            sleep: SleepSet::default(),
            granted: None,
            closed: Footprint::default(),
            taint_depth: None,
            redundant_now: false,
            quiet_end_steps: 0,
            give_way_now: false,
        }
    }

    /// The tree, as the exploration left it (see
    /// [`explore_keeping_tree`](crate::explore::run::explore_keeping_tree)).
    pub fn take_tree(&mut self) -> DecisionTree {
        std::mem::take(&mut self.tree)
    }

    fn finish_execution(&mut self) -> Control {
        if let Some(depth) = self.taint_depth.take() {
            self.tree.taint_path(depth);
        }
        self.executions += 1;
        self.steps += self.step;
        if std::mem::take(&mut self.redundant_now) {
            // Every history it could reach has been reached: not judged.
            self.redundant += 1;
            self.redundant_unreported += 1;
            self.stuck = None;
            return Control::Continue;
        }
        let (events, responses) = recording::take();
        if !self.diverged {
            let unused = match &self.strategy {
                Some(strategy) => strategy.unused_choices().or_else(|| self.tree.unused_replay_choices()),
                None => self.tree.unused_replay_choices(),
            };
            if let Some(unused) = unused {
                self.divergence = Some(unused);
                self.diverged = true;
            }
        }
        if self.diverged {
            recording::give_back(events, responses);
            return Control::Stop;
        }
        let stuck = self.stuck.take();
        let trace = TraceRef {
            events: &events,
            responses: &responses,
            stuck: stuck.is_some(),
        };
        let result = ExecutionResult {
            trace,
            stuck,
            redundant_before: std::mem::take(&mut self.redundant_unreported),
            inconclusive: std::mem::take(&mut self.inconclusive),
            tree: &self.tree,
            strategy: self.strategy.as_deref(),
            by_index: &self.by_index,
        };
        let control = (self.sink)(result);
        recording::give_back(events, responses);
        control
    }

    fn new_execution(&mut self) -> Option<Schedule> {
        self.abandonment = None;
        abandonment::reset();
        if self.stopped {
            return None;
        }
        if self.started {
            let control = self.finish_execution();
            let exhausted = self.limits.max_executions.is_some_and(|max| self.executions >= max);
            if self.diverged {
                if let Some(split) = &self.split {
                    split.abort();
                }
            }
            if self.diverged || exhausted {
                self.stopped = true;
                return None;
            }
            let mut more = control == Control::Continue
                && match &mut self.strategy {
                    Some(strategy) => strategy.advance(&mut self.tree),
                    None => self.tree.advance(),
                };
            if let Some(split) = &self.split {
                // Shared with other workers: a stop ends this subtree (the sink told the queue
                // why); the worker goes on with another one.
                more = more && split.keep_going(&mut self.tree);
                if !more {
                    match split.next_subtree() {
                        Some(tree) => {
                            self.tree = tree;
                            more = true;
                        }
                        None => more = false,
                    }
                }
            }
            if !more {
                self.stopped = true;
                return None;
            }
        }
        self.started = true;
        self.step = 0;
        self.by_index.clear();
        if let Some(strategy) = &mut self.strategy {
            strategy.begin_execution();
        }
        self.last_run.clear();
        self.run = None;
        self.stuck = None;
        self.inconclusive = false;
        self.saw_background = false;
        self.sleep.clear();
        self.granted = None;
        self.taint_depth = None;
        self.redundant_now = false;
        self.quiet_end_steps = 0;
        crate::explore::quiet_end::reset();
        footprint::begin_execution(
            self.limits.reduction,
            self.limits.reduction_fault == Some(ReductionFault::SendsCommute),
        );
        recording::reset(self.op_count);
        Some(Schedule::new(0))
    }

    fn next_task(&mut self, runnable: &[&Task], current: Option<TaskId>, is_yielding: bool) -> Option<TaskId> {
        if let Some(abandonment) = &mut self.abandonment {
            return abandonment.next_task(runnable);
        }
        self.step += 1;
        let mut members = std::mem::take(&mut self.members_buffer);
        members.clear();
        let decision = recording::with(|r| {
            if self.limits.reduction {
                self.close_step(r, runnable, is_yielding);
            }
            let depth_before = self.tree.depth();
            let decision = self.decide(r, runnable, current, is_yielding, &mut members);
            if let Decision::Run(task) = decision {
                if self.limits.reduction {
                    self.grant(r, task, depth_before, current, is_yielding);
                }
                // A worker let through its gate begins its operation now.
                r.let_run(task);
            }
            decision
        });
        self.members_buffer = members;
        match decision {
            Decision::Run(task) => {
                let i = usize::from(task);
                if self.last_run.len() <= i {
                    self.last_run.resize(i + 1, 0);
                }
                self.last_run[i] = self.step;
                self.run = match self.run {
                    Some((t, n)) if t == task => Some((t, n + 1)),
                    _ => Some((task, 1)),
                };
                Some(task)
            }
            Decision::End => None,
            Decision::Inconclusive => {
                self.inconclusive = true;
                None
            }
            Decision::Stuck(_) | Decision::Redundant => {
                match decision {
                    Decision::Stuck(kind) => self.stuck = Some(kind),
                    _ => self.redundant_now = true,
                }
                // The stuck history is recorded: end the execution cleanly, without branching
                // (or stop it, if it cannot be ended).
                if !Abandonment::can_begin(runnable) {
                    return None;
                }
                let mut abandonment = Abandonment::begin();
                let next = abandonment.next_task(runnable);
                self.abandonment = Some(abandonment);
                next
            }
            Decision::Diverged(divergence) => {
                self.divergence = Some(divergence);
                self.diverged = true;
                None
            }
        }
    }

    /// The step granted at the last decision ended: its footprint wakes the sleepers it conflicts
    /// with, and, if it was a choice, it is kept for the sleep sets of its later siblings.
    fn close_step(&mut self, r: &Recording, runnable: &[&Task], yielded: bool) {
        let Some(grant) = self.granted.take() else {
            return;
        };
        let task = grant.task;
        let role = r.roles.get(usize::from(task)).copied().flatten();
        let runs = runnable.iter().any(|t| t.id() == task);
        // A worker that blocked at the first scheduling point of its operation: its call is
        // recorded now, in this step.
        let history = r.events.len() != grant.events_before || (!runs && matches!(role, Some(Role::Gate(_))));
        let history = history && self.limits.reduction_fault != Some(ReductionFault::HistoryIndependent);
        if footprint::end_step(yielded, history, &mut self.closed).is_none() {
            return;
        }
        self.sleep.step(task, &self.closed, footprint::in_flight_conflicts);
        if let Some((index, option)) = grant.branch {
            let unable_to_go_on = !runs || matches!(role, Some(Role::Harness | Role::Waiting));
            let eligible = !grant.give_way
                && (self.mode == Mode::Serial
                    || grant.free_continuation
                    || unable_to_go_on
                    || self.limits.reduction_fault == Some(ReductionFault::IgnoreBound));
            self.tree.keep_record(
                index,
                SleepRecord {
                    option,
                    task,
                    footprint: Footprint {
                        accesses: self.closed.accesses[self.closed.resumed..].to_vec(),
                        history: self.closed.history,
                        opaque: self.closed.opaque,
                        resumed: 0,
                    },
                    young_from: grant.young_from,
                    eligible,
                },
            );
        }
    }

    /// The decision grants a step to `task`; if it was a choice at a branch point, the options
    /// explored there before it go to sleep.
    fn grant(&mut self, r: &Recording, task: TaskId, depth_before: usize, current: Option<TaskId>, yielded: bool) {
        let branch = self
            .tree
            .branch_index(depth_before)
            .and_then(|i| Some((i, self.tree.chosen_at(i)?)));
        if let Some((index, _)) = branch {
            for record in self.tree.sleepers_at(index) {
                self.sleep.add(record);
            }
        }
        let give_way = yielded || self.give_way_now;
        self.granted = Some(Grant {
            task,
            branch,
            young_from: footprint::objects_numbered(),
            events_before: r.events.len(),
            free_continuation: Some(task) == current && !give_way,
            give_way,
        });
        footprint::begin_step(task);
    }

    /// The members asleep, as a bit set over their positions (below 64).
    fn asleep_members(&self, members: &[(TaskId, Class)]) -> u64 {
        if self.sleep.is_empty() {
            return 0;
        }
        members
            .iter()
            .take(64)
            .enumerate()
            .filter(|(_, (t, _))| self.sleep.contains(*t))
            .fold(0, |mask, (k, _)| mask | (1 << k))
    }

    /// Decides one scheduling point, in one pass over the runnable tasks.
    fn decide(
        &mut self,
        r: &mut Recording,
        runnable: &[&Task],
        current: Option<TaskId>,
        is_yielding: bool,
        members: &mut Vec<(TaskId, Class)>,
    ) -> Decision {
        self.give_way_now = false;
        if r.done {
            // The last operation has returned. Let the watchdog end, unless the object has threads
            // of its own that may never end: then stop the execution, or, in the quiet end (see
            // `quiet_end`), run those threads that can, one at a time, until they finish.
            if self.saw_background && r.quiet_end && r.own_threads_running() {
                self.quiet_end_steps += 1;
                let own = runnable
                    .iter()
                    .map(|t| t.id())
                    .filter(|&t| r.is_own_thread_running(t))
                    .min();
                return match own {
                    Some(t) if self.quiet_end_steps <= crate::explore::quiet_end::MAX_QUIET_END_STEPS => {
                        Decision::Run(t)
                    }
                    _ => Decision::End,
                };
            }
            if self.saw_background && !r.quiet_end {
                return Decision::End;
            }
            let role_of = |t: TaskId| r.roles.get(usize::from(t)).copied().flatten();
            let finishing = |wanted: Role| runnable.iter().map(|t| t.id()).find(|&t| role_of(t) == Some(wanted));
            return finishing(Role::Watchdog)
                .or_else(|| finishing(Role::Harness))
                .map_or(Decision::End, Decision::Run);
        }
        if self.step > self.limits.max_steps {
            return Decision::Inconclusive;
        }
        // A thread that has run `fair_switch_steps` steps in a row without yielding is treated as
        // if it yielded: a free switch to the thread that ran least recently (fairness), counted
        // towards livelock like a yield. A yield ends a run too.
        let fair_switch = matches!(self.run, Some((t, n)) if Some(t) == current && n >= self.limits.fair_switch_steps);
        if is_yielding || fair_switch {
            self.run = None;
        }
        let program_yield = is_yielding;
        let is_yielding = is_yielding || fair_switch;

        let current_role = current.and_then(|c| r.roles.get(usize::from(c)).copied().flatten());
        let current_op = match current_role {
            Some(Role::InOp(op)) if r.pending[op - 1] => Some(op),
            _ => None,
        };
        if let (true, Some(op)) = (is_yielding, current_op) {
            r.yields[op - 1] += 1;
        }
        // Fast path: a thread inside an operation (or at its gate) goes on when the strategy
        // allows no switch (pb-dfs with the preemption budget spent).
        let current_can_go_on = current_op.is_some() || matches!(current_role, Some(Role::Gate(_)));
        if let (Some(strategy), Some(c), true, false) = (&self.strategy, current, current_can_go_on, is_yielding) {
            if strategy.keeps_current() && runnable.iter().any(|t| t.id() == c) {
                return Decision::Run(c);
            }
        }
        // Fast path: in a serial execution, the one thread of the pending operation goes on while
        // every other thread waits at a gate.
        if let (Mode::Serial, Some(c), Some(_), false) = (self.mode, current, current_op, is_yielding) {
            let role_of = |t: TaskId| r.roles.get(usize::from(t)).copied().flatten();
            let mut alone = false;
            for t in runnable {
                if t.id() == c {
                    alone = true;
                } else if !matches!(role_of(t.id()), Some(Role::Gate(_) | Role::Waiting | Role::Watchdog)) {
                    alone = false;
                    break;
                }
            }
            if alone {
                return Decision::Run(c);
            }
        }
        let serial_pending = self.mode == Mode::Serial && r.pending.iter().any(|&p| p);
        let mut current_runnable = false;
        let mut current_index = None;
        let mut harness = None;
        let mut waiting = None;
        for t in runnable {
            let id = t.id();
            let is_current = Some(id) == current;
            current_runnable |= is_current;
            let class = match r.role(id, t.parent_task_id()) {
                // Harness code first, without branching: the current task if it is in harness
                // code, else the first one.
                Role::Harness => {
                    if harness.is_none() || is_current {
                        harness = Some(id);
                    }
                    continue;
                }
                Role::Waiting => {
                    waiting = Some(id);
                    continue;
                }
                Role::Watchdog => continue,
                Role::Gate(_) => Class::Gate,
                Role::InOp(op) if r.pending[op - 1] => Class::Active(op),
                Role::InOp(_) | Role::Background => {
                    if usize::from(id) != 0 {
                        self.saw_background = true;
                        self.background_seen = true;
                    }
                    Class::Background
                }
            };
            let member = match self.mode {
                // While an operation is pending, only its threads (and the object's) may run.
                Mode::Serial if serial_pending => class != Class::Gate,
                Mode::Serial => !matches!(class, Class::Active(_)),
                Mode::Concurrent => true,
            };
            if member {
                if is_current {
                    current_index = Some(members.len());
                }
                members.push((id, class));
            }
        }
        if let (Some(c), false) = (current, current_runnable) {
            // A worker that blocked at the first scheduling point of its operation has begun it.
            r.let_run(c);
        }
        if let Some(t) = harness {
            return Decision::Run(t);
        }
        if r.workers_unfinished == 0 {
            if let Some(t) = waiting {
                return Decision::Run(t);
            }
        }
        if members.is_empty() {
            // Only the watchdog (or threads barred from running in a serial execution) can run.
            return Decision::Stuck(StuckKind::Deadlock);
        }
        let spin_bound = self.limits.spin_bound;
        if members
            .iter()
            .all(|(_, c)| matches!(c, Class::Active(op) if r.yields[op - 1] >= spin_bound))
        {
            return Decision::Stuck(StuckKind::Livelock);
        }

        // A thread that may go on gives way (harness threads yield too, but choose nothing).
        self.give_way_now = is_yielding && current_index.is_some();
        if self.give_way_now {
            // The fair choice depends on the order in which threads ran, not on the state: every
            // sleeper wakes (see `sleep`), and if it was a real choice (two or more others, or a
            // fair switch), the options on the path so far may not sleep in their later siblings.
            self.sleep.clear();
            if fair_switch || members.len() > 2 {
                let depth = self.tree.depth();
                self.taint_depth = Some(self.taint_depth.map_or(depth, |d| d.max(depth)));
            }
        }
        if self.limits.reduction && !self.sleep.is_empty() && members.iter().all(|(t, _)| self.sleep.contains(*t)) {
            return Decision::Redundant;
        }
        let asleep = if self.limits.reduction {
            self.asleep_members(members)
        } else {
            0
        };
        // The member other than the current one that ran least recently: the fair choice after a
        // yield (only then).
        let least_recent = if is_yielding {
            members
                .iter()
                .enumerate()
                .filter(|&(k, _)| Some(k) != current_index)
                .min_by_key(|&(_, &(t, _))| (self.last_run.get(usize::from(t)).copied().unwrap_or(0), t))
                .map(|(k, _)| k)
        } else {
            None
        };
        let Some(strategy) = &mut self.strategy else {
            // Phase 1: a yield is a free switch to the member that ran least recently; else the
            // current member first (if it is one), then every other member in task order, all free.
            if let (Some(i), true) = (current_index, is_yielding) {
                return Decision::Run(members[least_recent.unwrap_or(i)].0);
            }
            // Option k is the member at position `member(k)`.
            let member = |k: usize| match current_index {
                Some(i) if k == 0 => i,
                Some(i) if k - 1 < i => k - 1,
                Some(_) => k,
                None => k,
            };
            let asleep_options = (0..members.len().min(64))
                .filter(|&k| member(k) < 64 && asleep & (1 << member(k)) != 0)
                .fold(0u64, |mask, k| mask | (1 << k));
            let chosen = if members.len() == 1 {
                0
            } else {
                match self.tree.choose_awake(members.len(), asleep_options) {
                    Ok(i) => i,
                    Err(divergence) => return Decision::Diverged(divergence),
                }
            };
            return match current_index {
                Some(i) if chosen == 0 => Decision::Run(members[i].0),
                // The (chosen - 1)-th member other than the current one.
                Some(i) => Decision::Run(members[if chosen - 1 < i { chosen - 1 } else { chosen }].0),
                None => Decision::Run(members[chosen].0),
            };
        };
        let mut ids = std::mem::take(&mut self.ids_buffer);
        ids.clear();
        ids.extend(members.iter().map(|&(t, _)| t));
        let point = Point {
            members: &ids,
            current: current_index,
            yielded: program_yield,
            fair_switch,
            least_recent,
            last: current,
            asleep,
        };
        let decision = match strategy.pick(&point, &mut self.tree) {
            Ok(k) => {
                if ids.len() > 1 {
                    self.by_index.push(k as u32);
                }
                Decision::Run(ids[k])
            }
            Err(divergence) => Decision::Diverged(divergence),
        };
        self.ids_buffer = ids;
        decision
    }
}

/// The [`Scheduler`] handed to shuttle; the exploration stays readable by the phase that runs it.
pub(crate) struct LineupScheduler(pub Rc<RefCell<SchedulerState>>);

impl Scheduler for LineupScheduler {
    fn new_execution(&mut self) -> Option<Schedule> {
        self.0.borrow_mut().new_execution()
    }

    fn next_task(&mut self, runnable: &[&Task], current: Option<TaskId>, is_yielding: bool) -> Option<TaskId> {
        let next = self.0.borrow_mut().next_task(runnable, current, is_yielding);
        if next.is_none() {
            abandonment::note_stopped();
        }
        next
    }

    fn next_u64(&mut self) -> u64 {
        // Data nondeterminism (shuttle::rand) is not explored: a fixed stream keeps executions
        // replayable. An object whose results depend on it fails the determinism check.
        0x2545_f491_4f6c_dd1d
    }
}

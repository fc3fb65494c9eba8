//! The record of the execution in progress, shared by the harness (which appends call and
//! return events from inside the tasks) and the scheduler (which reads it at every decision).
//!
//! It is a sub-store of the [execution context](crate::explore::context), reached through
//! [`with`].

use shuttle::current::TaskId;

use crate::explore::context::ExecutionContext;
use crate::explore::role::Role;
use crate::model::history::Event;
use crate::model::history::History;
use crate::model::history::OpTable;
use crate::model::trace::{ResponseInterner, TraceRef};

/// What lineup's scheduler draws (through shuttle's random numbers) for a cancellation point at
/// which the future is dropped.
pub(crate) const CANCEL: u64 = 1;

/// The threads spawned by `lineup::thread::spawn` in the execution in progress, and the quiet end
/// that lets them finish (see [`quiet_end`](crate::explore::quiet_end)).
#[derive(Debug, Default)]
pub(crate) struct OwnThreads {
    /// By task id, and whether each is still running its function.
    spawned: Vec<(TaskId, bool)>,
    /// The execution is over and these threads are being let finish (see
    /// `lineup::sync::mpsc`'s receive): the *quiet end*.
    pub quiet_end: bool,
    /// The execution is over and the object's threads, some of them not lineup's, are being let
    /// finish without being told to (the quiet end of shuttle's threads: see `quiet_end`).
    pub shuttle_quiet_end: bool,
    /// During the quiet end of shuttle's threads, some have not finished and none can run: the
    /// scheduler stops the execution.
    pub quiet_end_stuck: bool,
    /// After the last operation, every one of the object's threads was found finished, each one
    /// of lineup's `vendor/shuttle-std` (labelled `Guarded`): none needs the quiet end, and none
    /// keeps an abandoned execution from ending cleanly.
    pub shuttle_threads_finished: bool,
}

impl OwnThreads {
    const EMPTY: OwnThreads = OwnThreads {
        spawned: Vec::new(),
        quiet_end: false,
        shuttle_quiet_end: false,
        quiet_end_stuck: false,
        shuttle_threads_finished: false,
    };

    fn clear(&mut self) {
        self.spawned.clear();
        self.quiet_end = false;
        self.shuttle_quiet_end = false;
        self.quiet_end_stuck = false;
        self.shuttle_threads_finished = false;
    }

    /// `task` was spawned by `lineup::thread::spawn`; it runs its function.
    #[cfg_attr(loom, allow(dead_code))]
    pub fn spawned(&mut self, task: TaskId) {
        self.spawned.push((task, true));
    }

    /// `task`, spawned by `lineup::thread::spawn`, has returned from its function (or unwound).
    #[cfg_attr(loom, allow(dead_code))]
    pub fn finished(&mut self, task: TaskId) {
        if let Some(entry) = self.spawned.iter_mut().find(|(t, _)| *t == task) {
            entry.1 = false;
        }
    }

    /// Whether the task with id `task` was spawned by `lineup::thread::spawn`.
    pub fn contains(&self, task: usize) -> bool {
        self.spawned.iter().any(|&(t, _)| usize::from(t) == task)
    }

    /// Whether `task` was spawned by `lineup::thread::spawn` and still runs its function.
    pub fn is_running(&self, task: TaskId) -> bool {
        self.spawned.iter().any(|&(t, running)| t == task && running)
    }

    /// Whether some thread spawned by `lineup::thread::spawn` still runs its function.
    pub fn any_running(&self) -> bool {
        self.spawned.iter().any(|&(_, running)| running)
    }
}

/// The events of the execution in progress.
#[derive(Debug, Default)]
pub(crate) struct Recording {
    pub events: Vec<Event>,
    /// Interned responses, indexed by `op - 1`.
    pub responses: Vec<Option<u32>>,
    /// Whether each operation has been called and not returned, indexed by `op - 1`.
    pub pending: Vec<bool>,
    /// Yields (and fair switches) taken inside each operation since it was called or since the
    /// last progress (a call or return anywhere), whichever came later, indexed by `op - 1`.
    pub yields: Vec<u32>,
    /// The role of each task, indexed by task id (`None`: not seen yet).
    pub roles: Vec<Option<Role>>,
    /// The role each task had when the scheduler last let it run, indexed by task id. shuttle
    /// creates a thread right after the scheduling point of its `spawn`, before its parent runs
    /// any other code, so this is the parent's role at the spawn.
    pub run_roles: Vec<Option<Role>>,
    /// Worker threads that have not finished their column yet.
    pub workers_unfinished: usize,
    /// The task that runs each operation, indexed by `op - 1` (set at the call).
    pub owners: Vec<Option<TaskId>>,
    /// The main thread has run the last operation: the execution is over.
    pub done: bool,
    /// Threads spawned by `lineup::thread::spawn` in this execution, and their quiet end.
    pub own_threads: OwnThreads,
    /// The responses seen in this exploration.
    pub interner: ResponseInterner,
    /// A buffer that responses are rendered into before they are interned.
    pub buffer: String,
    /// The tasks running a [cancellable](crate::Invocation::cancellable) operation now, each with
    /// the poll after which its future was dropped, once it was (`Some(0)`: dropped before its
    /// first poll, phase 1's *skip*).
    pub cancellable: Vec<(TaskId, Option<u32>)>,
    /// A cancellable future asks the scheduler whether to drop it after this many polls: set
    /// right before it draws the choice through shuttle's random numbers (see
    /// [`LineupScheduler`](crate::explore::scheduler::LineupScheduler)'s `next_u64`).
    pub cancel_request: Option<u32>,
}

impl Recording {
    /// A record of no execution (the thread local's first value).
    pub(crate) const EMPTY: Recording = Recording {
        events: Vec::new(),
        responses: Vec::new(),
        pending: Vec::new(),
        yields: Vec::new(),
        roles: Vec::new(),
        run_roles: Vec::new(),
        owners: Vec::new(),
        workers_unfinished: 0,
        done: false,
        own_threads: OwnThreads::EMPTY,
        interner: ResponseInterner::EMPTY,
        buffer: String::new(),
        cancellable: Vec::new(),
        cancel_request: None,
    };

    /// The role of `task`; a task not seen before takes the role its parent had at the spawn.
    #[inline]
    pub fn role(&mut self, task: TaskId, parent: Option<TaskId>) -> Role {
        match self.roles.get(usize::from(task)) {
            Some(Some(role)) => *role,
            _ => self.inherit_role(task, parent),
        }
    }

    /// The role of `task`, seen for the first time: the one its parent had at the spawn (or
    /// [`Role::Background`] without a parent), now its own.
    #[cold]
    fn inherit_role(&mut self, task: TaskId, parent: Option<TaskId>) -> Role {
        let at_spawn = |p: TaskId| {
            let p = usize::from(p);
            self.run_roles
                .get(p)
                .copied()
                .flatten()
                .or_else(|| self.roles.get(p).copied().flatten())
        };
        let inherited = parent.and_then(at_spawn).unwrap_or(Role::Background);
        self.set_role(task, inherited);
        inherited
    }

    /// The scheduler lets `task` run now: a worker at its gate begins its operation (its call
    /// is recorded), and the role it runs in is noted (see `run_roles`).
    #[inline]
    pub fn let_run(&mut self, task: TaskId) {
        let i = usize::from(task);
        let mut role = self.roles.get(i).copied().flatten();
        if let Some(Role::Gate(op)) = role {
            self.call_by(op, task);
            role = Some(Role::InOp(op));
            self.roles[i] = role;
        }
        match self.run_roles.get_mut(i) {
            Some(run_role) => *run_role = role,
            None => self.grow_run_roles(i, role),
        }
    }

    /// `run_roles` up to task `i`, whose role is `role`.
    #[cold]
    fn grow_run_roles(&mut self, i: usize, role: Option<Role>) {
        self.run_roles.resize(i + 1, None);
        self.run_roles[i] = role;
    }

    /// Whether `task` is running one of its own operations (as opposed to a thread that an
    /// operation spawned): a panic there is caught and recorded as the operation's response.
    pub fn runs_operation(&self, task: TaskId) -> bool {
        match self.roles.get(usize::from(task)).copied().flatten() {
            Some(Role::Gate(_)) => true,
            Some(Role::InOp(op)) => self.owners.get(op - 1) == Some(&Some(task)),
            _ => false,
        }
    }

    /// Records the call of `op` by the task that runs it.
    pub fn call_by(&mut self, op: usize, task: TaskId) {
        self.call(op);
        self.owners[op - 1] = Some(task);
    }

    /// Records the call of `op`.
    pub fn call(&mut self, op: usize) {
        self.progress();
        self.events.push(Event::Call(op));
        self.pending[op - 1] = true;
    }

    /// Records the return of `op` with the interned `response`.
    pub fn ret(&mut self, op: usize, response: u32) {
        self.progress();
        self.events.push(Event::Return(op));
        self.responses[op - 1] = Some(response);
        self.pending[op - 1] = false;
    }

    /// An operation was called or returned: the threads spinning so far may see something new, so
    /// their livelock counts start again.
    fn progress(&mut self) {
        self.yields.fill(0);
    }

    /// Sets the role of `task`.
    #[inline]
    pub fn set_role(&mut self, task: TaskId, role: Role) {
        match self.roles.get_mut(usize::from(task)) {
            Some(slot) => *slot = Some(role),
            None => self.grow_roles(task, role),
        }
    }

    /// `roles` up to `task`, whose role is `role`.
    #[cold]
    fn grow_roles(&mut self, task: TaskId, role: Role) {
        let i = usize::from(task);
        self.roles.resize(i + 1, None);
        self.roles[i] = Some(role);
    }
}

/// Runs `f` on the record of the execution in progress on this OS thread.
#[inline]
pub(crate) fn with<R>(f: impl FnOnce(&mut Recording) -> R) -> R {
    ExecutionContext::with(|cx| f(&mut cx.recording()))
}

impl Recording {
    /// Starts a fresh record for an execution with `ops` operations, the matrix's and the
    /// workers' handle drops (the responses interned so far are kept: they are the exploration's).
    pub(crate) fn begin_execution(&mut self, ops: usize) {
        self.events.clear();
        self.responses.clear();
        self.responses.resize(ops, None);
        self.pending.clear();
        self.pending.resize(ops, false);
        self.yields.clear();
        self.yields.resize(ops, 0);
        self.roles.clear();
        self.run_roles.clear();
        self.owners.clear();
        self.owners.resize(ops, None);
        self.done = false;
        self.own_threads.clear();
        self.workers_unfinished = 0;
        self.cancellable.clear();
        self.cancel_request = None;
    }

    /// `task` begins a cancellable operation.
    pub fn begin_cancellable(&mut self, task: TaskId) {
        self.cancellable.retain(|&(t, _)| t != task);
        self.cancellable.push((task, None));
    }

    /// Whether `task` runs a cancellable operation whose future has not been dropped.
    #[cfg_attr(loom, allow(dead_code))]
    pub fn may_cancel(&self, task: TaskId) -> bool {
        self.cancellable
            .iter()
            .any(|&(t, dropped)| t == task && dropped.is_none())
    }

    /// The future of `task`'s cancellable operation was dropped after `polls` polls.
    #[cfg_attr(loom, allow(dead_code))]
    pub fn note_cancelled(&mut self, task: TaskId, polls: u32) {
        if let Some(entry) = self.cancellable.iter_mut().find(|(t, _)| *t == task) {
            entry.1 = Some(polls);
        }
    }

    /// `task`'s cancellable operation ended: the poll after which its future was dropped, if it
    /// was.
    pub fn end_cancellable(&mut self, task: TaskId) -> Option<u32> {
        let i = self.cancellable.iter().position(|&(t, _)| t == task)?;
        self.cancellable.swap_remove(i).1
    }

    /// Takes back the call of `op`, the last event recorded (phase 1's skip of a cancellable
    /// operation: a serial history in which it never ran).
    pub fn retract_call(&mut self, op: usize) {
        debug_assert_eq!(self.events.last(), Some(&Event::Call(op)));
        if self.events.last() == Some(&Event::Call(op)) {
            self.events.pop();
        }
        self.pending[op - 1] = false;
        self.owners[op - 1] = None;
    }
}

/// Forgets the responses of an earlier exploration.
pub(crate) fn reset_interner() {
    with(|r| r.interner = ResponseInterner::default());
}

/// Takes the events and (interned) responses recorded so far; hand the buffers back with
/// [`give_back`] so that the next execution reuses them.
pub(crate) fn take() -> (Vec<Event>, Vec<Option<u32>>) {
    with(|r| (std::mem::take(&mut r.events), std::mem::take(&mut r.responses)))
}

/// Returns the buffers [`take`] took.
pub(crate) fn give_back(events: Vec<Event>, responses: Vec<Option<u32>>) {
    with(|r| {
        r.events = events;
        r.responses = responses;
    });
}

/// Sets the role of a task.
#[inline]
pub(crate) fn set_role(task: TaskId, role: Role) {
    with(|r| r.set_role(task, role));
}

/// The history of `trace`, its responses resolved in this exploration's interner.
pub(crate) fn history_of(trace: TraceRef<'_>, ops: &OpTable) -> History {
    with(|r| trace.history(&r.interner, ops))
}

impl Recording {
    /// Whether `task` is a thread spawned by `lineup::thread::spawn` still running its function.
    pub fn is_own_thread_running(&self, task: TaskId) -> bool {
        self.own_threads.is_running(task)
    }

    /// Whether `task` is a thread spawned by `lineup::thread::spawn` still running its function
    /// during the quiet end.
    pub fn is_told_to_end(&self, task: TaskId) -> bool {
        self.own_threads.quiet_end && self.own_threads.is_running(task)
    }

    /// Whether some thread spawned by `lineup::thread::spawn` still runs its function.
    pub fn own_threads_running(&self) -> bool {
        self.own_threads.any_running()
    }

    /// Whether every thread of the object's own (spawned by the constructor, or outliving the
    /// operation that spawned it) was spawned by `lineup::thread::spawn`, so that the quiet end
    /// can let them finish.
    pub fn every_thread_of_its_own_is_lineup_s(&self) -> bool {
        self.threads_of_its_own()
            .all(|t| self.own_threads.contains(usize::from(t)))
    }

    /// The object's own threads: spawned by the constructor, or outliving the operation that
    /// spawned them.
    pub fn threads_of_its_own(&self) -> impl Iterator<Item = TaskId> + '_ {
        self.roles
            .iter()
            .enumerate()
            .skip(1)
            .filter(|&(i, role)| self.is_of_its_own(TaskId::from(i), *role))
            .map(|(i, _)| TaskId::from(i))
    }

    /// Whether `task` is one of the object's own threads.
    pub fn is_thread_of_its_own(&self, task: TaskId) -> bool {
        usize::from(task) != 0 && self.is_of_its_own(task, self.roles.get(usize::from(task)).copied().flatten())
    }

    fn is_of_its_own(&self, task: TaskId, role: Option<Role>) -> bool {
        match role {
            Some(Role::Background) => true,
            Some(Role::InOp(op)) => self.owners[op - 1] != Some(task),
            _ => false,
        }
    }
}

//! The record of the execution in progress, shared by the harness (which appends call and
//! return events from inside the tasks) and the scheduler (which reads it at every decision).
//!
//! A shuttle execution runs every task and the scheduler on one OS thread, so the record is a
//! thread local; checks on different OS threads have records of their own.

use std::cell::RefCell;

use shuttle::current::TaskId;

use crate::role::Role;
use crate::{Event, Response};

/// The events of the execution in progress.
#[derive(Debug, Default)]
pub(crate) struct Recording {
    pub events: Vec<Event>,
    /// Indexed by `op - 1`.
    pub responses: Vec<Option<Response>>,
    /// Whether each operation has been called and not returned, indexed by `op - 1`.
    pub pending: Vec<bool>,
    /// Yields taken inside each operation since it was called, indexed by `op - 1`.
    pub yields: Vec<u32>,
    /// The role of each task, indexed by task id (`None`: not seen yet).
    pub roles: Vec<Option<Role>>,
    /// Worker threads that have not finished their column yet.
    pub workers_unfinished: usize,
    /// The main thread has run the last operation: the execution is over.
    pub done: bool,
}

impl Recording {
    /// The role of `task`; a task not seen before takes its parent's role.
    pub fn role(&mut self, task: TaskId, parent: Option<TaskId>) -> Role {
        let i = usize::from(task);
        if let Some(Some(role)) = self.roles.get(i) {
            return *role;
        }
        let inherited = parent
            .and_then(|p| self.roles.get(usize::from(p)).copied().flatten())
            .unwrap_or(Role::Background);
        self.set_role(task, inherited);
        inherited
    }

    /// Sets the role of `task`.
    pub fn set_role(&mut self, task: TaskId, role: Role) {
        let i = usize::from(task);
        if self.roles.len() <= i {
            self.roles.resize(i + 1, None);
        }
        self.roles[i] = Some(role);
    }
}

thread_local! {
    static RECORDING: RefCell<Recording> = RefCell::new(Recording::default());
}

/// Runs `f` on the record of the execution in progress on this OS thread.
pub(crate) fn with<R>(f: impl FnOnce(&mut Recording) -> R) -> R {
    RECORDING.with(|r| f(&mut r.borrow_mut()))
}

/// Starts a fresh record for an execution of a matrix with `ops` operations.
pub(crate) fn reset(ops: usize) {
    with(|r| {
        // `take` left them empty: allocate once at the right size.
        r.events = Vec::with_capacity(2 * ops);
        r.responses = vec![None; ops];
        r.pending.clear();
        r.pending.resize(ops, false);
        r.yields.clear();
        r.yields.resize(ops, 0);
        r.roles.clear();
        r.done = false;
        r.workers_unfinished = 0;
    });
}

/// Takes the events and responses recorded so far.
pub(crate) fn take() -> (Vec<Event>, Vec<Option<Response>>) {
    with(|r| (std::mem::take(&mut r.events), std::mem::take(&mut r.responses)))
}

/// Records the call of `op`.
pub(crate) fn call(op: usize) {
    with(|r| {
        r.events.push(Event::Call(op));
        r.pending[op - 1] = true;
    });
}

/// Records the return of `op` with `response`.
pub(crate) fn ret(op: usize, response: Response) {
    with(|r| {
        r.events.push(Event::Return(op));
        r.responses[op - 1] = Some(response);
        r.pending[op - 1] = false;
    });
}

/// Sets the role of a task.
pub(crate) fn set_role(task: TaskId, role: Role) {
    with(|r| r.set_role(task, role));
}

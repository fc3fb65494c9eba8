//! What a task of an execution is doing, as the scheduler sees it.
//!
//! The harness marks each of its tasks with a [`Role`] through shuttle's task labels. Labels are
//! inherited at spawn, so a thread that an operation spawns belongs to that operation, and one
//! that the object's constructor spawns is a background thread of the object.

use shuttle::current::{get_label_for_task, me, set_label_for_task, TaskId};

/// The role of a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Harness code between operations that touches nothing shared: run it without branching.
    Harness,
    /// The watchdog thread: always runnable, never scheduled; when it is all that can run,
    /// every other thread is blocked.
    Watchdog,
    /// A worker about to call its next operation: the scheduling point that decides which
    /// operation starts next.
    Gate,
    /// Inside operation `op` (or a thread spawned by it).
    InOp(usize),
    /// A thread of the object itself (spawned while the object was built).
    Background,
    /// The main thread after the last operation: the execution is over.
    Done,
}

/// Marks the current task.
pub(crate) fn set_my_role(role: Role) {
    set_label_for_task(me(), role);
}

/// The role of a task; a task without a role (impossible for tasks the harness spawned) is
/// treated as a background thread.
pub(crate) fn role_of(task: TaskId) -> Role {
    get_label_for_task::<Role>(task).unwrap_or(Role::Background)
}

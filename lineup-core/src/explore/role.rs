//! What a task of an execution is doing, as the scheduler sees it.
//!
//! The harness marks each of its tasks with a [`Role`] in the [`recording`](crate::explore::recording).
//! A task the harness did not spawn takes the role its parent had when it spawned it (the
//! scheduler sees every new task at the scheduling point right after its spawn), so a thread that
//! an operation spawns belongs to that operation, and one that the object's constructor spawns is
//! a background thread of the object.

/// The role of a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Harness code between operations that touches nothing shared: run it without branching.
    Harness,
    /// The watchdog thread: always runnable, never scheduled; when it is all that can run,
    /// every other thread is blocked.
    Watchdog,
    /// The main thread waiting (yielding) for the workers to finish: like the watchdog, except
    /// that it goes on once every worker has finished.
    Waiting,
    /// A worker that has begun operation `op` but has not reached a scheduling point in it
    /// yet: until then the operation has touched nothing shared, so this first scheduling point
    /// is its *gate*, where the scheduler decides which operation starts next. When the
    /// scheduler lets it go on, the call is recorded.
    Gate(usize),
    /// Inside operation `op` (or a thread spawned by it).
    InOp(usize),
    /// A thread of the object itself (spawned while the object was built).
    Background,
}

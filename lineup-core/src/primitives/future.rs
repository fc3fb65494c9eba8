//! Futures for the object under test and its asynchronous operations, from the backend lineup
//! runs on: shuttle's executor by default, lineup's own on loom's threads under `--cfg loom`.
//!
//! An asynchronous operation ([`Invocation::new_async`](crate::Invocation::new_async), an
//! `async fn` under `#[invocations]`) runs through [`block_on`] on its worker. Tasks the object
//! spawns with [`spawn`] (on loom, threads that run the future) are tasks of the same execution,
//! which lineup schedules like threads: spawned while the object is built they are background
//! tasks of the object, spawned by an operation they belong to it.
//!
//! ```
//! use lineup_core::future::block_on;
//! use lineup_core::sync::Mutex;
//! use lineup_core::{check, Config, Invocation, Subject, TestMatrix};
//!
//! // A synchronous operation that waits for a future of the object.
//! let subject = Subject::new("Cell", || Mutex::new(0u32)).with(Invocation::new("bump", |m: &Mutex<u32>| {
//!     block_on(async {
//!         let mut value = m.lock().unwrap();
//!         *value += 1;
//!         *value
//!     })
//! }));
//! let verdict = check(&subject, &TestMatrix::new(vec![vec![0], vec![0]]), &Config::default()).unwrap();
//! assert!(verdict.is_pass());
//! ```

/// Runs a future to completion on the current thread of the backend: while it is pending, the
/// thread is blocked until the future's waker is woken (and never runs again if it is not).
/// On shuttle, shuttle's `block_on`; on loom, lineup's, whose waits lineup sees, so that an
/// execution in which every thread waits for good ends as a stuck history.
#[cfg(not(loom))]
#[track_caller]
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    block_on_at(future, Some(std::panic::Location::caller()))
}

/// [`block_on`], whose `.await`s that suspend are recorded as steps called at `site` (lineup's own
/// callers, the harness of an asynchronous operation, give none: they are no place in the user's
/// code). While steps are not recorded, shuttle's `block_on` on the future as it is.
#[cfg(not(loom))]
pub(crate) fn block_on_at<F: std::future::Future>(
    future: F,
    site: Option<&'static std::panic::Location<'static>>,
) -> F::Output {
    // Observed (outermost): its `Pending` stops at a scheduling point the reduction sees, unless a
    // future it does not see registered the waker (see `explore::observed`).
    use lineup_signals::footprint::Observed;
    if !crate::explore::trace::is_on() {
        return shuttle::future::block_on(Observed::new(future));
    }
    shuttle::future::block_on(Observed::new(Suspensions {
        future: Box::pin(future),
        site,
        suspended: None,
    }))
}

/// A future whose suspensions are recorded: a poll that returns `Pending` begins a step (so that
/// the scheduling point of the wait is one lineup sees), and the next poll ends it as an `.await`
/// that resumed.
#[cfg(not(loom))]
struct Suspensions<F: std::future::Future> {
    future: std::pin::Pin<Box<F>>,
    site: Option<&'static std::panic::Location<'static>>,
    suspended: Option<crate::explore::trace::Pending>,
}

#[cfg(not(loom))]
impl<F: std::future::Future> std::future::Future for Suspensions<F> {
    type Output = F::Output;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<F::Output> {
        // Every field is `Unpin` (the future is boxed).
        let this = self.get_mut();
        if let Some(step) = this.suspended.take() {
            step.done(|| crate::explore::trace::Action::Await);
        }
        let poll = this.future.as_mut().poll(cx);
        if poll.is_pending() {
            this.suspended = Some(crate::explore::trace::begin(None, this.site));
        }
        poll
    }
}

/// Runs the future of an asynchronous invocation's operation to completion on the current task:
/// its output, or `None` when the operation is [cancellable](crate::Invocation::cancellable) and
/// the exploration dropped its future.
///
/// A cancellable operation draws a choice of the exploration (see
/// [`LineupScheduler`](crate::explore::scheduler::LineupScheduler)'s `next_u64`): in phase 1
/// before its first poll (the *skip*: the serial history in which it never ran, which a witness
/// that leaves the operation out needs), in phase 2 after every poll that returns `Pending`. A
/// drop chosen after a poll happens at the next poll, behind a scheduling point of its own (the
/// future wakes itself), so that other threads may run between the `Pending` and the drop. The
/// poll after which the future was dropped is noted in the recording for the harness.
#[cfg(not(loom))]
pub(crate) fn run_operation<F: std::future::Future>(future: F) -> Option<F::Output> {
    let me = shuttle::current::me();
    if !crate::explore::recording::with(|r| r.may_cancel(me)) {
        return Some(block_on_at(future, None));
    }
    if draw_cancellation(0) {
        drop(future);
        crate::explore::recording::with(|r| r.note_cancelled(me, 0));
        return None;
    }
    block_on_at(
        Cancellable {
            future: Some(Box::pin(future)),
            polls: 0,
            dropping: false,
            me,
        },
        None,
    )
}

/// Under loom, which explores no cancellation: the future runs to completion.
#[cfg(loom)]
pub(crate) fn run_operation<F: std::future::Future>(future: F) -> Option<F::Output> {
    Some(block_on(future))
}

/// Asks the exploration whether to drop a cancellable future after `polls` polls (0: before its
/// first): the request goes through the recording, the answer through shuttle's random numbers,
/// which lineup's scheduler turns into a choice of its tree when a request is set.
#[cfg(not(loom))]
fn draw_cancellation(polls: u32) -> bool {
    crate::explore::recording::with(|r| r.cancel_request = Some(polls));
    let drawn = shuttle_engine::runtime::execution::ExecutionState::next_u64();
    crate::explore::recording::with(|r| r.cancel_request = None);
    drawn == crate::explore::recording::CANCEL
}

/// A cancellable operation's future: after each poll that returns `Pending` the exploration may
/// drop it; the drop happens at the next poll, after the scheduling point the future's own wake-up
/// makes.
#[cfg(not(loom))]
struct Cancellable<F: std::future::Future> {
    future: Option<std::pin::Pin<Box<F>>>,
    polls: u32,
    dropping: bool,
    me: shuttle::current::TaskId,
}

#[cfg(not(loom))]
impl<F: std::future::Future> std::future::Future for Cancellable<F> {
    type Output = Option<F::Output>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        // Every field is `Unpin` (the future is boxed).
        let this = self.get_mut();
        if this.dropping {
            let (me, polls) = (this.me, this.polls);
            // The drop is recorded before the future's destructor runs: the steps before it are
            // the last poll's (where the future was suspended), the steps after it the drop's.
            crate::explore::trace::begin(None, None).done(|| crate::explore::trace::Action::Cancel { polls });
            this.future = None;
            crate::explore::recording::with(|r| r.note_cancelled(me, polls));
            return std::task::Poll::Ready(None);
        }
        let Some(future) = this.future.as_mut() else {
            return std::task::Poll::Ready(None);
        };
        match future.as_mut().poll(cx) {
            std::task::Poll::Ready(output) => std::task::Poll::Ready(Some(output)),
            std::task::Poll::Pending => {
                this.polls += 1;
                if draw_cancellation(this.polls) {
                    this.dropping = true;
                    cx.waker().wake_by_ref();
                }
                std::task::Poll::Pending
            }
        }
    }
}

#[cfg(loom)]
pub use crate::loom_backend::block_on::block_on;

/// Yields to the scheduler once: a scheduling point in an `async` block.
#[cfg(not(loom))]
pub async fn yield_now() {
    shuttle::future::yield_now().await
}

#[cfg(loom)]
pub use crate::loom_backend::block_on::yield_now;

/// Spawning a task of the execution: `spawn`, its `JoinHandle` (a future of the task's
/// `Result`) and `JoinError`. shuttle's; under loom, which has no tasks, the future runs on a
/// thread of its own (`lineup::thread::spawn`) through [`block_on`].
#[cfg(not(loom))]
pub use shuttle::future::{spawn, JoinError, JoinHandle};

#[cfg(loom)]
pub use crate::loom_backend::task::{spawn, JoinError, JoinHandle};

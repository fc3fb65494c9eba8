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
    if !crate::explore::trace::is_on() {
        return shuttle::future::block_on(future);
    }
    shuttle::future::block_on(Suspensions {
        future: Box::pin(future),
        site,
        suspended: None,
    })
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

#[cfg(loom)]
pub use crate::loom_backend::block_on::block_on;

/// Under loom, [`block_on`] (loom's executions are not recorded step by step).
#[cfg(loom)]
pub(crate) fn block_on_at<F: std::future::Future>(
    future: F,
    _site: Option<&'static std::panic::Location<'static>>,
) -> F::Output {
    block_on(future)
}

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

//! `lineup::future::spawn` under loom, which has no tasks: the future runs on a thread of its
//! own (`lineup::thread::spawn`, tracked by the wait registry) through
//! [`block_on`](super::block_on::block_on), and its [`JoinHandle`] is a future of its output, as
//! shuttle's is.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use super::block_on::block_on;
use super::observable_mutex::Mutex;

/// A spawned task's output once it is there, and the waker of the task awaiting it.
struct Slot<T> {
    output: Option<T>,
    waiter: Option<Waker>,
}

/// The error of a task that did not complete. Never produced on loom: a task that panics fails
/// the execution there, as it does on shuttle. (It keeps `.await`'s type the same on both
/// backends.)
#[derive(Debug)]
pub struct JoinError(());

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the task did not complete")
    }
}

impl std::error::Error for JoinError {}

/// The handle of a spawned task: a future of its output. Dropping it detaches the task.
pub struct JoinHandle<T> {
    slot: Arc<Mutex<Slot<T>>>,
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JoinHandle")
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = self.slot.lock().unwrap();
        match slot.output.take() {
            Some(output) => Poll::Ready(Ok(output)),
            None => {
                slot.waiter = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// Runs `future` on a new tracked loom thread; the handle completes with its output.
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let slot = Arc::new(Mutex::new(Slot {
        output: None,
        waiter: None,
    }));
    let filled = Arc::clone(&slot);
    let _ = crate::loom_backend::wait_registry::spawn(move || {
        let output = block_on(future);
        let waiter = {
            let mut slot = filled.lock().unwrap();
            slot.output = Some(output);
            slot.waiter.take()
        };
        if let Some(waiter) = waiter {
            waiter.wake();
        }
    });
    JoinHandle { slot }
}

//! `lineup::future::block_on` under loom: polls a future on the current loom thread and waits
//! for its waker in the [`wait_registry`](super::wait_registry), like `lineup::sync`'s blocking
//! primitives, so that an execution whose threads all wait for good (a future never woken: a
//! lost wake-up) ends as a stuck history instead of loom's deadlock assertion.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use super::wait_registry::{park_until_woken, wake};

/// Wakes the loom thread blocked on the future.
struct ThreadWaker(loom::thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        wake(&self.0);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        wake(&self.0);
    }
}

/// Runs `future` to completion on the current loom thread; while it is pending, the thread waits
/// (in the wait registry) until the future's waker is woken.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(loom::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        park_until_woken();
    }
}

/// Yields to loom's scheduler once (noted as a yield by lineup, as `lineup::thread::yield_now`).
pub async fn yield_now() {
    crate::loom_backend::harness::note_yield();
    loom::thread::yield_now();
}

pub mod atomic;
mod barrier;
mod condvar;
pub mod mpsc;
mod mutex;
mod once;
mod rwlock;

pub use barrier::{Barrier, BarrierWaitResult};
pub use condvar::{Condvar, WaitTimeoutResult};

pub use mutex::Mutex;
pub use mutex::MutexGuard;

pub use once::Once;
pub use once::OnceState;

pub use rwlock::RwLock;
pub use rwlock::RwLockReadGuard;
pub use rwlock::RwLockWriteGuard;

pub use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

// TODO implement true support for `Arc`
pub use std::sync::{Arc, Weak};

pub use shuttle_engine::sync_types::{ResourceSignature, ResourceType};

// lineup's change (vendor/README.md): the waits of the `Mutex`, `RwLock`, `Condvar`, `Barrier`
// (and so `Once`) and `mpsc` of this crate are *abandonable*: each registers itself with lineup
// before it blocks, and a task that lineup wakes to end a stuck execution cleanly unwinds from its
// wait with lineup's payload (`lineup_signals::abandonment`), leaving the primitive as if it never
// waited (the same path as an unwind for execution teardown); a lock released by such an unwind is
// not poisoned, as for teardown. Outside lineup nothing wakes a task that way, and the waits behave
// as published. Below every line of the published file, so that none of its lines moves.

/// The current task `me` is about to block in one of this crate's waits.
#[inline]
pub(crate) fn lineup_begin_wait(me: shuttle_engine::runtime::task::TaskId) {
    lineup_signals::abandonment::begin_wait(usize::from(me));
}

/// The current task `me` is back from its wait: it unwinds if lineup woke it to abandon the
/// execution.
#[inline]
pub(crate) fn lineup_end_wait(me: shuttle_engine::runtime::task::TaskId) {
    lineup_signals::abandonment::end_wait_or_unwind(usize::from(me));
}

/// `semaphore.acquire_blocking(permits)` (shuttle-engine's `block_on` of the acquire: the same
/// polls and scheduling points), with a wait that lineup can abandon: the request is dropped (which
/// takes it off the semaphore's waiters) and the task unwinds.
pub(crate) fn lineup_acquire_blocking(
    semaphore: &shuttle_engine::future::batch_semaphore::BatchSemaphore,
    permits: usize,
) -> Result<(), shuttle_engine::future::batch_semaphore::AcquireError> {
    use shuttle_engine::runtime::execution::ExecutionState;
    use std::future::Future;
    use std::task::{Context, Poll};
    let mut request = Box::pin(semaphore.acquire(permits));
    let waker = ExecutionState::with(|state| state.current_mut().waker());
    let cx = &mut Context::from_waker(&waker);
    let me = ExecutionState::me();
    loop {
        match request.as_mut().poll(cx) {
            Poll::Ready(result) => break result,
            Poll::Pending => {
                ExecutionState::with(|state| state.current_mut().sleep_unless_woken());
                lineup_begin_wait(me);
                // If execution teardown unwinds the task from the switch below, it no longer waits.
                struct StopWaitingOnUnwind(shuttle_engine::runtime::task::TaskId);
                impl Drop for StopWaitingOnUnwind {
                    fn drop(&mut self) {
                        lineup_signals::abandonment::end_wait(usize::from(self.0));
                    }
                }
                let stop_waiting_on_unwind = StopWaitingOnUnwind(me);
                shuttle_engine::runtime::thread::switch();
                std::mem::forget(stop_waiting_on_unwind);
                lineup_end_wait(me);
            }
        }
    }
}

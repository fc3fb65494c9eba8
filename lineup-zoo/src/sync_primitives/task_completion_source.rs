//! `TaskCompletionSource`: a one-shot result (a value, a cancellation or an exception) that
//! producers complete once and consumers wait for. One correct version and two buggy ones for
//! the paper's root causes F (`Pre`) and G (Beta 2), which the paper does not describe: the
//! bugs planted here are of the same kind (synchronization errors that serial runs never show).

use lineup::shuttle::hint::spin_loop;
use lineup::sync::atomic::{AtomicU8, Ordering::SeqCst};
use lineup::sync::{Condvar, Mutex};

/// How a task completed (.NET `TaskStatus.RanToCompletion` with its `Result`, `Canceled`,
/// `Faulted` with its exception).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `SetResult(value)`.
    Result(u32),
    /// `SetCanceled()`.
    Canceled,
    /// `SetException(message)`.
    Faulted(&'static str),
}

/// The exception `try_set_exception` completes the task with.
pub const EXCEPTION: &str = "boom";

/// The message `set_result` panics with on a completed task, as .NET throws.
const ALREADY_COMPLETED: &str =
    "InvalidOperationException: An attempt was made to transition a task to a final state when it had already \
     completed.";

/// The status word of the buggy versions: not completed.
const PENDING: u8 = 0;
/// The status word: a producer has claimed the task and is publishing its outcome.
const COMPLETING: u8 = 1;
/// The status word: the outcome is published.
const DONE: u8 = 2;

/// The operations every version has, so that the three share one invocation set.
macro_rules! tcs_invocations {
    ($ty:ty) => {
        #[lineup::invocations]
        impl $ty {
            /// Completes the task with a value unless it is completed; whether it did (.NET
            /// `TrySetResult`).
            #[invoke(1)]
            pub fn try_set_result(&self, value: u32) -> bool {
                self.try_complete(Outcome::Result(value))
            }

            /// Cancels the task unless it is completed; whether it did (.NET `TrySetCanceled`).
            #[invoke]
            pub fn try_set_canceled(&self) -> bool {
                self.try_complete(Outcome::Canceled)
            }

            /// Faults the task with [`EXCEPTION`] unless it is completed; whether it did (.NET
            /// `TrySetException`).
            #[invoke]
            pub fn try_set_exception(&self) -> bool {
                self.try_complete(Outcome::Faulted(EXCEPTION))
            }

            /// Completes the task with a value (.NET `SetResult`).
            ///
            /// # Panics
            ///
            /// If the task is already completed, as .NET throws.
            #[invoke(2)]
            pub fn set_result(&self, value: u32) {
                if !self.try_complete(Outcome::Result(value)) {
                    panic!("{ALREADY_COMPLETED}");
                }
            }

            /// Blocks until the task is completed; its outcome (.NET `Task.Wait()`, then
            /// `Result` or the exception).
            #[invoke]
            pub fn wait(&self) -> Outcome {
                self.wait_outcome()
            }

            /// The outcome if the task is completed, without blocking (.NET `Task.Status`
            /// and `Result`).
            #[invoke]
            pub fn try_result(&self) -> Option<Outcome> {
                self.outcome()
            }
        }
    };
}

/// A correct task completion source: the outcome lives under a mutex; the first `try_set_*`
/// (or `set_result`) stores it and wakes every waiter, later ones return `false` (or panic);
/// `wait` blocks while there is none.
#[derive(Default)]
pub struct TaskCompletionSource {
    outcome: Mutex<Option<Outcome>>,
    completed: Condvar,
}

impl TaskCompletionSource {
    fn try_complete(&self, outcome: Outcome) -> bool {
        let mut slot = self.outcome.lock().unwrap();
        if slot.is_some() {
            return false;
        }
        *slot = Some(outcome);
        self.completed.notify_all();
        true
    }

    fn wait_outcome(&self) -> Outcome {
        let mut slot = self.outcome.lock().unwrap();
        loop {
            if let Some(outcome) = &*slot {
                return outcome.clone();
            }
            slot = self.completed.wait(slot).unwrap();
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome.lock().unwrap().clone()
    }
}

tcs_invocations!(TaskCompletionSource);

/// Root cause F (invented; the paper gives only the class, .NET 4.0 CTP): completion is not
/// atomic. `try_set_*` checks a status word on a lock-free fast path (`status == PENDING`) and
/// then, in a separate step, takes the lock and stores its outcome without checking again. Two
/// producers that both pass the check before either stores both return `true`, and the later
/// one overwrites the outcome the earlier one published (a waiter may already have returned
/// it). In `try_set_result(1) | try_set_canceled()` both return `true`, which no serial order
/// allows. Serially the check and the store are never separated, so serial runs are correct.
#[derive(Default)]
pub struct TaskCompletionSourcePre {
    status: AtomicU8,
    outcome: Mutex<Option<Outcome>>,
    completed: Condvar,
}

impl TaskCompletionSourcePre {
    fn try_complete(&self, outcome: Outcome) -> bool {
        if self.status.load(SeqCst) != PENDING {
            return false;
        }
        // Bug F: another producer can complete the task here; nothing checks again.
        let mut slot = self.outcome.lock().unwrap();
        *slot = Some(outcome);
        self.status.store(DONE, SeqCst);
        self.completed.notify_all();
        true
    }

    fn wait_outcome(&self) -> Outcome {
        let mut slot = self.outcome.lock().unwrap();
        loop {
            if let Some(outcome) = &*slot {
                return outcome.clone();
            }
            slot = self.completed.wait(slot).unwrap();
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.status.load(SeqCst) != DONE {
            return None;
        }
        self.outcome.lock().unwrap().clone()
    }
}

tcs_invocations!(TaskCompletionSourcePre);

/// Root cause G (invented; the paper gives only the class, .NET 4.0 Beta 2): a lost wake-up.
/// Completion is atomic now (a producer claims the task by a compare-and-swap of the status word
/// from `PENDING` to `COMPLETING`, stores the outcome under the lock, then publishes `DONE`; a
/// producer that lost the race spins until the winner has published before it returns `false`), but
/// to keep the critical section short the producer publishes `DONE` and notifies the waiters
/// *after* releasing the lock. A waiter checks the status under the lock and then waits: when
/// it checks between the producer's store of the outcome and its publication of `DONE`, it sees
/// `COMPLETING`, the producer publishes and notifies while the waiter is not yet waiting (it does
/// not need the lock to do so), and the waiter then waits for a notification that never comes.
/// In `wait() | try_set_result(1)` the `wait` blocks forever although the task is completed:
/// every value returned is right, only the stuck-history check sees it. Serially the producer
/// always finishes before a waiter checks, so serial runs are correct.
#[derive(Default)]
pub struct TaskCompletionSourceBeta {
    status: AtomicU8,
    outcome: Mutex<Option<Outcome>>,
    completed: Condvar,
}

impl TaskCompletionSourceBeta {
    fn try_complete(&self, outcome: Outcome) -> bool {
        if self
            .status
            .compare_exchange(PENDING, COMPLETING, SeqCst, SeqCst)
            .is_err()
        {
            // Another producer won: wait until it has published, so that a `false` is never
            // followed by an uncompleted task (.NET's `SpinUntilCompleted`).
            while self.status.load(SeqCst) != DONE {
                spin_loop();
            }
            return false;
        }
        *self.outcome.lock().unwrap() = Some(outcome);
        // Bug G: published and notified outside the lock the waiters check under.
        self.status.store(DONE, SeqCst);
        self.completed.notify_all();
        true
    }

    fn wait_outcome(&self) -> Outcome {
        let mut slot = self.outcome.lock().unwrap();
        while self.status.load(SeqCst) != DONE {
            slot = self.completed.wait(slot).unwrap();
        }
        slot.clone().expect("published")
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.status.load(SeqCst) != DONE {
            return None;
        }
        self.outcome.lock().unwrap().clone()
    }
}

tcs_invocations!(TaskCompletionSourceBeta);

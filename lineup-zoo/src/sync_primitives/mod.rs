//! Synchronization primitives of Table 1: ManualResetEvent, SemaphoreSlim, CountdownEvent,
//! Barrier, CancellationTokenSource, TaskCompletionSource and lazy initialization, each correct
//! and, where the paper reports a root cause, in a variant that reproduces it.

mod barrier;
mod cancellation_token_source;
mod countdown_event;
mod lazy;
mod manual_reset_event;
mod semaphore_slim;
mod task_completion_source;

pub use barrier::Barrier;
pub use cancellation_token_source::{CancellationTokenSource, LateCancellationTokenSource};
pub use countdown_event::CountdownEvent;
pub use lazy::Lazy;
pub use manual_reset_event::{ManualResetEvent, ManualResetEventImpl, ManualResetEventPre};
pub use semaphore_slim::SemaphoreSlim;
pub use task_completion_source::{
    Outcome, TaskCompletionSource, TaskCompletionSourceBeta, TaskCompletionSourcePre, EXCEPTION,
};

use crate::{Expected, ZooEntry};

/// The Table 2 entries of this module, in Table 2's row order.
pub fn entries() -> Vec<ZooEntry> {
    vec![
        ZooEntry::of::<Lazy>("Lazy Initialization", "correct", Expected::Pass, 2),
        ZooEntry::of::<ManualResetEventPre>("ManualResetEvent", "Pre", Expected::Fail, 2).bugs("A"),
        ZooEntry::of::<ManualResetEvent>("ManualResetEvent", "correct", Expected::Pass, 2),
        ZooEntry::of::<SemaphoreSlim>("SemaphoreSlim", "correct", Expected::Pass, 2),
        ZooEntry::of::<CountdownEvent>("CountdownEvent", "correct", Expected::Pass, 2),
        ZooEntry::of::<TaskCompletionSourcePre>("TaskCompletionSource", "Pre", Expected::Fail, 2).bugs("F"),
        ZooEntry::of::<TaskCompletionSourceBeta>("TaskCompletionSource", "Beta 2", Expected::Fail, 2).bugs("G"),
        ZooEntry::of::<TaskCompletionSource>("TaskCompletionSource", "correct", Expected::Pass, 2),
        ZooEntry::of::<CancellationTokenSource>("CancellationTokenSource", "correct", Expected::Pass, 2),
        ZooEntry::of::<LateCancellationTokenSource>("CancellationTokenSource", "late callbacks", Expected::Fail, 2)
            .nonlinearizability("K"),
        ZooEntry::of::<Barrier>("Barrier", "correct", Expected::Fail, 2).nonlinearizability("L"),
    ]
}

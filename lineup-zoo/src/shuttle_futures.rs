//! An object whose operations run a future with shuttle's own `future::block_on`
//! (`lineup::shuttle::future::block_on` used directly, as `tokio::runtime::Handle::block_on` does
//! under shuttle-tokio) on tokio's primitives, which lineup's partial-order reduction sees through
//! lineup's `vendor/shuttle-std` (`[patch.crates-io]` in the workspace's `Cargo.toml`): that copy
//! polls every future of `block_on` and of `future::spawn` through
//! `lineup_signals::footprint::Observed`, so that a poll that returns `Pending` in an operation
//! that names its object (a `tokio::sync::Mutex` that is taken) stops at a scheduling point lineup
//! sees, where before the steps around `block_on`'s switch were opaque.
//!
//! Each `incr(k)` of [`BlockOnCounter`] adds one to count `k` of two, each behind a
//! `tokio::sync::Mutex`, on `block_on`; with `lost_update`, it reads the count under the lock,
//! releases it, and writes the count it read plus one under the lock taken again: two `incr(0)`
//! may return the same count (tests/shuttle_futures.rs). Operations on the two counts commute.

use lineup::shuttle::future::block_on;
use lineup::{invocations, Subject};
use tokio::sync::Mutex;

/// A counter behind a `tokio::sync::Mutex` whose `incr()` runs on shuttle's `block_on`; with
/// `lost_update`, the buggy one.
pub struct BlockOnCounter {
    counts: [Mutex<u32>; 2],
    lost_update: bool,
}

#[invocations]
impl BlockOnCounter {
    /// Adds one to count `which`; the count before.
    #[invoke(0, 1)]
    pub fn incr(&self, which: usize) -> u32 {
        let count = &self.counts[which];
        block_on(async {
            if self.lost_update {
                let before = *count.lock().await;
                *count.lock().await = before + 1;
                before
            } else {
                let mut count = count.lock().await;
                let before = *count;
                *count += 1;
                before
            }
        })
    }
}

/// [`BlockOnCounter`]: `incr()`; with `lost_update`, the buggy one.
pub fn block_on_counter(lost_update: bool) -> Subject<BlockOnCounter> {
    Subject::of(
        if lost_update {
            "BlockOnCounter(shuttle block_on, tokio Mutex, lost update)"
        } else {
            "BlockOnCounter(shuttle block_on, tokio Mutex)"
        },
        move || BlockOnCounter {
            counts: [Mutex::new(0), Mutex::new(0)],
            lost_update,
        },
    )
}

//! An object on shuttle's own threads (`lineup::shuttle::thread::spawn` and `JoinHandle::join`
//! used directly), whose joins lineup's partial-order reduction sees through the events of its
//! `vendor/shuttle-std` (`[patch.crates-io]` in the workspace's `Cargo.toml`; without it a join's
//! steps are opaque): the step that looks whether the joined thread finished (and, if not,
//! registers as its joiner) writes the thread's end, which the thread's last step writes too.
//! Each `add(k)` of [`ForkJoinSum`] hands its addition to a thread of its own and joins it; with
//! `detached`, it does not wait, and a `get()` after an `add` may miss it (tests/shuttle_joins.rs).

use std::sync::Arc;

use lineup::shuttle::sync::atomic::{AtomicU32, Ordering::SeqCst};
use lineup::{invocations, Subject};

/// A sum on a shuttle `AtomicU32` whose `add(k)` has a thread of shuttle's add `k` and joins it;
/// `get()` loads the sum. With `detached`, `add` returns without joining its thread.
pub struct ForkJoinSum {
    total: Arc<AtomicU32>,
    detached: bool,
}

impl ForkJoinSum {
    /// A sum at 0; with `detached`, the buggy one.
    pub fn new(detached: bool) -> Self {
        Self {
            total: Arc::new(AtomicU32::new(0)),
            detached,
        }
    }
}

#[invocations]
impl ForkJoinSum {
    /// Adds `k` on a thread of shuttle's, joined before it returns (unless detached).
    #[invoke(1, 2)]
    pub fn add(&self, k: u32) {
        let total = Arc::clone(&self.total);
        let helper = lineup::shuttle::thread::spawn(move || {
            total.fetch_add(k, SeqCst);
        });
        if !self.detached {
            helper.join().expect("the helper returns");
        }
    }

    /// The sum.
    #[invoke]
    pub fn get(&self) -> u32 {
        self.total.load(SeqCst)
    }
}

/// [`ForkJoinSum`]: `add(1)`, `add(2)`, `get()`; with `detached`, the buggy one.
pub fn fork_join_sum(detached: bool) -> Subject<ForkJoinSum> {
    Subject::of(
        if detached {
            "ForkJoinSum(shuttle threads, detached)"
        } else {
            "ForkJoinSum(shuttle threads)"
        },
        move || ForkJoinSum::new(detached),
    )
}

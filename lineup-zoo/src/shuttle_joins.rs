//! An object on shuttle's own threads (`lineup::shuttle::thread::spawn` and `JoinHandle::join`
//! used directly), whose joins lineup's partial-order reduction sees through the events of its
//! `vendor/shuttle-std` (`[patch.crates-io]` in the workspace's `Cargo.toml`; without it a join's
//! steps are opaque): the step that looks whether the joined thread finished (and, if not,
//! registers as its joiner) writes the thread's end, which the thread's last step writes too.
//! Each `add(k)` of [`ForkJoinSum`] hands its addition to a thread of its own and joins it; with
//! `detached`, it does not wait, and a `get()` after an `add` may miss it (tests/shuttle_joins.rs).
//! [`ScopedProbe`] asks a scoped thread of shuttle's whether it finished, which it may or may not
//! have: lineup must find both answers.

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

/// An object whose `probe()` spawns a scoped thread of shuttle's that ticks an atomic, ticks one
/// itself, asks the thread whether it finished (`ScopedJoinHandle::is_finished`, no scheduling
/// point of its own), then ticks again (a scheduling point that lineup sees) before the scope
/// ends: `true` or `false` depending on whether the thread ran first. Nondeterministic, which
/// phase 1 must prove.
#[derive(Default)]
pub struct ScopedProbe {
    ticks: AtomicU32,
    work: AtomicU32,
}

#[invocations]
impl ScopedProbe {
    /// Whether the scoped thread had finished when asked.
    #[invoke]
    pub fn probe(&self) -> bool {
        lineup::shuttle::thread::scope(|s| {
            let helper = s.spawn(|| {
                self.work.fetch_add(1, SeqCst);
            });
            // A scheduling point after the spawn (whose switch comes before the thread exists),
            // at which the thread may run to its end.
            self.ticks.fetch_add(1, SeqCst);
            let finished = helper.is_finished();
            self.ticks.fetch_add(1, SeqCst);
            finished
        })
    }
}

/// [`ScopedProbe`]: `probe()`.
pub fn scoped_probe() -> Subject<ScopedProbe> {
    Subject::of("ScopedProbe(shuttle scoped thread)", ScopedProbe::default)
}

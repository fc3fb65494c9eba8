//! Objects on shuttle's own atomics (`lineup::shuttle::sync::atomic` used directly), which
//! lineup's partial-order reduction sees through the events of its `vendor/shuttle-std`
//! (`[patch.crates-io]` in the workspace's `Cargo.toml`; without it their steps are opaque).
//! Each operation of [`HelperCounter`] hands its increment to a helper thread
//! (`lineup::thread::spawn`) while its own thread ticks on another shuttle atomic, so that phase 1
//! interleaves the two: their steps commute only if lineup knows which atomic each touches. It
//! comes correct and with a lost update that lineup must find (tests/shuttle_atomics.rs).

use std::sync::Arc;

use lineup::shuttle::sync::atomic::{AtomicU32, Ordering::SeqCst};
use lineup::thread;
use lineup::{invocations, Subject};

/// A counter on a shuttle `AtomicU32` whose `add()` has a helper thread add one: the count after
/// it; `get()` loads it. With `lost_update`, the helper loads the count and stores it back plus
/// one: two concurrent `add`s may both return 1.
pub struct HelperCounter {
    count: Arc<AtomicU32>,
    ticks: AtomicU32,
    lost_update: bool,
}

impl HelperCounter {
    /// A counter at 0; with `lost_update`, the buggy one.
    pub fn new(lost_update: bool) -> Self {
        Self {
            count: Arc::new(AtomicU32::new(0)),
            ticks: AtomicU32::new(0),
            lost_update,
        }
    }
}

#[invocations]
impl HelperCounter {
    /// Adds one through a helper thread: the count after it.
    #[invoke]
    pub fn add(&self) -> u32 {
        let (count, lost_update) = (self.count.clone(), self.lost_update);
        let helper = thread::spawn(move || {
            if lost_update {
                let seen = count.load(SeqCst);
                count.store(seen + 1, SeqCst);
                seen + 1
            } else {
                count.fetch_add(1, SeqCst) + 1
            }
        });
        self.ticks.fetch_add(1, SeqCst);
        self.ticks.fetch_add(1, SeqCst);
        helper.join().expect("the helper returns")
    }

    /// The count.
    #[invoke]
    pub fn get(&self) -> u32 {
        self.count.load(SeqCst)
    }
}

/// [`HelperCounter`]: `add()`, `get()`; with `lost_update`, the buggy one.
pub fn helper_counter(lost_update: bool) -> Subject<HelperCounter> {
    Subject::of(
        if lost_update {
            "HelperCounter(shuttle atomics, lost update)"
        } else {
            "HelperCounter(shuttle atomics)"
        },
        move || HelperCounter::new(lost_update),
    )
}

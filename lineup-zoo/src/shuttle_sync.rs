//! Objects with a thread of their own on shuttle's own `RwLock`, `Barrier` and `Once`
//! (`lineup::shuttle::sync` used directly), whose steps lineup's partial-order reduction reads
//! from shuttle's `tracing` events (`lineup-core/src/explore/shuttle_events.rs`). Each operation
//! hands its work on the primitive to a helper thread (`lineup::thread::spawn`) while its own
//! thread counts on a `lineup::sync` atomic, so that phase 1 interleaves the two: the steps of the
//! primitive commute with the counting only if lineup knows what they touch. Each comes correct
//! and with a bug that lineup must find (tests/shuttle_sync_reduction.rs).

use std::sync::Arc;

use lineup::shuttle::sync::{Barrier, Once, RwLock};
use lineup::sync::atomic::{AtomicU32, Ordering::SeqCst};
use lineup::thread;
use lineup::{invocations, Subject};

/// The operation's own thread counts twice while its helper works (see the module).
fn tick(ticks: &AtomicU32) {
    ticks.fetch_add(1, SeqCst);
    ticks.fetch_add(1, SeqCst);
}

/// A counter behind shuttle's `RwLock` whose `add()` has a helper thread add one: the count
/// after it; `get()` reads it under the read lock. With `lost_update`, the helper reads the count
/// under the read lock and writes it back plus one under the write lock: two concurrent `add`s
/// may both return 1.
pub struct RwHelperCounter {
    count: Arc<RwLock<u32>>,
    ticks: AtomicU32,
    lost_update: bool,
}

impl RwHelperCounter {
    /// A counter at 0; with `lost_update`, the buggy one.
    pub fn new(lost_update: bool) -> Self {
        Self {
            count: Arc::new(RwLock::new(0)),
            ticks: AtomicU32::new(0),
            lost_update,
        }
    }
}

#[invocations]
impl RwHelperCounter {
    /// Adds one through a helper thread: the count after it.
    #[invoke]
    pub fn add(&self) -> u32 {
        let (count, lost_update) = (self.count.clone(), self.lost_update);
        let helper = thread::spawn(move || {
            if lost_update {
                let seen = *count.read().unwrap();
                let mut count = count.write().unwrap();
                *count = seen + 1;
                *count
            } else {
                let mut count = count.write().unwrap();
                *count += 1;
                *count
            }
        });
        tick(&self.ticks);
        helper.join().expect("the helper returns")
    }

    /// The count.
    #[invoke]
    pub fn get(&self) -> u32 {
        *self.count.read().unwrap()
    }
}

/// A counter whose `add()` hands the increment to a helper thread and meets it at a two-party
/// shuttle `Barrier` before it returns the count the helper saw (the twin of
/// [`announced::HandOff`](crate::announced::HandOff) on shuttle's `Barrier`). With `early_meet`,
/// the helper meets the operation before it writes the count into their shared slot: the
/// operation may return 0.
pub struct BarrierHandOff {
    count: Arc<AtomicU32>,
    ticks: AtomicU32,
    early_meet: bool,
}

impl BarrierHandOff {
    /// A counter at 0; with `early_meet`, the buggy one.
    pub fn new(early_meet: bool) -> Self {
        Self {
            count: Arc::new(AtomicU32::new(0)),
            ticks: AtomicU32::new(0),
            early_meet,
        }
    }
}

#[invocations]
impl BarrierHandOff {
    /// Adds one through a helper thread: the count after it.
    #[invoke]
    pub fn add(&self) -> u32 {
        let barrier = Arc::new(Barrier::new(2));
        let slot = Arc::new(AtomicU32::new(0));
        let (count, meet, seen, early) = (self.count.clone(), barrier.clone(), slot.clone(), self.early_meet);
        let helper = thread::spawn(move || {
            if early {
                meet.wait();
            }
            seen.store(count.fetch_add(1, SeqCst) + 1, SeqCst);
            if !early {
                meet.wait();
            }
        });
        tick(&self.ticks);
        barrier.wait();
        let value = slot.load(SeqCst);
        let _ = helper.join();
        value
    }
}

/// A one-time start counted on shuttle's `Once`: `start()` has a helper thread run the
/// initializer (which counts its runs) through the `Once`, and returns the runs so far. With
/// `unguarded`, the helper runs the initializer itself whenever `is_completed` says no: two
/// concurrent `start`s may both run it (`is_completed` emits no event: lineup must see the
/// initializer's steps as dependent on it all the same).
pub struct OnceStart {
    once: Arc<Once>,
    runs: Arc<AtomicU32>,
    ticks: AtomicU32,
    unguarded: bool,
}

impl OnceStart {
    /// Not started; with `unguarded`, the buggy one.
    pub fn new(unguarded: bool) -> Self {
        Self {
            once: Arc::new(Once::new()),
            runs: Arc::new(AtomicU32::new(0)),
            ticks: AtomicU32::new(0),
            unguarded,
        }
    }
}

#[invocations]
impl OnceStart {
    /// Starts once through a helper thread: the initializer's runs so far.
    #[invoke]
    pub fn start(&self) -> u32 {
        let (once, runs, unguarded) = (self.once.clone(), self.runs.clone(), self.unguarded);
        let helper = thread::spawn(move || {
            if unguarded {
                if !once.is_completed() {
                    runs.fetch_add(1, SeqCst);
                    once.call_once(|| {});
                }
            } else {
                once.call_once(|| {
                    runs.fetch_add(1, SeqCst);
                });
            }
        });
        tick(&self.ticks);
        let _ = helper.join();
        self.runs.load(SeqCst)
    }
}

/// The counter behind shuttle's `RwLock`, correct (`false`) or with the lost update: `add()`,
/// `get()`.
pub fn rw_helper_counter(buggy: bool) -> Subject<RwHelperCounter> {
    Subject::of(
        if buggy {
            "RwHelperCounter(shuttle::sync, lost update)"
        } else {
            "RwHelperCounter(shuttle::sync)"
        },
        move || RwHelperCounter::new(buggy),
    )
}

/// The hand-off at shuttle's `Barrier`, correct (`false`) or meeting early: `add()`.
pub fn barrier_hand_off(buggy: bool) -> Subject<BarrierHandOff> {
    Subject::of(
        if buggy {
            "BarrierHandOff(shuttle::sync, early meet)"
        } else {
            "BarrierHandOff(shuttle::sync)"
        },
        move || BarrierHandOff::new(buggy),
    )
}

/// The start on shuttle's `Once`, correct (`false`) or unguarded: `start()`.
pub fn once_start(buggy: bool) -> Subject<OnceStart> {
    Subject::of(
        if buggy {
            "OnceStart(shuttle::sync, unguarded)"
        } else {
            "OnceStart(shuttle::sync)"
        },
        move || OnceStart::new(buggy),
    )
}

/// A flag raised once through shuttle's `Once`: `start()` runs an empty initializer through it,
/// `done()` says whether one has completed (`Once::is_completed`, which emits no event: lineup
/// must take the initializer's steps to depend on it all the same).
pub struct OnceFlag {
    once: Once,
}

impl Default for OnceFlag {
    fn default() -> Self {
        Self { once: Once::new() }
    }
}

#[invocations]
impl OnceFlag {
    /// Runs the initializer unless one ran.
    #[invoke]
    pub fn start(&self) {
        self.once.call_once(|| {});
    }

    /// Whether an initializer has completed.
    #[invoke]
    pub fn done(&self) -> bool {
        self.once.is_completed()
    }
}

/// The flag on shuttle's `Once`: `start()`, `done()`.
pub fn once_flag() -> Subject<OnceFlag> {
    Subject::of("OnceFlag(shuttle::sync)", OnceFlag::default)
}

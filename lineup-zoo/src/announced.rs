//! Small objects on the primitives of `lineup::sync` and `lineup::thread` that have std's shape
//! and that lineup's partial-order reduction sees: `RwLock`, `Barrier`, `Once`, `OnceLock`, and
//! `park` / `Thread::unpark`. Each comes correct and with a bug that lineup must find, and the
//! `RwLock` map and the `Barrier`/`Once` object are the twins, on `lineup::sync`, of
//! [`native`](crate::native)'s objects on shuttle's own primitives (for the superset tests of the
//! reduction, `tests/announced_primitives.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use lineup::sync::atomic::{AtomicBool, AtomicU32, Ordering::SeqCst};
use lineup::sync::{Barrier, Mutex, Once, OnceLock, RwLock};
use lineup::thread::{self, Thread};
use lineup::{invocations, Subject};

/// A counter behind an `RwLock`: `add()` returns the count after it, `get()` reads it. With
/// `lost_update`, `add` reads the count under the read lock and writes it back plus one under the
/// write lock: two concurrent `add`s may both return 1.
#[derive(Default)]
pub struct RwCounter {
    count: RwLock<u32>,
    lost_update: bool,
}

impl RwCounter {
    /// A counter at 0; with `lost_update`, the buggy one.
    pub fn new(lost_update: bool) -> Self {
        Self {
            count: RwLock::new(0),
            lost_update,
        }
    }
}

#[invocations]
impl RwCounter {
    /// Adds one: the count after it.
    #[invoke]
    pub fn add(&self) -> u32 {
        if self.lost_update {
            let seen = *self.count.read().unwrap();
            let mut count = self.count.write().unwrap();
            *count = seen + 1;
            *count
        } else {
            let mut count = self.count.write().unwrap();
            *count += 1;
            *count
        }
    }

    /// The count.
    #[invoke]
    pub fn get(&self) -> u32 {
        *self.count.read().unwrap()
    }
}

/// A map behind `lineup::sync::RwLock` (the twin of [`native::RwLockMap`](crate::native::RwLockMap)):
/// `insert(1)`, `insert(2)`, `get()`.
#[derive(Default)]
pub struct RwLockMap {
    map: RwLock<HashMap<u32, u32>>,
}

#[invocations]
impl RwLockMap {
    /// Inserts `key -> key * 10`, returning the old value.
    #[invoke(1, 2)]
    pub fn insert(&self, key: u32) -> Option<u32> {
        self.map.write().unwrap().insert(key, key * 10)
    }

    /// The value of key 1.
    #[invoke]
    pub fn get(&self) -> Option<u32> {
        self.map.read().unwrap().get(&1).copied()
    }
}

/// Two counters, each behind its own `RwLock` in scope: `left()` and `right()` add one to theirs
/// and return it, `sum()` reads both. Steps on different locks commute, which the reduction sees
/// on `lineup::sync` and not on shuttle's own `RwLock`.
macro_rules! two_counters {
    ($name:ident) => {
        /// Two counters behind two locks (see the macro): `left()`, `right()`, `sum()`.
        #[derive(Default)]
        pub struct $name {
            left: RwLock<u32>,
            right: RwLock<u32>,
        }

        #[invocations]
        impl $name {
            /// Adds one to the left counter: its value after.
            #[invoke]
            pub fn left(&self) -> u32 {
                let mut left = self.left.write().unwrap();
                *left += 1;
                *left
            }

            /// Adds one to the right counter: its value after.
            #[invoke]
            pub fn right(&self) -> u32 {
                let mut right = self.right.write().unwrap();
                *right += 1;
                *right
            }

            /// The sum of both counters.
            #[invoke]
            pub fn sum(&self) -> u32 {
                let left = *self.left.read().unwrap();
                left + *self.right.read().unwrap()
            }
        }
    };
}

/// The two counters on `lineup::sync::RwLock`.
pub mod lineup_counters {
    use super::*;
    two_counters!(LineupCounters);
}

/// The two counters on `lineup::shuttle::sync::RwLock`.
pub mod shuttle_counters {
    use lineup::invocations;
    use lineup::shuttle::sync::RwLock;
    two_counters!(ShuttleCounters);
}

/// The two counters on `lineup::sync` and on shuttle's own `RwLock`: `left()`, `right()`, `sum()`.
pub fn two_counters() -> (
    Subject<lineup_counters::LineupCounters>,
    Subject<shuttle_counters::ShuttleCounters>,
) {
    (
        Subject::of("TwoCounters(lineup::sync)", lineup_counters::LineupCounters::default),
        Subject::of("TwoCounters(shuttle::sync)", shuttle_counters::ShuttleCounters::default),
    )
}

/// A counter initialized once (`Once`) whose `meet` waits at a two-party `Barrier`, on
/// `lineup::sync` (the twin of [`native::BarrierOnce`](crate::native::BarrierOnce)): `meet()`,
/// `bump()`.
pub struct BarrierOnce {
    barrier: Barrier,
    once: Once,
    count: Mutex<u32>,
}

impl Default for BarrierOnce {
    fn default() -> Self {
        Self {
            barrier: Barrier::new(2),
            once: Once::new(),
            count: Mutex::new(0),
        }
    }
}

#[invocations]
impl BarrierOnce {
    /// Waits for the other party; whether this thread led.
    #[invoke]
    pub fn meet(&self) -> bool {
        self.barrier.wait().is_leader()
    }

    /// Initializes the count to 100 once, then adds one: the new count.
    #[invoke]
    pub fn bump(&self) -> u32 {
        self.once.call_once(|| *self.count.lock().unwrap() = 100);
        let mut count = self.count.lock().unwrap();
        *count += 1;
        *count
    }
}

/// A counter whose `add()` hands the increment to a helper thread and meets it at a two-party
/// `Barrier` before it returns the count the helper saw. With `early_meet`, the helper meets the
/// operation before it writes the count into their shared slot: the operation may return 0.
pub struct HandOff {
    count: Arc<AtomicU32>,
    early_meet: bool,
}

impl HandOff {
    /// A counter at 0; with `early_meet`, the buggy one.
    pub fn new(early_meet: bool) -> Self {
        Self {
            count: Arc::new(AtomicU32::new(0)),
            early_meet,
        }
    }
}

#[invocations]
impl HandOff {
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
        barrier.wait();
        let value = slot.load(SeqCst);
        let _ = helper.join();
        value
    }
}

/// A cell set once: `init(1)`, `init(2)` return the value the cell holds after them. Correct on a
/// `OnceLock` (`get_or_init`); with `check_then_set`, `init` looks first and returns its own value
/// whenever the cell looked empty, even when another `init` set it in between.
#[derive(Default)]
pub struct SetOnce {
    cell: OnceLock<u32>,
    check_then_set: bool,
}

impl SetOnce {
    /// An empty cell; with `check_then_set`, the buggy one.
    pub fn new(check_then_set: bool) -> Self {
        Self {
            cell: OnceLock::new(),
            check_then_set,
        }
    }
}

#[invocations]
impl SetOnce {
    /// Sets the cell to `value` if it is empty: the value it holds after.
    #[invoke(1, 2)]
    pub fn init(&self, value: u32) -> u32 {
        if self.check_then_set {
            if let Some(held) = self.cell.get() {
                return *held;
            }
            let _ = self.cell.set(value);
            value
        } else {
            *self.cell.get_or_init(|| value)
        }
    }

    /// The value, if the cell is set.
    #[invoke]
    pub fn get(&self) -> Option<u32> {
        self.cell.get().copied()
    }
}

/// A one-time initialization counted on a `Once`: `start()` runs the initializer (which counts
/// its runs) through the `Once` and returns the count. With `unguarded`, `start` runs the
/// initializer itself whenever `is_completed` says no: two concurrent `start`s may both run it.
pub struct StartOnce {
    once: Once,
    runs: AtomicU32,
    unguarded: bool,
}

impl StartOnce {
    /// Not started; with `unguarded`, the buggy one.
    pub fn new(unguarded: bool) -> Self {
        Self {
            once: Once::new(),
            runs: AtomicU32::new(0),
            unguarded,
        }
    }
}

#[invocations]
impl StartOnce {
    /// Starts once: the initializer's runs so far.
    #[invoke]
    pub fn start(&self) -> u32 {
        if self.unguarded {
            if !self.once.is_completed() {
                self.runs.fetch_add(1, SeqCst);
                self.once.call_once(|| {});
            }
        } else {
            self.once.call_once(|| {
                self.runs.fetch_add(1, SeqCst);
            });
        }
        self.runs.load(SeqCst)
    }
}

/// A counter behind a lock built on `park` / `Thread::unpark`: `add()` returns the count after
/// it. A thread that finds the lock taken registers and parks; `unlock` unparks the registered
/// thread. With `trusts_park`, a thread that parked enters the critical section when `park`
/// returns, as if it had been handed the lock: a park may return spuriously (std's and
/// shuttle's), so two `add`s may both return 1.
pub struct ParkLock {
    locked: AtomicBool,
    waiters: Mutex<Vec<Thread>>,
    count: AtomicU32,
    trusts_park: bool,
}

impl ParkLock {
    /// A counter at 0; with `trusts_park`, the buggy one.
    pub fn new(trusts_park: bool) -> Self {
        Self {
            locked: AtomicBool::new(false),
            waiters: Mutex::new(Vec::new()),
            count: AtomicU32::new(0),
            trusts_park,
        }
    }

    fn lock(&self) {
        while self.locked.swap(true, SeqCst) {
            self.waiters.lock().unwrap().push(thread::current());
            thread::park();
            if self.trusts_park {
                return;
            }
        }
    }

    fn unlock(&self) {
        self.locked.store(false, SeqCst);
        let waiter = self.waiters.lock().unwrap().pop();
        if let Some(waiter) = waiter {
            waiter.unpark();
        }
    }
}

#[invocations]
impl ParkLock {
    /// Adds one under the lock: the count after it.
    #[invoke]
    pub fn add(&self) -> u32 {
        self.lock();
        let count = self.count.load(SeqCst) + 1;
        self.count.store(count, SeqCst);
        self.unlock();
        count
    }
}

/// The subjects: correct (`false`) or buggy (`true`).
pub fn rw_counter(buggy: bool) -> Subject<RwCounter> {
    Subject::of(if buggy { "RwCounter(lost update)" } else { "RwCounter" }, move || {
        RwCounter::new(buggy)
    })
}

/// The map behind `lineup::sync::RwLock`: `insert(1)`, `insert(2)`, `get()`.
pub fn rwlock_map() -> Subject<RwLockMap> {
    Subject::of("RwLockMap(lineup::sync)", RwLockMap::default)
}

/// The object on `lineup::sync`'s `Barrier` and `Once`: `meet()`, `bump()`.
pub fn barrier_once() -> Subject<BarrierOnce> {
    Subject::of("BarrierOnce(lineup::sync)", BarrierOnce::default)
}

/// The hand-off through a helper thread and a `Barrier`: `add()`.
pub fn hand_off(buggy: bool) -> Subject<HandOff> {
    Subject::of(if buggy { "HandOff(early meet)" } else { "HandOff" }, move || {
        HandOff::new(buggy)
    })
}

/// The cell on a `OnceLock`: `init(1)`, `init(2)`, `get()`.
pub fn set_once(buggy: bool) -> Subject<SetOnce> {
    Subject::of(if buggy { "SetOnce(check then set)" } else { "SetOnce" }, move || {
        SetOnce::new(buggy)
    })
}

/// The initialization on a `Once`: `start()`.
pub fn start_once(buggy: bool) -> Subject<StartOnce> {
    Subject::of(if buggy { "StartOnce(unguarded)" } else { "StartOnce" }, move || {
        StartOnce::new(buggy)
    })
}

/// The counter behind the lock on `park` / `unpark`: `add()`.
pub fn park_lock(buggy: bool) -> Subject<ParkLock> {
    Subject::of(if buggy { "ParkLock(trusts park)" } else { "ParkLock" }, move || {
        ParkLock::new(buggy)
    })
}

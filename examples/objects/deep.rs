//! Deep bugs: objects whose bug the default random sample (3x3 matrices at preemption bound 2)
//! cannot reach, one of each kind the deepening stages are meant for, each with a correct twin
//! that differs only in the fix. `tests/deep_bugs.rs` checks that each buggy one fails at some
//! stage and each twin passes; `lineup-bench -- depth` times them at default settings.
//!
//! | kind | buggy | twin |
//! |---|---|---|
//! | a third preemption | [`GatedCounter`] (`racy`) | [`GatedCounter`] (`atomic`) |
//! | a fourth thread | [`SlotLatch`] (`notify_one`) | [`SlotLatch`] (`notify_all`) |
//! | a fourth operation on one thread | [`BatchedCounter`] (`early_reset`) | [`BatchedCounter`] (`late_reset`) |
//! | only sampling reaches it | [`GatedCounter`] with three racy gates | three atomic gates |
//! | a thread that runs again right after its own yield | [`SpinThenParkEvent`](super::spin::SpinThenParkEvent) (`Blind`) | (`Recheck`) |

use lineup::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use lineup::sync::{Condvar, Mutex};
use lineup::thread::ThreadId;
use lineup::{Invocation, Subject};

/// A counter whose read-modify-write is guarded by a chain of gates, each a test-and-set flag
/// (a thread that finds a gate closed spins on it with `lineup::thread::yield_now`).
/// With `racy` gates the test and the set are two steps, so two increments get through a gate
/// together only if one is preempted between them; both must get through every gate and then
/// overlap in the read-modify-write, so the lost update needs one preemption per gate and one
/// more: three with two gates (PB-DFS at bound 3 finds it, bound 2 cannot), four with three
/// (beyond bound 3: random scheduling runs two increments in lockstep often enough, and iterative
/// deepening reaches bound 4 on the smallest matrices).
/// `inc` returns the new value, so two increments that return the same value are the proof.
pub struct GatedCounter {
    gates: Vec<AtomicBool>,
    racy: bool,
    value: AtomicU64,
}

impl GatedCounter {
    /// `gates` gates, racy (the bug) or atomic (the twin).
    pub fn new(gates: usize, racy: bool) -> Self {
        Self {
            gates: (0..gates).map(|_| AtomicBool::new(false)).collect(),
            racy,
            value: AtomicU64::new(0),
        }
    }

    fn enter(&self, gate: &AtomicBool) {
        if self.racy {
            while gate.load(Ordering::SeqCst) {
                lineup::thread::yield_now();
            }
            gate.store(true, Ordering::SeqCst); // BUG: another thread may have set it since the load
        } else {
            while gate.swap(true, Ordering::SeqCst) {
                lineup::thread::yield_now();
            }
        }
    }

    /// Adds one and returns the new value.
    pub fn inc(&self) -> u64 {
        self.gates.iter().for_each(|g| self.enter(g));
        let v = self.value.load(Ordering::SeqCst);
        self.value.store(v + 1, Ordering::SeqCst);
        self.gates.iter().rev().for_each(|g| g.store(false, Ordering::SeqCst));
        v + 1
    }

    /// The value.
    pub fn get(&self) -> u64 {
        self.value.load(Ordering::SeqCst)
    }
}

/// Invocations 0: `inc()`, 1: `get()` of a [`GatedCounter`].
pub fn gated_counter(name: &str, build: fn() -> GatedCounter) -> Subject<GatedCounter> {
    Subject::new(name, build)
        .with(Invocation::new("inc", GatedCounter::inc))
        .with(Invocation::new("get", GatedCounter::get))
}

/// The third-preemption bug: two racy gates.
pub fn third_preemption() -> Subject<GatedCounter> {
    gated_counter("GatedCounter(2 racy gates)", || GatedCounter::new(2, true))
}

/// Its twin: two atomic gates.
pub fn third_preemption_twin() -> Subject<GatedCounter> {
    gated_counter("GatedCounter(2 atomic gates)", || GatedCounter::new(2, false))
}

/// The bug only sampling reaches (beyond bound 3): three racy gates.
pub fn sampling_only() -> Subject<GatedCounter> {
    gated_counter("GatedCounter(3 racy gates)", || GatedCounter::new(3, true))
}

/// Its twin: three atomic gates.
pub fn sampling_only_twin() -> Subject<GatedCounter> {
    gated_counter("GatedCounter(3 atomic gates)", || GatedCounter::new(3, false))
}

/// One wait slot of a [`SlotLatch`]: whether it is taken, and where its waiters sleep.
#[derive(Default)]
struct Slot {
    taken: AtomicBool,
    opened: Mutex<bool>,
    wake: Condvar,
}

/// A latch (`wait` blocks until `open`) whose waiters sleep in a table of two slots, one waiter
/// per slot, so that `open` wakes each slot's one waiter; a third concurrent waiter shares the
/// last slot. With `notify_one` (the bug) `open` wakes only one of the two sharing waiters and
/// the other sleeps forever: a lost wake-up that needs three waiters and an opener at once, four
/// threads. With `notify_all` (the twin) every waiter of a slot wakes.
pub struct SlotLatch {
    open: AtomicBool,
    slots: [Slot; 2],
    notify_all: bool,
}

impl SlotLatch {
    /// A closed latch.
    pub fn new(notify_all: bool) -> Self {
        Self {
            open: AtomicBool::new(false),
            slots: Default::default(),
            notify_all,
        }
    }

    /// Blocks until the latch is open.
    pub fn wait(&self) {
        if self.open.load(Ordering::SeqCst) {
            return;
        }
        let slot = self
            .slots
            .iter()
            .find(|s| !s.taken.swap(true, Ordering::SeqCst))
            .unwrap_or(&self.slots[1]); // the table is full: share the last slot
        let mut opened = slot.opened.lock().unwrap();
        while !*opened {
            opened = slot.wake.wait(opened).unwrap();
        }
    }

    /// Opens the latch and wakes its waiters.
    pub fn open(&self) {
        self.open.store(true, Ordering::SeqCst);
        for slot in &self.slots {
            *slot.opened.lock().unwrap() = true;
            if self.notify_all {
                slot.wake.notify_all();
            } else {
                slot.wake.notify_one(); // BUG: a shared slot has two waiters
            }
        }
    }

    /// Whether the latch is open.
    pub fn is_open(&self) -> bool {
        self.open.load(Ordering::SeqCst)
    }
}

/// Invocations 0: `wait()`, 1: `open()`, 2: `is_open()` of a [`SlotLatch`].
fn slot_latch(name: &str, build: fn() -> SlotLatch) -> Subject<SlotLatch> {
    Subject::new(name, build)
        .with(Invocation::new("wait", SlotLatch::wait))
        .with(Invocation::new("open", SlotLatch::open))
        .with(Invocation::new("is_open", SlotLatch::is_open))
}

/// The fourth-thread bug.
pub fn fourth_thread() -> Subject<SlotLatch> {
    slot_latch("SlotLatch(notify_one)", || SlotLatch::new(false))
}

/// Its twin.
pub fn fourth_thread_twin() -> Subject<SlotLatch> {
    slot_latch("SlotLatch(notify_all)", || SlotLatch::new(true))
}

/// A counter that counts each thread's increments in a batch of its own and folds a batch into
/// the shared total when it reaches four. `get` adds the total and every batch. With
/// `early_reset` (the bug) the fold empties the batch before it adds to the total, so a `get`
/// between the two misses four increments: only a thread's fourth `inc` folds, so the bug needs
/// a fourth operation on one thread. The twin adds first, under the batches' lock.
pub struct BatchedCounter {
    batches: Mutex<Vec<(ThreadId, u64)>>,
    total: AtomicU64,
    early_reset: bool,
}

/// Increments a thread makes before they are folded into the total.
const BATCH: u64 = 4;

impl BatchedCounter {
    /// An empty counter.
    pub fn new(early_reset: bool) -> Self {
        Self {
            batches: Mutex::new(Vec::new()),
            total: AtomicU64::new(0),
            early_reset,
        }
    }

    /// Adds one.
    pub fn inc(&self) {
        let me = lineup::thread::current().id();
        let mut batches = self.batches.lock().unwrap();
        let position = batches.iter().position(|(id, _)| *id == me).unwrap_or_else(|| {
            batches.push((me, 0));
            batches.len() - 1
        });
        batches[position].1 += 1;
        if batches[position].1 < BATCH {
            return;
        }
        batches[position].1 = 0;
        if self.early_reset {
            drop(batches); // BUG: the batch is gone and not yet in the total
            self.total.fetch_add(BATCH, Ordering::SeqCst);
        } else {
            self.total.fetch_add(BATCH, Ordering::SeqCst);
        }
    }

    /// The count.
    pub fn get(&self) -> u64 {
        let batches = self.batches.lock().unwrap();
        batches.iter().map(|(_, n)| n).sum::<u64>() + self.total.load(Ordering::SeqCst)
    }
}

/// Invocations 0: `inc()`, 1: `get()` of a [`BatchedCounter`].
fn batched_counter(name: &str, build: fn() -> BatchedCounter) -> Subject<BatchedCounter> {
    Subject::new(name, build)
        .with(Invocation::new("inc", BatchedCounter::inc))
        .with(Invocation::new("get", BatchedCounter::get))
}

/// The fourth-operation bug.
pub fn fourth_operation() -> Subject<BatchedCounter> {
    batched_counter("BatchedCounter(early reset)", || BatchedCounter::new(true))
}

/// Its twin.
pub fn fourth_operation_twin() -> Subject<BatchedCounter> {
    batched_counter("BatchedCounter(late reset)", || BatchedCounter::new(false))
}

/// A lost wake-up that shows only when the spinning waiter runs again right after its own
/// `spin_loop()` ([`SpinThenParkEvent`](super::spin::SpinThenParkEvent), `Blind`): the `yields`
/// stage finds it.
pub fn yield_to_self() -> Subject<super::spin::SpinThenParkEvent> {
    super::spin::spin_then_park_event(super::spin::Registration::Blind)
}

/// The twin of [`yield_to_self`]: the waiter looks at the flag again after it registers.
pub fn yield_to_self_twin() -> Subject<super::spin::SpinThenParkEvent> {
    super::spin::spin_then_park_event(super::spin::Registration::Recheck)
}

/// How many times [`several_yield_choices`]'s waiter looks at the flag before it parks.
pub const LONG_SPINS: usize = 5;

/// The spin-then-park lost wake-up of [`yield_to_self`] with a waiter that spins
/// [`LONG_SPINS`] times: `set` must stay off while the waiter looks five times, and each of the
/// waiter's yields hands the turn to `set` (the least recently run thread) unless the schedule
/// chooses otherwise. A preemption of `set` before its store brings the waiter back once per
/// preemption, so with two preemptions the waiter must run again right after at least two of its
/// own yields: several non-default choices at yields in one execution (the `yields` stage), which
/// neither the default sample (one choice) nor a third preemption gives.
pub fn several_yield_choices() -> Subject<super::spin::SpinThenParkEvent> {
    super::spin::spin_then_park_event_named(
        "SpinThenParkEvent(5 looks, blind registration)",
        super::spin::Registration::Blind,
        LONG_SPINS,
    )
}

/// The twin of [`several_yield_choices`]: the waiter looks at the flag again after it registers.
pub fn several_yield_choices_twin() -> Subject<super::spin::SpinThenParkEvent> {
    super::spin::spin_then_park_event_named(
        "SpinThenParkEvent(5 looks)",
        super::spin::Registration::Recheck,
        LONG_SPINS,
    )
}

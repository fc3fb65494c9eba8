//! Counters from the Line-Up paper (§2.2) and a correct one.

use lineup::sync::atomic::{AtomicU64, Ordering};
use lineup::sync::Mutex;
use lineup::{Invocation, Subject};

/// A correct counter: one atomic read-modify-write per increment.
#[derive(Default)]
pub struct AtomicCounter(AtomicU64);

impl AtomicCounter {
    pub fn inc(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The paper's Counter1: the increment is a separate load and store, so two concurrent
/// increments can lose one update.
#[derive(Default)]
pub struct Counter1(AtomicU64);

impl Counter1 {
    pub fn inc(&self) {
        let v = self.0.load(Ordering::SeqCst);
        self.0.store(v + 1, Ordering::SeqCst);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The paper's Counter2: `get` leaves the lock held. The paper's version leaks the lock on every
/// `get`; a synthesized specification explains that ("after a get every operation blocks" is a
/// deterministic specification), so Line-Up cannot call it a bug. This one leaks it where such
/// bugs live in practice: on the slow path taken only under contention, which a serial
/// execution never takes. Every value it returns is right, so only the stuck-history check
/// (Def. 2) can see that an operation blocks forever where no serial execution blocks.
#[derive(Default)]
pub struct Counter2 {
    count: Mutex<u64>,
}

impl Counter2 {
    pub fn inc(&self) {
        *self.count.lock().unwrap() += 1;
    }
    pub fn get(&self) -> u64 {
        match self.count.try_lock() {
            Ok(guard) => *guard,
            Err(_) => {
                let guard = self.count.lock().unwrap();
                let value = *guard;
                std::mem::forget(guard); // BUG: the contended path never releases the lock
                value
            }
        }
    }
}

/// `inc` (index 0) and `get` (index 1) of a counter type, for any of the counters above.
macro_rules! counter_subject {
    ($name:expr, $ty:ty) => {
        Subject::new($name, <$ty>::default)
            .with(Invocation::new("inc", |c: &$ty| c.inc()))
            .with(Invocation::new("get", |c: &$ty| c.get()))
    };
}

pub fn atomic_counter() -> Subject<AtomicCounter> {
    counter_subject!("AtomicCounter", AtomicCounter)
}

pub fn counter1() -> Subject<Counter1> {
    counter_subject!("Counter1", Counter1)
}

pub fn counter2() -> Subject<Counter2> {
    counter_subject!("Counter2", Counter2)
}

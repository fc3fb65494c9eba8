//! `CountdownEvent`: an event that is set when its count reaches zero, with the count under a
//! mutex and a condition variable for blocked `wait`s.

use lineup::sync::{Condvar, Mutex};

/// A correct countdown event, starting at [`CountdownEvent::INITIAL_COUNT`]. `signal(n)` decrements the count
/// by `n` and returns whether it reached zero; `add_count` increments it; both throw (panic,
/// with the .NET message) where .NET throws `InvalidOperationException`: a signal below zero, or
/// an increment of an event that is already set. `try_add_count` returns `false` instead.
/// `wait` blocks until the count is zero, `is_set` (.NET `IsSet`, `Wait(0)`) and
/// `current_count` read it. The paper reports no root cause for it.
pub struct CountdownEvent {
    count: Mutex<u32>,
    zero: Condvar,
}

impl Default for CountdownEvent {
    fn default() -> Self {
        Self {
            count: Mutex::new(Self::INITIAL_COUNT),
            zero: Condvar::new(),
        }
    }
}

impl CountdownEvent {
    /// The count a new event starts with (.NET `new CountdownEvent(2)`).
    pub const INITIAL_COUNT: u32 = 2;
}

#[lineup::invocations]
impl CountdownEvent {
    /// Decrements the count by `n`; whether it reached zero (.NET `Signal()`, `Signal(2)`).
    ///
    /// # Panics
    ///
    /// If the count is below `n`, as .NET throws.
    #[invoke(1, 2)]
    pub fn signal(&self, n: u32) -> bool {
        let mut count = self.count.lock().unwrap();
        if *count < n {
            drop(count);
            panic!("InvalidOperationException: Invalid attempt made to decrement the event's count below zero.");
        }
        *count -= n;
        if *count == 0 {
            self.zero.notify_all();
        }
        *count == 0
    }

    /// Increments the count (.NET `AddCount()`).
    ///
    /// # Panics
    ///
    /// If the event is already set, as .NET throws.
    #[invoke]
    pub fn add_count(&self) {
        if !self.try_add_count() {
            panic!("InvalidOperationException: The event is already signaled and cannot be incremented.");
        }
    }

    /// Increments the count unless the event is already set; whether it did (.NET
    /// `TryAddCount()`).
    #[invoke]
    pub fn try_add_count(&self) -> bool {
        let mut count = self.count.lock().unwrap();
        if *count == 0 {
            return false;
        }
        *count += 1;
        true
    }

    /// Whether the count is zero (.NET `IsSet`, `Wait(0)`).
    #[invoke]
    pub fn is_set(&self) -> bool {
        *self.count.lock().unwrap() == 0
    }

    /// Blocks until the count is zero (.NET `Wait()`).
    #[invoke]
    pub fn wait(&self) {
        let mut count = self.count.lock().unwrap();
        while *count > 0 {
            count = self.zero.wait(count).unwrap();
        }
    }

    /// The current count (.NET `CurrentCount`).
    #[invoke]
    pub fn current_count(&self) -> u32 {
        *self.count.lock().unwrap()
    }
}

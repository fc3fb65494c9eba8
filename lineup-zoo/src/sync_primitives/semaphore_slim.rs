//! `SemaphoreSlim`: a counting semaphore with a count under a mutex and a condition variable
//! for blocked `wait`s.

use lineup::sync::{Condvar, Mutex};

/// A correct counting semaphore (.NET `SemaphoreSlim`, no maximum count), starting at
/// [`SemaphoreSlim::INITIAL_COUNT`]: `wait` blocks while the count is zero and then takes one, `try_wait`
/// (.NET `Wait(0)`) takes one if it can, `release(n)` adds `n` and returns the previous count,
/// `current_count` reads the count. The paper reports no root cause for it.
pub struct SemaphoreSlim {
    count: Mutex<u32>,
    available: Condvar,
}

impl Default for SemaphoreSlim {
    fn default() -> Self {
        Self {
            count: Mutex::new(Self::INITIAL_COUNT),
            available: Condvar::new(),
        }
    }
}

impl SemaphoreSlim {
    /// The count a new semaphore starts with (.NET `new SemaphoreSlim(1)`).
    pub const INITIAL_COUNT: u32 = 1;
}

#[lineup::invocations]
impl SemaphoreSlim {
    /// The current count (.NET `CurrentCount`).
    #[invoke]
    pub fn current_count(&self) -> u32 {
        *self.count.lock().unwrap()
    }

    /// Adds `n` to the count, wakes waiters, and returns the count before (.NET `Release()`,
    /// `Release(2)`).
    #[invoke(1, 2)]
    pub fn release(&self, n: u32) -> u32 {
        let mut count = self.count.lock().unwrap();
        let previous = *count;
        *count += n;
        self.available.notify_all();
        previous
    }

    /// Blocks while the count is zero, then decrements it (.NET `Wait()`).
    #[invoke]
    pub fn wait(&self) {
        let mut count = self.count.lock().unwrap();
        while *count == 0 {
            count = self.available.wait(count).unwrap();
        }
        *count -= 1;
    }

    /// Decrements the count if it is positive, without blocking; whether it did (.NET
    /// `Wait(0)`).
    #[invoke]
    pub fn try_wait(&self) -> bool {
        let mut count = self.count.lock().unwrap();
        if *count == 0 {
            return false;
        }
        *count -= 1;
        true
    }
}

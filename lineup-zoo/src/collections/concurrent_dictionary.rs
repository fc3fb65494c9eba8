//! `ConcurrentDictionary`: a map with striped locking, as in .NET: each key hashes to one of
//! two stripes with a lock of its own; operations on one key lock its stripe only, while
//! `count` and `clear` lock every stripe, in stripe order, for an atomic view.

use std::collections::BTreeMap;

use lineup::sync::{Mutex, MutexGuard};

/// Stripes (keys 10 and 20 fall into different ones).
const STRIPES: usize = 2;

/// The correct dictionary from keys to counters. `try_add` inserts a key with value 1,
/// `add_or_update` inserts 1 or increments, `try_update` replaces a value equal to the
/// expected one; `try_get_value`, `try_remove`, `contains_key`, `count` and `clear` are as in
/// .NET.
#[derive(Default)]
pub struct ConcurrentDictionary {
    stripes: [Mutex<BTreeMap<u32, u32>>; STRIPES],
}

impl ConcurrentDictionary {
    fn stripe(&self, key: u32) -> MutexGuard<'_, BTreeMap<u32, u32>> {
        self.stripes[(key / 10) as usize % STRIPES].lock().unwrap()
    }

    fn all(&self) -> Vec<MutexGuard<'_, BTreeMap<u32, u32>>> {
        self.stripes.iter().map(|stripe| stripe.lock().unwrap()).collect()
    }

    /// Whether `key` is present (not an invocation).
    pub fn contains_key(&self, key: u32) -> bool {
        self.stripe(key).contains_key(&key)
    }

    /// Sets `key` to `new` if its value is `expected` (not an invocation).
    pub fn try_update(&self, key: u32, new: u32, expected: u32) -> bool {
        match self.stripe(key).get_mut(&key) {
            Some(value) if *value == expected => {
                *value = new;
                true
            }
            _ => false,
        }
    }
}

#[lineup::invocations]
impl ConcurrentDictionary {
    /// Inserts `key` with value 1 unless present.
    #[invoke(10, 20)]
    pub fn try_add(&self, key: u32) -> bool {
        let mut stripe = self.stripe(key);
        if stripe.contains_key(&key) {
            return false;
        }
        stripe.insert(key, 1);
        true
    }

    /// Removes `key` and returns its value.
    #[invoke(10)]
    pub fn try_remove(&self, key: u32) -> Option<u32> {
        self.stripe(key).remove(&key)
    }

    /// The value of `key`.
    #[invoke(20)]
    pub fn try_get_value(&self, key: u32) -> Option<u32> {
        self.stripe(key).get(&key).copied()
    }

    /// Inserts `key` with value 1, or increments its value; returns the new value.
    #[invoke(10)]
    pub fn add_or_update(&self, key: u32) -> u32 {
        let mut stripe = self.stripe(key);
        let value = stripe.entry(key).and_modify(|v| *v += 1).or_insert(1);
        *value
    }

    /// The number of keys (every stripe locked).
    #[invoke]
    pub fn count(&self) -> usize {
        self.all().iter().map(|stripe| stripe.len()).sum()
    }

    /// Removes every key (every stripe locked).
    #[invoke]
    pub fn clear(&self) {
        for mut stripe in self.all() {
            stripe.clear();
        }
    }
}

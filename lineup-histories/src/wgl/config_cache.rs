//! The memoization cache of (linearized set, model state) configurations (Lowe's extension of
//! the Wing–Gong search). Lookups hash in O(1) (the set's Zobrist hash and the state's hash) and
//! always compare full keys.

use std::hash::{Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::FxHasher;

use super::linearized_set::{mix64, LinearizedSet};
use crate::memory::allocation;

struct CacheEntry<S> {
    hash: u64,
    frontier: u32,
    definite_count: u32,
    window: Box<[u64]>,
    unknown: Box<[u64]>,
    state: S,
}

/// The set of configurations seen.
pub(crate) struct ConfigCache<S> {
    table: HashTable<CacheEntry<S>>,
    /// The heap the entries own (bitsets and model states), in bytes.
    heap: usize,
}

impl<S: Eq + Hash> ConfigCache<S> {
    pub(crate) fn new() -> Self {
        ConfigCache {
            table: HashTable::new(),
            heap: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    /// The bytes the cache holds: its hash table and the heap its entries own.
    pub(crate) fn bytes(&self) -> usize {
        self.heap + self.table.allocation_size()
    }

    /// The bytes the hash table would allocate to grow if one more entry were inserted now
    /// (0 if it has room): it doubles, and both tables are live while it moves.
    pub(crate) fn growth(&self) -> usize {
        if self.table.len() < self.table.capacity() {
            0
        } else {
            (2 * self.table.allocation_size()).max(4 * (std::mem::size_of::<CacheEntry<S>>() + 1) + 16)
        }
    }

    fn state_hash(state: &S) -> u64 {
        let mut hasher = FxHasher::default();
        state.hash(&mut hasher);
        hasher.finish()
    }

    /// Whether `(set, state)` is in the cache.
    pub(crate) fn contains(&self, set: &LinearizedSet, state: &S) -> bool {
        let hash = mix64(set.hash() ^ Self::state_hash(state).rotate_left(29));
        self.find(hash, set, state)
    }

    fn find(&self, hash: u64, set: &LinearizedSet, state: &S) -> bool {
        let frontier = set.frontier() as u32;
        let definite_count = set.definite_count() as u32;
        self.table
            .find(hash, |entry| {
                entry.hash == hash
                    && entry.frontier == frontier
                    && entry.definite_count == definite_count
                    && entry
                        .window
                        .iter()
                        .enumerate()
                        .all(|(w, &word)| set.window_word(w) == word)
                    && *entry.unknown == *set.unknown_words()
                    && entry.state == *state
            })
            .is_some()
    }

    /// Adds `(set, state)`; returns whether it was new. `state_heap` tells the heap bytes a
    /// state owns.
    pub(crate) fn insert(&mut self, set: &LinearizedSet, state: &S, state_heap: impl Fn(&S) -> usize) -> bool
    where
        S: Clone,
    {
        let hash = mix64(set.hash() ^ Self::state_hash(state).rotate_left(29));
        if self.find(hash, set, state) {
            return false;
        }
        let frontier = set.frontier() as u32;
        let definite_count = set.definite_count() as u32;
        let entry = CacheEntry {
            hash,
            frontier,
            definite_count,
            window: set.window().into_boxed_slice(),
            unknown: set.unknown_words().into(),
            state: state.clone(),
        };
        self.heap += allocation(entry.window.len() * 8) + allocation(entry.unknown.len() * 8) + state_heap(state);
        self.table.insert_unique(hash, entry, |entry| entry.hash);
        true
    }
}

//! The memoization cache of (linearized set, model state) configurations (Lowe's extension of
//! the Wing–Gong search). Lookups hash in O(1) (the set's Zobrist hash and the state's hash) and
//! always compare full keys.
//!
//! An entry keeps the set as its frontier, its count of definite operations and its key words
//! (the window, then the unknown-outcome bits): up to [`INLINE`] words in the entry itself (the
//! common case: nothing, or a word or two), longer keys in an arena of large chunks. So an
//! insertion allocates nothing of its own (beyond the model state and, now and then, the table
//! or a chunk), and dropping the cache frees a few chunks rather than an allocation an entry.

use std::hash::{Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::FxHasher;

use super::linearized_set::{mix64, LinearizedSet};
use crate::memory::allocation;

/// Key words kept in the entry itself.
const INLINE: usize = 2;

/// The words of an arena chunk (256 KiB), unless a key needs more.
const CHUNK_WORDS: usize = 1 << 15;

struct CacheEntry<S> {
    hash: u64,
    frontier: u32,
    definite_count: u32,
    /// The number of key words.
    len: u32,
    /// The key words if `len <= INLINE`, else `words[0]` is the arena position
    /// (`chunk << 32 | offset`).
    words: [u64; INLINE],
    state: S,
}

/// The set of configurations seen.
pub(crate) struct ConfigCache<S> {
    table: HashTable<CacheEntry<S>>,
    /// Long keys, in chunks that never move.
    chunks: Vec<Vec<u64>>,
    /// The key words of the set being looked up (reused).
    key: Vec<u64>,
    /// The heap the entries own (arena chunks and model states), in bytes.
    heap: usize,
}

impl<S: Eq + Hash> ConfigCache<S> {
    pub(crate) fn new() -> Self {
        ConfigCache {
            table: HashTable::new(),
            chunks: Vec::new(),
            key: Vec::new(),
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

    /// The bytes the cache would allocate if one more entry (with a key as long as the last one
    /// looked up) were inserted now (0 if it has room): the hash table doubles, and both tables
    /// are live while it moves; a long key may need a new arena chunk.
    pub(crate) fn growth(&self) -> usize {
        let table = if self.table.len() < self.table.capacity() {
            0
        } else {
            (2 * self.table.allocation_size()).max(4 * (std::mem::size_of::<CacheEntry<S>>() + 1) + 16)
        };
        let words = self.key.len();
        let arena = if words <= INLINE || self.chunks.last().is_some_and(|c| c.capacity() - c.len() >= words) {
            0
        } else {
            allocation(8 * words.max(CHUNK_WORDS))
        };
        table + arena
    }

    fn state_hash(state: &S) -> u64 {
        let mut hasher = FxHasher::default();
        state.hash(&mut hasher);
        hasher.finish()
    }

    /// The key words of an entry.
    #[inline]
    fn words_of<'a>(chunks: &'a [Vec<u64>], entry: &'a CacheEntry<S>) -> &'a [u64] {
        let len = entry.len as usize;
        if len <= INLINE {
            &entry.words[..len]
        } else {
            let at = entry.words[0];
            let (chunk, offset) = ((at >> 32) as usize, (at & u32::MAX as u64) as usize);
            &chunks[chunk][offset..offset + len]
        }
    }

    /// Fills `self.key` with the key words of `set`; returns the hash of `(set, state)`.
    #[inline]
    fn prepare(&mut self, set: &LinearizedSet, state: &S) -> u64 {
        self.key.clear();
        set.push_window(&mut self.key);
        self.key.extend_from_slice(set.unknown_words());
        mix64(set.hash() ^ Self::state_hash(state).rotate_left(29))
    }

    /// Whether the entry of `(set, state)` (prepared) is in the cache.
    fn find(&self, hash: u64, set: &LinearizedSet, state: &S) -> bool {
        let frontier = set.frontier() as u32;
        let definite_count = set.definite_count() as u32;
        let key = &self.key[..];
        self.table
            .find(hash, |entry| {
                entry.hash == hash
                    && entry.frontier == frontier
                    && entry.definite_count == definite_count
                    && entry.len as usize == key.len()
                    && Self::words_of(&self.chunks, entry) == key
                    && entry.state == *state
            })
            .is_some()
    }

    /// Whether `(set, state)` is in the cache.
    pub(crate) fn contains(&mut self, set: &LinearizedSet, state: &S) -> bool {
        let hash = self.prepare(set, state);
        self.find(hash, set, state)
    }

    /// Adds `(set, state)`; returns whether it was new. `state_heap` tells the heap bytes a
    /// state owns.
    pub(crate) fn insert(&mut self, set: &LinearizedSet, state: &S, state_heap: impl Fn(&S) -> usize) -> bool
    where
        S: Clone,
    {
        let hash = self.prepare(set, state);
        if self.find(hash, set, state) {
            return false;
        }
        let len = self.key.len();
        let mut words = [0u64; INLINE];
        if len <= INLINE {
            words[..len].copy_from_slice(&self.key);
        } else {
            if self.chunks.last().is_none_or(|c| c.capacity() - c.len() < len) {
                let chunk = Vec::with_capacity(len.max(CHUNK_WORDS));
                self.heap += allocation(8 * chunk.capacity());
                self.chunks.push(chunk);
            }
            let chunk_index = self.chunks.len() - 1;
            let chunk = &mut self.chunks[chunk_index];
            words[0] = ((chunk_index as u64) << 32) | chunk.len() as u64;
            chunk.extend_from_slice(&self.key);
        }
        let entry = CacheEntry {
            hash,
            frontier: set.frontier() as u32,
            definite_count: set.definite_count() as u32,
            len: len as u32,
            words,
            state: state.clone(),
        };
        self.heap += state_heap(state);
        self.table.insert_unique(hash, entry, |entry| entry.hash);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys of every length (inline, in the arena, longer than a chunk) are told apart and
    /// found again.
    #[test]
    fn finds_exactly_the_configurations_inserted() {
        let (definite, unknown) = (CHUNK_WORDS * 64 + 300, 130);
        let mut set = LinearizedSet::new(definite, unknown);
        let mut cache: ConfigCache<u8> = ConfigCache::new();
        let mut inserted = Vec::new();
        // Definite slot 0 stays open, so every bit set above it is in the window.
        let slots: Vec<(u32, bool)> = vec![
            (1, false),
            (70, false),
            (5, true),
            (129, true),
            (200, false),
            (64 * 40, false),
            ((CHUNK_WORDS * 64 + 100) as u32, false),
            (0, false),
        ];
        for &(slot, is_unknown) in &slots {
            set.insert(slot, is_unknown);
            for state in 0..3u8 {
                assert!(cache.insert(&set, &state, |_| 0), "new: {slot} {state}");
                assert!(!cache.insert(&set, &state, |_| 0), "seen: {slot} {state}");
            }
            inserted.push(slot);
        }
        assert_eq!(cache.len(), 3 * slots.len());
        // Undo in reverse: every earlier set is still found, with its states only.
        for &(slot, is_unknown) in slots.iter().rev() {
            assert!(cache.contains(&set, &2));
            assert!(!cache.contains(&set, &3));
            set.remove(slot, is_unknown);
        }
        assert!(!cache.contains(&set, &0), "the empty set was never inserted");
        assert!(cache.bytes() > 8 * CHUNK_WORDS);
    }
}

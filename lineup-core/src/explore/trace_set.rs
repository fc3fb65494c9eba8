//! A set of execution traces that is queried with traces borrowed from the recording, so that
//! an execution seen before costs a hash and a comparison, not an allocation.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rustc_hash::FxHashMap;

use crate::model::trace::{ResponseInterner, Trace, TraceRef};

/// Distinct traces, each with a value.
#[derive(Debug)]
pub(crate) struct TraceSet<V> {
    buckets: FxHashMap<u64, Vec<usize>>,
    entries: Vec<(Trace, V)>,
}

impl<V> Default for TraceSet<V> {
    fn default() -> Self {
        Self {
            buckets: FxHashMap::default(),
            entries: Vec::new(),
        }
    }
}

impl<V> TraceSet<V> {
    fn find(&self, trace: TraceRef<'_>, hash: u64) -> Option<usize> {
        self.buckets
            .get(&hash)?
            .iter()
            .copied()
            .find(|&i| self.entries[i].0.as_ref() == trace)
    }

    /// Adds `trace` with `value` unless it is there already, in which case it keeps the smaller of
    /// the two values; returns the new trace's index, if it was added.
    pub fn insert_keeping_least(&mut self, trace: TraceRef<'_>, value: V) -> Option<usize>
    where
        V: Ord,
    {
        let hash = trace.fx_hash();
        if let Some(i) = self.find(trace, hash) {
            if value < self.entries[i].1 {
                self.entries[i].1 = value;
            }
            return None;
        }
        self.buckets.entry(hash).or_default().push(self.entries.len());
        self.entries.push((trace.to_owned(), value));
        Some(self.entries.len() - 1)
    }

    /// The value of trace number `index`.
    pub fn value(&self, index: usize) -> &V {
        &self.entries[index].1
    }

    /// The traces and their values, in insertion order, owned.
    pub fn into_entries(self) -> Vec<(Trace, V)> {
        self.entries
    }
}

/// Traces remembered by a 128-bit fingerprint only, for phase 2, which needs to know whether it
/// has judged a history before but never needs the history again: 16 bytes per distinct
/// history instead of the whole trace. Two distinct traces with the same fingerprint (odds about
/// n^2 / 2^129 for n traces) would make phase 2 skip judging the second one: it could miss a
/// violation, never report a false one.
///
/// Fingerprints hash the responses' values, not their numbers, so the workers that explore one
/// tree together (each with its own interner) share one set.
///
/// The set is split into shards by fingerprint, each behind a lock of its own, so that the workers
/// of one phase 2, which look up every execution's fingerprint, seldom wait for each other.
#[derive(Debug)]
pub(crate) struct TraceFingerprints {
    shards: Box<[Mutex<rustc_hash::FxHashSet<u128>>]>,
    /// How many fingerprints the shards hold together.
    count: AtomicUsize,
}

/// The shards of a [`TraceFingerprints`] (a power of two).
const FINGERPRINT_SHARDS: usize = 64;

impl Default for TraceFingerprints {
    fn default() -> Self {
        Self {
            shards: (0..FINGERPRINT_SHARDS).map(|_| Mutex::default()).collect(),
            count: AtomicUsize::new(0),
        }
    }
}

/// The fingerprint of one trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Fingerprint(u128);

impl Fingerprint {
    /// The fingerprint as a number (stable across explorations: responses are hashed by value).
    pub fn value(self) -> u128 {
        self.0
    }

    /// The fingerprint of `trace`, whose responses are numbered by `interner`.
    pub fn of(trace: TraceRef<'_>, interner: &ResponseInterner) -> Self {
        use std::hash::{BuildHasher, Hasher};
        let response = |r: &Option<u32>| r.map_or(0, |id| interner.value_hash(id) | 1);
        let mut low = rustc_hash::FxBuildHasher.build_hasher();
        std::hash::Hash::hash(trace.events, &mut low);
        for r in trace.responses {
            low.write_u64(response(r));
        }
        low.write_u8(u8::from(trace.stuck));
        // A second, independent hash: the same data behind a different prefix, in reverse order,
        // mixed by another hasher state.
        let mut high = rustc_hash::FxBuildHasher.build_hasher();
        high.write_u64(0x9e37_79b9_7f4a_7c15);
        high.write_usize(trace.events.len());
        for e in trace.events.iter().rev() {
            std::hash::Hash::hash(e, &mut high);
        }
        for r in trace.responses.iter().rev() {
            high.write_u64(response(r).rotate_left(17));
        }
        high.write_u8(u8::from(trace.stuck));
        Self((u128::from(high.finish()) << 64) | u128::from(low.finish()))
    }
}

impl TraceFingerprints {
    fn shard(&self, fingerprint: Fingerprint) -> std::sync::MutexGuard<'_, rustc_hash::FxHashSet<u128>> {
        // The high half picks the shard; the set hashes the whole.
        let shard = (fingerprint.0 >> 64) as usize & (FINGERPRINT_SHARDS - 1);
        self.shards[shard].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a trace with this fingerprint was seen.
    pub fn contains(&self, fingerprint: Fingerprint) -> bool {
        self.shard(fingerprint).contains(&fingerprint.0)
    }

    /// Remembers the fingerprint; returns whether it was new.
    pub fn insert(&self, fingerprint: Fingerprint) -> bool {
        let new = self.shard(fingerprint).insert(fingerprint.0);
        if new {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
        new
    }

    /// How many distinct traces were seen.
    pub fn len(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }
}

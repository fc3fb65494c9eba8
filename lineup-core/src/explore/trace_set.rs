//! A set of execution traces that is queried with traces borrowed from the recording, so that
//! an execution seen before costs a hash and a comparison, not an allocation.

use rustc_hash::FxHashMap;

use crate::model::trace::{Trace, TraceRef};

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

    /// Adds `trace` with `value` unless it is there already; returns whether it was added.
    pub fn insert(&mut self, trace: TraceRef<'_>, value: V) -> bool {
        let hash = trace.fx_hash();
        if self.find(trace, hash).is_some() {
            return false;
        }
        self.buckets.entry(hash).or_default().push(self.entries.len());
        self.entries.push((trace.to_owned(), value));
        true
    }

    /// How many distinct traces there are (the last one added has index `len() - 1`).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The traces and their values, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = &(Trace, V)> {
        self.entries.iter()
    }
}

/// Traces remembered by a 128-bit fingerprint only, for phase 2, which needs to know whether it
/// has judged a history before but never needs the history again: 16 bytes per distinct
/// history instead of the whole trace. Two distinct traces with the same fingerprint (odds about
/// n^2 / 2^129 for n traces) would make phase 2 skip judging the second one: it could miss a
/// violation, never report a false one.
#[derive(Debug, Default)]
pub(crate) struct TraceFingerprints {
    seen: rustc_hash::FxHashSet<u128>,
}

impl TraceFingerprints {
    fn fingerprint(trace: TraceRef<'_>) -> u128 {
        use std::hash::{BuildHasher, Hasher};
        let low = trace.fx_hash();
        // A second, independent hash: the same data behind a different prefix, mixed by another
        // hasher state.
        let mut hasher = rustc_hash::FxBuildHasher.build_hasher();
        hasher.write_u64(0x9e37_79b9_7f4a_7c15);
        hasher.write_usize(trace.events.len());
        for e in trace.events.iter().rev() {
            std::hash::Hash::hash(e, &mut hasher);
        }
        for r in trace.responses.iter().rev() {
            std::hash::Hash::hash(r, &mut hasher);
        }
        hasher.write_u8(u8::from(trace.stuck));
        (u128::from(hasher.finish()) << 64) | u128::from(low)
    }

    /// Whether a trace with this fingerprint was seen.
    pub fn contains(&self, trace: TraceRef<'_>) -> bool {
        self.seen.contains(&Self::fingerprint(trace))
    }

    /// Remembers the trace; returns whether it was new.
    pub fn insert(&mut self, trace: TraceRef<'_>) -> bool {
        self.seen.insert(Self::fingerprint(trace))
    }

    /// How many distinct traces were seen.
    pub fn len(&self) -> usize {
        self.seen.len()
    }
}

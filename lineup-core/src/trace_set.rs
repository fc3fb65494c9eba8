//! A set of execution traces that is queried with traces borrowed from the recording, so that
//! an execution seen before costs a hash and a comparison, not an allocation.

use rustc_hash::FxHashMap;

use crate::recording::{Trace, TraceRef};

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

    /// Whether the set holds `trace`.
    pub fn contains(&self, trace: TraceRef<'_>) -> bool {
        self.find(trace, trace.fx_hash()).is_some()
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

    /// How many traces the set holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The traces and their values, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = &(Trace, V)> {
        self.entries.iter()
    }
}

//! The executions of a sampling strategy split among workers by their index.
//!
//! Execution `i` of a seeded `random` exploration depends on its seed and on `i` alone
//! ([`execution_rng`](crate::explore::strategy::execution_rng)), so any worker can run it. Workers
//! take indices from one counter ([`SampleIndices::take`]): each runs its own in increasing order,
//! and stops at its first violation. A violation at index `i` is reported to the counter
//! ([`SampleIndices::found`]), after which no worker takes an index past `i`; the indices before
//! it are all run. So the first failing index is found whatever the number of workers, and it is
//! the one a single worker finds: the violation and its token do not depend on the workers. (A
//! violating history is never remembered as seen, so the worker that meets it at its first index
//! judges it there.)
//!
//! PCT is not split: the range of its change points is the longest execution *so far*, so its
//! execution `i` depends on the ones before it.

use std::sync::atomic::{AtomicU64, Ordering};

/// The indices of a sampling exploration's executions, shared by its workers.
#[derive(Debug)]
pub(crate) struct SampleIndices {
    /// The next index not taken yet. Starts at the number of workers: worker `w` starts at `w`.
    next: AtomicU64,
    /// How many executions the exploration has: indices run from 0 to `end - 1`.
    end: u64,
    /// The smallest index at which a violation was found (`u64::MAX`: none yet). No index past it
    /// is taken.
    first_failure: AtomicU64,
}

impl SampleIndices {
    /// The `end` executions of one exploration, for `workers` workers (each of which starts at
    /// its own number: see [`first`](Self::first)).
    pub fn new(end: u64, workers: usize) -> Self {
        Self {
            next: AtomicU64::new(workers as u64),
            end,
            first_failure: AtomicU64::new(u64::MAX),
        }
    }

    /// How many workers have an execution to run: at most one per index.
    pub fn workers_for(end: u64, workers: usize) -> usize {
        workers.min(usize::try_from(end).unwrap_or(usize::MAX)).max(1)
    }

    /// The first index of worker `w` (given, not taken, so that it does not depend on which worker
    /// starts first).
    pub fn first(w: usize) -> u64 {
        w as u64
    }

    /// The next index for a worker that has run its last one, if any is left: none past the end
    /// or past the first violation found.
    pub fn take(&self) -> Option<u64> {
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        (index < self.end && index < self.first_failure.load(Ordering::Acquire)).then_some(index)
    }

    /// A violation at `index`: no index past it is taken from now on.
    pub fn found(&self, index: u64) {
        self.first_failure.fetch_min(index, Ordering::AcqRel);
    }
}

/// An execution's index as a place in depth-first order (two halves, so that places compare as
/// indices do).
pub(crate) fn position_of(index: u64) -> Vec<u32> {
    vec![(index >> 32) as u32, index as u32]
}

/// The index a place made by [`position_of`] names.
pub(crate) fn index_at(position: &[u32]) -> Option<u64> {
    match position {
        [high, low] => Some(u64::from(*high) << 32 | u64::from(*low)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_is_taken_once_and_none_past_a_violation() {
        let indices = SampleIndices::new(10, 3);
        let mut taken: Vec<u64> = (0..3).map(SampleIndices::first).collect();
        taken.extend(std::iter::from_fn(|| indices.take()).take(3));
        assert_eq!(taken, [0, 1, 2, 3, 4, 5]);
        indices.found(7);
        indices.found(8);
        assert_eq!(indices.take(), Some(6));
        // 7 is the failing index itself: a worker already ran it.
        assert_eq!(indices.take(), None);
        assert_eq!(indices.take(), None);
    }

    #[test]
    fn positions_compare_as_indices() {
        let a = position_of(u64::from(u32::MAX));
        let b = position_of(u64::from(u32::MAX) + 1);
        assert!(a < b);
        assert_eq!(index_at(&b), Some(u64::from(u32::MAX) + 1));
        assert_eq!(SampleIndices::workers_for(3, 16), 3);
        assert_eq!(SampleIndices::workers_for(0, 16), 1);
    }
}

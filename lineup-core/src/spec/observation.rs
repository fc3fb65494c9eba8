//! The observation set: the serial histories phase 1 synthesized, grouped as in the paper's
//! observation file (§4.2): all histories of a group agree on every thread's operations and
//! results, and differ only in how they interleave.

use std::hash::BuildHasher;
use std::sync::Arc;

use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use crate::model::history::History;
use crate::model::history::OpTable;
use crate::model::response::Response;

/// What every history of one observation group shares: each operation's response (`None` when
/// it did not return) and the operation left pending in a stuck history.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObservationKey {
    /// Responses indexed by `id - 1`.
    pub responses: Vec<Option<Response>>,
    /// The blocking operation of a stuck history.
    pub pending: Option<usize>,
    /// The operations called, sorted (determines which thread prefixes the group covers).
    pub called: Vec<usize>,
}

impl ObservationKey {
    /// The key of a history.
    pub fn of(h: &History) -> Self {
        let (called, pending) = Self::parts(h);
        Self {
            responses: h.responses().to_vec(),
            pending,
            called,
        }
    }

    /// The called operations (sorted) and the pending operation of a stuck history.
    fn parts(h: &History) -> (Vec<usize>, Option<usize>) {
        let mut called = h.called_ops();
        called.sort_unstable();
        let pending = if h.is_stuck() {
            h.pending_ops().first().copied()
        } else {
            None
        };
        (called, pending)
    }

    /// The hash the index files a key under, computed from borrowed parts.
    fn hash_parts(responses: &[Option<Response>], pending: Option<usize>, called: &[usize]) -> u64 {
        FxBuildHasher.hash_one((responses, pending, called))
    }

    /// Whether this is the key of `h`, given the parts of its key.
    fn matches(&self, h: &History, called: &[usize], pending: Option<usize>) -> bool {
        self.pending == pending && self.called == called && self.responses == h.responses()
    }
}

/// One observation group (an `<observation>` element).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// What its histories share.
    pub key: ObservationKey,
    /// Its serial histories, in the order phase 1 found them.
    pub histories: Vec<History>,
}

/// The synthesized sequential specification of one test matrix: its full and stuck serial
/// histories, grouped into observations.
///
/// Its contents are shared between clones, copied only when a clone is changed: a check that
/// holds a specification for its phase 2 clones it for the price of a few reference counts.
#[derive(Clone, Debug)]
pub struct ObservationSet {
    ops: OpTable,
    pub(crate) observations: Arc<Vec<Observation>>,
    /// Groups by the hash of their key (collisions resolved by comparing keys).
    index: Arc<FxHashMap<u64, Vec<usize>>>,
    /// Hashes of the histories held, to skip the exact duplicate search for new ones.
    hashes: Arc<FxHashSet<u64>>,
    /// How many histories the set holds.
    count: usize,
    /// The operations whose different results were tolerated (by `op - 1`) when phase 1 found
    /// these histories deterministic, as they arrived (see
    /// [`DeterminismWatch`](crate::spec::determinism::DeterminismWatch)); `None` for a set that
    /// phase 1 did not certify, or that changed since.
    deterministic_under: Option<Arc<[bool]>>,
}

impl PartialEq for ObservationSet {
    fn eq(&self, other: &Self) -> bool {
        self.ops == other.ops && self.observations == other.observations
    }
}

impl ObservationSet {
    /// An empty set for the operations of a matrix.
    pub fn new(ops: OpTable) -> Self {
        Self {
            ops,
            observations: Arc::default(),
            index: Arc::default(),
            hashes: Arc::default(),
            count: 0,
            deterministic_under: None,
        }
    }

    /// Adds a serial history to its group; returns `false` if it was already there.
    pub fn insert(&mut self, h: History) -> bool {
        self.deterministic_under = None;
        if self.hashes.len() < self.len() {
            // Histories added by `insert_new` are hashed on the first `insert` after them.
            self.hashes = Arc::new(self.histories().map(|h| FxBuildHasher.hash_one(h)).collect());
        }
        let hash = FxBuildHasher.hash_one(&h);
        if !Arc::make_mut(&mut self.hashes).insert(hash)
            && self
                .group_index(&h)
                .is_some_and(|g| self.observations[g].histories.contains(&h))
        {
            return false;
        }
        self.insert_new(h);
        true
    }

    /// The set of `histories`, all distinct, grouped as [`insert_new`](Self::insert_new) one by
    /// one in their order would group them (the same groups, in the same order, each with its
    /// histories in the same order), with the work spread over the current rayon pool.
    pub(crate) fn from_distinct(ops: OpTable, histories: Vec<History>) -> Self {
        use rayon::prelude::*;
        // Below this, one by one is faster than the passes that spread the work.
        const SMALL: usize = 4096;
        if histories.len() < SMALL {
            let mut set = Self::new(ops);
            for h in histories {
                set.insert_new(h);
            }
            return set;
        }
        let keys: Vec<(Vec<usize>, Option<usize>, u64)> = histories
            .par_iter()
            .map(|h| {
                let (called, pending) = ObservationKey::parts(h);
                let hash = ObservationKey::hash_parts(h.responses(), pending, &called);
                (called, pending, hash)
            })
            .collect();
        // Each group as the indices of its histories, in order.
        let mut groups = crate::pool::equal_groups(
            histories.len(),
            |i| keys[i].2,
            |first, i| {
                keys[first].0 == keys[i].0
                    && keys[first].1 == keys[i].1
                    && histories[first].responses() == histories[i].responses()
            },
        );
        groups.par_sort_unstable_by_key(|group| group[0]);
        let mut group_of = vec![0u32; histories.len()];
        for (g, group) in groups.iter().enumerate() {
            for &i in group {
                group_of[i] = g as u32;
            }
        }
        let count = histories.len();
        let mut ranked: Vec<(u32, History)> = group_of.into_par_iter().zip(histories).collect();
        // Stable: within a group, the histories keep their order.
        ranked.par_sort_by_key(|(g, _)| *g);
        let mut observations: Vec<Observation> = Vec::with_capacity(groups.len());
        let mut index: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
        let mut ranked = ranked.into_iter();
        for (g, group) in groups.iter().enumerate() {
            let (called, pending, hash) = keys[group[0]].clone();
            let histories: Vec<History> = ranked.by_ref().take(group.len()).map(|(_, h)| h).collect();
            index.entry(hash).or_default().push(g);
            observations.push(Observation {
                key: ObservationKey {
                    responses: histories[0].responses().to_vec(),
                    pending,
                    called,
                },
                histories,
            });
        }
        Self {
            ops,
            observations: Arc::new(observations),
            index: Arc::new(index),
            hashes: Arc::default(),
            count,
            deterministic_under: None,
        }
    }

    /// Lets go of a specification: a large one that nothing else holds is freed on a thread of its
    /// own, so that the check that made it does not wait for hundreds of thousands of frees.
    pub(crate) fn release(spec: std::sync::Arc<Self>) {
        if spec.len() >= crate::pool::FREE_ELSEWHERE_FROM && std::sync::Arc::strong_count(&spec) == 1 {
            crate::pool::free_elsewhere(spec);
        }
    }

    /// Adds a history known not to be in the set yet.
    pub(crate) fn insert_new(&mut self, h: History) {
        self.deterministic_under = None;
        self.count += 1;
        let (called, pending) = ObservationKey::parts(&h);
        let hash = ObservationKey::hash_parts(h.responses(), pending, &called);
        let groups = Arc::make_mut(&mut self.index).entry(hash).or_default();
        let observations = Arc::make_mut(&mut self.observations);
        match groups
            .iter()
            .copied()
            .find(|&g| observations[g].key.matches(&h, &called, pending))
        {
            Some(g) => observations[g].histories.push(h),
            None => {
                groups.push(observations.len());
                let key = ObservationKey {
                    responses: h.responses().to_vec(),
                    pending,
                    called,
                };
                observations.push(Observation {
                    key,
                    histories: vec![h],
                });
            }
        }
    }

    /// Phase 1 found every history of the set as it stands deterministic with the operations
    /// marked in `tolerated` (by `op - 1`) tolerated: the determinism check of the set under the
    /// same marks can only agree.
    pub(crate) fn certify_deterministic(&mut self, tolerated: &[bool]) {
        self.deterministic_under = Some(tolerated.into());
    }

    /// Whether phase 1 certified the set deterministic with exactly the operations marked in
    /// `tolerated` tolerated (see [`certify_deterministic`](Self::certify_deterministic)).
    pub(crate) fn is_certified_deterministic(&self, tolerated: &[bool]) -> bool {
        self.deterministic_under.as_deref() == Some(tolerated)
    }

    /// How many histories the set holds.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the set holds no history.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The index of the group whose key is that of `h`, without building the key.
    pub(crate) fn group_index(&self, h: &History) -> Option<usize> {
        let (called, pending) = ObservationKey::parts(h);
        let hash = ObservationKey::hash_parts(h.responses(), pending, &called);
        self.index
            .get(&hash)?
            .iter()
            .copied()
            .find(|&g| self.observations[g].key.matches(h, &called, pending))
    }

    /// The operation table of the matrix.
    pub fn ops(&self) -> &OpTable {
        &self.ops
    }

    /// The groups, in the order their first history was found.
    pub fn observations(&self) -> &[Observation] {
        &self.observations
    }

    /// Every serial history, group by group.
    pub fn histories(&self) -> impl Iterator<Item = &History> + Clone {
        self.observations.iter().flat_map(|o| o.histories.iter())
    }

    /// How many full (complete) serial histories there are.
    pub fn full_count(&self) -> usize {
        self.histories().filter(|h| !h.is_stuck()).count()
    }

    /// How many stuck serial histories there are.
    pub fn stuck_count(&self) -> usize {
        self.histories().filter(|h| h.is_stuck()).count()
    }

    /// The group whose per-thread results match those of `h`, if any.
    pub fn group_of(&self, h: &History) -> Option<&Observation> {
        self.group_index(h).map(|i| &self.observations[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::history::{op_table, Event};
    use crate::model::invocation::InvocationLabel;
    use crate::model::matrix::TestMatrix;

    /// Every serial order of the operations of a 7-thread matrix of one operation each (5,040),
    /// each operation returning a small function of its place, so that orders share groups.
    fn serial_histories() -> (OpTable, Vec<History>) {
        let matrix = TestMatrix::new((0..7).map(|_| vec![0]).collect());
        let ops = op_table(&matrix, &[InvocationLabel::new("op", vec![])]);
        fn orders(left: Vec<usize>, acc: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            if left.is_empty() {
                out.push(acc.clone());
            }
            for (i, &op) in left.iter().enumerate() {
                let mut rest = left.clone();
                rest.remove(i);
                acc.push(op);
                orders(rest, acc, out);
                acc.pop();
            }
        }
        let mut all = Vec::new();
        orders((1..=7).collect(), &mut Vec::new(), &mut all);
        let histories = all
            .into_iter()
            .map(|order| {
                let mut responses = vec![None; 7];
                let mut events = Vec::new();
                for (place, &op) in order.iter().enumerate() {
                    responses[op - 1] = Some(Response::returned(&((place * op) % 5)));
                    events.extend([Event::Call(op), Event::Return(op)]);
                }
                History::from_recording(ops.clone(), events, responses, false)
            })
            .collect();
        (ops, histories)
    }

    /// Built in parallel, the set is the one `insert_new` builds one history at a time: the same
    /// groups in the same order, each with its histories in the same order.
    #[test]
    fn from_distinct_groups_as_one_by_one() {
        let (ops, histories) = serial_histories();
        assert!(histories.len() > 4096, "small sets are built one by one anyway");
        let mut one_by_one = ObservationSet::new(ops.clone());
        for h in histories.clone() {
            one_by_one.insert_new(h);
        }
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let parallel = pool.install(|| ObservationSet::from_distinct(ops, histories));
        assert!(one_by_one.observations().len() > 10);
        assert_eq!(parallel, one_by_one);
        assert_eq!(parallel.len(), one_by_one.len());
        let h = one_by_one.histories().nth(1234).unwrap();
        assert_eq!(parallel.group_index(h), one_by_one.group_index(h));
    }
}

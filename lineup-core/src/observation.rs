//! The observation set: the serial histories phase 1 synthesized, grouped as in the paper's
//! observation file (§4.2): all histories of a group agree on every thread's operations and
//! results, and differ only in how they interleave.

use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use crate::witness::{find_witness, unjustified_pending_op};
use crate::{History, OpTable, Response};

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
        let mut called = h.called_ops();
        called.sort_unstable();
        let pending = if h.is_stuck() {
            h.pending_ops().first().copied()
        } else {
            None
        };
        Self {
            responses: h.responses().to_vec(),
            pending,
            called,
        }
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
#[derive(Clone, Debug)]
pub struct ObservationSet {
    ops: OpTable,
    observations: Vec<Observation>,
    index: FxHashMap<ObservationKey, usize>,
    /// Hashes of the histories held, to skip the exact duplicate search for new ones.
    hashes: FxHashSet<u64>,
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
            observations: Vec::new(),
            index: FxHashMap::default(),
            hashes: FxHashSet::default(),
        }
    }

    /// Adds a serial history to its group; returns `false` if it was already there.
    pub fn insert(&mut self, h: History) -> bool {
        let hash = FxBuildHasher.hash_one(&h);
        self.insert_hashed(h, hash)
    }

    /// [`insert`](Self::insert) with the history's `FxBuildHasher` hash already computed.
    pub(crate) fn insert_hashed(&mut self, h: History, hash: u64) -> bool {
        let key = ObservationKey::of(&h);
        if !self.hashes.insert(hash)
            && self
                .index
                .get(&key)
                .is_some_and(|&g| self.observations[g].histories.contains(&h))
        {
            return false;
        }
        self.push(key, h);
        true
    }

    fn push(&mut self, key: ObservationKey, h: History) {
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                self.observations.push(Observation {
                    key: key.clone(),
                    histories: Vec::new(),
                });
                self.index.insert(key, self.observations.len() - 1);
                self.observations.len() - 1
            }
        };
        self.observations[i].histories.push(h);
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
        self.index.get(&ObservationKey::of(h)).map(|&i| &self.observations[i])
    }

    /// Definition 1 for a full history of the matrix: a serial witness among the full serial
    /// histories. Only the group with the same per-thread results can hold one.
    pub fn full_witness(&self, h: &History) -> Option<&History> {
        let group = self.index.get(&ObservationKey::of(h))?;
        find_witness(h, &self.observations[*group].histories).map(|(s, _)| s)
    }

    /// Definition 1 for any history of the matrix, possibly incomplete: a serial witness that is
    /// a prefix of one of the full serial histories.
    pub fn witness(&self, h: &History) -> Option<(&History, usize)> {
        find_witness(h, self.histories())
    }

    /// Definition 2 for a stuck history: the first pending operation `e` for which no stuck serial
    /// history is a witness of `H[e]`, or `None` if every pending operation is justified.
    pub fn unjustified_pending_op(&self, h: &History) -> Option<usize> {
        h.pending_ops().into_iter().find(|&e| {
            let h_e = h.restricted_to_pending(e);
            match self.index.get(&ObservationKey::of(&h_e)) {
                Some(&g) => unjustified_pending_op(&h_e, self.observations[g].histories.iter()).is_some(),
                None => true,
            }
        })
    }
}

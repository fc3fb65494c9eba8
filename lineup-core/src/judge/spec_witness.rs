//! The witness searches of Def. 1 and Def. 2 over a synthesized specification, as methods of
//! [`ObservationSet`] (an inherent `impl` kept here, with the judging, so that the specification
//! does not depend on the judge).

use crate::judge::witness::{find_witness, unjustified_pending_op};
use crate::model::history::History;
use crate::spec::observation::ObservationSet;

impl ObservationSet {
    /// Definition 1 for a full history of the matrix: a serial witness among the full serial
    /// histories. Only the group with the same per-thread results can hold one.
    pub fn full_witness(&self, h: &History) -> Option<&History> {
        // A cancelled operation has no result to group by: its witnesses complete it (with any
        // result) or leave it out, in any group.
        if h.has_cancelled() {
            return find_witness(h, self.histories()).map(|(s, _)| s);
        }
        let group = self.group_index(h)?;
        find_witness(h, &self.observations[group].histories).map(|(s, _)| s)
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
            if h_e.has_cancelled() {
                return unjustified_pending_op(&h_e, self.histories().filter(|s| s.is_stuck())).is_some();
            }
            match self.group_index(&h_e) {
                Some(g) => unjustified_pending_op(&h_e, self.observations[g].histories.iter()).is_some(),
                None => true,
            }
        })
    }
}

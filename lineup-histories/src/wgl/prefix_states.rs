//! The model's states along the end of the longest linearizable prefix of a failing search, for
//! the explanation of a violation (the HTML report shows them on hover). Computed once, after
//! the search failed: a passing search never pays for it.

use rustc_hash::FxHashSet;

use crate::history::{History, OpId};
use crate::model::Model;

/// How many of the last steps of the prefix keep their states.
pub(crate) const STEPS_KEPT: usize = 40;

/// At most this many states are followed at one step of a nondeterministic model.
const MAX_BRANCHES: usize = 256;

/// The state before and after each of the last [`STEPS_KEPT`] operations of `prefix` (a
/// sequence the search linearized), replaying `prefix` from the model's initial state. For a
/// nondeterministic model every branch is followed (up to [`MAX_BRANCHES`] states a step) and
/// the path kept is one that ends in `last`, the search's state after the prefix, when it is
/// among them. Empty if the model rejects the prefix (it cannot: the search accepted it).
pub(crate) fn prefix_states<M: Model>(
    model: &M,
    history: &History<M::Input, M::Output>,
    prefix: &[OpId],
    last: &M::State,
) -> Vec<(M::State, M::State)> {
    let keep_from = prefix.len().saturating_sub(STEPS_KEPT);
    // Each level: the states reachable after the prefix so far, each with its parent's index.
    let mut level: Vec<(M::State, usize)> = vec![(model.init(), 0)];
    let mut kept: Vec<Vec<(M::State, usize)>> = Vec::new();
    if keep_from == 0 {
        kept.push(level.clone());
    }
    for (i, &id) in prefix.iter().enumerate() {
        let op = &history[id];
        let mut next: Vec<(M::State, usize)> = Vec::new();
        let mut seen: FxHashSet<M::State> = FxHashSet::default();
        for (parent, (state, _)) in level.iter().enumerate() {
            let successors = match op.output() {
                Some(output) => model.step(state, &op.input, output),
                None => model.step_unknown(state, &op.input),
            };
            for successor in successors {
                if next.len() < MAX_BRANCHES && seen.insert(successor.clone()) {
                    next.push((successor, parent));
                }
            }
        }
        if next.is_empty() {
            return Vec::new();
        }
        level = next;
        if i + 1 >= keep_from {
            kept.push(level.clone());
        }
    }
    let Some(end) = kept.last() else {
        return Vec::new();
    };
    let mut at = end.iter().position(|(state, _)| state == last).unwrap_or(0);
    let mut steps = Vec::with_capacity(kept.len().saturating_sub(1));
    for depth in (1..kept.len()).rev() {
        let (after, parent) = &kept[depth][at];
        steps.push((kept[depth - 1][*parent].0.clone(), after.clone()));
        at = *parent;
    }
    steps.reverse();
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{QueueInput as I, QueueModel, QueueOutput as O};
    use crate::Operation;

    #[test]
    fn states_follow_the_prefix() {
        let history = History::from_operations(vec![
            Operation::returned(0, I::Enqueue(1), O::Ok, 0, 1),
            Operation::returned(0, I::Enqueue(2), O::Ok, 2, 3),
            Operation::returned(1, I::Dequeue, O::Dequeued(1), 4, 5),
        ])
        .unwrap();
        let model = QueueModel::new();
        let prefix = [OpId(0), OpId(1), OpId(2)];
        let mut last = model.init();
        for id in prefix {
            let op = &history[id];
            last = model
                .step(&last, &op.input, op.output().unwrap())
                .into_iter()
                .next()
                .unwrap();
        }
        let steps = prefix_states(&model, &history, &prefix, &last);
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[0].0, model.init());
        assert_eq!(steps[2].1, last);
        assert_eq!(steps[1].1, steps[2].0);
    }
}

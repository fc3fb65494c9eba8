//! The determinism check of §2.3: a set of serial histories is nondeterministic when two of them
//! share a longest common prefix that ends in a call, i.e. the same serial past leads to different
//! outcomes of the same call (different results, or a result in one and stuck in the other).

use rustc_hash::FxHashMap;

use crate::model::history::Event;
use crate::model::history::History;
use crate::model::response::Response;
use crate::model::trace::TraceRef;
use crate::spec::observation::ObservationSet;

/// Two serial histories that prove nondeterminism: they agree up to and including the call of
/// `op`, and then differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nondeterminism {
    /// The operation whose outcome differs.
    pub op: usize,
    /// One serial history.
    pub first: History,
    /// Another serial history with the same prefix up to the call of `op`.
    pub second: History,
}

/// Finds two serial histories whose longest common prefix ends in a call, if any.
///
/// The histories are walked through a trie of their events (returns keyed with their
/// responses); each node reached by a call remembers the outcome that followed it first.
pub fn find_nondeterminism<'a>(histories: impl IntoIterator<Item = &'a History>) -> Option<Nondeterminism> {
    find_nondeterminism_tolerating(histories, &[])
}

/// [`find_nondeterminism`], tolerating different *results* of the operations marked in
/// `tolerated` (indexed by `op - 1`: operations whose invocation is
/// [`nondeterministic`](crate::Invocation::nondeterministic)). A marked operation that returns in
/// one serial history and blocks in another after the same past is still nondeterminism.
pub fn find_nondeterminism_tolerating<'a>(
    histories: impl IntoIterator<Item = &'a History>,
    tolerated: &[bool],
) -> Option<Nondeterminism> {
    let histories = histories.into_iter();
    let mut trie = SerialTrie::with_capacity(histories.size_hint().0, tolerated);
    let mut ids = Vec::new();
    for h in histories {
        trie.number_responses(h.responses(), &mut ids);
        if let Some(found) = trie.walk(h, &ids) {
            return Some(found);
        }
    }
    None
}

/// [`find_nondeterminism_tolerating`] over the histories of `spec`, in their order (group by
/// group): the same answer, with each group's responses numbered once for all its histories
/// (every history of a group has the group's responses), and none at once for a set that phase 1
/// certified deterministic under the same `tolerated` (see
/// [`ObservationSet::certify_deterministic`]).
pub(crate) fn find_nondeterminism_in(spec: &ObservationSet, tolerated: &[bool]) -> Option<Nondeterminism> {
    if spec.is_certified_deterministic(tolerated) {
        return None;
    }
    let mut trie = SerialTrie::with_capacity(spec.len(), tolerated);
    let mut ids = Vec::new();
    for group in spec.observations() {
        trie.number_responses(&group.key.responses, &mut ids);
        for h in &group.histories {
            debug_assert_eq!(h.responses(), &group.key.responses[..]);
            if let Some(found) = trie.walk(h, &ids) {
                return Some(found);
            }
        }
    }
    None
}

/// The trie of [`find_nondeterminism_tolerating`]: responses are numbered (equal responses, equal
/// numbers; 0 for none), and each node reached by a call remembers the outcome that followed it
/// first (the number of the response, or [`STUCK`]) and the history it came from.
struct SerialTrie<'a, 't> {
    /// Trie edges: (parent node, event, response number of a return) -> child node.
    edges: FxHashMap<(u32, Event, u32), u32>,
    response_ids: FxHashMap<&'a Response, u32>,
    outcome_at: FxHashMap<u32, (u32, &'a History)>,
    nodes: u32,
    tolerated: &'t [bool],
}

/// The outcome of a call that a stuck history ends with.
const STUCK: u32 = u32::MAX;

impl<'a, 't> SerialTrie<'a, 't> {
    /// An empty trie for about `histories` serial histories.
    fn with_capacity(histories: usize, tolerated: &'t [bool]) -> Self {
        // About two new edges per history past the first few (they share their prefixes).
        let edges = 4 * histories;
        Self {
            edges: FxHashMap::with_capacity_and_hasher(edges, Default::default()),
            response_ids: FxHashMap::default(),
            outcome_at: FxHashMap::with_capacity_and_hasher(edges / 2, Default::default()),
            nodes: 1,
            tolerated,
        }
    }

    /// The numbers of `responses` (by `op - 1`) into `ids`.
    fn number_responses(&mut self, responses: &'a [Option<Response>], ids: &mut Vec<u32>) {
        ids.clear();
        ids.extend(responses.iter().map(|r| {
            r.as_ref().map_or(0, |r| {
                let next = self.response_ids.len() as u32 + 1;
                *self.response_ids.entry(r).or_insert(next)
            })
        }));
    }

    /// Walks `h` (its responses numbered in `ids`) down the trie: the proof of nondeterminism, if
    /// it has a call whose outcome differs from the one after the same past in an earlier history.
    fn walk(&mut self, h: &'a History, ids: &[u32]) -> Option<Nondeterminism> {
        debug_assert!(h.is_serial());
        let mut node = 0u32;
        let events = h.events();
        for (i, &event) in events.iter().enumerate() {
            let response = match event {
                Event::Return(op) => ids[op - 1],
                Event::Call(_) => 0,
            };
            let nodes = &mut self.nodes;
            node = *self.edges.entry((node, event, response)).or_insert_with(|| {
                *nodes += 1;
                *nodes - 1
            });
            let Event::Call(op) = event else { continue };
            let outcome = match events.get(i + 1) {
                Some(&Event::Return(r)) if r == op => {
                    debug_assert!(h.response(op).is_some(), "returned");
                    ids[op - 1]
                }
                None if h.is_stuck() => STUCK,
                // Not serial, or an incomplete non-stuck history: nothing follows the call.
                _ => continue,
            };
            match self.outcome_at.get(&node) {
                Some(&(seen, _)) if seen == outcome => {}
                Some(&(seen, _)) if seen != STUCK && outcome != STUCK && is_tolerated(self.tolerated, op) => {}
                Some(&(_, other)) => {
                    return Some(Nondeterminism {
                        op,
                        first: other.clone(),
                        second: h.clone(),
                    });
                }
                None => {
                    self.outcome_at.insert(node, (outcome, h));
                }
            }
        }
        None
    }
}

/// Whether `op`'s different results are tolerated.
fn is_tolerated(tolerated: &[bool], op: usize) -> bool {
    tolerated.get(op - 1).copied().unwrap_or(false)
}

/// The determinism check on the interned traces of one exploration, as they arrive: phase 1
/// stops at the first pair that proves nondeterminism (a pass still needs every serial
/// execution). The same trie as [`find_nondeterminism`]: each node reached by a call remembers
/// the outcome that followed it first (its return with the interned response, or the end of a
/// stuck trace) and the trace that had it; a later trace that follows the same path to that call
/// and then has another outcome is the second of the pair.
#[derive(Debug, Default)]
pub(crate) struct DeterminismWatch {
    /// Trie edges: (parent node, event code, interned response + 1 of a return) -> child node.
    edges: FxHashMap<(u32, u32, u32), u32>,
    /// The first outcome after the call that leads to each node, and the trace it came from.
    outcome_at: FxHashMap<u32, ((u32, u32), usize)>,
    nodes: u32,
    /// Operations whose different results are tolerated (see [`find_nondeterminism_tolerating`]).
    tolerated: Vec<bool>,
}

impl DeterminismWatch {
    /// Watches the traces of a matrix whose operations marked in `tolerated` (by `op - 1`) may
    /// return different results after the same past.
    pub(crate) fn new(tolerated: Vec<bool>) -> Self {
        Self {
            nodes: 1,
            tolerated,
            ..Self::default()
        }
    }

    /// Adds trace number `index`; returns the earlier trace it conflicts with and the operation,
    /// if it proves nondeterminism. Traces must be distinct (an equal trace conflicts with none).
    pub(crate) fn insert(&mut self, index: usize, trace: TraceRef<'_>) -> Option<(usize, usize)> {
        const STUCK: (u32, u32) = (u32::MAX, 0);
        let code = |e: &Event| match *e {
            Event::Call(op) => (2 * op as u32, 0),
            Event::Return(op) => (2 * op as u32 + 1, trace.responses[op - 1].map_or(0, |r| r + 1)),
        };
        let mut node = 0u32;
        for (i, event) in trace.events.iter().enumerate() {
            let key = code(event);
            let nodes = &mut self.nodes;
            node = *self.edges.entry((node, key.0, key.1)).or_insert_with(|| {
                *nodes += 1;
                *nodes - 1
            });
            let Event::Call(op) = *event else { continue };
            let outcome = match trace.events.get(i + 1) {
                Some(next @ Event::Return(r)) if *r == op => code(next),
                None if trace.stuck => STUCK,
                // Not serial, or an incomplete trace that is not stuck: nothing follows the call.
                _ => continue,
            };
            match self.outcome_at.get(&node) {
                Some(&(seen, _)) if seen == outcome => {}
                Some(&(seen, _)) if seen != STUCK && outcome != STUCK && is_tolerated(&self.tolerated, op) => {}
                Some(&(_, first)) => return Some((first, op)),
                None => {
                    self.outcome_at.insert(node, (outcome, index));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::invocation::InvocationLabel;
    use crate::model::thread_id::ThreadId;

    fn one_op(result: Option<i32>) -> History {
        let mut b = History::builder();
        let op = b.call(ThreadId::Worker(0), InvocationLabel::new("get", vec![]));
        match result {
            Some(r) => {
                b.ret(op, Response::returned(&r));
                b.finish()
            }
            None => b.finish_stuck(),
        }
    }

    #[test]
    fn different_results_after_the_same_call_are_nondeterministic() {
        let (a, b) = (one_op(Some(1)), one_op(Some(2)));
        let found = find_nondeterminism([&a, &b]).expect("nondeterministic");
        assert_eq!(found.op, 1);
        assert!(find_nondeterminism([&a, &a.clone()]).is_none());
    }

    #[test]
    fn returning_and_sticking_after_the_same_call_is_nondeterministic() {
        let (a, b) = (one_op(Some(1)), one_op(None));
        assert!(find_nondeterminism([&a, &b]).is_some());
    }

    use crate::model::trace::Trace;

    /// The determinism check of phase 1 over `traces` in order: (first, second, op).
    fn find_nondeterministic_traces(traces: &[&Trace], tolerated: &[bool]) -> Option<(usize, usize, usize)> {
        let mut watch = DeterminismWatch::new(tolerated.to_vec());
        traces
            .iter()
            .enumerate()
            .find_map(|(i, t)| watch.insert(i, t.as_ref()).map(|(first, op)| (first, i, op)))
    }

    fn trace(events: &[(bool, usize)], responses: &[Option<u32>], stuck: bool) -> Trace {
        let events = events
            .iter()
            .map(|&(call, op)| if call { Event::Call(op) } else { Event::Return(op) })
            .collect();
        Trace {
            events,
            responses: responses.to_vec(),
            stuck,
        }
    }

    #[test]
    fn traces_that_differ_right_after_a_call_are_nondeterministic() {
        // 1[ ]1 2[ ]2 with op 2 returning 5 or 6; and a third history ordering 2 first.
        let a = trace(
            &[(true, 1), (false, 1), (true, 2), (false, 2)],
            &[Some(0), Some(5)],
            false,
        );
        let b = trace(
            &[(true, 2), (false, 2), (true, 1), (false, 1)],
            &[Some(0), Some(5)],
            false,
        );
        let c = trace(
            &[(true, 1), (false, 1), (true, 2), (false, 2)],
            &[Some(0), Some(6)],
            false,
        );
        assert_eq!(
            find_nondeterministic_traces(&[&a, &b], &[]),
            None,
            "a different order is a scheduling choice"
        );
        let found = find_nondeterministic_traces(&[&a, &b, &c], &[]).expect("op 2 returns 5 or 6 after the same past");
        assert_eq!(found.2, 2);
        let stuck = trace(&[(true, 1), (false, 1), (true, 2)], &[Some(0), None], true);
        assert_eq!(
            find_nondeterministic_traces(&[&b, &stuck, &a], &[]).map(|f| f.2),
            Some(2),
            "returns or blocks"
        );
        // Op 2 marked nondeterministic: 5 or 6 is tolerated, returning or blocking is not.
        let op2 = [false, true];
        assert_eq!(find_nondeterministic_traces(&[&a, &b, &c], &op2), None);
        assert_eq!(
            find_nondeterministic_traces(&[&b, &stuck, &a, &c], &op2).map(|f| f.2),
            Some(2)
        );
        // Op 1 marked instead: op 2's different results still count.
        assert_eq!(
            find_nondeterministic_traces(&[&a, &b, &c], &[true, false]).map(|f| f.2),
            Some(2)
        );
    }

    /// The serial histories of a 2x2 matrix (ops 1, 2 on one thread, 3, 4 on the other), each
    /// op's response given by `response(order, position)`.
    fn serial_2x2(response: impl Fn(&[usize], usize) -> i32) -> Vec<History> {
        use crate::model::history::op_table;
        use crate::model::matrix::TestMatrix;
        let matrix = TestMatrix::new(vec![vec![0, 0], vec![0, 0]]);
        let ops = op_table(&matrix, &[InvocationLabel::new("op", vec![])]);
        let orders = [
            [1, 2, 3, 4],
            [1, 3, 2, 4],
            [1, 3, 4, 2],
            [3, 1, 2, 4],
            [3, 1, 4, 2],
            [3, 4, 1, 2],
        ];
        orders
            .iter()
            .map(|order| {
                let events = order
                    .iter()
                    .flat_map(|&op| [Event::Call(op), Event::Return(op)])
                    .collect();
                let mut responses = vec![None; 4];
                for (position, &op) in order.iter().enumerate() {
                    responses[op - 1] = Some(Response::returned(&response(order, position)));
                }
                History::new(ops.clone(), events, responses, false).expect("a serial history")
            })
            .collect()
    }

    /// The check of a specification group by group gives what the check of its histories one by
    /// one gives: deterministic responses, responses that depend on the future, tolerated or not.
    #[test]
    fn the_check_of_a_spec_by_groups_agrees_with_the_one_by_histories() {
        /// A serial order's response at a position.
        type ResponseAt = fn(&[usize], usize) -> i32;
        let kinds: [(&str, ResponseAt); 3] = [
            ("position", |_, position| position as i32),
            ("next op", |order, position| {
                order.get(position + 1).map_or(0, |&op| op as i32)
            }),
            ("op 3 first", |order, _| i32::from(order[0] == 3)),
        ];
        let mut nondeterministic = 0;
        for (name, response) in kinds {
            let histories = serial_2x2(response);
            let mut spec = ObservationSet::new(histories[0].ops().clone());
            for h in &histories {
                spec.insert(h.clone());
            }
            for tolerated in [vec![], vec![true; 4], vec![false, true, false, true]] {
                let by_histories = find_nondeterminism_tolerating(spec.histories(), &tolerated);
                assert_eq!(
                    find_nondeterminism_in(&spec, &tolerated),
                    by_histories,
                    "{name}, {tolerated:?}"
                );
                nondeterministic += usize::from(by_histories.is_some());
            }
        }
        assert!(nondeterministic > 0, "some of the cases are nondeterministic");
    }

    /// A certificate of phase 1 answers for the set as it was certified and under the same marks
    /// only: a change to the set, or other marks, bring the check back.
    #[test]
    fn a_certificate_holds_for_the_set_it_was_given_to_only() {
        let histories = serial_2x2(|order, position| order.get(position + 1).map_or(0, |&op| op as i32));
        let mut spec = ObservationSet::new(histories[0].ops().clone());
        for h in &histories[..5] {
            spec.insert(h.clone());
        }
        assert!(find_nondeterminism_in(&spec, &[]).is_some());
        // (A certificate is phase 1's to give, to sets it found deterministic; given here to a
        // nondeterministic one to show when it is trusted.)
        spec.certify_deterministic(&[]);
        assert!(spec.is_certified_deterministic(&[]));
        assert_eq!(find_nondeterminism_in(&spec, &[]), None);
        assert!(find_nondeterminism_in(&spec, &[false, false, false, false]).is_some());
        let copy = spec.clone();
        assert!(copy.is_certified_deterministic(&[]));
        spec.insert(histories[5].clone());
        assert!(!spec.is_certified_deterministic(&[]));
        assert!(find_nondeterminism_in(&spec, &[]).is_some());
    }
}

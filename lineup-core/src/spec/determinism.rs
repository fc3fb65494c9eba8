//! The determinism check of §2.3: a set of serial histories is nondeterministic when two of them
//! share a longest common prefix that ends in a call, i.e. the same serial past leads to different
//! outcomes of the same call (different results, or a result in one and stuck in the other).

use rustc_hash::FxHashMap;

use crate::model::history::Event;
use crate::model::history::History;
use crate::model::response::Response;
use crate::model::trace::TraceRef;

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

/// What follows a call in a serial history: its return with a response, or the end of a stuck
/// history.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome<'a> {
    Returned(&'a Response),
    Stuck,
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
    // Trie edges: (parent node, event, interned response of a return) -> child node.
    let mut edges: FxHashMap<(u32, Event, u32), u32> = FxHashMap::default();
    let mut response_ids: FxHashMap<&Response, u32> = FxHashMap::default();
    let mut outcome_at: FxHashMap<u32, (Outcome<'_>, &History)> = FxHashMap::default();
    let mut nodes = 1u32;
    for h in histories {
        debug_assert!(h.is_serial());
        let mut node = 0u32;
        let events = h.events();
        for (i, &event) in events.iter().enumerate() {
            let response = match event {
                Event::Return(op) => h.response(op).map_or(0, |r| {
                    let next = response_ids.len() as u32 + 1;
                    *response_ids.entry(r).or_insert(next)
                }),
                Event::Call(_) => 0,
            };
            node = *edges.entry((node, event, response)).or_insert_with(|| {
                nodes += 1;
                nodes - 1
            });
            if let Event::Call(op) = event {
                let outcome = match events.get(i + 1) {
                    Some(&Event::Return(r)) if r == op => Outcome::Returned(h.response(op).expect("returned")),
                    None if h.is_stuck() => Outcome::Stuck,
                    // Not serial, or an incomplete non-stuck history: nothing follows the call.
                    _ => continue,
                };
                let both_return =
                    |a: &Outcome<'_>, b: &Outcome<'_>| matches!((a, b), (Outcome::Returned(_), Outcome::Returned(_)));
                match outcome_at.get(&node) {
                    Some((seen, _))
                        if *seen != outcome && both_return(seen, &outcome) && is_tolerated(tolerated, op) => {}
                    Some((seen, other)) if *seen != outcome => {
                        return Some(Nondeterminism {
                            op,
                            first: (*other).clone(),
                            second: h.clone(),
                        });
                    }
                    Some(_) => {}
                    None => {
                        outcome_at.insert(node, (outcome, h));
                    }
                }
            }
        }
    }
    None
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
}

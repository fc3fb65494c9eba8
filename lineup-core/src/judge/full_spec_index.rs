//! Phase 2's fast path for full histories: the full serial histories of the specification,
//! indexed by their interned responses and kept as bare serial orders, so that a full execution
//! is judged (Def. 1) on its recorded trace without building its history.
//!
//! A full history of the matrix calls every operation, so its serial witnesses are exactly the
//! full serial histories with the same responses whose order keeps the history's real-time
//! order (per-thread order holds within a group: every history of a matrix calls a thread's
//! operations in column order). The slow path ([`ObservationSet::full_witness`]) gives the same
//! answer and is what a report is built from.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::model::history::Event;
use crate::model::trace::ResponseInterner;
use crate::spec::observation::ObservationSet;

/// The full serial histories of a specification by their responses, numbered by an interner of
/// its own: built once per phase 2 and shared by its workers, each of which reads it through a
/// [`FullSpecProbe`] that maps its own response numbers into the index's.
#[derive(Debug)]
pub(crate) struct FullSpecIndex {
    groups: FxHashMap<Vec<Option<u32>>, OrderTrie>,
    interner: ResponseInterner,
    ops: usize,
}

impl FullSpecIndex {
    /// Indexes the full serial histories of `spec` (on the current rayon pool).
    pub fn new(spec: &ObservationSet) -> Self {
        let ops = spec.ops().len();
        let full = |h: &crate::model::history::History| !h.is_stuck() && h.events().len() == 2 * ops;
        let mut interner = ResponseInterner::default();
        // Every history of an observation group has the group's responses: intern them once.
        let keys: Vec<Option<Vec<Option<u32>>>> = spec
            .observations()
            .iter()
            .map(|group| {
                group.histories.iter().any(full).then(|| {
                    group
                        .key
                        .responses
                        .iter()
                        .map(|r| r.as_ref().map(|r| interner.intern(r)))
                        .collect()
                })
            })
            .collect();
        let orders: Vec<Vec<Box<[u32]>>> = spec
            .observations()
            .par_iter()
            .map(|group| {
                group
                    .histories
                    .iter()
                    .filter(|h| full(h))
                    .map(|h| h.events().iter().step_by(2).map(|e| e.op() as u32).collect())
                    .collect()
            })
            .collect();
        let mut by_key: FxHashMap<Vec<Option<u32>>, Vec<Box<[u32]>>> = FxHashMap::default();
        for (key, orders) in keys.into_iter().zip(orders) {
            if let Some(key) = key {
                by_key.entry(key).or_default().extend(orders);
            }
        }
        // One trie per group, built in parallel (sorting the orders of a 4x3 matrix's largest
        // groups took most of the index's time on one thread).
        let groups = by_key
            .into_par_iter()
            .map(|(key, orders)| (key, OrderTrie::new(orders)))
            .collect();
        Self { groups, interner, ops }
    }
}

/// The serial orders of one group of full histories, as a trie of operations (orders that share a
/// prefix share its nodes), so that a history is checked against every order at once and a
/// prefix that breaks its real-time order rules out every order that begins with it.
#[derive(Debug, Default)]
struct OrderTrie {
    /// The nodes; node 0 is the root (no operation), the others in depth-first order.
    nodes: Vec<OrderNode>,
}

/// A node of an [`OrderTrie`]: the operation placed at its depth, and its links.
#[derive(Clone, Copy, Debug)]
struct OrderNode {
    op: u32,
    /// Its first child, or `NONE`.
    first_child: u32,
    /// Its next sibling, or `NONE`.
    next_sibling: u32,
    /// An order ends here.
    ends: bool,
}

/// No node.
const NONE: u32 = u32::MAX;

impl OrderTrie {
    /// The trie of `orders` (each of every operation of the matrix, numbered from 1).
    fn new(mut orders: Vec<Box<[u32]>>) -> Self {
        orders.sort_unstable();
        orders.dedup();
        let mut nodes = vec![OrderNode {
            op: 0,
            first_child: NONE,
            next_sibling: NONE,
            ends: false,
        }];
        // The path of the order added last, by depth (the root first).
        let mut path: Vec<u32> = vec![0];
        let mut previous: &[u32] = &[];
        for order in &orders {
            let shared = previous.iter().zip(order.iter()).take_while(|(a, b)| a == b).count();
            path.truncate(shared + 1);
            for &op in &order[shared..] {
                let parent = *path.last().expect("the root");
                let node = nodes.len() as u32;
                nodes.push(OrderNode {
                    op,
                    first_child: NONE,
                    next_sibling: NONE,
                    ends: false,
                });
                // Sorted orders: a new child comes after its parent's last one.
                let mut last = nodes[parent as usize].first_child;
                if last == NONE {
                    nodes[parent as usize].first_child = node;
                } else {
                    while nodes[last as usize].next_sibling != NONE {
                        last = nodes[last as usize].next_sibling;
                    }
                    nodes[last as usize].next_sibling = node;
                }
                path.push(node);
            }
            let end = *path.last().expect("the root");
            nodes[end as usize].ends = true;
            previous = order;
        }
        Self { nodes }
    }

    /// Whether some order keeps the real-time order of a history with these call and return
    /// positions (by `op - 1`): an operation may follow the ones before it unless it returned
    /// before the latest call among them. Depth first, each level's children tried in turn and the
    /// first that may follow taken at once. `stack` is scratch space: per level, the next child to
    /// try and the latest call among the operations above it (`None` at the first level, where
    /// any operation may come first).
    fn any_keeps(&self, calls: &[usize], returns: &[usize], stack: &mut Vec<(u32, Option<usize>)>) -> bool {
        if self.nodes[0].ends {
            return true;
        }
        stack.clear();
        stack.push((self.nodes[0].first_child, None));
        while let Some((next, latest_call)) = stack.last_mut() {
            let latest_call = *latest_call;
            let mut taken = None;
            while *next != NONE {
                let child = *next;
                let node = self.nodes[child as usize];
                *next = node.next_sibling;
                let op = node.op as usize - 1;
                if latest_call.is_none_or(|latest| returns[op] > latest) {
                    taken = Some((node, latest_call.map_or(calls[op], |latest| latest.max(calls[op]))));
                    break;
                }
            }
            match taken {
                Some((node, _)) if node.ends => return true,
                Some((node, latest)) => stack.push((node.first_child, Some(latest))),
                None => {
                    stack.pop();
                }
            }
        }
        false
    }
}

/// One worker's way into a shared [`FullSpecIndex`]: its response numbers mapped to the index's,
/// and the scratch space of a judgement.
#[derive(Debug)]
pub(crate) struct FullSpecProbe {
    index: Arc<FullSpecIndex>,
    /// The index's number of each of the worker's response numbers met so far (`UNSEEN`: not
    /// looked up yet; `ABSENT`: no full serial history has that response).
    numbers: Vec<u32>,
    /// Scratch: the history's responses in the index's numbers.
    key: Vec<Option<u32>>,
    /// Scratch: call and return positions of the history being judged, by `op - 1`.
    calls: Vec<usize>,
    returns: Vec<usize>,
    /// Scratch: the search through an [`OrderTrie`].
    stack: Vec<(u32, Option<usize>)>,
}

const UNSEEN: u32 = u32::MAX;
const ABSENT: u32 = u32::MAX - 1;

impl FullSpecProbe {
    /// A probe into `index` for one worker.
    pub fn new(index: Arc<FullSpecIndex>) -> Self {
        let ops = index.ops;
        Self {
            index,
            numbers: Vec::new(),
            key: Vec::with_capacity(ops),
            calls: vec![0; ops],
            returns: vec![0; ops],
            stack: Vec::new(),
        }
    }

    /// Whether the full history with these events and responses (numbered by the worker's
    /// `interner`) has a serial witness.
    pub fn has_witness(&mut self, events: &[Event], responses: &[Option<u32>], interner: &ResponseInterner) -> bool {
        self.key.clear();
        for response in responses {
            let Some(id) = *response else {
                self.key.push(None);
                continue;
            };
            let id = id as usize;
            if self.numbers.len() <= id {
                self.numbers.resize(id + 1, UNSEEN);
            }
            if self.numbers[id] == UNSEEN {
                self.numbers[id] = self.index.interner.find(interner.value(id as u32)).unwrap_or(ABSENT);
            }
            if self.numbers[id] == ABSENT {
                return false;
            }
            self.key.push(Some(self.numbers[id]));
        }
        let Some(orders) = self.index.groups.get(&self.key) else {
            return false;
        };
        for (i, e) in events.iter().enumerate() {
            match *e {
                Event::Call(op) => self.calls[op - 1] = i,
                Event::Return(op) => self.returns[op - 1] = i,
            }
        }
        orders.any_keeps(&self.calls, &self.returns, &mut self.stack)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::history::op_table;
    use crate::model::history::History;
    use crate::model::invocation::InvocationLabel;
    use crate::model::matrix::TestMatrix;
    use crate::model::response::Response;

    /// Every interleaving of the call and return events of a 2x2 matrix.
    fn interleavings() -> Vec<Vec<Event>> {
        fn go(state: [usize; 2], acc: &mut Vec<Event>, out: &mut Vec<Vec<Event>>) {
            if state == [4, 4] {
                out.push(acc.clone());
                return;
            }
            for t in 0..2 {
                let s = state[t];
                if s == 4 {
                    continue;
                }
                let op = 2 * t + s / 2 + 1;
                acc.push(if s % 2 == 0 { Event::Call(op) } else { Event::Return(op) });
                let mut next = state;
                next[t] += 1;
                go(next, acc, out);
                acc.pop();
            }
        }
        let mut out = Vec::new();
        go([0, 0], &mut Vec::new(), &mut out);
        out
    }

    /// The fast path agrees with Definition 1 as the observation set decides it, on every full
    /// history of a 2x2 matrix and every result vector a serial history produced.
    #[test]
    fn agrees_with_the_observation_set() {
        let matrix = TestMatrix::new(vec![vec![0, 0], vec![0, 0]]);
        let ops = op_table(&matrix, &[InvocationLabel::new("op", vec![])]);
        let all = interleavings();
        let serial: Vec<&Vec<Event>> = all
            .iter()
            .filter(|e| {
                e.chunks(2)
                    .all(|p| matches!(p, [Event::Call(a), Event::Return(b)] if a == b))
            })
            .collect();
        assert_eq!(serial.len(), 6);
        // Each op returns its position in the serial order: every serial history is its own group.
        let mut spec = ObservationSet::new(ops.clone());
        let mut result_vectors = Vec::new();
        for events in &serial {
            let mut responses = vec![None; 4];
            for (i, e) in events.iter().step_by(2).enumerate() {
                responses[e.op() - 1] = Some(Response::returned(&i));
            }
            result_vectors.push(responses.clone());
            spec.insert(History::new(ops.clone(), (*events).clone(), responses, false).unwrap());
        }
        let mut interner = ResponseInterner::default();
        let mut index = FullSpecProbe::new(Arc::new(FullSpecIndex::new(&spec)));
        let (mut agreed, mut witnessed) = (0, 0);
        for events in &all {
            for responses in &result_vectors {
                let h = History::new(ops.clone(), events.clone(), responses.clone(), false).unwrap();
                let ids: Vec<Option<u32>> = responses
                    .iter()
                    .map(|r| r.as_ref().map(|r| interner.intern(r)))
                    .collect();
                let slow = spec.full_witness(&h).is_some();
                assert_eq!(index.has_witness(events, &ids, &interner), slow, "{}", h.notation());
                agreed += 1;
                witnessed += usize::from(slow);
            }
        }
        assert_eq!(agreed, all.len() * 6);
        assert!(witnessed > 0 && witnessed < agreed);
    }

    /// Whether `order` keeps the real-time order of the history with these call and return
    /// positions: each order checked on its own, as the trie checks them all at once.
    fn keeps(order: &[u32], calls: &[usize], returns: &[usize]) -> bool {
        let mut latest_call = 0;
        order.iter().enumerate().all(|(j, &op)| {
            let op = op as usize - 1;
            let ok = j == 0 || returns[op] > latest_call;
            latest_call = latest_call.max(calls[op]);
            ok
        })
    }

    /// The trie of any set of serial orders of three operations answers as the orders one by one
    /// do, for every placement of the three calls and returns.
    #[test]
    fn the_order_trie_agrees_with_each_order() {
        let permutations: Vec<Box<[u32]>> = (1..=3u32)
            .flat_map(|a| (1..=3u32).flat_map(move |b| (1..=3u32).map(move |c| [a, b, c])))
            .filter(|[a, b, c]| a != b && b != c && a != c)
            .map(|order| order.to_vec().into_boxed_slice())
            .collect();
        assert_eq!(permutations.len(), 6);
        // Every placement of the six events at positions 0..6 with each call before its return.
        let mut placements = Vec::new();
        for call1 in 0..6 {
            for ret1 in call1 + 1..6 {
                for call2 in (0..6).filter(|&p| p != call1 && p != ret1) {
                    for ret2 in (call2 + 1..6).filter(|&p| p != call1 && p != ret1) {
                        let rest: Vec<usize> = (0..6).filter(|p| ![call1, ret1, call2, ret2].contains(p)).collect();
                        placements.push(([call1, call2, rest[0]], [ret1, ret2, rest[1]]));
                    }
                }
            }
        }
        assert_eq!(placements.len(), 90);
        let mut stack = Vec::new();
        for subset in 0u32..64 {
            let orders: Vec<Box<[u32]>> = (0..6)
                .filter(|k| subset & (1 << k) != 0)
                .map(|k| permutations[k].clone())
                .collect();
            let trie = OrderTrie::new(orders.clone());
            for (calls, returns) in &placements {
                let one_by_one = orders.iter().any(|order| keeps(order, calls, returns));
                assert_eq!(trie.any_keeps(calls, returns, &mut stack), one_by_one, "{orders:?}");
            }
        }
        // No order; the empty order (a matrix without operations).
        assert!(!OrderTrie::new(Vec::new()).any_keeps(&[], &[], &mut stack));
        assert!(OrderTrie::new(vec![Vec::new().into_boxed_slice()]).any_keeps(&[], &[], &mut stack));
    }
}

//! The serial witness search of Definitions 1 and 2 (paper §2.1.4 and §2.3).
//!
//! A serial history `S` is a *serial witness* for a history `H` when `S` is serial, `H|t = S|t`
//! for every thread `t` (the same invocations with the same results in the same order), and every
//! pair of operations ordered in real time in `H` (a return before a call) keeps its order in `S`.

use crate::model::history::Event;
use crate::model::history::History;

/// Where each operation's events stand in a history `h`, computed once per history so that
/// many candidate witnesses can be tried without allocating.
struct Positions {
    /// Position of each operation's call (`usize::MAX`: not called), indexed by `op - 1`.
    calls: Vec<usize>,
    /// Position of each operation's return (`usize::MAX`: pending or not called).
    returns: Vec<usize>,
    /// A small index of each operation's thread.
    thread_slot: Vec<usize>,
    /// How many operations returned.
    completed: usize,
    /// Scratch: the last call position seen per thread slot.
    last_call: std::cell::RefCell<Vec<usize>>,
}

impl Positions {
    fn of(h: &History) -> Self {
        let (calls, mut returns) = h.event_positions();
        // A cancelled operation never returned: it is pending (Def. 1 appends its return at the
        // end), whatever event records its cancellation.
        for op in h.cancelled_ops() {
            returns[op - 1] = usize::MAX;
        }
        let mut threads: Vec<crate::model::thread_id::ThreadId> = Vec::new();
        let thread_slot = h
            .ops()
            .iter()
            .map(|o| match threads.iter().position(|&t| t == o.thread) {
                Some(i) => i,
                None => {
                    threads.push(o.thread);
                    threads.len() - 1
                }
            })
            .collect();
        let completed = returns.iter().filter(|&&r| r != usize::MAX).count();
        Self {
            calls,
            returns,
            thread_slot,
            completed,
            last_call: std::cell::RefCell::new(vec![0; threads.len()]),
        }
    }

    /// Checks that a serial arrangement `order` of operations of the history keeps every thread's
    /// order and every real-time order of the history, in one pass: an operation may follow the
    /// ones before it unless it returned before one of them was called, i.e. before the latest
    /// call among them. Operations pending in the history return after every event (Def. 1
    /// appends their returns at the end).
    fn keeps_orders(&self, order: impl Iterator<Item = usize>) -> bool {
        let mut last_call = self.last_call.borrow_mut();
        last_call.fill(usize::MAX);
        let mut latest_call: Option<usize> = None;
        for op in order {
            let call = self.calls[op - 1];
            if call == usize::MAX {
                return false;
            }
            let slot = &mut last_call[self.thread_slot[op - 1]];
            if *slot != usize::MAX && *slot > call {
                return false;
            }
            *slot = call;
            if latest_call.is_some_and(|latest| self.returns[op - 1] < latest) {
                return false;
            }
            latest_call = Some(latest_call.map_or(call, |latest| latest.max(call)));
        }
        true
    }

    /// Def. 1 for one candidate (see [`witness_prefix`]).
    fn witness_prefix(&self, h: &History, spec: &History) -> Option<usize> {
        let order = spec.events().iter().filter_map(|e| match e {
            Event::Call(op) => Some(*op),
            Event::Return(_) => None,
        });
        let mut covered = 0;
        let mut prefix = 0;
        if self.completed > 0 {
            for (i, op) in order.clone().enumerate() {
                // Only operations that returned in `spec` can stand in a complete witness.
                let spec_response = spec.response(op)?;
                match h.response(op) {
                    // A cancelled operation that the witness completes: any result.
                    Some(r) if r.is_cancelled() => {}
                    Some(r) if r == spec_response => covered += 1,
                    Some(_) => return None,
                    None if self.calls[op - 1] != usize::MAX => {}
                    None => return None,
                }
                if covered == self.completed {
                    prefix = i + 1;
                    break;
                }
            }
            if covered < self.completed {
                return None;
            }
        }
        self.keeps_orders(order.take(prefix)).then_some(prefix)
    }
}

/// Definition 1 for one candidate: if some prefix of the serial history `spec` (a history of a
/// prefix-closed specification) is a serial witness for `complete(H')`, where `H'` extends `h`
/// by returns of some of its pending operations, returns the length of that prefix in
/// operations.
///
/// Only the shortest prefix that contains every completed operation of `h` needs to be tried:
/// a longer one only adds pending operations and with them more order constraints.
pub fn witness_prefix(h: &History, spec: &History) -> Option<usize> {
    Positions::of(h).witness_prefix(h, spec)
}

/// Definition 1: the first history of `spec` (serial histories of a prefix-closed
/// specification; a stuck one stands for its returned prefix) one of whose prefixes is a serial
/// witness for `h`, with the prefix length.
pub fn find_witness<'a>(h: &History, spec: impl IntoIterator<Item = &'a History>) -> Option<(&'a History, usize)> {
    let positions = Positions::of(h);
    spec.into_iter()
        .find_map(|s| positions.witness_prefix(h, s).map(|k| (s, k)))
}

/// Definition 2 for one candidate: whether the stuck serial history `s` is a serial witness for
/// `h_e`, a stuck history with exactly one pending operation (`H[e]`).
pub fn is_stuck_witness(h_e: &History, s: &History) -> bool {
    let pending = h_e.pending_ops();
    let [e] = pending[..] else { return false };
    if !s.is_stuck() || s.pending_ops() != [e] {
        return false;
    }
    let order = s.serial_order();
    if order.last() != Some(&e) {
        return false;
    }
    // A cancelled operation of `h_e` is pending (Def. 1): the witness completes it (any result)
    // or leaves it out (a serial history in which it never ran). Every other called operation is
    // in the witness with its result.
    let before = &order[..order.len() - 1];
    let same_results = before.iter().all(|&op| match h_e.response(op) {
        Some(r) if r.is_cancelled() => s.response(op).is_some(),
        Some(r) => s.response(op) == Some(r),
        None => false,
    });
    let all_returned_in = h_e
        .called_ops()
        .into_iter()
        .filter(|&op| op != e && !h_e.is_cancelled(op))
        .all(|op| before.contains(&op));
    same_results && all_returned_in && Positions::of(h_e).keeps_orders(order.into_iter())
}

/// Definition 2: for each pending operation `e` of the stuck history `h`, a stuck serial witness
/// of `H[e]` among `spec`. Returns the first pending operation without one, if any.
pub fn unjustified_pending_op<'a>(h: &History, spec: impl IntoIterator<Item = &'a History> + Clone) -> Option<usize> {
    h.pending_ops().into_iter().find(|&e| {
        let h_e = h.restricted_to_pending(e);
        !spec.clone().into_iter().any(|s| is_stuck_witness(&h_e, s))
    })
}

/// Says why the serial history `s` (with the same per-thread results) is not a serial witness
/// for `h`: the first pair of operations whose real-time order in `h` it reverses, or the first
/// thread whose order it changes.
pub fn explain_non_witness(h: &History, s: &History) -> String {
    let (calls, returns) = h.event_positions();
    let order = s.serial_order();
    for (j, &later) in order.iter().enumerate() {
        for &earlier in &order[..j] {
            if h.op(earlier).thread == h.op(later).thread && calls[later - 1] < calls[earlier - 1] {
                return format!(
                    "it runs {earlier} before {later}, but thread {} calls them the other way round",
                    h.op(later).thread
                );
            }
            if returns[later - 1] < calls[earlier - 1] {
                return format!(
                    "it runs {earlier} before {later}, but in the history {later} returned before {earlier} was called"
                );
            }
        }
    }
    "it keeps every order of the history (it differs in results)".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::invocation::InvocationLabel;
    use crate::model::response::Response;
    use crate::model::thread_id::ThreadId;

    const A: ThreadId = ThreadId::Worker(0);
    const B: ThreadId = ThreadId::Worker(1);

    fn inc() -> InvocationLabel {
        InvocationLabel::new("inc", vec![])
    }
    fn get() -> InvocationLabel {
        InvocationLabel::new("get", vec![])
    }

    /// The paper's Counter1 history: two overlapping increments, then `get` returns 1.
    #[test]
    fn lost_update_has_no_witness() {
        let mut b = History::builder();
        let i1 = b.call(A, inc());
        let i2 = b.call(B, inc());
        b.ret(i1, Response::returned(&()));
        b.ret(i2, Response::returned(&()));
        let g = b.call(A, get());
        b.ret(g, Response::returned(&1));
        let h = b.finish();

        // Serial histories of the same operations: get always returns 2 after two incs.
        let serial = |first, second| {
            let mut events = vec![];
            for op in [first, second, g] {
                events.push(Event::Call(op));
                events.push(Event::Return(op));
            }
            let mut responses = h.responses().to_vec();
            responses[g - 1] = Some(Response::returned(&2));
            History::new(h.ops().clone(), events, responses, false).unwrap()
        };
        let spec = [serial(i1, i2), serial(i2, i1)];
        assert!(find_witness(&h, &spec).is_none());
    }

    fn recv() -> InvocationLabel {
        InvocationLabel::new("recv", vec![])
    }
    fn send() -> InvocationLabel {
        InvocationLabel::new("send", vec![])
    }

    /// A serial history of `h`'s operations: `order`'s operations, each returning `results`'s
    /// value for it (the others not called).
    fn serial_of(h: &History, order: &[usize], results: &[(usize, u32)]) -> History {
        let mut events = vec![];
        let mut responses = vec![None; h.ops().len()];
        for &op in order {
            events.push(Event::Call(op));
            events.push(Event::Return(op));
            let value = results.iter().find(|(o, _)| *o == op).map_or(0, |(_, v)| *v);
            responses[op - 1] = Some(Response::returned(&value));
        }
        History::new(h.ops().clone(), events, responses, false).unwrap()
    }

    /// A: `recv` (cancelled after its second poll), then `recv` -> `second`; B: `send` while the
    /// first `recv` waits.
    fn cancelled_recv_then(second: u32) -> History {
        let mut b = History::builder();
        let r1 = b.call(A, recv());
        let s = b.call(B, send());
        b.ret(s, Response::returned(&0u32));
        b.ret(r1, Response::Cancelled { polls: 2 });
        let r2 = b.call(A, recv());
        b.ret(r2, Response::returned(&second));
        b.finish()
    }

    #[test]
    fn a_cancelled_operation_is_pending_a_witness_completes_it_or_leaves_it_out() {
        // Ops: 1 recv (cancelled), 2 send, 3 recv.
        let h = cancelled_recv_then(1);
        assert_eq!(h.cancelled_ops(), [1]);
        assert!(h.pending_ops().is_empty());
        // Left out: the serial history in which the first recv never ran (phase 1's skip).
        let skipped = serial_of(&h, &[2, 3], &[(3, 1)]);
        assert_eq!(witness_prefix(&h, &skipped), Some(2));
        // A history whose second recv got nothing: the first took the message and was cancelled
        // (completed), or nothing explains it.
        let lost = cancelled_recv_then(0);
        let took_it = serial_of(&lost, &[2, 1, 3], &[(1, 1), (3, 0)]);
        assert_eq!(witness_prefix(&lost, &took_it), Some(3));
        assert!(witness_prefix(&lost, &skipped).is_none());
    }

    #[test]
    fn a_cancelled_operation_is_never_judged_as_returned() {
        let h = cancelled_recv_then(0);
        // Whatever the witness's recv returned, the cancelled one has no result to compare.
        for value in [0, 1, 7] {
            let s = serial_of(&h, &[2, 1, 3], &[(1, value), (3, 0)]);
            assert!(witness_prefix(&h, &s).is_some(), "{value}");
        }
        // A serial history that runs it after its thread's next operation only stands for its
        // prefix without it: the witness leaves it out.
        let reordered = serial_of(&h, &[2, 3, 1], &[(1, 1), (3, 0)]);
        assert_eq!(witness_prefix(&h, &reordered), Some(2));
    }

    #[test]
    fn a_stuck_witness_completes_a_cancelled_operation_or_leaves_it_out() {
        // A: recv (cancelled), then recv blocks for good; B: nothing sent.
        let mut b = History::builder();
        let r1 = b.call(A, recv());
        b.ret(r1, Response::Cancelled { polls: 1 });
        let r2 = b.call(A, recv());
        let h = b.finish_stuck();
        assert_eq!(h.pending_ops(), [r2]);
        let skipped = History::new(h.ops().clone(), vec![Event::Call(r2)], vec![None, None], true).unwrap();
        assert!(is_stuck_witness(&h, &skipped));
        assert_eq!(unjustified_pending_op(&h, [&skipped]), None);
        // A stuck serial history in which the first recv returned: a completion, also a witness.
        let completed = History::new(
            h.ops().clone(),
            vec![Event::Call(r1), Event::Return(r1), Event::Call(r2)],
            vec![Some(Response::returned(&5u32)), None],
            true,
        )
        .unwrap();
        assert!(is_stuck_witness(&h, &completed));
        // One in which the second recv returned is none.
        let returned = History::new(
            h.ops().clone(),
            vec![Event::Call(r2), Event::Return(r2)],
            vec![None, Some(Response::returned(&5u32))],
            false,
        )
        .unwrap();
        assert!(!is_stuck_witness(&h, &returned));
    }

    #[test]
    fn serial_history_is_its_own_witness_and_order_matters() {
        let mut b = History::builder();
        let x = b.call(A, inc());
        b.ret(x, Response::returned(&()));
        let y = b.call(B, get());
        b.ret(y, Response::returned(&1));
        let h = b.finish();
        assert_eq!(find_witness(&h, [&h]).map(|(_, k)| k), Some(2));

        // The reversed serial order breaks the real-time order x < y.
        let reversed = History::new(
            h.ops().clone(),
            vec![Event::Call(y), Event::Return(y), Event::Call(x), Event::Return(x)],
            h.responses().to_vec(),
            false,
        )
        .unwrap();
        assert!(witness_prefix(&h, &reversed).is_none());
    }
}

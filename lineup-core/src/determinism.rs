//! The determinism check of §2.3: a set of serial histories is nondeterministic when two of them
//! share a longest common prefix that ends in a call, i.e. the same serial past leads to different
//! outcomes of the same call (different results, or a result in one and stuck in the other).

use std::collections::HashMap;

use crate::{Event, History, Response};

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
    type Node = usize;
    let mut children: Vec<HashMap<(Event, Option<&Response>), Node>> = vec![HashMap::new()];
    let mut outcome_at: HashMap<Node, (Outcome<'_>, &History)> = HashMap::new();
    for h in histories {
        debug_assert!(h.is_serial());
        let mut node = 0;
        let events = h.events();
        for (i, &event) in events.iter().enumerate() {
            let response = match event {
                Event::Return(op) => h.response(op),
                Event::Call(_) => None,
            };
            let next = children.len();
            node = *children[node].entry((event, response)).or_insert(next);
            if node == next {
                children.push(HashMap::new());
            }
            if let Event::Call(op) = event {
                let outcome = match events.get(i + 1) {
                    Some(&Event::Return(r)) if r == op => Outcome::Returned(h.response(op).expect("returned")),
                    None if h.is_stuck() => Outcome::Stuck,
                    // Not serial, or an incomplete non-stuck history: nothing follows the call.
                    _ => continue,
                };
                match outcome_at.get(&node) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{InvocationLabel, ThreadId};

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
}

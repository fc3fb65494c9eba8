//! Histories: call and return events of the operations of one test execution (paper §2.1).

use std::collections::BTreeSet;
use std::fmt::{self, Write as _};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::model::invocation::InvocationLabel;
use crate::model::matrix::TestMatrix;
use crate::model::response::Response;
use crate::model::thread_id::ThreadId;

/// The static description of one operation of a test: its number, thread and invocation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OpInfo {
    /// The operation's number (from 1), as in the paper's notation `1[ ]1`.
    pub id: usize,
    /// The thread that performs it.
    pub thread: ThreadId,
    /// What it invokes.
    pub invocation: InvocationLabel,
}

/// The operations of a test, indexed by number (`ops[id - 1]`).
pub type OpTable = Arc<[OpInfo]>;

/// Builds the operation table of a matrix from the labels of the subject's invocations.
pub fn op_table(matrix: &TestMatrix, labels: &[InvocationLabel]) -> OpTable {
    matrix
        .slots()
        .into_iter()
        .map(|s| OpInfo {
            id: s.id,
            thread: s.thread,
            invocation: labels[s.invocation].clone(),
        })
        .collect()
}

/// A call or return event of an operation, by operation number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Event {
    /// The operation was called.
    Call(usize),
    /// The operation returned (its response is kept in the history).
    Return(usize),
}

impl Event {
    /// The operation number of the event.
    pub fn op(self) -> usize {
        match self {
            Event::Call(op) | Event::Return(op) => op,
        }
    }
}

/// A history: the sequence of call and return events of one execution of a test, each
/// operation's response, and whether the history is *stuck* (ends in `#`: some pending
/// operation can never return, paper §2.3).
///
/// Two histories are equal when their events, responses and stuckness are; the operation table
/// is assumed to be the same (they come from the same matrix).
///
/// The paper's notation numbers operations and writes `i[` for a call and `]i` for a return:
///
/// ```
/// use lineup_core::{History, InvocationLabel, Response, ThreadId};
/// let mut b = History::builder();
/// let add = b.call(ThreadId::Worker(0), InvocationLabel::new("add", vec!["200".into()]));
/// let take = b.call(ThreadId::Worker(1), InvocationLabel::new("try_take", vec![]));
/// b.ret(add, Response::returned(&()));
/// b.ret(take, Response::returned(&Some(200)));
/// let h = b.finish();
/// assert_eq!(h.notation(), "1[ 2[ ]1 ]2");
/// assert!(!h.is_serial());
/// ```
#[derive(Clone, Debug)]
pub struct History {
    ops: OpTable,
    events: Vec<Event>,
    responses: Vec<Option<Response>>,
    stuck: bool,
}

impl PartialEq for History {
    fn eq(&self, other: &Self) -> bool {
        self.stuck == other.stuck && self.events == other.events && self.responses == other.responses
    }
}
impl Eq for History {}

impl Hash for History {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.events.hash(state);
        self.responses.hash(state);
        self.stuck.hash(state);
    }
}

/// A history whose events do not form a well-formed history of its operation table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// An event names an operation that is not in the table.
    #[error("event {index} names operation {op}, but the test has only {count} operations")]
    UnknownOp {
        /// Position of the event.
        index: usize,
        /// The operation number.
        op: usize,
        /// How many operations the table has.
        count: usize,
    },
    /// An operation is called twice, returns twice, or returns before it is called.
    #[error("event {index} ({event}) is out of order: operation {op} {problem}")]
    OutOfOrder {
        /// Position of the event.
        index: usize,
        /// The event rendered in the paper's notation.
        event: String,
        /// The operation number.
        op: usize,
        /// What is wrong.
        problem: &'static str,
    },
    /// A thread calls an operation while its previous one is still pending.
    #[error("event {index}: thread {thread} calls operation {op} while operation {pending} is still pending")]
    NotWellFormed {
        /// Position of the event.
        index: usize,
        /// The thread.
        thread: ThreadId,
        /// The operation called.
        op: usize,
        /// The thread's pending operation.
        pending: usize,
    },
    /// A returned operation has no response, or a pending one has one.
    #[error("operation {op}: {problem}")]
    Response {
        /// The operation number.
        op: usize,
        /// What is wrong.
        problem: &'static str,
    },
}

impl History {
    /// Assembles a history and checks that it is well formed: every event names an operation of
    /// the table, each operation is called at most once and returns at most once after its call,
    /// each thread has at most one pending operation at a time, and exactly the returned
    /// operations have responses.
    pub fn new(
        ops: OpTable,
        events: Vec<Event>,
        responses: Vec<Option<Response>>,
        stuck: bool,
    ) -> Result<Self, HistoryError> {
        let n = ops.len();
        let mut called = vec![false; n];
        let mut returned = vec![false; n];
        let mut pending_of: std::collections::HashMap<ThreadId, usize> = Default::default();
        for (index, &event) in events.iter().enumerate() {
            let op = event.op();
            if op == 0 || op > n {
                return Err(HistoryError::UnknownOp { index, op, count: n });
            }
            let out_of_order = |problem| HistoryError::OutOfOrder {
                index,
                event: notation_token(event),
                op,
                problem,
            };
            let thread = ops[op - 1].thread;
            match event {
                Event::Call(_) => {
                    if called[op - 1] {
                        return Err(out_of_order("is called twice"));
                    }
                    if let Some(&pending) = pending_of.get(&thread) {
                        return Err(HistoryError::NotWellFormed {
                            index,
                            thread,
                            op,
                            pending,
                        });
                    }
                    called[op - 1] = true;
                    pending_of.insert(thread, op);
                }
                Event::Return(_) => {
                    if !called[op - 1] {
                        return Err(out_of_order("returns before it is called"));
                    }
                    if returned[op - 1] {
                        return Err(out_of_order("returns twice"));
                    }
                    returned[op - 1] = true;
                    pending_of.remove(&thread);
                }
            }
        }
        let mut responses = responses;
        responses.resize(n, None);
        for (i, r) in responses.iter().enumerate() {
            match (returned[i], r.is_some()) {
                (true, false) => {
                    return Err(HistoryError::Response {
                        op: i + 1,
                        problem: "returned without a response",
                    })
                }
                (false, true) => {
                    return Err(HistoryError::Response {
                        op: i + 1,
                        problem: "has a response but never returned",
                    })
                }
                _ => {}
            }
        }
        Ok(Self {
            ops,
            events,
            responses,
            stuck,
        })
    }

    /// Assembles a history the engine recorded; the caller guarantees it is well formed.
    pub(crate) fn from_recording(
        ops: OpTable,
        events: Vec<Event>,
        responses: Vec<Option<Response>>,
        stuck: bool,
    ) -> Self {
        #[cfg(debug_assertions)]
        if let Err(e) = History::new(ops.clone(), events.clone(), responses.clone(), stuck) {
            panic!("the engine recorded a malformed history {events:?}: {e}");
        }
        Self {
            ops,
            events,
            responses,
            stuck,
        }
    }

    /// A builder that numbers operations in the order they are called.
    pub fn builder() -> HistoryBuilder {
        HistoryBuilder::default()
    }

    /// The operation table (every operation of the test, called or not).
    pub fn ops(&self) -> &OpTable {
        &self.ops
    }

    /// The operation with number `id`.
    pub fn op(&self, id: usize) -> &OpInfo {
        &self.ops[id - 1]
    }

    /// The events in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The response of operation `id`, if it returned.
    pub fn response(&self, id: usize) -> Option<&Response> {
        self.responses[id - 1].as_ref()
    }

    /// Every operation's response, indexed by `id - 1`.
    pub fn responses(&self) -> &[Option<Response>] {
        &self.responses
    }

    /// Whether the history ends in `#`.
    pub fn is_stuck(&self) -> bool {
        self.stuck
    }

    /// The operations that were called, in call order.
    pub fn called_ops(&self) -> Vec<usize> {
        self.events
            .iter()
            .filter_map(|e| matches!(e, Event::Call(_)).then_some(e.op()))
            .collect()
    }

    /// The operations called but not returned, in call order.
    pub fn pending_ops(&self) -> Vec<usize> {
        self.called_ops()
            .into_iter()
            .filter(|&op| self.responses[op - 1].is_none())
            .collect()
    }

    /// The operations that were cancelled ([`Response::Cancelled`]: called, their future dropped,
    /// never returned), in call order.
    pub fn cancelled_ops(&self) -> Vec<usize> {
        self.called_ops()
            .into_iter()
            .filter(|&op| self.is_cancelled(op))
            .collect()
    }

    /// Whether operation `id` was cancelled ([`Response::Cancelled`]).
    pub fn is_cancelled(&self, id: usize) -> bool {
        self.responses[id - 1].as_ref().is_some_and(Response::is_cancelled)
    }

    /// Whether some operation was cancelled.
    pub fn has_cancelled(&self) -> bool {
        self.responses.iter().flatten().any(Response::is_cancelled)
    }

    /// Whether every called operation returned.
    pub fn is_complete(&self) -> bool {
        self.pending_ops().is_empty()
    }

    /// Whether the history is serial: calls and returns alternate, each return matching the call
    /// just before it (a serial history may end in one pending call).
    pub fn is_serial(&self) -> bool {
        self.events.iter().enumerate().all(|(i, e)| match e {
            Event::Call(_) => i % 2 == 0,
            Event::Return(op) => i % 2 == 1 && self.events[i - 1] == Event::Call(*op),
        })
    }

    /// The serial order of the operations of a serial history (the pending one last).
    pub fn serial_order(&self) -> Vec<usize> {
        self.called_ops()
    }

    /// The threads that have operations in the table, sorted.
    pub fn threads(&self) -> Vec<ThreadId> {
        self.ops
            .iter()
            .map(|o| o.thread)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// The thread subhistory `H|t` as the called operations of `t` in order.
    pub fn thread_ops(&self, thread: ThreadId) -> Vec<usize> {
        self.called_ops()
            .into_iter()
            .filter(|&op| self.ops[op - 1].thread == thread)
            .collect()
    }

    /// `complete(H)`: the history without its pending calls (and not stuck).
    pub fn complete_part(&self) -> History {
        let events = self
            .events
            .iter()
            .copied()
            .filter(|e| self.responses[e.op() - 1].is_some())
            .collect();
        Self {
            ops: self.ops.clone(),
            events,
            responses: self.responses.clone(),
            stuck: false,
        }
    }

    /// `H[e]` (paper §2.3): the stuck history without every pending call except that of `e`.
    pub fn restricted_to_pending(&self, e: usize) -> History {
        let events = self
            .events
            .iter()
            .copied()
            .filter(|ev| ev.op() == e || self.responses[ev.op() - 1].is_some())
            .collect();
        Self {
            ops: self.ops.clone(),
            events,
            responses: self.responses.clone(),
            stuck: self.stuck,
        }
    }

    /// For each operation, the position of its call and of its return (`usize::MAX` if pending
    /// or not called).
    pub(crate) fn event_positions(&self) -> (Vec<usize>, Vec<usize>) {
        let mut calls = vec![usize::MAX; self.ops.len()];
        let mut returns = vec![usize::MAX; self.ops.len()];
        for (i, e) in self.events.iter().enumerate() {
            match e {
                Event::Call(op) => calls[op - 1] = i,
                Event::Return(op) => returns[op - 1] = i,
            }
        }
        (calls, returns)
    }

    /// The history in the paper's notation, e.g. `1[ 3[ ]1 2[ ]3 ]2 4[ ]4`, ending in ` #`
    /// when stuck.
    pub fn notation(&self) -> String {
        let mut s = String::new();
        for (i, &e) in self.events.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(&notation_token(e));
        }
        if self.stuck {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push('#');
        }
        s
    }

    /// Parses the paper's notation against an operation table and the responses of the
    /// returned operations (indexed by `id - 1`).
    pub fn parse_notation(
        ops: OpTable,
        notation: &str,
        responses: Vec<Option<Response>>,
    ) -> Result<History, NotationError> {
        let (events, stuck) = parse_events(notation)?;
        History::new(ops, events, responses, stuck).map_err(NotationError::History)
    }

    /// A per-thread timeline a person can read: one column per thread, one row per event, each
    /// call showing its invocation and each return its response.
    ///
    /// ```text
    ///   step  A                     B
    ///      1  add(200) ...
    ///      2                        add(400) ...
    /// ```
    pub fn timeline(&self) -> String {
        let threads: Vec<ThreadId> = self
            .called_ops()
            .iter()
            .map(|&op| self.ops[op - 1].thread)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let cell = |e: Event| -> String {
            let info = &self.ops[e.op() - 1];
            match e {
                Event::Call(op) => format!("{op}[ {} ...", info.invocation),
                Event::Return(op) => {
                    let r = self.responses[op - 1]
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default();
                    format!("... -> {r} ]{op}")
                }
            }
        };
        let mut width = vec![8usize; threads.len()];
        for &e in &self.events {
            let col = threads.iter().position(|&t| t == self.ops[e.op() - 1].thread).unwrap();
            width[col] = width[col].max(cell(e).chars().count());
        }
        let mut out = String::new();
        let _ = write!(out, "  {:>4}", "step");
        for (t, w) in threads.iter().zip(&width) {
            let _ = write!(out, "  {:<w$}", t.to_string(), w = *w);
        }
        out = out.trim_end().to_string();
        out.push('\n');
        for (i, &e) in self.events.iter().enumerate() {
            let col = threads.iter().position(|&t| t == self.ops[e.op() - 1].thread).unwrap();
            let mut line = format!("  {:>4}", i + 1);
            for (c, w) in width.iter().enumerate() {
                let text = if c == col { cell(e) } else { String::new() };
                let _ = write!(line, "  {text:<w$}", w = *w);
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        if self.stuck {
            let pending: Vec<String> = self
                .pending_ops()
                .iter()
                .map(|&op| format!("{op} {} on {}", self.ops[op - 1].invocation, self.ops[op - 1].thread))
                .collect();
            let _ = writeln!(out, "     #  stuck: never returns: {}", pending.join(", "));
        }
        out
    }
}

impl fmt::Display for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.notation())
    }
}

fn notation_token(e: Event) -> String {
    match e {
        Event::Call(op) => format!("{op}["),
        Event::Return(op) => format!("]{op}"),
    }
}

/// A history in the paper's notation that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// A token is neither `i[`, `]i` nor a final `#`.
    #[error("token {index} `{token}` is not a call `i[`, a return `]i` or a final `#`")]
    BadToken {
        /// Position of the token (from 1).
        index: usize,
        /// The token.
        token: String,
    },
    /// The events do not form a well-formed history.
    #[error("{0}")]
    History(HistoryError),
}

/// Parses the events of the paper's notation; returns them and whether the history is stuck.
pub(crate) fn parse_events(notation: &str) -> Result<(Vec<Event>, bool), NotationError> {
    let tokens: Vec<&str> = notation.split_whitespace().collect();
    let mut events = Vec::with_capacity(tokens.len());
    let mut stuck = false;
    for (i, token) in tokens.iter().enumerate() {
        let bad = || NotationError::BadToken {
            index: i + 1,
            token: token.to_string(),
        };
        if *token == "#" {
            if i + 1 != tokens.len() {
                return Err(bad());
            }
            stuck = true;
        } else if let Some(n) = token.strip_suffix('[') {
            events.push(Event::Call(n.parse().map_err(|_| bad())?));
        } else if let Some(n) = token.strip_prefix(']') {
            events.push(Event::Return(n.parse().map_err(|_| bad())?));
        } else {
            return Err(bad());
        }
    }
    Ok((events, stuck))
}

/// Builds a [`History`] event by event, numbering operations in call order.
#[derive(Debug, Default)]
pub struct HistoryBuilder {
    ops: Vec<OpInfo>,
    events: Vec<Event>,
    responses: Vec<Option<Response>>,
}

impl HistoryBuilder {
    /// Records a call by `thread`; returns the new operation's number.
    pub fn call(&mut self, thread: ThreadId, invocation: InvocationLabel) -> usize {
        let id = self.ops.len() + 1;
        self.ops.push(OpInfo { id, thread, invocation });
        self.responses.push(None);
        self.events.push(Event::Call(id));
        id
    }

    /// Records the return of operation `op` with `response`.
    pub fn ret(&mut self, op: usize, response: Response) -> &mut Self {
        self.responses[op - 1] = Some(response);
        self.events.push(Event::Return(op));
        self
    }

    /// The history, not stuck.
    ///
    /// # Panics
    /// If the events are not well formed (see [`History::new`]).
    pub fn finish(self) -> History {
        self.build(false)
    }

    /// The history, stuck (ending in `#`).
    ///
    /// # Panics
    /// If the events are not well formed (see [`History::new`]).
    pub fn finish_stuck(self) -> History {
        self.build(true)
    }

    fn build(self, stuck: bool) -> History {
        History::new(self.ops.into(), self.events, self.responses, stuck).unwrap_or_else(|e| panic!("{e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(name: &str) -> InvocationLabel {
        InvocationLabel::new(name, vec![])
    }

    #[test]
    fn notation_round_trips() {
        let mut b = History::builder();
        let a = b.call(ThreadId::Worker(0), label("inc"));
        let c = b.call(ThreadId::Worker(1), label("inc"));
        b.ret(a, Response::returned(&()));
        let h = b.finish_stuck();
        assert_eq!(h.notation(), "1[ 2[ ]1 #");
        assert_eq!(h.pending_ops(), vec![c]);
        let parsed = History::parse_notation(h.ops().clone(), "1[ 2[ ]1 #", h.responses().to_vec()).unwrap();
        assert_eq!(parsed, h);
    }

    #[test]
    fn malformed_notation_is_rejected_with_the_position() {
        let mut b = History::builder();
        b.call(ThreadId::Worker(0), label("inc"));
        let h = b.finish_stuck();
        let err = History::parse_notation(h.ops().clone(), "1[ x", vec![None]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "token 2 `x` is not a call `i[`, a return `]i` or a final `#`"
        );
        let err = History::parse_notation(h.ops().clone(), "]1", vec![None]).unwrap_err();
        assert!(err.to_string().contains("returns before it is called"), "{err}");
    }

    #[test]
    fn restriction_keeps_one_pending_call() {
        let mut b = History::builder();
        let x = b.call(ThreadId::Worker(0), label("take"));
        let y = b.call(ThreadId::Worker(1), label("take"));
        let z = b.call(ThreadId::Worker(2), label("add"));
        b.ret(z, Response::returned(&()));
        let h = b.finish_stuck();
        assert_eq!(h.restricted_to_pending(y).notation(), "2[ 3[ ]3 #");
        assert_eq!(h.restricted_to_pending(x).notation(), "1[ 3[ ]3 #");
    }
}

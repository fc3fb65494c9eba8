//! Recorded histories: operations with a client, an input, an outcome and a call/return interval.

use std::fmt;

use rustc_hash::FxHashMap;

use crate::event::Event;
use crate::history_error::HistoryError;

/// Who issued an operation: a thread of a stress run, a Jepsen process, a node.
///
/// A client issues one operation at a time (it waits for the return before its next call),
/// except after an operation whose outcome is unknown: that one never returns, and the client
/// may go on.
pub type ClientId = u64;

/// The return time of an operation whose outcome is unknown: +infinity.
pub const NEVER: u64 = u64::MAX;

/// The stable identity of an operation: its index in [`History::operations`] (for a history
/// built from events, the rank of its call event among the calls).
///
/// Explanations ([`crate::Violation`], [`crate::CheckOutcome::Linearizable`]) cite operations by
/// this id.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub usize);

impl fmt::Display for OpId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "op#{}", self.0)
    }
}

/// What became of an operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome<O> {
    /// It returned this output: the output constrains the check.
    Returned(O),
    /// Its outcome is unknown (Jepsen `:info`, or a call still pending when the recording
    /// stopped): it may have taken effect at any point after its call, or never.
    Unknown,
}

impl<O> Outcome<O> {
    /// The output, if the operation returned.
    pub fn output(&self) -> Option<&O> {
        match self {
            Outcome::Returned(output) => Some(output),
            Outcome::Unknown => None,
        }
    }

    /// Whether the outcome is unknown.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Outcome::Unknown)
    }
}

/// One recorded operation.
///
/// Times are abstract ticks: only their order matters. Operation `a` *precedes* `b` (so a
/// linearization must order `a` first) exactly when `a.ret < b.call`; equal times count as
/// concurrent. The return time of an operation with an [`Outcome::Unknown`] is [`NEVER`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation<I, O> {
    /// Who issued it.
    pub client: ClientId,
    /// What was asked (model-specific).
    pub input: I,
    /// What came back.
    pub outcome: Outcome<O>,
    /// When it was called.
    pub call: u64,
    /// When it returned ([`NEVER`] for an unknown outcome).
    pub ret: u64,
}

impl<I, O> Operation<I, O> {
    /// An operation that returned `output`.
    pub fn returned(client: ClientId, input: I, output: O, call: u64, ret: u64) -> Self {
        Operation {
            client,
            input,
            outcome: Outcome::Returned(output),
            call,
            ret,
        }
    }

    /// An operation whose outcome is unknown (its return time is [`NEVER`]).
    pub fn unknown(client: ClientId, input: I, call: u64) -> Self {
        Operation {
            client,
            input,
            outcome: Outcome::Unknown,
            call,
            ret: NEVER,
        }
    }

    /// Whether this operation returned before `other` was called (real-time order).
    pub fn precedes(&self, other: &Self) -> bool {
        self.ret < other.call
    }

    /// The output, if the operation returned.
    pub fn output(&self) -> Option<&O> {
        self.outcome.output()
    }
}

/// A recorded history: a list of operations, each with its interval.
///
/// Build one from call/return events with [`History::from_events`] or
/// [`crate::HistoryBuilder`], or from operations with explicit times with
/// [`History::from_operations`].
///
/// ```
/// use lineup_histories::{Event, History, OpId};
/// use lineup_histories::models::{QueueInput, QueueOutput};
///
/// let history = History::from_events([
///     Event::call(0, QueueInput::Enqueue(1)),
///     Event::call(1, QueueInput::Dequeue),
///     Event::ret(0, QueueOutput::Ok),
///     Event::ret(1, QueueOutput::Dequeued(1)),
/// ])
/// .unwrap();
/// assert_eq!(history.len(), 2);
/// assert_eq!(history[OpId(1)].input, QueueInput::Dequeue);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History<I, O> {
    ops: Vec<Operation<I, O>>,
}

impl<I, O> History<I, O> {
    /// A history from operations with explicit times; operation `i` of the vector gets
    /// [`OpId`]`(i)`.
    ///
    /// Checks that every call precedes its return (`call <= ret`), that the return time is
    /// [`NEVER`] exactly for unknown outcomes, and that a client's definite operations do not
    /// overlap (each returns strictly before the client's next call). To record real threads,
    /// take both times from one shared `AtomicU64::fetch_add` counter: this respects real time
    /// and never ties.
    pub fn from_operations(ops: Vec<Operation<I, O>>) -> Result<Self, HistoryError> {
        let mut last_definite: FxHashMap<ClientId, usize> = FxHashMap::default();
        let mut order: Vec<usize> = (0..ops.len()).collect();
        order.sort_by_key(|&i| (ops[i].call, i));
        for (i, op) in ops.iter().enumerate() {
            match op.outcome {
                Outcome::Unknown if op.ret != NEVER => {
                    return Err(HistoryError::UnknownWithReturn {
                        op: OpId(i),
                        ret: op.ret,
                    })
                }
                Outcome::Returned(_) if op.ret == NEVER => return Err(HistoryError::ReturnedAtNever { op: OpId(i) }),
                _ => {}
            }
            if op.ret < op.call {
                return Err(HistoryError::ReturnBeforeCall {
                    op: OpId(i),
                    call: op.call,
                    ret: op.ret,
                });
            }
        }
        for &i in &order {
            let op = &ops[i];
            if let Some(&prev) = last_definite.get(&op.client) {
                if ops[prev].ret >= op.call {
                    return Err(HistoryError::ClientOverlap {
                        client: op.client,
                        first: OpId(prev),
                        second: OpId(i),
                        first_ret: ops[prev].ret,
                        second_call: op.call,
                    });
                }
            }
            if !op.outcome.is_unknown() {
                last_definite.insert(op.client, i);
            }
        }
        Ok(History { ops })
    }

    /// A history from a sequence of call/return/info events. Event `k` happens at time `k`;
    /// calls still pending at the end get an [`Outcome::Unknown`]. An error names the index of
    /// the first malformed event.
    pub fn from_events(events: impl IntoIterator<Item = Event<I, O>>) -> Result<Self, HistoryError> {
        let mut builder = crate::HistoryBuilder::new();
        for event in events {
            builder.push(event)?;
        }
        Ok(builder.build())
    }

    /// All operations; `operations()[i]` has [`OpId`]`(i)`.
    pub fn operations(&self) -> &[Operation<I, O>] {
        &self.ops
    }

    /// The operation with this id.
    ///
    /// # Panics
    /// If the id is not one of this history's.
    pub fn get(&self, id: OpId) -> &Operation<I, O> {
        &self.ops[id.0]
    }

    /// The number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the history has no operation.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The number of operations whose outcome is unknown.
    pub fn unknown_count(&self) -> usize {
        self.ops.iter().filter(|op| op.outcome.is_unknown()).count()
    }

    /// Iterates over `(id, operation)`.
    pub fn iter(&self) -> impl Iterator<Item = (OpId, &Operation<I, O>)> {
        self.ops.iter().enumerate().map(|(i, op)| (OpId(i), op))
    }

    /// The history of the operations `ids` only (in this order; they get new ids
    /// `0..ids.len()`). Times are kept, so the real-time order among them is unchanged.
    pub(crate) fn restrict(&self, ids: &[OpId]) -> History<I, O>
    where
        I: Clone,
        O: Clone,
    {
        History {
            ops: ids.iter().map(|id| self.ops[id.0].clone()).collect(),
        }
    }

    /// A history without validation (the caller guarantees the invariants).
    pub(crate) fn from_validated(ops: Vec<Operation<I, O>>) -> Self {
        History { ops }
    }
}

impl<I, O> std::ops::Index<OpId> for History<I, O> {
    type Output = Operation<I, O>;

    fn index(&self, id: OpId) -> &Operation<I, O> {
        &self.ops[id.0]
    }
}

//! Building a history from call/return/info events as they happen.

use rustc_hash::FxHashMap;

use crate::event::Event;
use crate::history::{ClientId, History, OpId, Operation, Outcome, NEVER};
use crate::history_error::HistoryError;

/// Builds a [`History`] from events fed in the order they happened. Event `k` (0-based) happens
/// at time `k`.
///
/// ```
/// use lineup_histories::HistoryBuilder;
/// use lineup_histories::models::{RegisterInput, RegisterOutput};
///
/// let mut b: HistoryBuilder<RegisterInput<i64>, RegisterOutput<i64>> = HistoryBuilder::new();
/// b.call(0, RegisterInput::Write(1)).unwrap();
/// b.call(1, RegisterInput::Read).unwrap();
/// b.ret(0, RegisterOutput::Ok).unwrap();
/// b.info(1).unwrap(); // the read timed out
/// assert!(b.ret(1, RegisterOutput::Ok).is_err()); // nothing pending for client 1
/// let history = b.build();
/// assert_eq!(history.unknown_count(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct HistoryBuilder<I, O> {
    ops: Vec<Operation<I, O>>,
    pending: FxHashMap<ClientId, OpId>,
    events: usize,
}

impl<I, O> Default for HistoryBuilder<I, O> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I, O> HistoryBuilder<I, O> {
    /// An empty builder.
    pub fn new() -> Self {
        HistoryBuilder {
            ops: Vec::new(),
            pending: FxHashMap::default(),
            events: 0,
        }
    }

    /// `client` calls an operation. Returns the new operation's id.
    pub fn call(&mut self, client: ClientId, input: I) -> Result<OpId, HistoryError> {
        let event = self.events;
        if let Some(&pending) = self.pending.get(&client) {
            return Err(HistoryError::CallWhilePending {
                event,
                client,
                pending,
                pending_call: self.ops[pending.0].call,
            });
        }
        let id = OpId(self.ops.len());
        self.ops.push(Operation::unknown(client, input, event as u64));
        self.pending.insert(client, id);
        self.events += 1;
        Ok(id)
    }

    /// The pending operation of `client` returns `output`. Returns its id.
    pub fn ret(&mut self, client: ClientId, output: O) -> Result<OpId, HistoryError> {
        let event = self.events;
        let id = self
            .pending
            .remove(&client)
            .ok_or(HistoryError::ReturnWithoutCall { event, client })?;
        let op = &mut self.ops[id.0];
        op.outcome = Outcome::Returned(output);
        op.ret = event as u64;
        self.events += 1;
        Ok(id)
    }

    /// The pending operation of `client` ends with an unknown outcome. Returns its id.
    pub fn info(&mut self, client: ClientId) -> Result<OpId, HistoryError> {
        let event = self.events;
        let id = self
            .pending
            .remove(&client)
            .ok_or(HistoryError::InfoWithoutCall { event, client })?;
        self.events += 1;
        Ok(id)
    }

    /// Feeds one event.
    pub fn push(&mut self, event: Event<I, O>) -> Result<OpId, HistoryError> {
        match event {
            Event::Call { client, input } => self.call(client, input),
            Event::Return { client, output } => self.ret(client, output),
            Event::Info { client } => self.info(client),
        }
    }

    /// The number of events fed so far.
    pub fn event_count(&self) -> usize {
        self.events
    }

    /// The number of operations so far.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether no operation was called yet.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The operation pending for `client`, if any.
    pub fn pending(&self, client: ClientId) -> Option<OpId> {
        self.pending.get(&client).copied()
    }

    /// The operations so far (pending ones have an unknown outcome and a [`NEVER`] return).
    pub fn operations(&self) -> &[Operation<I, O>] {
        &self.ops
    }

    /// The history: calls still pending get an [`Outcome::Unknown`].
    pub fn build(self) -> History<I, O> {
        debug_assert!(self.ops.iter().all(|op| op.outcome.is_unknown() == (op.ret == NEVER)));
        History::from_validated(self.ops)
    }
}

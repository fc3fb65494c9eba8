//! The events of a log: a call, a return with its output, or an `info` (outcome unknown).

use crate::history::ClientId;

/// One event of a recorded log, in the order it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event<I, O> {
    /// `client` called an operation with this input.
    Call {
        /// Who called.
        client: ClientId,
        /// What was asked.
        input: I,
    },
    /// The pending operation of `client` returned this output.
    Return {
        /// Who returned.
        client: ClientId,
        /// What came back.
        output: O,
    },
    /// The pending operation of `client` ended with an unknown outcome (Jepsen `:info`): it may
    /// take effect at any time after its call, or never. The client is free for a next call.
    Info {
        /// Whose operation.
        client: ClientId,
    },
}

impl<I, O> Event<I, O> {
    /// A call event.
    pub fn call(client: ClientId, input: I) -> Self {
        Event::Call { client, input }
    }

    /// A return event.
    pub fn ret(client: ClientId, output: O) -> Self {
        Event::Return { client, output }
    }

    /// An `info` event (outcome unknown).
    pub fn info(client: ClientId) -> Self {
        Event::Info { client }
    }

    /// The client of the event.
    pub fn client(&self) -> ClientId {
        match self {
            Event::Call { client, .. } | Event::Return { client, .. } | Event::Info { client } => *client,
        }
    }
}

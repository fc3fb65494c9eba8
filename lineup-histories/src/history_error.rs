//! Malformed histories: what is wrong, and where.

use crate::history::{ClientId, OpId};

/// A history (a sequence of events, or a list of operations) that does not describe a run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// A return from a client that has no pending call.
    #[error("event {event}: return from client {client}, which has no pending call")]
    ReturnWithoutCall {
        /// Index of the event (0-based).
        event: usize,
        /// The client.
        client: ClientId,
    },
    /// An `info` from a client that has no pending call.
    #[error("event {event}: `info` from client {client}, which has no pending call")]
    InfoWithoutCall {
        /// Index of the event (0-based).
        event: usize,
        /// The client.
        client: ClientId,
    },
    /// A second call from a client whose previous call is still pending.
    #[error(
        "event {event}: call from client {client} while its operation {pending} (called at event {pending_call}) \
         is still pending (expected a return or info first)"
    )]
    CallWhilePending {
        /// Index of the event (0-based).
        event: usize,
        /// The client.
        client: ClientId,
        /// Its pending operation.
        pending: OpId,
        /// The index of the pending call event.
        pending_call: u64,
    },
    /// An operation returns before its call.
    #[error("operation {op}: return time {ret} is before call time {call}")]
    ReturnBeforeCall {
        /// The operation.
        op: OpId,
        /// Its call time.
        call: u64,
        /// Its return time.
        ret: u64,
    },
    /// An operation with an unknown outcome has a finite return time.
    #[error("operation {op}: its outcome is unknown, so its return time must be NEVER, not {ret}")]
    UnknownWithReturn {
        /// The operation.
        op: OpId,
        /// Its return time.
        ret: u64,
    },
    /// An operation with an output has no return time.
    #[error("operation {op}: it has an output, so it needs a finite return time, not NEVER")]
    ReturnedAtNever {
        /// The operation.
        op: OpId,
    },
    /// Two operations of one client overlap in time.
    #[error(
        "client {client}: operation {second} is called at {second_call}, but the client's previous operation \
         {first} returns only at {first_ret} (expected a return strictly before the next call)"
    )]
    ClientOverlap {
        /// The client.
        client: ClientId,
        /// The earlier operation.
        first: OpId,
        /// The later operation.
        second: OpId,
        /// Return time of the earlier one.
        first_ret: u64,
        /// Call time of the later one.
        second_call: u64,
    },
}

//! [`async-channel`](https://crates.io/crates/async-channel) 2.5.0, the multi-producer
//! multi-consumer channel of the smol ecosystem. It has no loom switch of its own: its messages
//! live in a [`concurrent-queue`](crate::queues) 2.5.0 and its waits are event-listener 5.4.2
//! listeners, both switched to loom by their `loom` features and `--cfg loom`. Its own atomics,
//! the sender and receiver counts, stay std atomics, which loom does not interleave; only cloning
//! and dropping a `Sender` or `Receiver` touch them, and no operation here does (the object holds
//! one of each for the whole execution). So every shared access of the operations checked here is
//! loom's.
//!
//! `bounded(1)` is built on concurrent-queue's single-slot queue, `bounded(2)` on its array queue,
//! `unbounded()` on its linked blocks. Invocations return what the method returned, rendered with
//! `Debug`: `try_send` gives `Ok(())`, `Err(Full(v))` or `Err(Closed(v))`; `try_recv` gives
//! `Ok(v)`, `Err(Empty)` or `Err(Closed)`; `send(v).await` (through
//! [`lineup::future::block_on`], loom's `block_on` under `--cfg loom`) waits while the channel is
//! full; `recv().await` waits while it is empty; `len` and `close` give a number and a boolean.

use async_channel::{Receiver, Sender};
use lineup::future::block_on;
use lineup::{Invocation, Subject};

/// Both ends of one async-channel of `u32`.
#[derive(Debug)]
pub struct Channel {
    sender: Sender<u32>,
    receiver: Receiver<u32>,
}

impl Channel {
    fn new((sender, receiver): (Sender<u32>, Receiver<u32>)) -> Self {
        Self { sender, receiver }
    }

    /// `sender.try_send(value)`.
    pub fn try_send(&self, value: u32) -> Result<(), async_channel::TrySendError<u32>> {
        self.sender.try_send(value)
    }

    /// `sender.send(value).await`, through `block_on`.
    pub fn send(&self, value: u32) -> Result<(), async_channel::SendError<u32>> {
        block_on(self.sender.send(value))
    }

    /// `receiver.try_recv()`.
    pub fn try_recv(&self) -> Result<u32, async_channel::TryRecvError> {
        self.receiver.try_recv()
    }

    /// `receiver.recv().await`, through `block_on`.
    pub fn recv(&self) -> Result<u32, async_channel::RecvError> {
        block_on(self.receiver.recv())
    }

    /// `sender.len()`.
    pub fn len(&self) -> usize {
        self.sender.len()
    }

    /// `sender.is_empty()`.
    pub fn is_empty(&self) -> bool {
        self.sender.is_empty()
    }

    /// `sender.close()`: whether this call closed the channel.
    pub fn close(&self) -> bool {
        self.sender.close()
    }

    /// A deliberately wrong operation, to show that the harness is not vacuous: receive only if
    /// the channel is not empty, made of two calls (`is_empty`, then `try_recv`). Two of them
    /// can both see one message; one gets it and the other answers `Err(Empty)` after it saw the
    /// channel not empty. lineup must reject it.
    pub fn recv_if_not_empty(&self) -> Option<Result<u32, async_channel::TryRecvError>> {
        if self.receiver.is_empty() {
            None
        } else {
            Some(self.receiver.try_recv())
        }
    }
}

/// Positions of the invocations of the subjects of this module.
pub mod op {
    /// `try_send(1)`
    pub const TRY_SEND_1: usize = 0;
    /// `try_send(2)`
    pub const TRY_SEND_2: usize = 1;
    /// `try_recv()`
    pub const TRY_RECV: usize = 2;
    /// `send(3)`: waits while the channel is full.
    pub const SEND_3: usize = 3;
    /// `recv()`: waits while the channel is empty.
    pub const RECV: usize = 4;
    /// `len()`
    pub const LEN: usize = 5;
    /// `is_empty()`
    pub const IS_EMPTY: usize = 6;
    /// `close()`
    pub const CLOSE: usize = 7;
    /// `recv_if_not_empty()` (only in [`non_atomic_recv_if_not_empty`](super::non_atomic_recv_if_not_empty)).
    pub const RECV_IF_NOT_EMPTY: usize = 8;
}

fn with_invocations(subject: Subject<Channel>) -> Subject<Channel> {
    subject
        .with(Invocation::new("try_send", |c: &Channel| c.try_send(1)).arg(1))
        .with(Invocation::new("try_send", |c: &Channel| c.try_send(2)).arg(2))
        .with(Invocation::new("try_recv", Channel::try_recv))
        .with(Invocation::new("send", |c: &Channel| c.send(3)).arg(3))
        .with(Invocation::new("recv", Channel::recv))
        .with(Invocation::new("len", Channel::len))
        .with(Invocation::new("is_empty", Channel::is_empty))
        .with(Invocation::new("close", Channel::close))
}

/// `async_channel::bounded(capacity)` with the invocations of [`op`] (but
/// `recv_if_not_empty`). Capacity 1 is concurrent-queue's single-slot queue underneath.
pub fn bounded(capacity: usize) -> Subject<Channel> {
    with_invocations(Subject::new(
        format!("async-channel 2.5.0 bounded({capacity})"),
        move || Channel::new(async_channel::bounded(capacity)),
    ))
}

/// `async_channel::unbounded()` with the invocations of [`op`] (but `recv_if_not_empty`).
pub fn unbounded() -> Subject<Channel> {
    with_invocations(Subject::new("async-channel 2.5.0 unbounded", || {
        Channel::new(async_channel::unbounded())
    }))
}

/// `bounded(2)` plus the deliberately wrong `recv_if_not_empty` (see
/// [`Channel::recv_if_not_empty`]): lineup must reject it.
pub fn non_atomic_recv_if_not_empty() -> Subject<Channel> {
    with_invocations(Subject::new(
        "async-channel 2.5.0 bounded(2) with a non-atomic recv_if_not_empty",
        || Channel::new(async_channel::bounded(2)),
    ))
    .with(Invocation::new("recv_if_not_empty", Channel::recv_if_not_empty))
}

//! [`oneshot`](https://crates.io/crates/oneshot) 0.2.1, switched to loom by its own cfg,
//! `--cfg oneshot_loom`, and its `loom` feature (the implicit feature of its optional loom
//! dependency; `std` too, for the blocking `recv`).
//!
//! A oneshot channel has two halves that its operations consume: `Sender::send(self, msg)` and
//! `Receiver::recv(self)` take their half by value. The object keeps each half in a
//! `lineup::sync::Mutex` around an `Option` (under loom: a loom atomic lock word, and waits that
//! lineup sees, so a thread blocked on it does not cut loom's exploration) and says what happens
//! to a half that is gone:
//!
//! * `send(7)` takes the sender and sends: `Ok(())`, or `Err(7)` (the message back) if the
//!   receiver is gone; `already consumed` if the sender was used before.
//! * `drop_sender()` drops the sender: `true`, or `false` if it was used before.
//! * `try_recv()` borrows the receiver: `Ok(7)`, `Err(Empty)` or `Err(Disconnected)`;
//!   `already consumed` if `recv` or `drop_receiver` used it before.
//! * `recv()` takes the receiver and blocks until the message arrives or the sender is gone:
//!   `Ok(7)` or `Err(RecvError)`; `already consumed` if the receiver was used before.
//! * `drop_receiver()` drops the receiver: `true`, or `false` if it was used before.
//!
//! `send`, `drop_sender`, `try_recv` and `drop_receiver` never block, so each runs with its half's
//! mutex held: one atomic step of the wrapper, whoever calls it. `recv` cannot hold the mutex
//! while it blocks, so it takes the receiver out first: a receiver operation of *another* thread
//! in between would report `already consumed` for a receive that has not happened yet. The
//! channel is single-consumer, and the matrices respect that: all receiver operations of a
//! matrix with `recv` are in one thread's column (the sender may be anywhere).

use std::fmt;

use lineup::sync::Mutex;
use lineup::{Invocation, Subject};
use oneshot::{Receiver, RecvError, Sender, TryRecvError};

/// The message every `send` sends.
pub const MESSAGE: u32 = 7;

/// What an operation on a half returned, or that the half was consumed before.
pub enum Used<R> {
    /// The half was there; what the call returned.
    Called(R),
    /// The half had been consumed (sent, received with `recv`, or dropped) by an earlier operation.
    AlreadyConsumed,
}

impl<R: fmt::Debug> fmt::Debug for Used<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Used::Called(r) => r.fmt(f),
            Used::AlreadyConsumed => f.write_str("already consumed"),
        }
    }
}

/// A oneshot channel of `u32` and its two halves, each kept until an operation consumes it.
pub struct Channel {
    sender: Mutex<Option<Sender<u32>>>,
    receiver: Mutex<Option<Receiver<u32>>>,
}

impl fmt::Debug for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Channel").finish_non_exhaustive()
    }
}

impl Default for Channel {
    fn default() -> Self {
        let (sender, receiver) = oneshot::channel();
        Self {
            sender: Mutex::new(Some(sender)),
            receiver: Mutex::new(Some(receiver)),
        }
    }
}

impl Channel {
    /// `sender.send(MESSAGE)`, with the sender's mutex held (`send` never blocks).
    pub fn send(&self) -> Used<Result<(), u32>> {
        let mut sender = self.sender.lock().unwrap();
        match sender.take() {
            Some(s) => Used::Called(s.send(MESSAGE).map_err(|e| e.into_inner())),
            None => Used::AlreadyConsumed,
        }
    }

    /// Drops the sender; whether it was still there.
    pub fn drop_sender(&self) -> bool {
        let mut sender = self.sender.lock().unwrap();
        sender.take().is_some()
    }

    /// `receiver.try_recv()`, with the receiver's mutex held (`try_recv` never blocks).
    pub fn try_recv(&self) -> Used<Result<u32, TryRecvError>> {
        let receiver = self.receiver.lock().unwrap();
        match receiver.as_ref() {
            Some(r) => Used::Called(r.try_recv()),
            None => Used::AlreadyConsumed,
        }
    }

    /// Takes the receiver out, then `receiver.recv()`, which blocks until the message arrives or
    /// the sender is gone.
    pub fn recv(&self) -> Used<Result<u32, RecvError>> {
        let receiver = self.receiver.lock().unwrap().take();
        match receiver {
            Some(r) => Used::Called(r.recv()),
            None => Used::AlreadyConsumed,
        }
    }

    /// Drops the receiver; whether it was still there.
    pub fn drop_receiver(&self) -> bool {
        let mut receiver = self.receiver.lock().unwrap();
        receiver.take().is_some()
    }

    /// A deliberately wrong `try_recv`: takes the receiver out, calls `try_recv`, puts it back,
    /// three steps. Another thread's receiver operation in between finds it `already consumed`,
    /// although nothing consumed it.
    pub fn try_recv_taken_out(&self) -> Used<Result<u32, TryRecvError>> {
        let receiver = self.receiver.lock().unwrap().take();
        match receiver {
            Some(r) => {
                let got = r.try_recv();
                *self.receiver.lock().unwrap() = Some(r);
                Used::Called(got)
            }
            None => Used::AlreadyConsumed,
        }
    }
}

/// Positions of the invocations of [`channel`].
pub mod op {
    /// `send(7)`
    pub const SEND: usize = 0;
    /// `drop_sender()`
    pub const DROP_SENDER: usize = 1;
    /// `try_recv()`
    pub const TRY_RECV: usize = 2;
    /// `recv()`
    pub const RECV: usize = 3;
    /// `drop_receiver()`
    pub const DROP_RECEIVER: usize = 4;
    /// `try_recv()` taken out and put back, only in
    /// [`taken_out_try_recv_channel`](super::taken_out_try_recv_channel).
    pub const TRY_RECV_TAKEN_OUT: usize = 5;
}

fn named(name: &str) -> Subject<Channel> {
    Subject::new(name, Channel::default)
        .with(Invocation::new("send", Channel::send).arg(MESSAGE))
        .with(Invocation::new("drop_sender", Channel::drop_sender))
        .with(Invocation::new("try_recv", Channel::try_recv))
        .with(Invocation::new("recv", Channel::recv))
        .with(Invocation::new("drop_receiver", Channel::drop_receiver))
}

/// The oneshot channel with the invocations of [`op`] (but `try_recv_taken_out`).
pub fn channel() -> Subject<Channel> {
    named("oneshot 0.2.1 channel")
}

/// [`channel`] plus the deliberately wrong [`Channel::try_recv_taken_out`]: lineup must reject it.
pub fn taken_out_try_recv_channel() -> Subject<Channel> {
    named("oneshot 0.2.1 channel with a try_recv that takes the receiver out")
        .with(Invocation::new("try_recv_taken_out", Channel::try_recv_taken_out))
}

//! A one-shot channel is used for sending a single message between
//! asynchronous tasks. The [`channel`] function is used to create a
//! [`Sender`] and [`Receiver`] handle pair that form the channel.

use futures::channel::oneshot;
use shuttle::future;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tracing::trace;

// lineup: every operation of a oneshot, and the drop of either end, names the oneshot to lineup's
// partial-order reduction (`futures`' oneshot, which it is built on, is silent under shuttle), and
// its scheduling points are plain switches instead of yields: a yield clears the reduction's sleep
// sets and forces the other task to run; a switch is a scheduling point like any other. An
// operation whose switch comes first (`send`, `close`, `try_recv`) names the oneshot from that
// switch on (`touching_after_switch`): the step before it does not touch the oneshot.
use lineup_signals::footprint::{touching, touching_after_switch, touching_as, Name, Touch};
use shuttle_engine::runtime::thread::switch;

/// Sends a value to the associated [`Receiver`].
#[derive(Debug)]
pub struct Sender<T> {
    // `None` once sent (lineup: the end is dropped inside the operation, which names the oneshot).
    inner: Option<oneshot::Sender<T>>,
    name: Arc<Name>,
}

#[derive(Debug)]
pub struct Receiver<T> {
    // `None` once dropped (lineup: see `Sender`).
    inner: Option<oneshot::Receiver<T>>,
    name: Arc<Name>,
}

pub mod error {
    //! Oneshot error types.
    use std::fmt;

    /// Error returned by the `Future` implementation for `Receiver`.
    #[derive(Debug, Eq, PartialEq, Clone)]
    pub struct RecvError(pub(super) ());

    /// Error returned by the `try_recv` function on `Receiver`.
    #[derive(Debug, Eq, PartialEq, Clone)]
    pub enum TryRecvError {
        /// The send half of the channel has not yet sent a value.
        Empty,

        /// The send half of the channel was dropped without sending a value.
        Closed,
    }

    // ===== impl RecvError =====

    impl fmt::Display for RecvError {
        fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(fmt, "channel closed")
        }
    }

    impl std::error::Error for RecvError {}

    // ===== impl TryRecvError =====

    impl fmt::Display for TryRecvError {
        fn fmt(&self, fmt: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                TryRecvError::Empty => write!(fmt, "channel empty"),
                TryRecvError::Closed => write!(fmt, "channel closed"),
            }
        }
    }

    impl std::error::Error for TryRecvError {}
}
use self::error::{RecvError, TryRecvError};

/// Creates a new one-shot channel for sending single values across asynchronous
/// tasks.
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = oneshot::channel();
    let name = Arc::new(Name::created());
    (
        Sender {
            inner: Some(tx),
            name: name.clone(),
        },
        Receiver { inner: Some(rx), name },
    )
}

impl<T> Sender<T> {
    /// Attempts to send a value on this channel, returning it back if it could
    /// not be sent.
    pub fn send(mut self, t: T) -> Result<(), T> {
        let _touching = touching_after_switch(&self.name);
        trace!("Sending message on oneshot {:p}", &self.inner);
        // Scheduling point precedes the visible send operation
        switch();
        self.inner.take().expect("a oneshot sends once").send(t)
    }

    /// Waits for the associated [`Receiver`] handle to close.
    pub async fn closed(&mut self) {
        trace!("sender closing oneshot {:p}", &self.inner);
        std::future::poll_fn(|cx| self.poll_closed(cx)).await;
        shuttle::future::yield_now().await;
    }

    /// Returns `true` if the associated [`Receiver`] handle has been dropped.
    pub fn is_closed(&self) -> bool {
        let _touching = touching(&self.name);
        self.inner.as_ref().is_none_or(oneshot::Sender::is_canceled)
    }

    /// Checks whether the oneshot channel has been closed, and if not, schedules the
    /// `Waker` in the provided `Context` to receive a notification when the channel is
    /// closed.
    ///
    /// Note that on multiple calls to poll, only the `Waker` from the `Context` passed
    /// to the most recent call will be scheduled to receive a wakeup.
    pub fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let _touching = touching(&self.name);
        match self.inner.as_mut() {
            Some(inner) => inner.poll_canceled(cx),
            None => Poll::Ready(()),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // lineup: the drop of an end that did not send wakes the receiver, which then fails.
        if let Some(inner) = self.inner.take() {
            let _touching = touching(&self.name);
            drop(inner);
        }
    }
}

impl<T> Receiver<T> {
    /// Prevents the associated [`Sender`] handle from sending a value.
    pub fn close(&mut self) {
        let _touching = touching_after_switch(&self.name);
        // Scheduling point precedes the visible close operation
        switch();
        if let Some(inner) = self.inner.as_mut() {
            inner.close();
        }
    }

    /// Attempts to receive a value.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let _touching = touching_after_switch(&self.name);
        // Scheduling point precedes the visible receive operation
        switch();
        let Some(inner) = self.inner.as_mut() else {
            return Err(TryRecvError::Closed);
        };
        match inner.try_recv() {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(TryRecvError::Empty),
            Err(_) => Err(TryRecvError::Closed),
        }
    }

    /// Blocking receive to call outside of asynchronous contexts.
    pub fn blocking_recv(self) -> Result<T, RecvError> {
        future::block_on(self)
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        tracing::trace!("dropping oneshot receiver {:p}", self);
        // lineup: the drop makes a later send fail, and wakes a sender waiting in `closed`.
        if let Some(inner) = self.inner.take() {
            let _touching = touching(&self.name);
            drop(inner);
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // The receive of the oneshot's one receiver takes the value whenever it runs, or waits until
        // the send (or the sender's drop) wakes it: it commutes with them.
        let _touching = touching_as(&this.name, Touch::Consume);
        let Some(inner) = this.inner.as_mut() else {
            return Poll::Ready(Err(RecvError(())));
        };
        let receiver = Pin::new(inner);
        trace!("polling oneshot receiver {:p}", receiver);
        // lineup: the published crate forced a scheduling point here when the receive was ready. It
        // is removed: the receive of the one receiver commutes with every step but its sender's
        // send or drop, which came before it, and the task's next visible operation has a
        // scheduling point of its own (vendor/README.md).
        receiver.poll(cx).map_err(|_| RecvError(()))
    }
}

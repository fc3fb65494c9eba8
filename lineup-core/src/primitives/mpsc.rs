//! `lineup::sync::mpsc` on shuttle: shuttle's channels (the same scheduling points), each of whose
//! sends and receives announces the channel before it calls into shuttle, so that the
//! partial-order reduction sees what each step touches (see
//! [`footprint`](crate::explore::footprint)): steps on different channels commute, which is what
//! makes actors (threads that talk over channels) tractable, and a thread blocked on an empty
//! channel does not run.
//!
//! ```
//! use lineup_core::sync::mpsc::channel;
//!
//! // A request carries the channel its reply goes back on.
//! let (requests, _mailbox) = channel::<(u32, lineup_core::sync::mpsc::Sender<u32>)>();
//! let _ = requests;
//! ```

use std::sync::Arc;
use std::time::Duration;

pub use shuttle::sync::mpsc::{RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};

use crate::explore::footprint::{announce, ObjectIdentity};

/// Creates an unbounded channel, as [`std::sync::mpsc::channel`].
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = shuttle::sync::mpsc::channel();
    let identity = Arc::new(ObjectIdentity::new());
    (
        Sender {
            inner: tx,
            identity: Arc::clone(&identity),
        },
        Receiver { inner: rx, identity },
    )
}

/// Creates a channel of capacity `bound`, as [`std::sync::mpsc::sync_channel`].
pub fn sync_channel<T>(bound: usize) -> (SyncSender<T>, Receiver<T>) {
    let (tx, rx) = shuttle::sync::mpsc::sync_channel(bound);
    let identity = Arc::new(ObjectIdentity::new());
    (
        SyncSender {
            inner: tx,
            identity: Arc::clone(&identity),
        },
        Receiver { inner: rx, identity },
    )
}

/// The sending half of a [`channel`].
#[derive(Debug)]
pub struct Sender<T> {
    inner: shuttle::sync::mpsc::Sender<T>,
    identity: Arc<ObjectIdentity>,
}

impl<T> Sender<T> {
    /// Sends a value; fails only when the receiver is gone.
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        let _seen = announce(&self.identity, true);
        self.inner.send(t)
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            identity: Arc::clone(&self.identity),
        }
    }
}

/// The sending half of a [`sync_channel`].
#[derive(Debug)]
pub struct SyncSender<T> {
    inner: shuttle::sync::mpsc::SyncSender<T>,
    identity: Arc<ObjectIdentity>,
}

impl<T> SyncSender<T> {
    /// Sends a value, waiting while the channel is full.
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        let _seen = announce(&self.identity, true);
        self.inner.send(t)
    }

    /// Sends a value if there is room.
    pub fn try_send(&self, t: T) -> Result<(), TrySendError<T>> {
        let _seen = announce(&self.identity, true);
        self.inner.try_send(t)
    }
}

impl<T> Clone for SyncSender<T> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            identity: Arc::clone(&self.identity),
        }
    }
}

/// The receiving half of a channel.
#[derive(Debug)]
pub struct Receiver<T> {
    inner: shuttle::sync::mpsc::Receiver<T>,
    identity: Arc<ObjectIdentity>,
}

impl<T> Receiver<T> {
    /// Waits for a value; fails when every sender is gone and the channel is empty.
    pub fn recv(&self) -> Result<T, RecvError> {
        let _seen = announce(&self.identity, true);
        self.inner.recv()
    }

    /// Takes a value if there is one.
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        let _seen = announce(&self.identity, true);
        self.inner.try_recv()
    }

    /// Waits for a value (shuttle's never times out).
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        let _seen = announce(&self.identity, true);
        self.inner.recv_timeout(timeout)
    }

    /// An iterator that waits for values until every sender is gone.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { receiver: self }
    }

    /// An iterator over the values there are now.
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { receiver: self }
    }
}

/// See [`Receiver::iter`].
#[derive(Debug)]
pub struct Iter<'a, T> {
    receiver: &'a Receiver<T>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.receiver.recv().ok()
    }
}

/// See [`Receiver::try_iter`].
#[derive(Debug)]
pub struct TryIter<'a, T> {
    receiver: &'a Receiver<T>,
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.receiver.try_recv().ok()
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

//! `lineup::sync::mpsc` on shuttle: channels whose sends and receives announce the channel to the
//! partial-order reduction (see [`footprint`](crate::explore::footprint)), so that steps on
//! different channels commute, which is what makes actors (threads that talk over channels)
//! tractable.
//!
//! [`channel`] is lineup's own unbounded channel on shuttle's runtime: a send is a scheduling point
//! (the order of two senders' messages matters), and a blocking [`Receiver::recv`] is **not**
//! one. A receive on a single-consumer FIFO channel returns the oldest message whenever it runs,
//! so its place among other threads' steps changes nothing but whether it waits: it takes a
//! message in the step that calls it, or blocks there, and a thread blocked on an empty channel
//! does not run until a message arrives. (Without this, an idle actor's step back to its `recv`
//! races with every later send to it, and phase 1 explores all those orders.) `try_recv` and
//! [`sync_channel`] (shuttle's bounded channel, wrapped) keep their scheduling points.
//!
//! ```
//! use lineup_core::sync::mpsc::channel;
//!
//! // A request carries the channel its reply goes back on.
//! let (requests, _mailbox) = channel::<(u32, lineup_core::sync::mpsc::Sender<u32>)>();
//! let _ = requests;
//! ```

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

pub use shuttle::sync::mpsc::{RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};

use shuttle_engine::runtime::execution::ExecutionState;
use shuttle_engine::runtime::task::TaskId;
use shuttle_engine::runtime::thread;

use std::panic::Location;

use crate::explore::footprint::{announce, announce_consume, announce_send, touch, ObjectIdentity};
use crate::explore::trace;
use crate::explore::trace::Action;

/// The kind of a channel, as the steps' record names it.
const CHANNEL: &str = "channel";

/// lineup's unbounded channel: the queue, the receiver waiting on it, and who is left.
struct Chan<T> {
    identity: ObjectIdentity,
    state: RefCell<ChanState<T>>,
}

struct ChanState<T> {
    queue: VecDeque<T>,
    waiting: Option<TaskId>,
    senders: usize,
    receiver: bool,
}

// SAFETY: as shuttle's own primitives: a channel is shared only by the tasks of one execution,
// which run one at a time on one OS thread and switch only at scheduling points, never while the
// state is borrowed.
unsafe impl<T: Send> Send for Chan<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Chan<T> {}

impl<T> Chan<T> {
    /// Wakes the waiting receiver, if any (a message arrived, or the last sender left).
    fn wake(state: &mut ChanState<T>) {
        if let Some(task) = state.waiting.take() {
            // `try_with`: a sender may drop while shuttle tears the execution down.
            let _ = ExecutionState::try_with(|s| s.get_mut(task).unblock());
        }
    }

    fn send(&self, t: T, site: &'static Location<'static>) -> Result<(), SendError<T>> {
        let _seen = announce_send(&self.identity);
        let step = trace::begin(Some((&self.identity, CHANNEL)), Some(site));
        thread::switch();
        let mut state = self.state.borrow_mut();
        if !state.receiver {
            drop(state);
            step.done(|| Action::Send { ok: false });
            return Err(SendError(t));
        }
        state.queue.push_back(t);
        Self::wake(&mut state);
        drop(state);
        step.done(|| Action::Send { ok: true });
        Ok(())
    }

    fn recv(&self, site: &'static Location<'static>) -> Result<T, RecvError> {
        let step = trace::begin(Some((&self.identity, CHANNEL)), Some(site));
        let result = self.recv_untraced();
        step.done(|| Action::Receive { got: result.is_ok() });
        result
    }

    fn recv_untraced(&self) -> Result<T, RecvError> {
        // No scheduling point: the receive happens in the step that calls it (or, if it has to
        // wait, in the step that resumes it), and it commutes with sends (see `Kind::Consume`).
        let _seen = announce_consume(&self.identity);
        loop {
            // A stuck or redundant execution being abandoned: an operation's thread unwinds here.
            crate::explore::abandonment::abandon_here();
            // The quiet end (see `lineup::thread::spawn`): a thread of lineup's is told that the
            // channel is disconnected, once per channel; a second receive from it waits for good
            // (a loop that goes on receiving after an error does not spin), and the scheduler
            // stops the execution.
            if let Some(first) = crate::explore::quiet_end::told_to_end(self as *const Self as usize) {
                if first {
                    return Err(RecvError);
                }
                ExecutionState::with(|s| s.current_mut().block(false));
                thread::switch();
                continue;
            }
            {
                let mut state = self.state.borrow_mut();
                if let Some(t) = state.queue.pop_front() {
                    return Ok(t);
                }
                if state.senders == 0 {
                    return Err(RecvError);
                }
                state.waiting = Some(ExecutionState::me());
            }
            // If execution teardown unwinds the task from the switch below, it no longer waits.
            struct StopWaiting<'a, T>(&'a Chan<T>);
            impl<T> Drop for StopWaiting<'_, T> {
                fn drop(&mut self) {
                    if let Ok(mut state) = self.0.state.try_borrow_mut() {
                        state.waiting = None;
                    }
                }
            }
            let stop_waiting = StopWaiting(self);
            let me = ExecutionState::me();
            crate::explore::quiet_end::begin_receive(me);
            ExecutionState::with(|s| s.current_mut().block(false));
            thread::switch();
            crate::explore::quiet_end::end_receive(me);
            std::mem::forget(stop_waiting);
            // Woken by a send (which took the wait), or by lineup to end the execution (which did
            // not): no longer waiting either way, so no later send wakes a thread that has gone.
            if let Ok(mut state) = self.state.try_borrow_mut() {
                if state.waiting == Some(me) {
                    state.waiting = None;
                }
            }
        }
    }

    fn try_recv(&self, site: &'static Location<'static>) -> Result<T, TryRecvError> {
        let _seen = announce(&self.identity, true);
        let step = trace::begin(Some((&self.identity, CHANNEL)), Some(site));
        thread::switch();
        let mut state = self.state.borrow_mut();
        let result = match state.queue.pop_front() {
            Some(t) => Ok(t),
            None if state.senders == 0 => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        };
        drop(state);
        step.done(|| Action::Receive { got: result.is_ok() });
        result
    }
}

/// Creates an unbounded channel, as [`std::sync::mpsc::channel`] (see the module for its
/// scheduling points).
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let chan = Arc::new(Chan {
        identity: ObjectIdentity::created(),
        state: RefCell::new(ChanState {
            queue: VecDeque::new(),
            waiting: None,
            senders: 1,
            receiver: true,
        }),
    });
    (
        Sender {
            chan: Arc::clone(&chan),
        },
        Receiver {
            _not_sync: PhantomData,
            inner: Inner::Unbounded(chan),
        },
    )
}

/// Creates a channel of capacity `bound`, as [`std::sync::mpsc::sync_channel`].
#[track_caller]
pub fn sync_channel<T>(bound: usize) -> (SyncSender<T>, Receiver<T>) {
    let (tx, rx) = shuttle::sync::mpsc::sync_channel(bound);
    let identity = Arc::new(ObjectIdentity::created());
    (
        SyncSender {
            inner: tx,
            identity: Arc::clone(&identity),
        },
        Receiver {
            _not_sync: PhantomData,
            inner: Inner::Bounded(rx, identity),
        },
    )
}

/// The sending half of a [`channel`].
pub struct Sender<T> {
    chan: Arc<Chan<T>>,
}

impl<T> Sender<T> {
    /// Sends a value (a scheduling point); fails only when the receiver is gone.
    #[track_caller]
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        self.chan.send(t, Location::caller())
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.chan.state.borrow_mut().senders += 1;
        Self {
            chan: Arc::clone(&self.chan),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        if let Ok(mut state) = self.chan.state.try_borrow_mut() {
            state.senders -= 1;
            if state.senders == 0 {
                Chan::wake(&mut state);
            }
        }
    }
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sender { .. }")
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
    #[track_caller]
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        let _seen = announce(&self.identity, true);
        let step = trace::begin(Some((&self.identity, CHANNEL)), Some(Location::caller()));
        let result = self.inner.send(t);
        step.done(|| Action::Send { ok: result.is_ok() });
        result
    }

    /// Sends a value if there is room.
    #[track_caller]
    pub fn try_send(&self, t: T) -> Result<(), TrySendError<T>> {
        let _seen = announce(&self.identity, true);
        let step = trace::begin(Some((&self.identity, CHANNEL)), Some(Location::caller()));
        let result = self.inner.try_send(t);
        step.done(|| Action::Send { ok: result.is_ok() });
        result
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

/// The receiving half of a channel. Like std's, it can be sent to another thread but not shared
/// (it is not `Sync`): a receive is the one consumer's, which lineup's reduction counts on (see
/// `Kind::Consume`) and the channel keeps one waiting receiver.
///
/// ```compile_fail
/// fn shared<T: Sync>() {}
/// shared::<lineup_core::sync::mpsc::Receiver<u32>>();
/// ```
///
/// ```
/// fn sent<T: Send>() {}
/// sent::<lineup_core::sync::mpsc::Receiver<u32>>();
/// ```
pub struct Receiver<T> {
    inner: Inner<T>,
    /// Not `Sync`, as std's.
    _not_sync: PhantomData<Cell<()>>,
}

enum Inner<T> {
    Unbounded(Arc<Chan<T>>),
    Bounded(shuttle::sync::mpsc::Receiver<T>, Arc<ObjectIdentity>),
}

impl<T> Receiver<T> {
    /// Waits for a value; fails when every sender is gone and the channel is empty. On a
    /// [`channel`], not a scheduling point (see the module).
    #[track_caller]
    pub fn recv(&self) -> Result<T, RecvError> {
        match &self.inner {
            Inner::Unbounded(chan) => chan.recv(Location::caller()),
            Inner::Bounded(rx, identity) => {
                let _seen = announce(identity, true);
                let step = trace::begin(Some((identity, CHANNEL)), Some(Location::caller()));
                let result = rx.recv();
                step.done(|| Action::Receive { got: result.is_ok() });
                result
            }
        }
    }

    /// Takes a value if there is one.
    #[track_caller]
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        match &self.inner {
            Inner::Unbounded(chan) => chan.try_recv(Location::caller()),
            Inner::Bounded(rx, identity) => {
                let _seen = announce(identity, true);
                let step = trace::begin(Some((identity, CHANNEL)), Some(Location::caller()));
                let result = rx.try_recv();
                step.done(|| Action::Receive { got: result.is_ok() });
                result
            }
        }
    }

    /// Waits for a value (shuttle never times out).
    #[track_caller]
    pub fn recv_timeout(&self, _timeout: Duration) -> Result<T, RecvTimeoutError> {
        self.recv().map_err(|_| RecvTimeoutError::Disconnected)
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

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if let Inner::Unbounded(chan) = &self.inner {
            if let Ok(mut state) = chan.state.try_borrow_mut() {
                // Later sends fail: this step does not commute with them.
                touch(&chan.identity, true);
                state.receiver = false;
            }
        }
    }
}

impl<T> std::fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Receiver { .. }")
    }
}

/// See [`Receiver::iter`].
#[derive(Debug)]
pub struct Iter<'a, T> {
    receiver: &'a Receiver<T>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;

    #[track_caller]
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

    #[track_caller]
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

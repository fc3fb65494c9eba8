//! An object on shuttle's own `mpsc` channel used directly (`lineup::shuttle::sync::mpsc`), whose
//! steps lineup's partial-order reduction reads from the events of lineup's `vendor/shuttle-std`
//! (`lineup-core/src/explore/shuttle_events.rs`): a send, a `try_recv` and the drop of the last
//! sender, each in a step of its own between steps of `lineup::sync` (tests/shuttle_channels.rs,
//! with the replicated register of [`native`](crate::native) on the same channels).

use lineup::shuttle::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender, TryRecvError};
use lineup::sync::atomic::{AtomicU32, Ordering::SeqCst};
use lineup::sync::Mutex;
use lineup::{invocations, Subject};

/// A mailbox that the operations share: `put()` sends 1 unless the mailbox is closed, `poll()`
/// takes a message without waiting (1, or 100 if there is none, or 200 once it is closed and
/// empty), `close()` drops the one sender. Each does its channel operation in a step of its own
/// (counting on an atomic of `lineup::sync` of its own before and after it, which no other
/// operation touches): the drop of the sender in `close()` touches the channel in a step that
/// names nothing else, and decides whether a later `poll()` says empty or closed.
pub struct Inbox {
    sender: Mutex<Option<Sender<u32>>>,
    receiver: Receiver<u32>,
    /// The counts of `put`, `poll` and `close`.
    ticks: [AtomicU32; 3],
}

impl Default for Inbox {
    fn default() -> Self {
        let (sender, receiver) = channel();
        Self {
            sender: Mutex::new(Some(sender)),
            receiver,
            ticks: [AtomicU32::new(0), AtomicU32::new(0), AtomicU32::new(0)],
        }
    }
}

#[invocations]
impl Inbox {
    /// Sends 1: whether the mailbox was open.
    #[invoke]
    pub fn put(&self) -> bool {
        let sender = self.sender.lock().unwrap().clone();
        self.ticks[0].fetch_add(1, SeqCst);
        let sent = sender.is_some_and(|s| s.send(1).is_ok());
        self.ticks[0].fetch_add(1, SeqCst);
        sent
    }

    /// A message without waiting: 1, 100 when there is none, 200 when the mailbox is closed and
    /// empty.
    #[invoke]
    pub fn poll(&self) -> u32 {
        self.ticks[1].fetch_add(1, SeqCst);
        let got = match self.receiver.try_recv() {
            Ok(v) => v,
            Err(TryRecvError::Empty) => 100,
            Err(TryRecvError::Disconnected) => 200,
        };
        self.ticks[1].fetch_add(1, SeqCst);
        got
    }

    /// Closes the mailbox: drops its sender, between two steps of its own.
    #[invoke]
    pub fn close(&self) {
        let sender = self.sender.lock().unwrap().take();
        self.ticks[2].fetch_add(1, SeqCst);
        drop(sender);
        self.ticks[2].fetch_add(1, SeqCst);
    }
}

/// The mailbox on shuttle's channel: `put()`, `poll()`, `close()`.
pub fn inbox() -> Subject<Inbox> {
    Subject::of("Inbox(shuttle::sync::mpsc)", Inbox::default)
}

/// A counter kept by a thread of its own (shuttle's `spawn`) that takes requests on shuttle's
/// channel and answers each on a channel of the request's own: `add()` adds one and answers the
/// count after it, `get()` answers the count. An actor as small as actors get, for the
/// superset test (tests/shuttle_channels.rs).
pub struct Tally {
    mailbox: Mailbox,
}

/// The counter's mailbox: a `channel`, or a `sync_channel` ([`Tally::bounded`]).
enum Mailbox {
    Unbounded(Sender<(bool, Sender<u32>)>),
    Bounded(SyncSender<(bool, Sender<u32>)>),
}

impl Default for Tally {
    fn default() -> Self {
        let (mailbox, requests) = channel::<(bool, Sender<u32>)>();
        Self::run(requests);
        Self {
            mailbox: Mailbox::Unbounded(mailbox),
        }
    }
}

impl Tally {
    /// The counter with a mailbox of `bound` messages (`sync_channel`): a receive of it may wake
    /// a sender, so it does not commute with sends.
    pub fn bounded(bound: usize) -> Self {
        let (mailbox, requests) = sync_channel::<(bool, Sender<u32>)>(bound);
        Self::run(requests);
        Self {
            mailbox: Mailbox::Bounded(mailbox),
        }
    }

    fn run(requests: Receiver<(bool, Sender<u32>)>) {
        lineup::shuttle::thread::spawn(move || {
            let mut count = 0;
            while let Ok((add, reply)) = requests.recv() {
                if add {
                    count += 1;
                }
                let _ = reply.send(count);
            }
        });
    }
}

#[invocations]
impl Tally {
    /// Adds one: the count after it.
    #[invoke]
    pub fn add(&self) -> u32 {
        self.ask(true)
    }

    /// The count.
    #[invoke]
    pub fn get(&self) -> u32 {
        self.ask(false)
    }
}

impl Tally {
    fn ask(&self, add: bool) -> u32 {
        let (reply, answer) = channel();
        match &self.mailbox {
            Mailbox::Unbounded(mailbox) => mailbox.send((add, reply)).expect("the counter runs"),
            Mailbox::Bounded(mailbox) => mailbox.send((add, reply)).expect("the counter runs"),
        }
        answer.recv().expect("the counter answers")
    }
}

/// The counter on shuttle's channels and thread: `add()`, `get()`.
pub fn tally() -> Subject<Tally> {
    Subject::of("Tally(shuttle::sync::mpsc)", Tally::default)
}

/// The counter with a mailbox of one message (`sync_channel(1)`): `add()`, `get()`.
pub fn bounded_tally() -> Subject<Tally> {
    Subject::of("Tally(shuttle::sync::mpsc::sync_channel(1))", || Tally::bounded(1))
}

/// A queue whose one receiver the operations share (shuttle's `Receiver` is `Sync`, unlike
/// std's): `put(v)` sends `v`, `take()` waits for a message. Two `take()`s on two threads receive
/// from one channel, so the receive of one is not the only receive of its channel: which of them
/// looks first decides which gets the first message. The superset test shows that the receive's
/// look then covers nothing (tests/shuttle_channels.rs).
pub struct SharedTakers {
    sender: Sender<u32>,
    receiver: Receiver<u32>,
}

impl Default for SharedTakers {
    fn default() -> Self {
        let (sender, receiver) = channel();
        Self { sender, receiver }
    }
}

#[invocations]
impl SharedTakers {
    /// Sends `value`.
    #[invoke(1, 2)]
    pub fn put(&self, value: u32) {
        self.sender.send(value).expect("the receiver is here");
    }

    /// The next message, waiting for it.
    #[invoke]
    pub fn take(&self) -> u32 {
        self.receiver.recv().expect("the sender is here")
    }
}

/// The queue with a shared receiver: `put(1)`, `put(2)`, `take()`.
pub fn shared_takers() -> Subject<SharedTakers> {
    Subject::of("SharedTakers(shuttle::sync::mpsc)", SharedTakers::default)
}

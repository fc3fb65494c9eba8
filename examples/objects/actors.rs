//! Actors: objects whose constructor spawns threads that own the state and serve requests sent
//! over `lineup::sync::mpsc` channels, each with a channel for the reply. Small enough to explore
//! without the partial-order reduction, so that the reduction can be compared with it.

use std::collections::VecDeque;

use lineup::sync::mpsc::{channel, Receiver, Sender};
use lineup::{invocations, Subject};

/// A request to a queue's store.
enum Request {
    Add(u32, Sender<()>),
    TryTake(Sender<Option<u32>>),
}

/// The store: owns the queue and serves requests until every sender is gone.
fn store(mailbox: Receiver<Request>) {
    let mut items = VecDeque::new();
    while let Ok(request) = mailbox.recv() {
        match request {
            Request::Add(value, reply) => {
                items.push_back(value);
                let _ = reply.send(());
            }
            Request::TryTake(reply) => {
                let _ = reply.send(items.pop_front());
            }
        }
    }
}

/// A FIFO queue owned by one actor thread: correct, since the actor serves one request at a time
/// and every operation waits for its reply.
pub struct ActorQueue {
    store: Sender<Request>,
}

impl ActorQueue {
    /// Spawns the store actor.
    pub fn new() -> Self {
        let (store_mailbox, mailbox) = channel();
        lineup::thread::spawn(move || store(mailbox));
        Self { store: store_mailbox }
    }
}

impl Default for ActorQueue {
    fn default() -> Self {
        Self::new()
    }
}

/// Invocations 0 and 1: `add(200)`, `add(400)`; 2: `try_take()`.
#[invocations]
impl ActorQueue {
    #[invoke(200, 400)]
    pub fn add(&self, value: u32) {
        let (reply, answer) = channel();
        self.store.send(Request::Add(value, reply)).expect("the store runs");
        answer.recv().expect("the store answers")
    }

    #[invoke]
    pub fn try_take(&self) -> Option<u32> {
        let (reply, answer) = channel();
        self.store.send(Request::TryTake(reply)).expect("the store runs");
        answer.recv().expect("the store answers")
    }
}

/// How the front actor of a [`RelayQueue`] acknowledges an `add`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acknowledge {
    /// The store answers once it has the element: correct.
    AfterStore,
    /// The front answers before it forwards the element: an `add` can return while its element is
    /// still on its way, and a `try_take` that reaches the store first finds it empty.
    Early,
}

/// A request to the front actor.
enum Front {
    Add(u32, Sender<()>),
    TryTake(Sender<Option<u32>>),
}

/// The front: forwards every request to the store, in the order it received them.
fn front(mailbox: Receiver<Front>, store: Sender<Request>, acknowledge: Acknowledge) {
    while let Ok(request) = mailbox.recv() {
        let _ = match request {
            Front::Add(value, reply) if acknowledge == Acknowledge::Early => {
                let _ = reply.send(());
                let (ignored, _) = channel();
                store.send(Request::Add(value, ignored))
            }
            Front::Add(value, reply) => store.send(Request::Add(value, reply)),
            Front::TryTake(reply) => store.send(Request::TryTake(reply)),
        };
    }
}

/// A queue behind two actors: `add` goes through a front actor, which forwards it to the store;
/// `try_take` goes to the store directly. With [`Acknowledge::AfterStore`] it is linearizable
/// (an operation takes effect when the store serves it, inside its interval); with
/// [`Acknowledge::Early`] it is not (`add(200)` returns, then `try_take() -> None`).
pub struct RelayQueue {
    front: Sender<Front>,
    store: Sender<Request>,
}

impl RelayQueue {
    /// Spawns the store and the front actor.
    pub fn new(acknowledge: Acknowledge) -> Self {
        let (store_mailbox, mailbox) = channel();
        lineup::thread::spawn(move || store(mailbox));
        let (front_mailbox, mailbox) = channel();
        let to_store = store_mailbox.clone();
        lineup::thread::spawn(move || front(mailbox, to_store, acknowledge));
        Self {
            front: front_mailbox,
            store: store_mailbox,
        }
    }
}

/// Invocations 0 and 1: `add(200)`, `add(400)`; 2: `try_take()`.
#[invocations]
impl RelayQueue {
    #[invoke(200, 400)]
    pub fn add(&self, value: u32) {
        let (reply, answer) = channel();
        self.front.send(Front::Add(value, reply)).expect("the front runs");
        answer.recv().expect("the front or the store answers")
    }

    #[invoke]
    pub fn try_take(&self) -> Option<u32> {
        let (reply, answer) = channel();
        self.store.send(Request::TryTake(reply)).expect("the store runs");
        answer.recv().expect("the store answers")
    }
}

/// The [`ActorQueue`] subject.
pub fn actor_queue() -> Subject<ActorQueue> {
    Subject::of("ActorQueue", ActorQueue::new)
}

/// The correct [`RelayQueue`] subject.
pub fn relay_queue() -> Subject<RelayQueue> {
    Subject::of("RelayQueue", || RelayQueue::new(Acknowledge::AfterStore))
}

/// The [`RelayQueue`] that acknowledges an `add` early (not linearizable).
pub fn early_ack_relay_queue() -> Subject<RelayQueue> {
    Subject::of("RelayQueue(early ack)", || RelayQueue::new(Acknowledge::Early))
}

/// A request to a register's store.
enum Register {
    Read(Sender<u32>),
    Swap(u32, Sender<u32>),
}

/// The register's store: owns the value.
fn register(mailbox: Receiver<Register>) {
    let mut value = 0;
    while let Ok(request) = mailbox.recv() {
        match request {
            Register::Read(reply) => {
                let _ = reply.send(value);
            }
            Register::Swap(new, reply) => {
                let _ = reply.send(std::mem::replace(&mut value, new));
            }
        }
    }
}

/// A register actor with a read cache in the client's handle (a `lineup::sync::Mutex`):
/// `swap(v)` stores `v` and returns the old value, `read()` answers from the cache or asks the
/// actor on a miss and keeps the answer. With `invalidate_early` a `swap` empties the cache and
/// releases it before it sends: a `read` that misses in between caches the old value, and a later
/// `read` answers from that stale copy although the swap returned (`swap(1) | read() -> 0,
/// read() -> 0`); one operation at a time never shows it. Otherwise a `swap` holds the cache until
/// the actor replied and then caches the new value: linearizable.
pub struct CachedRegister {
    invalidate_early: bool,
    actor: Sender<Register>,
    cache: lineup::sync::Mutex<Option<u32>>,
}

impl CachedRegister {
    /// Spawns the register actor; it holds 0 and the cache is empty.
    pub fn new(invalidate_early: bool) -> Self {
        let (actor, mailbox) = channel();
        lineup::thread::spawn(move || register(mailbox));
        Self {
            invalidate_early,
            actor,
            cache: lineup::sync::Mutex::new(None),
        }
    }

    fn ask(&self, request: impl FnOnce(Sender<u32>) -> Register) -> u32 {
        let (reply, answer) = channel();
        self.actor.send(request(reply)).expect("the actor runs");
        answer.recv().expect("the actor answers")
    }
}

/// Invocations 0 and 1: `swap(1)`, `swap(2)`; 2: `read()`.
#[invocations]
impl CachedRegister {
    #[invoke(1, 2)]
    pub fn swap(&self, value: u32) -> u32 {
        if self.invalidate_early {
            *self.cache.lock().unwrap() = None;
            return self.ask(|reply| Register::Swap(value, reply));
        }
        let mut cache = self.cache.lock().unwrap();
        let old = self.ask(|reply| Register::Swap(value, reply));
        *cache = Some(value);
        old
    }

    #[invoke]
    pub fn read(&self) -> u32 {
        let mut cache = self.cache.lock().unwrap();
        if let Some(value) = *cache {
            return value;
        }
        let value = self.ask(Register::Read);
        *cache = Some(value);
        value
    }
}

/// The correct [`CachedRegister`] subject.
pub fn cached_register() -> Subject<CachedRegister> {
    Subject::of("CachedRegister", || CachedRegister::new(false))
}

/// The [`CachedRegister`] that invalidates its cache early (not linearizable).
pub fn stale_cached_register() -> Subject<CachedRegister> {
    Subject::of("CachedRegister(early invalidation)", || CachedRegister::new(true))
}

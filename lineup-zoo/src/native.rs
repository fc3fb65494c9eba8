//! The same objects written three ways, for the `native` benchmark and the soundness tests of
//! the partial-order reduction on shuttle's own primitives: on `lineup::sync` (whose primitives
//! announce what they touch), on `lineup::shuttle::sync` used directly (whose steps lineup
//! reads from shuttle's `tracing` events, or cannot see), and against tokio through
//! shuttle-tokio (tasks and `tokio::sync`, whose steps are shuttle's): a blocking queue (`Mutex`
//! and `Condvar`; on tokio, `tokio::sync::Mutex` and `Notify`), a register replicated over a
//! primary and two backup actors on `mpsc` (threads; on tokio, tasks with `oneshot` replies;
//! correct, and with a stale read), a lock-free stack (atomics; tokio has no atomics of its own,
//! so its form is the stack behind a `tokio::sync::Mutex`, see [`mod@tokio_stack`]), and, on shuttle's
//! primitives only, a map behind an `RwLock` and an object on a `Barrier` and a `Once`.

use std::collections::{HashMap, VecDeque};

use lineup::{invocations, Subject};

/// A FIFO queue on the `Mutex` and `Condvar` in scope: `add(200)`, `add(400)`, `try_take()`, `take()`.
macro_rules! blocking_queue {
    ($name:ident) => {
        /// A correct FIFO queue (see the module): invocations 0 and 1 `add(200)`, `add(400)`,
        /// 2 `try_take()`, 3 `take()`.
        #[derive(Default)]
        pub struct $name {
            items: Mutex<VecDeque<u32>>,
            not_empty: Condvar,
        }

        #[invocations]
        impl $name {
            /// Appends `value`.
            #[invoke(200, 400)]
            pub fn add(&self, value: u32) {
                self.items.lock().unwrap().push_back(value);
                self.not_empty.notify_one();
            }

            /// The oldest element, if any.
            #[invoke]
            pub fn try_take(&self) -> Option<u32> {
                self.items.lock().unwrap().pop_front()
            }

            /// The oldest element, once there is one.
            #[invoke]
            pub fn take(&self) -> u32 {
                let mut items = self.items.lock().unwrap();
                loop {
                    if let Some(value) = items.pop_front() {
                        return value;
                    }
                    items = self.not_empty.wait(items).unwrap();
                }
            }
        }
    };
}

/// The blocking queue on `lineup::sync`.
pub mod lineup_queue {
    use super::*;
    use lineup::sync::{Condvar, Mutex};
    blocking_queue!(LineupQueue);
}

/// The blocking queue on `lineup::shuttle::sync`.
pub mod shuttle_queue {
    use super::*;
    use lineup::shuttle::sync::{Condvar, Mutex};
    blocking_queue!(ShuttleQueue);
}

/// A register replicated over a primary and two backup threads on the `channel` and `spawn` in
/// scope.
macro_rules! replicated_register {
    ($name:ident) => {
        /// A request to the primary.
        enum Request {
            Read(Sender<u32>),
            Write(u32, Sender<()>),
        }

        /// A message to a backup: an update to apply and acknowledge, or a read.
        enum ToBackup {
            Update(u32, Sender<()>),
            Read(Sender<u32>),
        }

        /// The client's handle: `write(1)`, `write(2)`, `read()`. Correct: the primary replies to
        /// a write once both backups have acknowledged it, and answers reads. With `stale`, the
        /// primary replies to a write before the backups have it, and reads go to a backup:
        /// a read that follows a write may return the old value.
        pub struct $name {
            primary: Sender<Request>,
            backup: Sender<ToBackup>,
            stale: bool,
        }

        fn primary(mailbox: Receiver<Request>, backups: Vec<Sender<ToBackup>>, stale: bool) {
            let mut value = 0;
            while let Ok(request) = mailbox.recv() {
                match request {
                    Request::Read(reply) => {
                        let _ = reply.send(value);
                    }
                    Request::Write(v, reply) => {
                        value = v;
                        if stale {
                            let _ = reply.send(());
                        }
                        let acks: Vec<_> = backups
                            .iter()
                            .map(|backup| {
                                let (ack, acked) = channel();
                                let _ = backup.send(ToBackup::Update(v, ack));
                                acked
                            })
                            .collect();
                        for acked in acks {
                            let _ = acked.recv();
                        }
                        if !stale {
                            let _ = reply.send(());
                        }
                    }
                }
            }
        }

        fn backup(mailbox: Receiver<ToBackup>) {
            let mut value = 0;
            while let Ok(message) = mailbox.recv() {
                match message {
                    ToBackup::Update(v, ack) => {
                        value = v;
                        let _ = ack.send(());
                    }
                    ToBackup::Read(reply) => {
                        let _ = reply.send(value);
                    }
                }
            }
        }

        impl $name {
            /// Spawns the primary and the two backups; the register holds 0.
            pub fn new(stale: bool) -> Self {
                let (to_first, first) = channel();
                let (to_second, second) = channel();
                spawn(move || backup(first));
                spawn(move || backup(second));
                let (to_primary, mailbox) = channel();
                let backups = vec![to_first.clone(), to_second];
                spawn(move || primary(mailbox, backups, stale));
                Self {
                    primary: to_primary,
                    backup: to_first,
                    stale,
                }
            }
        }

        #[invocations]
        impl $name {
            /// Writes `value`.
            #[invoke(1, 2)]
            pub fn write(&self, value: u32) {
                let (reply, answer) = channel();
                self.primary
                    .send(Request::Write(value, reply))
                    .expect("the primary runs");
                answer.recv().expect("the primary replies");
            }

            /// The register's value.
            #[invoke]
            pub fn read(&self) -> u32 {
                let (reply, answer) = channel();
                if self.stale {
                    self.backup.send(ToBackup::Read(reply)).expect("the backup runs");
                } else {
                    self.primary.send(Request::Read(reply)).expect("the primary runs");
                }
                answer.recv().expect("the register replies")
            }
        }
    };
}

/// The replicated register on `lineup::sync::mpsc` and `lineup::thread::spawn`.
pub mod lineup_register {
    use super::*;
    use lineup::sync::mpsc::{channel, Receiver, Sender};
    use lineup::thread::spawn;
    replicated_register!(LineupRegister);
}

/// The replicated register on `lineup::shuttle::sync::mpsc` and `lineup::shuttle::thread::spawn`.
pub mod shuttle_register {
    use super::*;
    use lineup::shuttle::sync::mpsc::{channel, Receiver, Sender};
    use lineup::shuttle::thread::spawn;
    replicated_register!(ShuttleRegister);
}

/// A lock-free stack on the atomics in scope: nodes are slots of a fixed array, never reused (so no ABA).
macro_rules! lock_free_stack {
    ($name:ident) => {
        /// A correct lock-free (Treiber) stack of at most 8 pushes: `push(1)`, `push(2)`, `pop()`.
        pub struct $name {
            /// The top node's slot plus one (0: empty).
            head: AtomicUsize,
            /// The next free slot.
            next_free: AtomicUsize,
            values: [AtomicU32; 8],
            below: [AtomicUsize; 8],
        }

        impl Default for $name {
            fn default() -> Self {
                Self {
                    head: AtomicUsize::new(0),
                    next_free: AtomicUsize::new(0),
                    values: std::array::from_fn(|_| AtomicU32::new(0)),
                    below: std::array::from_fn(|_| AtomicUsize::new(0)),
                }
            }
        }

        #[invocations]
        impl $name {
            /// Pushes `value`.
            #[invoke(1, 2)]
            pub fn push(&self, value: u32) {
                let slot = self.next_free.fetch_add(1, Ordering::SeqCst);
                self.values[slot].store(value, Ordering::SeqCst);
                loop {
                    let head = self.head.load(Ordering::SeqCst);
                    self.below[slot].store(head, Ordering::SeqCst);
                    if self
                        .head
                        .compare_exchange(head, slot + 1, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                    {
                        return;
                    }
                }
            }

            /// Pops the top value, if any.
            #[invoke]
            pub fn pop(&self) -> Option<u32> {
                loop {
                    let head = self.head.load(Ordering::SeqCst);
                    if head == 0 {
                        return None;
                    }
                    let below = self.below[head - 1].load(Ordering::SeqCst);
                    if self
                        .head
                        .compare_exchange(head, below, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                    {
                        return Some(self.values[head - 1].load(Ordering::SeqCst));
                    }
                }
            }
        }
    };
}

/// The lock-free stack on `lineup::sync::atomic`.
pub mod lineup_stack {
    use super::*;
    use lineup::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
    lock_free_stack!(LineupStack);
}

/// The lock-free stack on `lineup::shuttle::sync::atomic`.
pub mod shuttle_stack {
    use super::*;
    use lineup::shuttle::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
    lock_free_stack!(ShuttleStack);
}

/// The blocking queue against tokio: a `tokio::sync::Mutex` and a `tokio::sync::Notify`, on which
/// a taker registers (`Notified::enable`) before it looks at the queue.
pub mod tokio_queue {
    use super::*;
    use tokio::sync::{Mutex, Notify};

    /// A correct FIFO queue: invocations 0 and 1 `add(200)`, `add(400)`, 2 `try_take()`,
    /// 3 `take()`, all `async fn`s.
    #[derive(Default)]
    pub struct TokioQueue {
        items: Mutex<VecDeque<u32>>,
        not_empty: Notify,
    }

    #[invocations]
    impl TokioQueue {
        /// Appends `value`.
        #[invoke(200, 400)]
        pub async fn add(&self, value: u32) {
            self.items.lock().await.push_back(value);
            self.not_empty.notify_one();
        }

        /// The oldest element, if any.
        #[invoke]
        pub async fn try_take(&self) -> Option<u32> {
            self.items.lock().await.pop_front()
        }

        /// The oldest element, once there is one.
        #[invoke]
        pub async fn take(&self) -> u32 {
            loop {
                // Registered before the check, so that each `notify_one` picks a distinct
                // waiter: two takers that saw the queue empty and waited unregistered would
                // share one stored permit (`notify_one`'s permits do not add up), and one would
                // wait for good with an element in the queue, a bug lineup's default check
                // found in this method's first version.
                let mut notified = std::pin::pin!(self.not_empty.notified());
                notified.as_mut().enable();
                if let Some(value) = self.items.lock().await.pop_front() {
                    return value;
                }
                notified.await;
            }
        }
    }
}

/// The replicated register against tokio: the primary and the two backups are tasks
/// (`tokio::spawn`) on `tokio::sync::mpsc` unbounded mailboxes, replies and acknowledgements go
/// over `tokio::sync::oneshot`; the same protocol as the threads' register (`stale` too).
pub mod tokio_register {
    use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
    use tokio::sync::oneshot;

    use super::*;

    /// A request to the primary.
    enum Request {
        Read(oneshot::Sender<u32>),
        Write(u32, oneshot::Sender<()>),
    }

    /// A message to a backup: an update to apply and acknowledge, or a read.
    enum ToBackup {
        Update(u32, oneshot::Sender<()>),
        Read(oneshot::Sender<u32>),
    }

    /// The client's handle: `write(1)`, `write(2)`, `read()`, `async fn`s. Correct: the primary
    /// replies to a write once both backups have acknowledged it, and answers reads. With `stale`,
    /// the primary replies to a write before the backups have it, and reads go to a backup: a read
    /// that follows a write may return the old value.
    pub struct TokioRegister {
        primary: UnboundedSender<Request>,
        backup: UnboundedSender<ToBackup>,
        stale: bool,
    }

    async fn primary(mut mailbox: UnboundedReceiver<Request>, backups: Vec<UnboundedSender<ToBackup>>, stale: bool) {
        let mut value = 0;
        while let Some(request) = mailbox.recv().await {
            match request {
                Request::Read(reply) => {
                    let _ = reply.send(value);
                }
                Request::Write(v, reply) => {
                    value = v;
                    let reply = if stale {
                        let _ = reply.send(());
                        None
                    } else {
                        Some(reply)
                    };
                    let acks: Vec<_> = backups
                        .iter()
                        .map(|backup| {
                            let (ack, acked) = oneshot::channel();
                            let _ = backup.send(ToBackup::Update(v, ack));
                            acked
                        })
                        .collect();
                    for acked in acks {
                        let _ = acked.await;
                    }
                    if let Some(reply) = reply {
                        let _ = reply.send(());
                    }
                }
            }
        }
    }

    async fn backup(mut mailbox: UnboundedReceiver<ToBackup>) {
        let mut value = 0;
        while let Some(message) = mailbox.recv().await {
            match message {
                ToBackup::Update(v, ack) => {
                    value = v;
                    let _ = ack.send(());
                }
                ToBackup::Read(reply) => {
                    let _ = reply.send(value);
                }
            }
        }
    }

    impl TokioRegister {
        /// Spawns the primary and the two backups (tasks); the register holds 0.
        pub fn new(stale: bool) -> Self {
            let (to_first, first) = unbounded_channel();
            let (to_second, second) = unbounded_channel();
            tokio::spawn(backup(first));
            tokio::spawn(backup(second));
            let (to_primary, mailbox) = unbounded_channel();
            tokio::spawn(primary(mailbox, vec![to_first.clone(), to_second], stale));
            Self {
                primary: to_primary,
                backup: to_first,
                stale,
            }
        }
    }

    #[invocations]
    impl TokioRegister {
        /// Writes `value`.
        #[invoke(1, 2)]
        pub async fn write(&self, value: u32) {
            let (reply, answer) = oneshot::channel();
            self.primary
                .send(Request::Write(value, reply))
                .expect("the primary runs");
            answer.await.expect("the primary replies");
        }

        /// The register's value.
        #[invoke]
        pub async fn read(&self) -> u32 {
            let (reply, answer) = oneshot::channel();
            if self.stale {
                self.backup.send(ToBackup::Read(reply)).expect("the backup runs");
            } else {
                self.primary.send(Request::Read(reply)).expect("the primary runs");
            }
            answer.await.expect("the register replies")
        }
    }
}

/// The stack against tokio. tokio has no atomics of its own (tokio code uses std's, which under
/// shuttle are shuttle's: the `shuttle` form), so a lock-free stack has no tokio form; the tokio
/// form of the same object is the stack as tokio code shares one, behind a `tokio::sync::Mutex`,
/// with the same invocations. It is not lock-free: the `native` bench's tokio line for
/// `LockFreeStack` measures this stack.
pub mod tokio_stack {
    use super::*;
    use tokio::sync::Mutex;

    /// A correct stack behind a `tokio::sync::Mutex`: `push(1)`, `push(2)`, `pop()`, `async fn`s.
    #[derive(Default)]
    pub struct TokioStack {
        items: Mutex<Vec<u32>>,
    }

    #[invocations]
    impl TokioStack {
        /// Pushes `value`.
        #[invoke(1, 2)]
        pub async fn push(&self, value: u32) {
            self.items.lock().await.push(value);
        }

        /// Pops the top value, if any.
        #[invoke]
        pub async fn pop(&self) -> Option<u32> {
            self.items.lock().await.pop()
        }
    }
}

/// A map behind shuttle's `RwLock`: `insert(1, 10)`, `insert(2, 20)`, `get(1)`.
#[derive(Default)]
pub struct RwLockMap {
    map: lineup::shuttle::sync::RwLock<HashMap<u32, u32>>,
}

#[invocations]
impl RwLockMap {
    /// Inserts `key -> key * 10`, returning the old value.
    #[invoke(1, 2)]
    pub fn insert(&self, key: u32) -> Option<u32> {
        self.map.write().unwrap().insert(key, key * 10)
    }

    /// The value of key 1.
    #[invoke]
    pub fn get(&self) -> Option<u32> {
        self.map.read().unwrap().get(&1).copied()
    }
}

/// A counter initialized once (`Once`) whose `meet` waits at a two-party `Barrier` (each thread
/// of a 2xN matrix meets the other): `meet()`, `bump()`.
pub struct BarrierOnce {
    barrier: lineup::shuttle::sync::Barrier,
    once: lineup::shuttle::sync::Once,
    count: lineup::shuttle::sync::Mutex<u32>,
}

impl Default for BarrierOnce {
    fn default() -> Self {
        Self {
            barrier: lineup::shuttle::sync::Barrier::new(2),
            once: lineup::shuttle::sync::Once::new(),
            count: lineup::shuttle::sync::Mutex::new(0),
        }
    }
}

#[invocations]
impl BarrierOnce {
    /// Waits for the other party; whether this thread led.
    #[invoke]
    pub fn meet(&self) -> bool {
        self.barrier.wait().is_leader()
    }

    /// Initializes the count to 100 once, then adds one: the new count.
    #[invoke]
    pub fn bump(&self) -> u32 {
        self.once.call_once(|| *self.count.lock().unwrap() = 100);
        let mut count = self.count.lock().unwrap();
        *count += 1;
        *count
    }
}

/// The blocking queues: `add(200)`, `add(400)`, `try_take()`, `take()`.
pub fn queues() -> (Subject<lineup_queue::LineupQueue>, Subject<shuttle_queue::ShuttleQueue>) {
    (
        Subject::of("BlockingQueue(lineup::sync)", lineup_queue::LineupQueue::default),
        Subject::of("BlockingQueue(shuttle::sync)", shuttle_queue::ShuttleQueue::default),
    )
}

/// The replicated registers (`stale`: with the stale read): `write(1)`, `write(2)`, `read()`.
pub fn registers(
    stale: bool,
) -> (
    Subject<lineup_register::LineupRegister>,
    Subject<shuttle_register::ShuttleRegister>,
) {
    (
        Subject::of("ReplicatedRegister(lineup::sync)", move || {
            lineup_register::LineupRegister::new(stale)
        }),
        Subject::of("ReplicatedRegister(shuttle::sync)", move || {
            shuttle_register::ShuttleRegister::new(stale)
        }),
    )
}

/// The lock-free stacks: `push(1)`, `push(2)`, `pop()`.
pub fn stacks() -> (Subject<lineup_stack::LineupStack>, Subject<shuttle_stack::ShuttleStack>) {
    (
        Subject::of("LockFreeStack(lineup::sync)", lineup_stack::LineupStack::default),
        Subject::of("LockFreeStack(shuttle::sync)", shuttle_stack::ShuttleStack::default),
    )
}

/// The blocking queue against tokio: `add(200)`, `add(400)`, `try_take()`, `take()`.
pub fn tokio_queue() -> Subject<tokio_queue::TokioQueue> {
    Subject::of("BlockingQueue(tokio)", tokio_queue::TokioQueue::default)
}

/// The replicated register against tokio (`stale`: with the stale read): `write(1)`,
/// `write(2)`, `read()`.
pub fn tokio_register(stale: bool) -> Subject<tokio_register::TokioRegister> {
    Subject::of("ReplicatedRegister(tokio)", move || {
        tokio_register::TokioRegister::new(stale)
    })
}

/// The stack against tokio (behind a `tokio::sync::Mutex`): `push(1)`, `push(2)`, `pop()`.
pub fn tokio_stack() -> Subject<tokio_stack::TokioStack> {
    Subject::of("LockFreeStack(tokio)", tokio_stack::TokioStack::default)
}

/// The map behind shuttle's `RwLock`: `insert(1)`, `insert(2)`, `get()`.
pub fn rwlock_map() -> Subject<RwLockMap> {
    Subject::of("RwLockMap(shuttle::sync)", RwLockMap::default)
}

/// The object on shuttle's `Barrier` and `Once`: `meet()`, `bump()`.
pub fn barrier_once() -> Subject<BarrierOnce> {
    Subject::of("BarrierOnce(shuttle::sync)", BarrierOnce::default)
}

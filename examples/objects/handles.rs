//! Objects whose operations run on per-thread handles ([`Subject::with_handles`](lineup::Subject::with_handles),
//! [`Invocation::on_handle`]) and whose one-thread operations are pinned to one thread of every
//! matrix by operation groups ([`Invocation::group`]): an SPSC ring, a work-stealing deque and an
//! MPSC channel, each a correct version and a buggy twin that behaves exactly like it serially
//! (lineup learns the specification from serial executions, so only a concurrency bug can be
//! found). `tests/handles.rs` checks that each correct one passes and each twin fails;
//! `lineup-bench -- handles` times them at default settings.
//!
//! | object | handle | group | bug of the twin |
//! |---|---|---|---|
//! | [`SpscRing`] (capacity 2) | [`RingEnds`]: a [`Producer`], a [`Consumer`] | `producer`: `push`; `consumer`: `pop` | [`SpscRingEarlyHead`]: `pop` frees the slot before it reads it |
//! | [`WorkStealingDeque`] (Chase–Lev) | [`DequeEnds`]: the [`Worker`], a [`Stealer`] | `owner`: `push`, `pop` | [`WorkStealingDequeNoCas`]: `pop` takes the last element without the CAS |
//! | [`MpscChannel`] | [`ChannelEnds`]: a [`Sender`], the [`Receiver`] | `receiver`: `try_recv`, `recv` | [`MpscChannelEarlyPublish`]: `send` publishes its slot before it writes it |
//!
//! Every handle is made by the main thread from the shared object when no operation runs (before
//! the initial operations, before the workers start, after they have all finished), so a handle
//! that caches the other side's index starts from a value that is never ahead of it.
//!
//! Shared state is `lineup::sync` atomics and mutexes only (loom's under `--cfg loom`); the
//! handles hold the object through the `std::sync::Arc` lineup hands their factory. Every access
//! is `SeqCst`, with `SeqCst` fences where the Chase–Lev deque needs them under loom (whose
//! `SeqCst` accesses are only acquire-release); the bugs of the twins need no weak memory.

use std::sync::Arc;

use lineup::sync::atomic::{fence, AtomicBool, AtomicIsize, AtomicU32, AtomicUsize, Ordering::SeqCst};
use lineup::sync::Mutex;
use lineup::{Handles, Invocation, Invocations, MatrixThread, Subject, TestMatrix};

// ---------------------------------------------------------------------------------------------
// SPSC ring
// ---------------------------------------------------------------------------------------------

/// Slots of an [`SpscRing`]: two, so that a matrix with three pushes wraps around.
pub const RING_CAPACITY: usize = 2;

/// A bounded single-producer single-consumer ring buffer in the style of `rtrb`: `tail` counts
/// the pushes (written by the producer only), `head` the pops (written by the consumer only), and
/// value `i` lives in slot `i % RING_CAPACITY`. The producer and the consumer are per-thread
/// handles ([`Producer`], [`Consumer`]), each with its own cached copy of the other side's index
/// (re-read only when the cache says the ring is full, or empty). Use [`SpscRing`] or
/// [`SpscRingEarlyHead`].
pub struct Ring<const EARLY_HEAD: bool> {
    slots: [AtomicU32; RING_CAPACITY],
    /// Values popped so far: the consumer's index.
    head: AtomicUsize,
    /// Values pushed so far: the producer's index.
    tail: AtomicUsize,
}

/// The correct ring: `pop` reads the slot, then moves `head` past it (which frees the slot for
/// the producer). `push` takes effect when it moves `tail`, `pop` when it moves `head`, a full
/// `push` or an empty `pop` when it re-reads the other side's index.
pub type SpscRing = Ring<false>;

/// A race between the producer and the consumer on wrap-around: `pop` moves `head` on *before*
/// it reads the slot, so a producer that has wrapped around can overwrite the slot before the
/// consumer reads it. Serially it behaves exactly as [`SpscRing`] (the slot is read before
/// anyone can write it again). Failing interleaving on `[push(1), push(2), push(2)] | [pop()]`:
/// the producer pushes 1 and 2 (the ring is full); the consumer moves `head` to 1 and is
/// preempted; the producer sees a free slot and writes its second 2 into slot 0; the consumer
/// reads slot 0 and `pop()` returns `Some(2)`, though 1 was pushed first and is never popped.
pub type SpscRingEarlyHead = Ring<true>;

impl<const EARLY_HEAD: bool> Default for Ring<EARLY_HEAD> {
    fn default() -> Self {
        Self {
            slots: std::array::from_fn(|_| AtomicU32::new(0)),
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
        }
    }
}

/// The producer's handle: pushes, and caches `head` (never ahead of it: `head` only grows).
pub struct Producer<const EARLY_HEAD: bool> {
    ring: Arc<Ring<EARLY_HEAD>>,
    cached_head: usize,
}

impl<const EARLY_HEAD: bool> Producer<EARLY_HEAD> {
    /// The producer of `ring`.
    pub fn new(ring: &Arc<Ring<EARLY_HEAD>>) -> Self {
        Self {
            ring: Arc::clone(ring),
            cached_head: 0,
        }
    }

    /// Appends `value`, or gives it back when the ring is full.
    pub fn push(&mut self, value: u32) -> Result<(), u32> {
        let ring = &*self.ring;
        let tail = ring.tail.load(SeqCst);
        if tail - self.cached_head >= RING_CAPACITY {
            self.cached_head = ring.head.load(SeqCst);
            if tail - self.cached_head >= RING_CAPACITY {
                return Err(value);
            }
        }
        ring.slots[tail % RING_CAPACITY].store(value, SeqCst);
        ring.tail.store(tail + 1, SeqCst);
        Ok(())
    }
}

/// The consumer's handle: pops, and caches `tail` (never ahead of it: `tail` only grows).
pub struct Consumer<const EARLY_HEAD: bool> {
    ring: Arc<Ring<EARLY_HEAD>>,
    cached_tail: usize,
}

impl<const EARLY_HEAD: bool> Consumer<EARLY_HEAD> {
    /// The consumer of `ring`.
    pub fn new(ring: &Arc<Ring<EARLY_HEAD>>) -> Self {
        Self {
            ring: Arc::clone(ring),
            cached_tail: 0,
        }
    }

    /// Removes and returns the oldest value, or `None` when the ring is empty.
    pub fn pop(&mut self) -> Option<u32> {
        let ring = &*self.ring;
        let head = ring.head.load(SeqCst);
        if head >= self.cached_tail {
            self.cached_tail = ring.tail.load(SeqCst);
            if head == self.cached_tail {
                return None;
            }
        }
        let slot = &ring.slots[head % RING_CAPACITY];
        if EARLY_HEAD {
            ring.head.store(head + 1, SeqCst); // BUG: frees the slot before reading it
            Some(slot.load(SeqCst))
        } else {
            let value = slot.load(SeqCst);
            ring.head.store(head + 1, SeqCst);
            Some(value)
        }
    }
}

/// A thread's handle on a ring: the [`Producer`] if the thread runs the group `producer`, the
/// [`Consumer`] if it runs the group `consumer` (one thread may run both).
pub struct RingEnds<const EARLY_HEAD: bool> {
    producer: Option<Producer<EARLY_HEAD>>,
    consumer: Option<Consumer<EARLY_HEAD>>,
}

impl<const EARLY_HEAD: bool> RingEnds<EARLY_HEAD> {
    /// The ends of `ring` that `thread` uses.
    pub fn new(ring: &Arc<Ring<EARLY_HEAD>>, thread: &MatrixThread) -> Self {
        Self {
            producer: thread.runs_group("producer").then(|| Producer::new(ring)),
            consumer: thread.runs_group("consumer").then(|| Consumer::new(ring)),
        }
    }

    fn producer(&mut self) -> &mut Producer<EARLY_HEAD> {
        self.producer
            .as_mut()
            .expect("push runs on the thread of group `producer`")
    }

    fn consumer(&mut self) -> &mut Consumer<EARLY_HEAD> {
        self.consumer
            .as_mut()
            .expect("pop runs on the thread of group `consumer`")
    }
}

/// `push(1)`, `push(2)` (group `producer`) and `pop()` (group `consumer`), each on the calling
/// thread's [`RingEnds`].
impl<const EARLY_HEAD: bool> Invocations for Ring<EARLY_HEAD> {
    fn invocations() -> Vec<Invocation<Self>> {
        let push = |value: u32| {
            Invocation::on_handle("push", move |_: &Self, ends: &mut RingEnds<EARLY_HEAD>| {
                ends.producer().push(value)
            })
            .arg(value)
            .group("producer")
        };
        let pop = Invocation::on_handle("pop", |_: &Self, ends: &mut RingEnds<EARLY_HEAD>| ends.consumer().pop());
        vec![push(1), push(2), pop.group("consumer")]
    }

    fn handles() -> Option<Handles<Self>> {
        Some(Handles::new(RingEnds::new))
    }
}

// ---------------------------------------------------------------------------------------------
// Work-stealing deque
// ---------------------------------------------------------------------------------------------

/// Slots of a [`WorkStealingDeque`]: more than the pushes of any matrix lineup generates (the
/// deque never grows; a push beyond it panics).
pub const DEQUE_CAPACITY: usize = 32;

/// A Chase–Lev work-stealing deque of fixed capacity: the owner pushes and pops at the bottom
/// (its [`Worker`] handle, group `owner`), any thread steals from the top (its [`Stealer`]).
/// `bottom` is written by the owner only; `top` only grows, by CAS. Use [`WorkStealingDeque`] or
/// [`WorkStealingDequeNoCas`].
pub struct Deque<const LAST_WITHOUT_CAS: bool> {
    buffer: [AtomicU32; DEQUE_CAPACITY],
    top: AtomicIsize,
    bottom: AtomicIsize,
}

/// The correct deque: the owner's `pop` takes an element other than the last one without a CAS
/// (no thief can reach it once `bottom` is moved below it), and races the thieves for the last
/// one with a CAS on `top`, as thieves do.
pub type WorkStealingDeque = Deque<false>;

/// The classic last-element race: the owner's `pop` takes the last element like any other,
/// without the CAS on `top`, so a thief that read `bottom` before the owner moved it takes the
/// same element. Serially it behaves exactly as [`WorkStealingDeque`] (nobody steals during a
/// `pop`). Failing interleaving on `[push(1), pop()] | [steal()]`: the owner pushes 1; the thief
/// reads `top` = 0, `bottom` = 1 and the element 1, and is preempted; the owner's `pop` moves
/// `bottom` to 0, reads `top` = 0, finds the last element and returns `Some(1)`; the thief's CAS
/// of `top` from 0 to 1 succeeds and `steal()` returns `Some(1)` too: one push, two takes.
pub type WorkStealingDequeNoCas = Deque<true>;

impl<const LAST_WITHOUT_CAS: bool> Default for Deque<LAST_WITHOUT_CAS> {
    fn default() -> Self {
        Self {
            buffer: std::array::from_fn(|_| AtomicU32::new(0)),
            top: AtomicIsize::new(0),
            bottom: AtomicIsize::new(0),
        }
    }
}

impl<const LAST_WITHOUT_CAS: bool> Deque<LAST_WITHOUT_CAS> {
    fn slot(&self, index: isize) -> &AtomicU32 {
        &self.buffer[index as usize % DEQUE_CAPACITY]
    }
}

/// The owner's handle: pushes and pops at the bottom.
pub struct Worker<const LAST_WITHOUT_CAS: bool> {
    deque: Arc<Deque<LAST_WITHOUT_CAS>>,
}

impl<const LAST_WITHOUT_CAS: bool> Worker<LAST_WITHOUT_CAS> {
    /// Pushes `value` at the bottom.
    pub fn push(&mut self, value: u32) {
        let deque = &*self.deque;
        let bottom = deque.bottom.load(SeqCst);
        assert!((bottom as usize) < DEQUE_CAPACITY, "deque capacity exceeded");
        deque.slot(bottom).store(value, SeqCst);
        deque.bottom.store(bottom + 1, SeqCst);
    }

    /// Pops the most recently pushed element, or `None` when the deque is empty.
    pub fn pop(&mut self) -> Option<u32> {
        let deque = &*self.deque;
        let bottom = deque.bottom.load(SeqCst) - 1;
        deque.bottom.store(bottom, SeqCst);
        fence(SeqCst);
        let top = deque.top.load(SeqCst);
        if top > bottom {
            deque.bottom.store(bottom + 1, SeqCst);
            return None;
        }
        let value = deque.slot(bottom).load(SeqCst);
        if top < bottom || LAST_WITHOUT_CAS {
            // BUG when LAST_WITHOUT_CAS and top == bottom: a thief may be taking it too.
            return Some(value);
        }
        let won = deque.top.compare_exchange(top, top + 1, SeqCst, SeqCst).is_ok();
        deque.bottom.store(bottom + 1, SeqCst);
        won.then_some(value)
    }
}

/// A thief's handle: steals the oldest element from the top.
pub struct Stealer<const LAST_WITHOUT_CAS: bool> {
    deque: Arc<Deque<LAST_WITHOUT_CAS>>,
}

impl<const LAST_WITHOUT_CAS: bool> Stealer<LAST_WITHOUT_CAS> {
    /// Takes the oldest element, or `None` when the deque is empty (a lost CAS, when another
    /// thread took that element first, tries again).
    pub fn steal(&self) -> Option<u32> {
        let deque = &*self.deque;
        loop {
            let top = deque.top.load(SeqCst);
            fence(SeqCst);
            let bottom = deque.bottom.load(SeqCst);
            if top >= bottom {
                return None;
            }
            let value = deque.slot(top).load(SeqCst);
            if deque.top.compare_exchange(top, top + 1, SeqCst, SeqCst).is_ok() {
                return Some(value);
            }
        }
    }
}

/// A thread's handle on a deque: the [`Worker`] if the thread runs the group `owner`, and a
/// [`Stealer`] on every thread.
pub struct DequeEnds<const LAST_WITHOUT_CAS: bool> {
    worker: Option<Worker<LAST_WITHOUT_CAS>>,
    stealer: Stealer<LAST_WITHOUT_CAS>,
}

impl<const LAST_WITHOUT_CAS: bool> DequeEnds<LAST_WITHOUT_CAS> {
    /// The ends of `deque` that `thread` uses.
    pub fn new(deque: &Arc<Deque<LAST_WITHOUT_CAS>>, thread: &MatrixThread) -> Self {
        Self {
            worker: thread.runs_group("owner").then(|| Worker {
                deque: Arc::clone(deque),
            }),
            stealer: Stealer {
                deque: Arc::clone(deque),
            },
        }
    }

    fn worker(&mut self) -> &mut Worker<LAST_WITHOUT_CAS> {
        self.worker
            .as_mut()
            .expect("push and pop run on the thread of group `owner`")
    }
}

/// `push(1)`, `push(2)`, `pop()` (group `owner`) and `steal()` (any thread), each on the calling
/// thread's [`DequeEnds`].
impl<const LAST_WITHOUT_CAS: bool> Invocations for Deque<LAST_WITHOUT_CAS> {
    fn invocations() -> Vec<Invocation<Self>> {
        let push = |value: u32| {
            Invocation::on_handle("push", move |_: &Self, ends: &mut DequeEnds<LAST_WITHOUT_CAS>| {
                ends.worker().push(value)
            })
            .arg(value)
            .group("owner")
        };
        vec![
            push(1),
            push(2),
            Invocation::on_handle("pop", |_: &Self, ends: &mut DequeEnds<LAST_WITHOUT_CAS>| {
                ends.worker().pop()
            })
            .group("owner"),
            Invocation::on_handle("steal", |_: &Self, ends: &mut DequeEnds<LAST_WITHOUT_CAS>| {
                ends.stealer.steal()
            }),
        ]
    }

    fn handles() -> Option<Handles<Self>> {
        Some(Handles::new(DequeEnds::new))
    }
}

// ---------------------------------------------------------------------------------------------
// MPSC channel
// ---------------------------------------------------------------------------------------------

/// Slots of an [`MpscChannel`]: more than the sends of any matrix lineup generates (a send
/// beyond it panics).
pub const CHANNEL_CAPACITY: usize = 32;

/// One message slot: the value, and whether it has been written.
struct Slot {
    value: AtomicU32,
    written: AtomicBool,
}

/// What the senders and the receiver share: `claimed` counts the slots senders have claimed
/// (each claims the next slot with a `fetch_add`, then writes it and marks it written).
pub struct Shared<const EARLY_PUBLISH: bool> {
    slots: [Slot; CHANNEL_CAPACITY],
    claimed: AtomicUsize,
}

/// A multi-producer single-consumer channel: any thread sends through its [`Sender`]; one
/// [`Receiver`] exists, and it is moved into the handle of the thread that runs the group
/// `receiver` (and back into the channel when that thread's handle is dropped, for the next
/// thread of an execution that runs the group: the initial operations', then a worker's, then the
/// final operations'). Use [`MpscChannel`] or [`MpscChannelEarlyPublish`].
pub struct Channel<const EARLY_PUBLISH: bool> {
    shared: Arc<Shared<EARLY_PUBLISH>>,
    receiver: Mutex<Option<Receiver<EARLY_PUBLISH>>>,
}

/// The correct channel: a sender claims a slot, writes the value, then marks the slot written;
/// the receiver, finding a slot claimed (below `claimed`), waits for it to be written (as
/// crossbeam's list channel does). A `send` takes effect when it claims its slot, a `try_recv`
/// that returns `None` when it reads `claimed`.
pub type MpscChannel = Channel<false>;

/// A race between the senders and the receiver: a sender marks its slot written *before* it
/// writes the value, so the receiver can take the slot while it still holds 0, a value nobody
/// sent. Serially it behaves exactly as [`MpscChannel`]. Failing interleaving on
/// `[send(1)] | [try_recv()]`: the sender claims slot 0 and marks it written, and is preempted;
/// the receiver finds slot 0 claimed and written and `try_recv()` returns `Some(0)`.
pub type MpscChannelEarlyPublish = Channel<true>;

impl<const EARLY_PUBLISH: bool> Default for Channel<EARLY_PUBLISH> {
    fn default() -> Self {
        let shared = Arc::new(Shared {
            slots: std::array::from_fn(|_| Slot {
                value: AtomicU32::new(0),
                written: AtomicBool::new(false),
            }),
            claimed: AtomicUsize::new(0),
        });
        Self {
            receiver: Mutex::new(Some(Receiver {
                shared: Arc::clone(&shared),
                head: 0,
            })),
            shared,
        }
    }
}

/// A sender: any number of them, one per thread.
pub struct Sender<const EARLY_PUBLISH: bool> {
    shared: Arc<Shared<EARLY_PUBLISH>>,
}

impl<const EARLY_PUBLISH: bool> Sender<EARLY_PUBLISH> {
    /// Sends `value` (never 0).
    pub fn send(&self, value: u32) {
        assert_ne!(value, 0, "0 marks an unwritten slot");
        let shared = &*self.shared;
        let index = shared.claimed.fetch_add(1, SeqCst);
        assert!(index < CHANNEL_CAPACITY, "channel capacity exceeded");
        let slot = &shared.slots[index];
        if EARLY_PUBLISH {
            slot.written.store(true, SeqCst); // BUG: the receiver may read the slot now
            slot.value.store(value, SeqCst);
        } else {
            slot.value.store(value, SeqCst);
            slot.written.store(true, SeqCst);
        }
    }
}

/// The one receiver; its read index is its own.
pub struct Receiver<const EARLY_PUBLISH: bool> {
    shared: Arc<Shared<EARLY_PUBLISH>>,
    head: usize,
}

impl<const EARLY_PUBLISH: bool> Receiver<EARLY_PUBLISH> {
    /// Takes the oldest value sent, or `None` when no send has claimed a slot the receiver has
    /// not taken yet (a claimed slot is waited for).
    pub fn try_recv(&mut self) -> Option<u32> {
        let shared = &*self.shared;
        if self.head == shared.claimed.load(SeqCst) {
            return None;
        }
        let slot = &shared.slots[self.head];
        while !slot.written.load(SeqCst) {
            lineup::hint::spin_loop();
        }
        self.head += 1;
        Some(slot.value.load(SeqCst))
    }

    /// Takes the oldest value sent, waiting (spinning) until there is one: on a channel that
    /// stays empty it never returns (lineup sees a livelock, and the serial executions show it
    /// blocking too).
    pub fn recv(&mut self) -> u32 {
        loop {
            if let Some(value) = self.try_recv() {
                return value;
            }
            lineup::hint::spin_loop();
        }
    }
}

/// A thread's handle on a channel: its own [`Sender`], and the [`Receiver`] if the thread runs
/// the group `receiver`, which it gives back to the channel when it is dropped.
pub struct ChannelEnds<const EARLY_PUBLISH: bool> {
    channel: Arc<Channel<EARLY_PUBLISH>>,
    sender: Sender<EARLY_PUBLISH>,
    receiver: Option<Receiver<EARLY_PUBLISH>>,
}

impl<const EARLY_PUBLISH: bool> ChannelEnds<EARLY_PUBLISH> {
    /// The ends of `channel` that `thread` uses.
    pub fn new(channel: &Arc<Channel<EARLY_PUBLISH>>, thread: &MatrixThread) -> Self {
        let receiver = thread.runs_group("receiver").then(|| {
            let taken = channel.receiver.lock().unwrap().take();
            taken.expect("one thread at a time runs the group `receiver`")
        });
        Self {
            channel: Arc::clone(channel),
            sender: Sender {
                shared: Arc::clone(&channel.shared),
            },
            receiver,
        }
    }

    fn receiver(&mut self) -> &mut Receiver<EARLY_PUBLISH> {
        self.receiver
            .as_mut()
            .expect("try_recv and recv run on the thread of group `receiver`")
    }
}

impl<const EARLY_PUBLISH: bool> Drop for ChannelEnds<EARLY_PUBLISH> {
    fn drop(&mut self) {
        if let Some(receiver) = self.receiver.take() {
            *self.channel.receiver.lock().unwrap() = Some(receiver);
        }
    }
}

/// `send(1)`, `send(2)` (any thread), `try_recv()` and `recv()` (group `receiver`), each on the
/// calling thread's [`ChannelEnds`].
impl<const EARLY_PUBLISH: bool> Invocations for Channel<EARLY_PUBLISH> {
    fn invocations() -> Vec<Invocation<Self>> {
        let send = |value: u32| {
            Invocation::on_handle("send", move |_: &Self, ends: &mut ChannelEnds<EARLY_PUBLISH>| {
                ends.sender.send(value)
            })
            .arg(value)
        };
        vec![
            send(1),
            send(2),
            Invocation::on_handle("try_recv", move |_: &Self, ends: &mut ChannelEnds<EARLY_PUBLISH>| {
                ends.receiver().try_recv()
            })
            .group("receiver"),
            Invocation::on_handle("recv", move |_: &Self, ends: &mut ChannelEnds<EARLY_PUBLISH>| {
                ends.receiver().recv()
            })
            .group("receiver"),
        ]
    }

    fn handles() -> Option<Handles<Self>> {
        Some(Handles::new(ChannelEnds::new))
    }
}

/// The matrix of `subject` whose worker columns name its invocations by label (`push(1)`), for
/// the tests.
///
/// # Panics
///
/// On a label that is not one of the subject's.
pub fn matrix_of<O>(subject: &Subject<O>, columns: &[&[&str]]) -> TestMatrix {
    let labels: Vec<String> = subject.labels().iter().map(ToString::to_string).collect();
    let index = |label: &&str| {
        labels
            .iter()
            .position(|l| l == label)
            .unwrap_or_else(|| panic!("`{label}` is not an invocation of {}", subject.name()))
    };
    TestMatrix::new(columns.iter().map(|c| c.iter().map(index).collect()).collect())
}

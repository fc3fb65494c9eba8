//! A multi-producer single-consumer queue: any thread may `push`, only one thread may `pop`
//! (the consumer owns the head and moves it with a plain load and store, no CAS). Its `pop` is in
//! the operation group `consumer` (`#[invoke(group = "consumer")]`), so every matrix lineup
//! generates runs the `pop`s on one thread; without the group, a matrix with two consumers
//! makes them take the same value, which the object forbids rather than gets wrong.
//!
//! Slot `i` holds the `i`-th pushed value, or [`EMPTY`] while nobody has written it. Producers
//! take a lock, write the slot at `tail`, then move `tail` on: a slot below `tail` is written.
//! The consumer reads `tail`, and if `head` is below it, takes the slot at `head` and moves
//! `head` on.

use lineup::sync::atomic::{AtomicU32, AtomicUsize, Ordering::SeqCst};
use lineup::sync::Mutex;

/// A slot nobody has written yet (0 is never pushed).
pub const EMPTY: u32 = 0;

/// Slots of one queue: more than the pushes of any matrix the deepening stages reach.
const CAPACITY: usize = 64;

/// The queue; `PUBLISH_EARLY` plants a bug between producers and the consumer. Use
/// [`SingleConsumerQueue`] or [`SingleConsumerQueueEarlyTail`].
pub struct MpscQueue<const PUBLISH_EARLY: bool> {
    slots: [AtomicU32; CAPACITY],
    /// The next slot to write; producers move it on under `producers`.
    tail: AtomicUsize,
    producers: Mutex<()>,
    /// The next slot to read: the consumer's own, loaded and stored without a CAS, so two
    /// threads that pop at once can both take the slot at `head`.
    head: AtomicUsize,
}

/// The correct single-consumer queue: a producer writes its slot before it moves `tail` past
/// it. Linearizable as long as one thread pops (a push takes effect when it moves `tail`, a
/// pop when it reads `tail`); two concurrent `pop`s can return the same value.
pub type SingleConsumerQueue = MpscQueue<false>;

/// A real bug between the producers and the consumer, which one consumer thread does not hide:
/// a producer moves `tail` before it writes the slot, so the consumer can take the slot while it
/// is still [`EMPTY`] (`[push(1)] | [pop()]` returns `Some(0)`, a value nobody pushed). Serially
/// it behaves exactly as [`SingleConsumerQueue`].
pub type SingleConsumerQueueEarlyTail = MpscQueue<true>;

impl<const PUBLISH_EARLY: bool> Default for MpscQueue<PUBLISH_EARLY> {
    fn default() -> Self {
        Self {
            slots: std::array::from_fn(|_| AtomicU32::new(EMPTY)),
            tail: AtomicUsize::new(0),
            producers: Mutex::new(()),
            head: AtomicUsize::new(0),
        }
    }
}

#[lineup::invocations]
impl<const PUBLISH_EARLY: bool> MpscQueue<PUBLISH_EARLY> {
    /// Appends `value` (not [`EMPTY`]); any thread may push.
    #[invoke(1, 2)]
    pub fn push(&self, value: u32) {
        assert_ne!(value, EMPTY, "0 marks an unwritten slot");
        let _producers = self.producers.lock().unwrap();
        let tail = self.tail.load(SeqCst);
        assert!(tail < CAPACITY, "queue capacity exceeded");
        if PUBLISH_EARLY {
            self.tail.store(tail + 1, SeqCst);
            self.slots[tail].store(value, SeqCst);
        } else {
            self.slots[tail].store(value, SeqCst);
            self.tail.store(tail + 1, SeqCst);
        }
    }

    /// Removes and returns the oldest value, or `None` if the queue is empty. Only one thread
    /// may pop: the operation group `consumer`.
    #[invoke(group = "consumer")]
    pub fn pop(&self) -> Option<u32> {
        let head = self.head.load(SeqCst);
        if head == self.tail.load(SeqCst) {
            return None;
        }
        let value = self.slots[head].load(SeqCst);
        self.head.store(head + 1, SeqCst);
        Some(value)
    }
}

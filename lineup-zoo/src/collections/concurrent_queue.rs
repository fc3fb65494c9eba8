//! `ConcurrentQueue`: a lock-free FIFO queue in the style of .NET's segment queue, over a
//! preallocated array of slots that are written once and never reused (so there is no ABA).
//!
//! Slot `i` holds the `i`-th enqueued value, or [`EMPTY`] while nobody has written it. Slots are
//! written in index order: an enqueuer claims the slot at `tail` with a CAS and then moves `tail`
//! on (helping a slower enqueuer if its own CAS lost). `head` is the index of the oldest value not
//! yet dequeued; it only moves past a written slot, so an unwritten slot at `head` means the queue
//! is empty at the moment the slot is read.

use lineup::sync::atomic::{AtomicU32, AtomicUsize, Ordering::SeqCst};

/// A slot nobody has written yet (0 is never enqueued).
pub const EMPTY: u32 = 0;

/// Slots of one queue: more than the enqueues of any test matrix (3x3 at most 9).
const CAPACITY: usize = 32;

/// The lock-free queue; `GIVE_UP` plants bug B. Use [`ConcurrentQueue`] or
/// [`ConcurrentQueuePre`].
pub struct LockFreeQueue<const GIVE_UP: bool> {
    slots: [AtomicU32; CAPACITY],
    head: AtomicUsize,
    tail: AtomicUsize,
}

/// The correct queue: `enqueue` appends, `try_dequeue` removes the oldest value (retrying when it
/// loses the race for the head to another dequeuer), `try_peek`, `count`, `is_empty` and
/// `to_array` read a consistent snapshot (`count` and `to_array` re-read `head` after scanning
/// and retry if it moved).
pub type ConcurrentQueue = LockFreeQueue<false>;

/// Root cause B, after the .NET 4.0 preview (`ConcurrentQueue(Pre)`, the paper's Fig. 1):
/// `try_dequeue` gives up and reports an empty queue when its CAS on `head` fails, i.e. when a
/// concurrent dequeuer took the oldest value first, although the queue may still hold values.
/// Serially the CAS never fails, so every serial history is right; concurrently, two dequeuers
/// of a queue holding two values can see one of them fail (`[enqueue(10), try_dequeue()] |
/// [enqueue(20), try_dequeue()]`), a full history without serial witness.
pub type ConcurrentQueuePre = LockFreeQueue<true>;

impl<const GIVE_UP: bool> Default for LockFreeQueue<GIVE_UP> {
    fn default() -> Self {
        Self {
            slots: std::array::from_fn(|_| AtomicU32::new(EMPTY)),
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
        }
    }
}

impl<const GIVE_UP: bool> LockFreeQueue<GIVE_UP> {
    fn slot(&self, index: usize) -> u32 {
        self.slots.get(index).map_or(EMPTY, |slot| slot.load(SeqCst))
    }

    /// The values from the head on, read at one moment: scans the written slots from `head`
    /// and retries if `head` moved meanwhile.
    fn snapshot(&self) -> Vec<u32> {
        loop {
            let head = self.head.load(SeqCst);
            let values: Vec<u32> = (head..).map(|i| self.slot(i)).take_while(|&v| v != EMPTY).collect();
            if self.head.load(SeqCst) == head {
                return values;
            }
        }
    }
}

#[lineup::invocations]
impl<const GIVE_UP: bool> LockFreeQueue<GIVE_UP> {
    /// Appends `value` (not [`EMPTY`]).
    #[invoke(10, 20)]
    pub fn enqueue(&self, value: u32) {
        assert_ne!(value, EMPTY, "0 marks an unwritten slot");
        loop {
            let tail = self.tail.load(SeqCst);
            assert!(tail < CAPACITY, "queue capacity exceeded");
            let won = self.slots[tail].compare_exchange(EMPTY, value, SeqCst, SeqCst).is_ok();
            // The slot is written now (by us or by a faster enqueuer): move the tail past it.
            let _ = self.tail.compare_exchange(tail, tail + 1, SeqCst, SeqCst);
            if won {
                return;
            }
        }
    }

    /// Removes and returns the oldest value, `None` if the queue is empty.
    #[invoke]
    pub fn try_dequeue(&self) -> Option<u32> {
        loop {
            let head = self.head.load(SeqCst);
            let value = self.slot(head);
            if value == EMPTY {
                return None;
            }
            if self.head.compare_exchange(head, head + 1, SeqCst, SeqCst).is_ok() {
                return Some(value);
            }
            if GIVE_UP {
                // BUG B: losing the race for the head is not an empty queue.
                return None;
            }
        }
    }

    /// The oldest value without removing it.
    #[invoke]
    pub fn try_peek(&self) -> Option<u32> {
        let value = self.slot(self.head.load(SeqCst));
        (value != EMPTY).then_some(value)
    }

    /// The number of values.
    #[invoke]
    pub fn count(&self) -> usize {
        self.snapshot().len()
    }

    /// Whether the queue is empty.
    #[invoke]
    pub fn is_empty(&self) -> bool {
        self.try_peek().is_none()
    }

    /// The values, oldest first.
    #[invoke]
    pub fn to_array(&self) -> Vec<u32> {
        self.snapshot()
    }
}

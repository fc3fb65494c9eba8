//! `BlockingCollection`: an unbounded FIFO collection whose `take` waits while the collection is
//! empty, with `complete_adding`: afterwards `add` fails, and `take` on an empty collection
//! fails instead of waiting. One lock guards the items and the completion flag; a condition
//! variable wakes waiting takers.

use std::collections::VecDeque;

use lineup::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use lineup::sync::{Condvar, Mutex};

/// The error of `add` after `complete_adding`, and of `take` on an empty, completed collection
/// (.NET throws `InvalidOperationException`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddingCompleted;

/// Bug D: `take` releases the lock between its emptiness check and its wait.
pub const LOST_WAKE_UP: u8 = 1;
/// Intentional nondeterminism H: `count` reads two counters without a common snapshot.
pub const STALE_COUNT: u8 = 2;
/// Intentional nondeterminism I: `try_take` gives up when the lock is busy.
pub const TRY_TAKE_GIVES_UP: u8 = 4;
/// Intentional non-linearizability K: `complete_adding` does not wake waiting takers.
pub const DEFERRED_COMPLETION: u8 = 8;

/// The collection with the planted defects `DEFECTS` (a set of the flags above). Use
/// [`BlockingCollection`], [`BlockingCollectionPre`] or [`BlockingCollectionBeta2`].
#[derive(Default)]
pub struct BlockingCollectionImpl<const DEFECTS: u8> {
    state: Mutex<State>,
    changed: Condvar,
    /// Values added and removed so far, updated under the lock and read without it, with
    /// [`STALE_COUNT`] only.
    added: AtomicUsize,
    removed: AtomicUsize,
}

#[derive(Default)]
struct State {
    items: VecDeque<u32>,
    adding_completed: bool,
}

/// The correct collection: every operation decides under the lock; `take` waits on the
/// condition variable (which releases the lock atomically) and re-checks after every wake-up;
/// `add` and `complete_adding` wake every waiting taker.
pub type BlockingCollection = BlockingCollectionImpl<0>;

/// `BlockingCollection(Pre)`: root causes D and K.
///
/// Bug D (invented; the paper reports a stuck history of the preview with a 2x2 test): `take`
/// checks for an item under the lock, releases the lock, and only then takes it again to wait
/// for a wake-up, without checking again. An `add` in that window notifies nobody, and the
/// taker then waits for ever although the collection holds an item: a stuck history without
/// stuck serial witness (serially nothing runs in the window, and a serial `take` blocks only
/// on an empty collection). `[take()] | [add(10)]` shows it.
///
/// Intentional non-linearizability K as in [`BlockingCollectionBeta2`].
pub type BlockingCollectionPre = BlockingCollectionImpl<{ LOST_WAKE_UP | DEFERRED_COMPLETION }>;

/// `BlockingCollection` as the paper tested it (.NET 4.0 beta 2): root causes H, I and K,
/// documented behaviour rather than bugs.
///
/// Intentional nondeterminism H: `count` does not take the lock; it reads the number of values
/// added and then the number removed (each counter is updated under the lock), so values added
/// and removed between the two reads make it too small: `[add(10), count()] | [add(20),
/// try_take()]` can count 0 while 20 is in the collection (documented: `count` is a moment's
/// estimate). Line-Up reports a full history without serial witness.
///
/// Intentional nondeterminism I: `try_take` does not wait for a busy lock; it fails as if the
/// collection were empty (documented: `try_take` may fail while other threads use the
/// collection). `[add(10), try_take()] | [add(20)]` can see it fail after its own `add`.
///
/// Intentional non-linearizability K: `complete_adding` only sets the flag; takers already
/// waiting are not woken by it, and the completion takes effect on them only when something else
/// wakes them, well after `complete_adding` returned (in .NET, the cancellation of a waiting
/// take). With no more adds they wait for ever: `[take()] | [complete_adding()]` has a stuck
/// history without stuck serial witness (serially, `take` after `complete_adding` fails at
/// once).
pub type BlockingCollectionBeta2 = BlockingCollectionImpl<{ STALE_COUNT | TRY_TAKE_GIVES_UP | DEFERRED_COMPLETION }>;

impl<const DEFECTS: u8> BlockingCollectionImpl<DEFECTS> {
    fn has(flag: u8) -> bool {
        DEFECTS & flag != 0
    }

    fn pop(&self, state: &mut State) -> Option<u32> {
        let value = state.items.pop_front()?;
        if Self::has(STALE_COUNT) {
            self.removed.fetch_add(1, SeqCst);
        }
        Some(value)
    }

    /// Whether `complete_adding` has been called (not an invocation).
    pub fn is_adding_completed(&self) -> bool {
        self.state.lock().unwrap().adding_completed
    }

    /// `add` that reports the failure as `false` (not an invocation).
    pub fn try_add(&self, value: u32) -> bool {
        self.add(value).is_ok()
    }
}

#[lineup::invocations]
impl<const DEFECTS: u8> BlockingCollectionImpl<DEFECTS> {
    /// Appends `value`, or fails after `complete_adding`.
    #[invoke(10, 20)]
    pub fn add(&self, value: u32) -> Result<(), AddingCompleted> {
        let mut state = self.state.lock().unwrap();
        if state.adding_completed {
            return Err(AddingCompleted);
        }
        state.items.push_back(value);
        if Self::has(STALE_COUNT) {
            self.added.fetch_add(1, SeqCst);
        }
        drop(state);
        self.changed.notify_all();
        Ok(())
    }

    /// Removes and returns the oldest value, waiting while the collection is empty; fails when
    /// it is empty and adding is completed.
    #[invoke]
    pub fn take(&self) -> Result<u32, AddingCompleted> {
        let mut state = self.state.lock().unwrap();
        loop {
            if let Some(value) = self.pop(&mut state) {
                return Ok(value);
            }
            if state.adding_completed {
                return Err(AddingCompleted);
            }
            if Self::has(LOST_WAKE_UP) {
                // BUG D: a wake-up sent between these two lines is lost.
                drop(state);
                state = self.state.lock().unwrap();
            }
            state = self.changed.wait(state).unwrap();
        }
    }

    /// Removes and returns the oldest value, `None` if the collection is empty.
    #[invoke]
    pub fn try_take(&self) -> Option<u32> {
        let mut state = if Self::has(TRY_TAKE_GIVES_UP) {
            // I: a busy lock is reported as an empty collection.
            self.state.try_lock().ok()?
        } else {
            self.state.lock().unwrap()
        };
        self.pop(&mut state)
    }

    /// The number of values.
    #[invoke]
    pub fn count(&self) -> usize {
        if Self::has(STALE_COUNT) {
            // H: two reads, no snapshot.
            let added = self.added.load(SeqCst);
            return added.saturating_sub(self.removed.load(SeqCst));
        }
        self.state.lock().unwrap().items.len()
    }

    /// Marks the collection as complete for adding and wakes waiting takers.
    #[invoke]
    pub fn complete_adding(&self) {
        self.state.lock().unwrap().adding_completed = true;
        if !Self::has(DEFERRED_COMPLETION) {
            self.changed.notify_all();
        }
    }

    /// Whether adding is completed and the collection is empty.
    #[invoke]
    pub fn is_completed(&self) -> bool {
        let state = self.state.lock().unwrap();
        state.adding_completed && state.items.is_empty()
    }
}

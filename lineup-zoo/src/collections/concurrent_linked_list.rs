//! `ConcurrentLinkedList`: a deque with its two ends under two locks. The list is
//! `reverse(front) ++ back`: `add_first` pushes on `front` (front lock only), `add_last` on
//! `back` (back lock only). An operation that may need both halves takes both locks, always
//! front before back.

use lineup::sync::Mutex;

/// The deque; `PRE` plants bug C. Use [`ConcurrentLinkedList`] or [`ConcurrentLinkedListPre`].
#[derive(Default)]
pub struct TwoLockList<const PRE: bool> {
    /// The first half, reversed: its last element is the first of the list.
    front: Mutex<Vec<u32>>,
    /// The second half: its last element is the last of the list.
    back: Mutex<Vec<u32>>,
}

/// The correct list: `remove_last` holds both locks (front, then back) while it decides where
/// the last element is and removes it, as `remove_first` does when the front half is empty.
pub type ConcurrentLinkedList = TwoLockList<false>;

/// Root cause C (`ConcurrentLinkedList(Pre)`; the bug is invented after the paper's report of a
/// linked-list bug found with a 2x2 test): `remove_last` first takes only the back lock; when
/// the back half is empty it releases that lock (to respect the front-before-back lock order),
/// takes the front lock and removes the oldest element of the front half without looking at the
/// back half again. An `add_last` in that window is skipped: `remove_last` returns the element
/// before it, and a `count` in the window sees both. Serially nothing runs in the window, so
/// every serial history is right; `[add_first(10), remove_last()] | [add_last(20), count()]`
/// has a full history without serial witness (`count` = 2, then `remove_last` = 10).
pub type ConcurrentLinkedListPre = TwoLockList<true>;

#[lineup::invocations]
impl<const PRE: bool> TwoLockList<PRE> {
    /// Inserts `value` at the front.
    #[invoke(10)]
    pub fn add_first(&self, value: u32) {
        self.front.lock().unwrap().push(value);
    }

    /// Appends `value` at the back.
    #[invoke(20)]
    pub fn add_last(&self, value: u32) {
        self.back.lock().unwrap().push(value);
    }

    /// Removes and returns the first element.
    #[invoke]
    pub fn remove_first(&self) -> Option<u32> {
        let mut front = self.front.lock().unwrap();
        if let Some(value) = front.pop() {
            return Some(value);
        }
        let mut back = self.back.lock().unwrap();
        (!back.is_empty()).then(|| back.remove(0))
    }

    /// Removes and returns the last element.
    #[invoke]
    pub fn remove_last(&self) -> Option<u32> {
        if PRE {
            if let Some(value) = self.back.lock().unwrap().pop() {
                return Some(value);
            }
            // BUG C: the back lock is released here; an add_last now goes unnoticed.
            let mut front = self.front.lock().unwrap();
            return (!front.is_empty()).then(|| front.remove(0));
        }
        let mut front = self.front.lock().unwrap();
        let mut back = self.back.lock().unwrap();
        back.pop().or_else(|| (!front.is_empty()).then(|| front.remove(0)))
    }

    /// The number of elements.
    #[invoke]
    pub fn count(&self) -> usize {
        let front = self.front.lock().unwrap();
        let back = self.back.lock().unwrap();
        front.len() + back.len()
    }
}

//! `ConcurrentBag`: an unordered collection made of one list per thread, as in .NET. `add`
//! appends to the calling thread's own list (created at its first `add`); `try_take` and
//! `try_peek` use the newest value of the caller's own list and otherwise *steal* the oldest
//! value of the first non-empty list of another thread, in the order the lists were created.
//! Which value a `try_take` returns thus depends on the calling thread, which Line-Up's histories
//! record, so a correct bag is deterministic.

use std::collections::VecDeque;

use lineup::shuttle::thread::{self, ThreadId};
use lineup::sync::Mutex;

/// The correct bag: the per-thread lists live under one lock, which every operation holds
/// throughout (the lock also orders the creation of lists, so the steal order agrees with the
/// order of operations).
#[derive(Default)]
pub struct ConcurrentBag {
    lists: Mutex<Vec<(ThreadId, VecDeque<u32>)>>,
}

#[lineup::invocations]
impl ConcurrentBag {
    /// Adds `value` to the caller's list.
    #[invoke(10, 20)]
    pub fn add(&self, value: u32) {
        let me = thread::current().id();
        let mut lists = self.lists.lock().unwrap();
        match lists.iter_mut().find(|(owner, _)| *owner == me) {
            Some((_, list)) => list.push_back(value),
            None => lists.push((me, VecDeque::from([value]))),
        }
    }

    /// Removes the newest value of the caller's list, or steals the oldest of another.
    #[invoke]
    pub fn try_take(&self) -> Option<u32> {
        let me = thread::current().id();
        let mut lists = self.lists.lock().unwrap();
        if let Some(value) = lists.iter_mut().find(|(o, _)| *o == me).and_then(|(_, l)| l.pop_back()) {
            return Some(value);
        }
        lists.iter_mut().find_map(|(_, list)| list.pop_front())
    }

    /// The value `try_take` would remove.
    #[invoke]
    pub fn try_peek(&self) -> Option<u32> {
        let me = thread::current().id();
        let lists = self.lists.lock().unwrap();
        if let Some(value) = lists.iter().find(|(o, _)| *o == me).and_then(|(_, l)| l.back()) {
            return Some(*value);
        }
        lists.iter().find_map(|(_, list)| list.front().copied())
    }

    /// The number of values.
    #[invoke]
    pub fn count(&self) -> usize {
        self.lists.lock().unwrap().iter().map(|(_, list)| list.len()).sum()
    }

    /// Whether the bag is empty.
    #[invoke]
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }
}

/// Bug E: a steal reads the victim's oldest value and removes it in two critical sections.
pub const SPLIT_STEAL: u8 = 1;
/// Intentional nondeterminism J: `try_take` and `try_peek` skip lists whose lock is busy.
pub const SKIP_BUSY_LISTS: u8 = 2;

/// Lists of one [`StealingBag`]: the main thread and three workers.
const MAX_LISTS: usize = 4;

/// A bag with one lock per list, as .NET has, and the planted defects `DEFECTS` (a set of the
/// flags above); operations lock one list at a time. Use [`ConcurrentBagPre`] or
/// [`ConcurrentBagBeta2`].
#[derive(Default)]
pub struct StealingBag<const DEFECTS: u8> {
    /// The owners of the lists, in creation order.
    owners: Mutex<Vec<ThreadId>>,
    lists: [Mutex<VecDeque<u32>>; MAX_LISTS],
}

/// `ConcurrentBag(Pre)`: root causes E and J.
///
/// Bug E (invented; the paper reports a bug of the preview's bag found with a 2x2 test): to keep
/// the victim's lock short, a steal reads the victim's oldest value under the lock, releases it,
/// and removes "that" value in a second critical section without checking it is still there. If
/// the owner took it meanwhile, both return the same value (and if the owner's list had
/// changed otherwise, another value is lost). Serially nothing runs between the two critical
/// sections; `[add(10), try_take()] | [try_take()]` can return 10 twice.
///
/// Intentional nondeterminism J as in [`ConcurrentBagBeta2`].
pub type ConcurrentBagPre = StealingBag<{ SPLIT_STEAL | SKIP_BUSY_LISTS }>;

/// `ConcurrentBag` as the paper tested it (.NET 4.0 beta 2): intentional nondeterminism J, the
/// documented "`TryTake` may remove any element". `try_take` and `try_peek` do not wait for a
/// list whose lock another thread holds (a stealer, or a `count`): they skip it, even the
/// caller's own, and go on to the next list; and `count` adds up the lists one at a time. So a
/// `try_take` can steal another thread's value, or fail, while its own list holds one:
/// `[add(10), try_take()] | [add(20), count()]` can see `try_take` in thread A return 20 or
/// `None` while `count` returns 2, which no serial order gives (in a serial run every lock is
/// free). Line-Up reports a full history without serial witness.
pub type ConcurrentBagBeta2 = StealingBag<SKIP_BUSY_LISTS>;

impl<const DEFECTS: u8> StealingBag<DEFECTS> {
    fn has(flag: u8) -> bool {
        DEFECTS & flag != 0
    }

    /// The caller's list and how many lists there are, creating the caller's list if `create`.
    fn own_list(&self, create: bool) -> (Option<usize>, usize) {
        let me = thread::current().id();
        let mut owners = self.owners.lock().unwrap();
        let own = match owners.iter().position(|owner| *owner == me) {
            Some(index) => Some(index),
            None if create => {
                assert!(owners.len() < MAX_LISTS, "more threads than lists");
                owners.push(me);
                Some(owners.len() - 1)
            }
            None => None,
        };
        (own, owners.len())
    }

    /// Locks list `index`, or with [`SKIP_BUSY_LISTS`] gives up if it is busy.
    fn lock_list(&self, index: usize) -> Option<lineup::sync::MutexGuard<'_, VecDeque<u32>>> {
        if Self::has(SKIP_BUSY_LISTS) {
            self.lists[index].try_lock().ok()
        } else {
            Some(self.lists[index].lock().unwrap())
        }
    }

    /// Takes (or with `remove == false` reads) the newest value of the caller's list or the
    /// oldest of another list.
    fn take_or_peek(&self, remove: bool) -> Option<u32> {
        let (own, lists) = self.own_list(false);
        if let Some(mut list) = own.and_then(|index| self.lock_list(index)) {
            let value = if remove { list.pop_back() } else { list.back().copied() };
            if value.is_some() {
                return value;
            }
        }
        for victim in (0..lists).filter(|&index| Some(index) != own) {
            let Some(mut list) = self.lock_list(victim) else {
                continue;
            };
            if !remove {
                match list.front() {
                    Some(&value) => return Some(value),
                    None => continue,
                }
            }
            if Self::has(SPLIT_STEAL) {
                let Some(&value) = list.front() else { continue };
                drop(list);
                // BUG E: the owner may have taken `value` in between.
                self.lists[victim].lock().unwrap().pop_front();
                return Some(value);
            }
            if let Some(value) = list.pop_front() {
                return Some(value);
            }
        }
        None
    }
}

#[lineup::invocations]
impl<const DEFECTS: u8> StealingBag<DEFECTS> {
    /// Adds `value` to the caller's list.
    #[invoke(10, 20)]
    pub fn add(&self, value: u32) {
        let (own, _) = self.own_list(true);
        let own = own.expect("created");
        self.lists[own].lock().unwrap().push_back(value);
    }

    /// Removes the newest value of the caller's list, or steals the oldest of another.
    #[invoke]
    pub fn try_take(&self) -> Option<u32> {
        self.take_or_peek(true)
    }

    /// The value `try_take` would remove.
    #[invoke]
    pub fn try_peek(&self) -> Option<u32> {
        self.take_or_peek(false)
    }

    /// The number of values, adding up the lists one at a time.
    #[invoke]
    pub fn count(&self) -> usize {
        let (_, lists) = self.own_list(false);
        (0..lists).map(|index| self.lists[index].lock().unwrap().len()).sum()
    }

    /// Whether the bag is empty.
    #[invoke]
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }
}

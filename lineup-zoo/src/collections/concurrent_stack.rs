//! `ConcurrentStack` in two correct implementations: a lock-based one and a lock-free Treiber
//! stack (CAS on the head of a list of nodes in a preallocated arena).

use lineup::sync::atomic::{AtomicU32, AtomicUsize, Ordering::SeqCst};
use lineup::sync::Mutex;

/// A LIFO stack guarded by one lock. `push_range(&[a, b])` pushes `a` then `b` atomically (`b`
/// on top), `try_pop_range(n)` pops up to `n` values atomically (top first), `clear` empties it.
#[derive(Default)]
pub struct ConcurrentStack {
    items: Mutex<Vec<u32>>,
}

#[lineup::invocations]
impl ConcurrentStack {
    /// Pushes `value`.
    #[invoke(10)]
    pub fn push(&self, value: u32) {
        self.items.lock().unwrap().push(value);
    }

    /// Pushes `values` in order, as one atomic step (the last ends on top).
    #[invoke(vec![20, 30])]
    pub fn push_range(&self, values: Vec<u32>) {
        self.items.lock().unwrap().extend(values);
    }

    /// Pops the top value.
    #[invoke]
    pub fn try_pop(&self) -> Option<u32> {
        self.items.lock().unwrap().pop()
    }

    /// Pops up to `count` values atomically, top first.
    #[invoke(2)]
    pub fn try_pop_range(&self, count: usize) -> Vec<u32> {
        let mut items = self.items.lock().unwrap();
        let keep = items.len().saturating_sub(count);
        let mut popped = items.split_off(keep);
        popped.reverse();
        popped
    }

    /// The top value.
    #[invoke]
    pub fn try_peek(&self) -> Option<u32> {
        self.items.lock().unwrap().last().copied()
    }

    /// The number of values.
    #[invoke]
    pub fn count(&self) -> usize {
        self.items.lock().unwrap().len()
    }

    /// Removes every value.
    #[invoke]
    pub fn clear(&self) {
        self.items.lock().unwrap().clear();
    }
}

/// Nodes of one Treiber stack: more than the pushed values of any test matrix (3x3 of
/// `push_range` pushes 18).
const NODES: usize = 32;

/// The end of a list (node `i` is referred to as `i + 1`).
const NIL: usize = 0;

/// A lock-free Treiber stack with the operations of [`ConcurrentStack`]. The stack is a linked
/// list of nodes in a preallocated arena; a node is allocated once (a counter hands out fresh
/// indices, nothing is reused, so there is no ABA), gets its value and `next` before it is
/// published by the CAS on `head`, and never changes afterwards. Every operation is one CAS on
/// `head` (pushes and pops, retried when another thread moved `head`) or one read of it (the
/// list below a head is immutable, so `try_peek` and `count` read a snapshot).
pub struct TreiberStack {
    values: [AtomicU32; NODES],
    nexts: [AtomicUsize; NODES],
    allocated: AtomicUsize,
    head: AtomicUsize,
}

impl Default for TreiberStack {
    fn default() -> Self {
        Self {
            values: std::array::from_fn(|_| AtomicU32::new(0)),
            nexts: std::array::from_fn(|_| AtomicUsize::new(NIL)),
            allocated: AtomicUsize::new(0),
            head: AtomicUsize::new(NIL),
        }
    }
}

impl TreiberStack {
    /// A fresh node holding `value` and pointing to `next`, not yet published.
    fn node(&self, value: u32, next: usize) -> usize {
        let index = self.allocated.fetch_add(1, SeqCst);
        assert!(index < NODES, "node arena exhausted");
        self.values[index].store(value, SeqCst);
        self.nexts[index].store(next, SeqCst);
        index + 1
    }

    fn value(&self, node: usize) -> u32 {
        self.values[node - 1].load(SeqCst)
    }

    fn next(&self, node: usize) -> usize {
        self.nexts[node - 1].load(SeqCst)
    }

    /// Publishes the chain `top ..= bottom` (linked already) on top of the stack.
    fn publish(&self, top: usize, bottom: usize) {
        loop {
            let head = self.head.load(SeqCst);
            self.nexts[bottom - 1].store(head, SeqCst);
            if self.head.compare_exchange(head, top, SeqCst, SeqCst).is_ok() {
                return;
            }
        }
    }

    /// Unlinks up to `count` nodes from the top in one CAS and returns their values.
    fn pop_up_to(&self, count: usize) -> Vec<u32> {
        loop {
            let head = self.head.load(SeqCst);
            let mut taken = Vec::new();
            let mut rest = head;
            while rest != NIL && taken.len() < count {
                taken.push(rest);
                rest = self.next(rest);
            }
            if taken.is_empty() {
                return Vec::new();
            }
            if self.head.compare_exchange(head, rest, SeqCst, SeqCst).is_ok() {
                return taken.into_iter().map(|node| self.value(node)).collect();
            }
        }
    }
}

#[lineup::invocations]
impl TreiberStack {
    /// Pushes `value`.
    #[invoke(10)]
    pub fn push(&self, value: u32) {
        let node = self.node(value, NIL);
        self.publish(node, node);
    }

    /// Pushes `values` in order, as one atomic step (one CAS; the last ends on top).
    #[invoke(vec![20, 30])]
    pub fn push_range(&self, values: Vec<u32>) {
        let mut chain: Option<(usize, usize)> = None; // (top, bottom)
        for value in values {
            let node = self.node(value, chain.map_or(NIL, |(top, _)| top));
            chain = Some((node, chain.map_or(node, |(_, bottom)| bottom)));
        }
        if let Some((top, bottom)) = chain {
            self.publish(top, bottom);
        }
    }

    /// Pops the top value.
    #[invoke]
    pub fn try_pop(&self) -> Option<u32> {
        self.pop_up_to(1).pop()
    }

    /// Pops up to `count` values atomically, top first.
    #[invoke(2)]
    pub fn try_pop_range(&self, count: usize) -> Vec<u32> {
        self.pop_up_to(count)
    }

    /// The top value.
    #[invoke]
    pub fn try_peek(&self) -> Option<u32> {
        let head = self.head.load(SeqCst);
        (head != NIL).then(|| self.value(head))
    }

    /// The number of values (of the list below the head read once).
    #[invoke]
    pub fn count(&self) -> usize {
        let mut node = self.head.load(SeqCst);
        let mut count = 0;
        while node != NIL {
            count += 1;
            node = self.next(node);
        }
        count
    }

    /// Removes every value (one store of `head`).
    #[invoke]
    pub fn clear(&self) {
        self.head.store(NIL, SeqCst);
    }
}

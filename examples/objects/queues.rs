//! Queues: a correct blocking queue (Mutex + Condvar) and the paper's Fig. 1 bug.

use std::collections::VecDeque;

use lineup::shuttle::sync::{Condvar, Mutex};
use lineup::{Invocation, Invocations, Subject};

/// A correct FIFO queue: `add` appends, `try_take` removes the oldest element or returns `None`
/// when the queue is empty, and `take` waits while the queue is empty.
#[derive(Default)]
pub struct BlockingQueue {
    items: Mutex<VecDeque<u32>>,
    not_empty: Condvar,
}

impl BlockingQueue {
    pub fn add(&self, value: u32) {
        self.items.lock().unwrap().push_back(value);
        self.not_empty.notify_one();
    }

    pub fn try_take(&self) -> Option<u32> {
        self.items.lock().unwrap().pop_front()
    }

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

/// The paper's Fig. 1 bug (.NET 4.0 CTP `ConcurrentQueue`): `try_take` gives up when the lock
/// is busy, so it can report an empty queue while the queue holds an element.
#[derive(Default)]
pub struct GiveUpQueue {
    items: Mutex<VecDeque<u32>>,
}

impl GiveUpQueue {
    pub fn add(&self, value: u32) {
        self.items.lock().unwrap().push_back(value);
    }

    pub fn try_take(&self) -> Option<u32> {
        // BUG: a busy lock is not an empty queue.
        self.items.try_lock().ok()?.pop_front()
    }
}

/// Invocations 0: `add(200)`, 1: `add(400)`, 2: `try_take()`, 3: `take()`.
pub fn blocking_queue() -> Subject<BlockingQueue> {
    Subject::new("BlockingQueue", BlockingQueue::default)
        .with(Invocation::new("add", |q: &BlockingQueue| q.add(200)).arg(200))
        .with(Invocation::new("add", |q: &BlockingQueue| q.add(400)).arg(400))
        .with(Invocation::new("try_take", BlockingQueue::try_take))
        .with(Invocation::new("take", BlockingQueue::take))
}

/// Invocations 0: `add(200)`, 1: `add(400)`, 2: `try_take()`.
pub fn give_up_queue() -> Subject<GiveUpQueue> {
    Subject::new("GiveUpQueue", GiveUpQueue::default)
        .with(Invocation::new("add", |q: &GiveUpQueue| q.add(200)).arg(200))
        .with(Invocation::new("add", |q: &GiveUpQueue| q.add(400)).arg(400))
        .with(Invocation::new("try_take", GiveUpQueue::try_take))
}

/// The invocation set of the blocking queue, written by hand (`#[lineup::invocations]` generates
/// the same): `add(200)`, `add(400)`, `try_take()`, `take()`.
impl Invocations for BlockingQueue {
    fn invocations() -> Vec<Invocation<Self>> {
        blocking_queue().invocations().to_vec()
    }
}

/// A non-blocking queue: the blocking queue without `take` (so that random matrices never
/// block): `add(200)`, `add(400)`, `try_take()`.
#[derive(Default)]
pub struct NonBlockingQueue(BlockingQueue);

impl Invocations for NonBlockingQueue {
    fn invocations() -> Vec<Invocation<Self>> {
        vec![
            Invocation::new("add", |q: &NonBlockingQueue| q.0.add(200)).arg(200),
            Invocation::new("add", |q: &NonBlockingQueue| q.0.add(400)).arg(400),
            Invocation::new("try_take", |q: &NonBlockingQueue| q.0.try_take()),
        ]
    }
}

/// `add(200)`, `add(400)`, `try_take()` of the Fig. 1 bug.
impl Invocations for GiveUpQueue {
    fn invocations() -> Vec<Invocation<Self>> {
        give_up_queue().invocations().to_vec()
    }
}

/// A correct LIFO stack under the queue's invocation labels: the same operations as the
/// queue, another serial behaviour (for tests of stale or changed specifications).
#[derive(Default)]
pub struct StackUnderQueueLabels(Mutex<Vec<u32>>);

/// Invocations 0: `add(200)`, 1: `add(400)`, 2: `try_take()`, pushing and popping.
pub fn stack_under_queue_labels() -> Subject<StackUnderQueueLabels> {
    type S = StackUnderQueueLabels;
    Subject::new("StackUnderQueueLabels", S::default)
        .with(Invocation::new("add", |s: &S| s.0.lock().unwrap().push(200)).arg(200))
        .with(Invocation::new("add", |s: &S| s.0.lock().unwrap().push(400)).arg(400))
        .with(Invocation::new("try_take", |s: &S| s.0.lock().unwrap().pop()))
}

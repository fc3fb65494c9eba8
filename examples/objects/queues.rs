//! Queues: a correct blocking queue (Mutex + Condvar) and the paper's Fig. 1 bug.

use std::collections::VecDeque;

use lineup::shuttle::sync::{Condvar, Mutex};
use lineup::{Invocation, Subject};

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

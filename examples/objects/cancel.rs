//! Asynchronous objects for cancellation safety (`Invocation::cancellable`,
//! `#[invoke(cancellable)]`): an async mutex, a channel and a semaphore built on wakers, each with
//! a cancel-safe version and one whose cancelled operation breaks it.
//!
//! * [`AsyncMutex`]: a lock whose waiters are all woken at unlock; a `lock` future dropped while
//!   waiting leaves nothing behind, and the guard unlocks when a holder is dropped. Cancel-safe.
//!   [`AsyncMutex::waking_one`] wakes only the first waiter: one dropped after it was woken and
//!   before it polled again swallows the wake-up, and the next waiter waits for good although the
//!   lock is free (a stuck history).
//! * [`Channel`]: an unbounded channel whose `recv` waits without taking anything; it counts the
//!   messages received. [`RecvOrder::TakeFirst`] takes the message *before* the `.await` on the
//!   counter's lock, so a `recv` dropped there loses it uncounted: no serial history explains the
//!   queue and the count together (a full history without a witness).
//!   [`RecvOrder::TakeLast`] takes and counts under the counter's lock, after its last `.await`.
//! * [`Semaphore`]: permits handed to its waiters in FIFO order. [`AcquireDrop::LeaveWaiter`]: a
//!   cancelled `acquire` leaves its waiter queued, a later release hands the permit to it and the
//!   permit is lost, so a later `acquire` blocks for good (a stuck history).
//!   [`AcquireDrop::Withdraw`]: the dropped waiter leaves the queue, and passes on a permit it was
//!   handed but never took.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use lineup::future::yield_now;
use lineup::sync::Mutex;
use lineup::{Invocation, Subject};

/// Wakes every waker of `waiters` and forgets them.
fn wake_all(waiters: &mut Vec<(u64, Waker)>) {
    for (_, waker) in waiters.drain(..) {
        waker.wake();
    }
}

/// Files `waker` as waiter `id` (replacing its earlier waker).
fn file_waker(waiters: &mut Vec<(u64, Waker)>, id: u64, waker: &Waker) {
    match waiters.iter_mut().find(|(i, _)| *i == id) {
        Some(entry) => entry.1 = waker.clone(),
        None => waiters.push((id, waker.clone())),
    }
}

// ----- AsyncMutex -----

#[derive(Default)]
struct LockState {
    locked: bool,
    waiters: Vec<(u64, Waker)>,
    next_id: u64,
}

/// A lock for `async` code: `lock().await` waits (without blocking the thread) until it is free.
#[derive(Default)]
pub struct AsyncMutex {
    state: Mutex<LockState>,
    /// Unlock wakes the first waiter only (not cancel-safe).
    wake_one: bool,
}

/// Holds an [`AsyncMutex`]; unlocks it when dropped.
pub struct AsyncGuard<'a> {
    mutex: &'a AsyncMutex,
}

impl Drop for AsyncGuard<'_> {
    fn drop(&mut self) {
        let mut state = self.mutex.state.lock().unwrap();
        state.locked = false;
        if self.mutex.wake_one {
            // The first waiter only: if its `lock` is dropped before it polls again, nobody
            // else is woken.
            if !state.waiters.is_empty() {
                state.waiters.remove(0).1.wake();
            }
        } else {
            // Every waiter tries again: one dropped meanwhile cannot swallow the wake-up.
            wake_all(&mut state.waiters);
        }
    }
}

/// The future of [`AsyncMutex::lock`].
pub struct Lock<'a> {
    mutex: &'a AsyncMutex,
    id: Option<u64>,
}

impl<'a> Future for Lock<'a> {
    type Output = AsyncGuard<'a>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<AsyncGuard<'a>> {
        let mutex = self.mutex;
        let mut state = mutex.state.lock().unwrap();
        if !state.locked {
            state.locked = true;
            if let Some(id) = self.id.take() {
                state.waiters.retain(|(i, _)| *i != id);
            }
            return Poll::Ready(AsyncGuard { mutex });
        }
        let id = match self.id {
            Some(id) => id,
            None => {
                state.next_id += 1;
                state.next_id
            }
        };
        file_waker(&mut state.waiters, id, cx.waker());
        drop(state);
        self.id = Some(id);
        Poll::Pending
    }
}

impl Drop for Lock<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.mutex.state.lock().unwrap().waiters.retain(|(i, _)| *i != id);
        }
    }
}

impl AsyncMutex {
    /// A lock whose unlock wakes only its first waiter: not cancel-safe.
    pub fn waking_one() -> Self {
        Self {
            wake_one: true,
            ..Self::default()
        }
    }

    /// Waits until the lock is free and takes it.
    pub fn lock(&self) -> Lock<'_> {
        Lock { mutex: self, id: None }
    }
}

/// A counter behind an [`AsyncMutex`]: `incr` reads, yields while holding the lock, then writes.
#[derive(Default)]
pub struct LockedCounter {
    lock: AsyncMutex,
    value: Mutex<u64>,
}

impl LockedCounter {
    /// Adds one under the lock, with a scheduling point inside the critical section; the value
    /// after.
    pub async fn incr(&self) -> u64 {
        let _guard = self.lock.lock().await;
        let read = *self.value.lock().unwrap();
        yield_now().await;
        *self.value.lock().unwrap() = read + 1;
        read + 1
    }

    /// The value, under the lock.
    pub async fn get(&self) -> u64 {
        let _guard = self.lock.lock().await;
        *self.value.lock().unwrap()
    }
}

/// The counter's subject: `incr` (cancellable when `cancellable`) and `get`.
pub fn locked_counter(cancellable: bool) -> Subject<LockedCounter> {
    let incr = Invocation::new_async("incr", LockedCounter::incr);
    let incr = if cancellable { incr.cancellable() } else { incr };
    Subject::new("AsyncMutex counter", LockedCounter::default)
        .with(incr)
        .with(Invocation::new_async("get", LockedCounter::get))
}

/// The counter on an [`AsyncMutex::waking_one`]: `incr` (cancellable when `cancellable`) and
/// `get`.
pub fn locked_counter_waking_one(cancellable: bool) -> Subject<LockedCounter> {
    let incr = Invocation::new_async("incr", LockedCounter::incr);
    let incr = if cancellable { incr.cancellable() } else { incr };
    Subject::new("AsyncMutex counter (unlock wakes one waiter)", || LockedCounter {
        lock: AsyncMutex::waking_one(),
        value: Mutex::new(0),
    })
    .with(incr)
    .with(Invocation::new_async("get", LockedCounter::get))
}

// ----- Channel -----

/// Where a `recv` takes the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecvOrder {
    /// Before the `.await` on the counter's lock: lost when dropped there (not cancel-safe).
    TakeFirst,
    /// After its last `.await`, together with the count: cancel-safe.
    TakeLast,
}

#[derive(Default)]
struct Queue {
    messages: VecDeque<u32>,
    waiters: Vec<(u64, Waker)>,
    next_id: u64,
}

/// An unbounded channel that counts what it delivered.
pub struct Channel {
    order: RecvOrder,
    queue: Mutex<Queue>,
    /// The number of messages `recv` returned, behind an async lock that `send` also holds for a
    /// moment (it counts the messages sent).
    stats: AsyncMutex,
    received: Mutex<u64>,
    sent: Mutex<u64>,
}

/// The future of a message's arrival: ready once the queue is not empty (it takes nothing).
struct Arrival<'a> {
    channel: &'a Channel,
    id: Option<u64>,
}

impl Future for Arrival<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut queue = self.channel.queue.lock().unwrap();
        if !queue.messages.is_empty() {
            return Poll::Ready(());
        }
        let id = match self.id {
            Some(id) => id,
            None => {
                queue.next_id += 1;
                queue.next_id
            }
        };
        file_waker(&mut queue.waiters, id, cx.waker());
        drop(queue);
        self.id = Some(id);
        Poll::Pending
    }
}

impl Drop for Arrival<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.channel.queue.lock().unwrap().waiters.retain(|(i, _)| *i != id);
        }
    }
}

impl Channel {
    /// An empty channel whose `recv` takes its message as `order` says.
    pub fn new(order: RecvOrder) -> Self {
        Self {
            order,
            queue: Mutex::new(Queue::default()),
            stats: AsyncMutex::default(),
            received: Mutex::new(0),
            sent: Mutex::new(0),
        }
    }

    /// Sends `value`: counts it under the stats lock (with a scheduling point inside), then
    /// queues it and wakes the receivers.
    pub async fn send(&self, value: u32) {
        {
            let _stats = self.stats.lock().await;
            yield_now().await;
            *self.sent.lock().unwrap() += 1;
        }
        let mut queue = self.queue.lock().unwrap();
        queue.messages.push_back(value);
        wake_all(&mut queue.waiters);
    }

    /// Waits for a message, takes it and counts it.
    pub async fn recv(&self) -> u32 {
        loop {
            Arrival {
                channel: self,
                id: None,
            }
            .await;
            match self.order {
                RecvOrder::TakeFirst => {
                    let Some(message) = self.queue.lock().unwrap().messages.pop_front() else {
                        continue;
                    };
                    // Dropped while waiting here, the message is gone and never counted.
                    let _stats = self.stats.lock().await;
                    *self.received.lock().unwrap() += 1;
                    return message;
                }
                RecvOrder::TakeLast => {
                    let _stats = self.stats.lock().await;
                    let Some(message) = self.queue.lock().unwrap().messages.pop_front() else {
                        continue;
                    };
                    *self.received.lock().unwrap() += 1;
                    return message;
                }
            }
        }
    }

    /// The messages queued and the number received, together (under the stats lock).
    pub async fn stats(&self) -> (usize, u64) {
        let _stats = self.stats.lock().await;
        let queued = self.queue.lock().unwrap().messages.len();
        (queued, *self.received.lock().unwrap())
    }
}

/// The channel's subject: `send(1)`, `send(2)`, `recv` (cancellable when `cancellable`) and
/// `stats`.
pub fn channel(order: RecvOrder, cancellable: bool) -> Subject<Channel> {
    let recv = Invocation::new_async("recv", Channel::recv);
    let recv = if cancellable { recv.cancellable() } else { recv };
    let name = match order {
        RecvOrder::TakeFirst => "Channel (recv takes before its .await)",
        RecvOrder::TakeLast => "Channel",
    };
    Subject::new(name, move || Channel::new(order))
        .with(Invocation::new_async("send", async |c: &Channel| c.send(1).await).arg(1))
        .with(Invocation::new_async("send", async |c: &Channel| c.send(2).await).arg(2))
        .with(recv)
        .with(Invocation::new_async("stats", Channel::stats))
}

// ----- Semaphore -----

/// What a dropped `acquire` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AcquireDrop {
    /// Nothing: its waiter stays queued and swallows the permit a release hands it.
    LeaveWaiter,
    /// Leaves the queue, and passes on a permit it was handed.
    Withdraw,
}

#[derive(Default)]
struct Permits {
    available: u32,
    /// Waiters in FIFO order, with their wakers.
    waiters: VecDeque<(u64, Option<Waker>)>,
    /// Waiters handed a permit they have not taken yet.
    granted: Vec<u64>,
    next_id: u64,
}

impl Permits {
    /// Returns a permit: to the first waiter if there is one, else to the pool.
    fn release(&mut self) {
        match self.waiters.pop_front() {
            Some((id, waker)) => {
                self.granted.push(id);
                if let Some(waker) = waker {
                    waker.wake();
                }
            }
            None => self.available += 1,
        }
    }
}

/// A counting semaphore whose permits go to its waiters in FIFO order.
pub struct Semaphore {
    on_drop: AcquireDrop,
    permits: Mutex<Permits>,
}

/// A permit of a [`Semaphore`], returned when dropped.
pub struct Permit<'a> {
    semaphore: &'a Semaphore,
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.semaphore.permits.lock().unwrap().release();
    }
}

/// The future of [`Semaphore::acquire`].
pub struct Acquire<'a> {
    semaphore: &'a Semaphore,
    id: Option<u64>,
}

impl<'a> Future for Acquire<'a> {
    type Output = Permit<'a>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit<'a>> {
        let semaphore = self.semaphore;
        let mut permits = semaphore.permits.lock().unwrap();
        match self.id {
            None if permits.available > 0 && permits.waiters.is_empty() => {
                permits.available -= 1;
                Poll::Ready(Permit { semaphore })
            }
            None => {
                permits.next_id += 1;
                let id = permits.next_id;
                permits.waiters.push_back((id, Some(cx.waker().clone())));
                drop(permits);
                self.id = Some(id);
                Poll::Pending
            }
            Some(id) => {
                if let Some(i) = permits.granted.iter().position(|&g| g == id) {
                    permits.granted.swap_remove(i);
                    drop(permits);
                    self.id = None;
                    return Poll::Ready(Permit { semaphore });
                }
                if let Some(entry) = permits.waiters.iter_mut().find(|(i, _)| *i == id) {
                    entry.1 = Some(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }
}

impl Drop for Acquire<'_> {
    fn drop(&mut self) {
        let (Some(id), AcquireDrop::Withdraw) = (self.id, self.semaphore.on_drop) else {
            return;
        };
        let mut permits = self.semaphore.permits.lock().unwrap();
        permits.waiters.retain(|(i, _)| *i != id);
        if let Some(i) = permits.granted.iter().position(|&g| g == id) {
            permits.granted.swap_remove(i);
            permits.release();
        }
    }
}

impl Semaphore {
    /// A semaphore with `permits` permits.
    pub fn new(permits: u32, on_drop: AcquireDrop) -> Self {
        Self {
            on_drop,
            permits: Mutex::new(Permits {
                available: permits,
                ..Permits::default()
            }),
        }
    }

    /// Waits for a permit.
    pub fn acquire(&self) -> Acquire<'_> {
        Acquire {
            semaphore: self,
            id: None,
        }
    }

    /// Takes a permit, holds it across a scheduling point, and returns it.
    pub async fn use_permit(&self) {
        let _permit = self.acquire().await;
        yield_now().await;
    }
}

/// A one-permit semaphore's subject: `use_permit` (cancellable when `cancellable`).
pub fn semaphore(on_drop: AcquireDrop, cancellable: bool) -> Subject<Semaphore> {
    let use_permit = Invocation::new_async("use_permit", Semaphore::use_permit);
    let use_permit = if cancellable {
        use_permit.cancellable()
    } else {
        use_permit
    };
    let name = match on_drop {
        AcquireDrop::LeaveWaiter => "Semaphore (cancelled acquire leaves its waiter)",
        AcquireDrop::Withdraw => "Semaphore",
    };
    Subject::new(name, move || Semaphore::new(1, on_drop)).with(use_permit)
}

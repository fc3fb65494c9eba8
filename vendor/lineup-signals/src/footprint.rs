//! What the steps of code outside lineup touch, told to lineup's partial-order reduction: the
//! channels of lineup's `vendor/shuttle-tokio-impl-inner` (tokio's `mpsc` and `oneshot` under
//! shuttle-tokio) name the channel each operation touches, and a future polled through
//! [`Observed`] (a task of `tokio::spawn`, an asynchronous operation of lineup's harness, and every
//! future of `spawn` and `block_on` in lineup's `vendor/shuttle-std`) says when it returned
//! `Pending` and who registered its waker.
//!
//! lineup installs its [`Record`] once ([`install`]); until then, and on every OS thread that
//! runs no exploration with the reduction on, every function here does nothing.
//!
//! **Why the waker.** A step that resumes a future task between two polls runs the task's whole
//! future again: what it touches is what the leaf futures it polls touch. The leaves of the
//! channels above name their channel; a leaf lineup does not see (a future that shares state
//! through `std` and wakes the task: tokio-util's `CancellationToken`, a `FuturesUnordered` with
//! wakers of its own) must keep a clone of the task's waker to be woken. So a clone of an
//! [`Observed`] future's waker outside an operation that names its object ([`touching`]) makes
//! lineup take every later step of that task as dependent with every step (it *taints* the
//! task), and a poll that returns `Pending` with no such clone stops at a scheduling point lineup
//! sees. Every wake of an observed waker writes the woken task's *wake* (a name of its own),
//! which every step that resumes the task between polls reads.
//!
//! ```
//! use lineup_signals::footprint::{touching, Name};
//! // No record installed (lineup not exploring): naming and touching do nothing.
//! let channel = Name::created();
//! let _touching = touching(&channel);
//! assert_eq!(channel.id().load(std::sync::atomic::Ordering::Relaxed), 0);
//! ```

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

/// What lineup does with what the steps touch; implemented by lineup, installed with
/// [`install`]. Every method is called in the step that does what it says, on the OS thread
/// that runs the execution, and does nothing while that thread runs no exploration that records
/// footprints.
pub trait Record: Sync {
    /// Names `name` by its creation in the running task (the task and how many objects it
    /// created before), as lineup names its own channels.
    fn created(&self, name: &Name);
    /// The running task touches (writes) the object `name` in the step running now (unless
    /// `after_switch`) and, until [`Record::end_touching`], in every step that resumes it from a
    /// scheduling point (its operation is *in flight*). The running task's index if it was
    /// recorded (and so must be ended). `after_switch`: the operation reaches a scheduling point
    /// before it reads or writes anything of the object that another task could see (see
    /// [`touching_after_switch`]).
    fn begin_touching(&self, name: &Name, how: Touch, after_switch: bool) -> Option<usize>;
    /// The operation that `task` put in flight last ends.
    fn end_touching(&self, task: usize);
    /// The index of the running task, if a task runs.
    fn current_task(&self) -> Option<usize>;
    /// The waker of `task`'s [`Observed`] future was cloned.
    fn waker_cloned(&self, task: usize);
    /// The waker of `task`'s [`Observed`] future was woken.
    fn woken(&self, task: usize);
    /// `task`'s [`Observed`] future returned `Pending`: the task is about to switch. `woken`: its
    /// observed waker was woken during the poll (else the wake that led to the poll, if any, was
    /// consumed by it: lineup lets the task sleep until the next wake, where shuttle would poll
    /// it once more).
    fn poll_pending(&self, task: usize, woken: bool);
}

/// How an operation touches its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// It may change it, or its outcome may depend on the order of the other operations: it
    /// conflicts with every other operation on the object.
    Write,
    /// The receive of the one consumer of an unbounded FIFO channel: it takes the oldest message
    /// whenever it runs, or waits until a send (or the last sender's drop) wakes it, so it
    /// commutes with sends and conflicts only with another receive of the channel.
    Consume,
    /// An acquire or release of a lock or of a semaphore's permits (tokio's `Mutex` and
    /// `Semaphore`): it conflicts with every other operation on the object, as [`Touch::Write`]
    /// does; said apart so that lineup's tests can break it on purpose.
    Lock,
    /// An operation of tokio's `Notify` (a notification, a waiter's registration or look at the
    /// permit, its drop): it conflicts with every other operation on the object, as
    /// [`Touch::Write`] does; said apart so that lineup's tests can break it on purpose.
    Notify,
}

/// lineup's record, once installed.
static RECORD: OnceLock<&'static dyn Record> = OnceLock::new();

/// Installs lineup's record for the process (the first call wins; later ones do nothing).
pub fn install(record: &'static dyn Record) {
    let _ = RECORD.set(record);
}

/// lineup's record, if installed.
#[inline]
fn record() -> Option<&'static dyn Record> {
    RECORD.get().copied()
}

/// The name of an object in the executions of an exploration: set by lineup when the object is
/// created ([`Name::created`]), stamped with the execution so that a name from another
/// execution is never taken for this one's. lineup owns both numbers.
#[derive(Debug, Default)]
pub struct Name {
    stamp: AtomicU64,
    id: AtomicU64,
}

impl Name {
    /// An object created in a `const` context, outside any execution: lineup numbers it when an
    /// execution first touches it.
    pub const fn unset() -> Name {
        Name {
            stamp: AtomicU64::new(0),
            id: AtomicU64::new(0),
        }
    }

    /// An object created now: named by its creation in the running task.
    pub fn created() -> Name {
        let name = Name::default();
        if let Some(record) = record() {
            record.created(&name);
        }
        name
    }

    /// The execution the name was given in (0: never), for lineup.
    pub fn stamp(&self) -> &AtomicU64 {
        &self.stamp
    }

    /// The name in that execution, for lineup.
    pub fn id(&self) -> &AtomicU64 {
        &self.id
    }
}

/// The running task touches the object `name` until the guard drops (see
/// [`Record::begin_touching`]): the step running now, and every step that resumes the task from a
/// scheduling point before the guard drops. A clone of an observed waker while a guard lives is
/// the registration of an operation that names its object. Guards of one task drop in the reverse
/// order of their creation: never keep one across an `.await`.
pub fn touching(name: &Name) -> Touching {
    touching_as(name, Touch::Write)
}

/// [`touching`], saying how. Inside an operation in flight on the same object, a nested one adds
/// nothing: the outer operation says how the object is touched.
pub fn touching_as(name: &Name, how: Touch) -> Touching {
    Touching {
        task: record().and_then(|r| r.begin_touching(name, how, false)),
    }
}

/// [`touching`], for an operation whose first scheduling point comes before it reads or writes
/// anything of the object that another task could see (a send whose switch precedes its
/// message, as shuttle's scheduling points precede visible operations): the step running now
/// does not touch the object, the steps that resume the task until the guard drops do. Code that
/// looks at the object before that scheduling point (a check whether a channel closed) must use
/// [`touching`], or the reduction would let that look commute with what it sees.
pub fn touching_after_switch(name: &Name) -> Touching {
    Touching {
        task: record().and_then(|r| r.begin_touching(name, Touch::Write, true)),
    }
}

/// The guard of [`touching`].
#[must_use]
#[derive(Debug)]
pub struct Touching {
    /// The task whose operation is in flight, if lineup recorded it.
    task: Option<usize>,
}

impl Drop for Touching {
    fn drop(&mut self) {
        if let (Some(task), Some(record)) = (self.task, record()) {
            record.end_touching(task);
        }
    }
}

/// A future polled with a waker that tells lineup when it is cloned and woken, and that tells
/// lineup when the poll returns `Pending` (see the module). Poll it as the outermost future of
/// its task: nothing may run between its `Pending` and the task's switch. An `Observed` polled
/// inside another of the same task passes its polls through: the outermost one observes.
#[derive(Debug)]
pub struct Observed<F> {
    future: Pin<Box<F>>,
    /// The observed waker, made at the first poll with lineup's record (it wraps the waker of the
    /// task that polls).
    waker: Option<(usize, Waker)>,
}

impl<F: Future> Observed<F> {
    /// `future`, observed.
    pub fn new(future: F) -> Self {
        Observed {
            future: Box::pin(future),
            waker: None,
        }
    }
}

impl<F: Future> Future for Observed<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // Every field is `Unpin` (the future is boxed).
        let this = self.get_mut();
        let Some(record) = record() else {
            return this.future.as_mut().poll(cx);
        };
        let Some(task) = record.current_task() else {
            return this.future.as_mut().poll(cx);
        };
        if is_observed_for(cx.waker(), task) {
            // Inside another `Observed` of the same task (lineup's `vendor/shuttle-std` observes
            // every future task and `block_on`, and lineup's harness and shuttle-tokio's `spawn`
            // observe theirs too): the outermost one observes the poll.
            return this.future.as_mut().poll(cx);
        }
        let waker = match &this.waker {
            Some((t, waker)) if *t == task => waker,
            _ => &this.waker.insert((task, observed_waker(cx.waker().clone(), task))).1,
        };
        let observer = observer_of(waker);
        observer.woken.store(false, Ordering::Relaxed);
        let poll = this.future.as_mut().poll(&mut Context::from_waker(waker));
        if poll.is_pending() {
            record.poll_pending(task, observer.woken.load(Ordering::Relaxed));
        }
        poll
    }
}

/// What an observed waker holds: the task's own waker, and the task.
struct Observer {
    waker: Waker,
    task: usize,
    /// Woken since the poll in progress began.
    woken: AtomicBool,
}

/// Whether `waker` is an observed waker of `task`.
fn is_observed_for(waker: &Waker, task: usize) -> bool {
    std::ptr::eq(waker.vtable(), &VTABLE) && observer_of(waker).task == task
}

/// The [`Observer`] of an observed waker.
fn observer_of(waker: &Waker) -> &Observer {
    // Safety: an observed waker's data is an `Arc<Observer>` (see `observed_waker`).
    unsafe { &*(waker.data() as *const Observer) }
}

fn observed_waker(waker: Waker, task: usize) -> Waker {
    let observer = Observer {
        waker,
        task,
        woken: AtomicBool::new(false),
    };
    let data = Arc::into_raw(Arc::new(observer)) as *const ();
    // Safety: `data` is an `Arc<Observer>` the waker owns one count of (see `VTABLE`).
    unsafe { Waker::from_raw(RawWaker::new(data, &VTABLE)) }
}

// Safety of the functions below: `data` is always a pointer from `Arc::into_raw` of an
// `Observer`, of which each `RawWaker` owns one strong count.
// A `static`, not a `const`: its address tells an observed waker (`is_observed_for`).
static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

unsafe fn clone(data: *const ()) -> RawWaker {
    Arc::increment_strong_count(data as *const Observer);
    let observer = &*(data as *const Observer);
    if let Some(record) = record() {
        record.waker_cloned(observer.task);
    }
    RawWaker::new(data, &VTABLE)
}

unsafe fn wake(data: *const ()) {
    wake_by_ref(data);
    drop_waker(data);
}

unsafe fn wake_by_ref(data: *const ()) {
    let observer = &*(data as *const Observer);
    observer.woken.store(true, Ordering::Relaxed);
    if let Some(record) = record() {
        record.woken(observer.task);
    }
    observer.waker.wake_by_ref();
}

unsafe fn drop_waker(data: *const ()) {
    Arc::decrement_strong_count(data as *const Observer);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_observed_future_without_a_record_is_the_future() {
        let mut observed = Observed::new(std::future::ready(7));
        let waker = std::task::Waker::noop();
        let poll = Pin::new(&mut observed).poll(&mut Context::from_waker(waker));
        assert_eq!(poll, Poll::Ready(7));
    }

    #[test]
    fn an_observed_waker_is_told_apart_by_its_task() {
        let waker = observed_waker(Waker::noop().clone(), 3);
        assert!(is_observed_for(&waker, 3));
        assert!(!is_observed_for(&waker, 4), "another task's");
        assert!(!is_observed_for(Waker::noop(), 3), "not an observed waker");
    }

    #[test]
    fn an_observed_waker_wakes_the_task_s_waker_and_counts_its_clones() {
        struct Count(std::sync::atomic::AtomicUsize);
        impl std::task::Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let count = Arc::new(Count(Default::default()));
        let waker = observed_waker(Waker::from(count.clone()), 3);
        let clone = waker.clone();
        clone.wake();
        waker.wake_by_ref();
        drop(waker);
        assert_eq!(count.0.load(std::sync::atomic::Ordering::Relaxed), 2);
        // The last observed waker gone, so is the task's waker it held.
        assert_eq!(Arc::strong_count(&count), 1);
    }
}

//! Real-time order as happens-before: a subject whose every operation starts and ends with a
//! sequentially consistent read-modify-write of one shared atomic, the *clock*.
//!
//! Linearizability orders two operations when one returns before the other is called (real-time
//! order). loom, following the C11 memory model, does not: an operation that starts after another
//! one returned, with nothing to synchronize the two threads, may still load an older value than
//! the other operation stored (an `Acquire` load may read any store that it does not
//! happen-after, and loom treats `SeqCst` loads as `Acquire`). A `Semaphore` whose permit was
//! released by thread A can then look empty to thread B afterwards, and lineup sees a history in
//! which no two operations even overlap but that no serial execution has. Whether that is a bug
//! depends on the notion of correctness: under C11, a client can only *know* that A's operation
//! came first through some synchronization, and the usual correctness notion for C11 libraries is
//! linearizability with happens-before in place of real time.
//!
//! Wrapping a subject with [`real_time_ordered`] turns real-time order into happens-before: a
//! read-modify-write always reads the latest value of its atomic, so the clock RMW at the start of
//! B's operation reads from (and acquires) the clock RMW at the end of every operation that
//! returned before, and every store of those operations happens-before B's loads. Nothing else
//! changes: the threads, the interleavings (there are more scheduling points, the bound is the
//! same) and the operations' own orderings inside overlapping operations, where a weak-memory
//! finding still shows.
//!
//! The comparison is the label that lineup cannot give for a black-box crate (whose atomics are
//! loom's, not `lineup::sync::atomic`): if the plain check fails and the real-time-ordered one
//! passes, every violation of the plain check needs a load that did not return the latest store
//! of the interleaving (in a sequentially consistent execution the clock changes nothing), so it
//! is a weak-memory finding, not an interleaving bug.

use std::fmt;

use lineup::sync::atomic::{AtomicUsize, Ordering};
use lineup::{Invocation, Response, Subject};

/// An object of a subject and the clock its operations synchronize through.
pub struct RealTimeOrdered<O> {
    clock: AtomicUsize,
    inner: O,
}

impl<O> RealTimeOrdered<O> {
    /// The wrapped object.
    pub fn inner(&self) -> &O {
        &self.inner
    }

    fn tick(&self) {
        self.clock.fetch_add(1, Ordering::SeqCst);
    }
}

impl<O> fmt::Debug for RealTimeOrdered<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RealTimeOrdered").finish_non_exhaustive()
    }
}

/// Ticks the clock when the operation ends, panicking or not.
struct TickOnExit<'a, O>(&'a RealTimeOrdered<O>);

impl<O> Drop for TickOnExit<'_, O> {
    fn drop(&mut self) {
        self.0.tick();
    }
}

/// A rendering that prints as itself (`Debug` of a `String` would quote it).
struct Rendered(String);

impl fmt::Debug for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `subject` with real-time order turned into happens-before (see the module). Invocations keep
/// their labels and their responses' renderings, so reports read the same; the subject's name
/// says `[real-time order as happens-before]`.
pub fn real_time_ordered<O: Send + Sync + 'static>(subject: &Subject<O>) -> Subject<RealTimeOrdered<O>> {
    let factory = subject.clone();
    let mut ordered = Subject::new(
        format!("{} [real-time order as happens-before]", subject.name()),
        move || RealTimeOrdered {
            clock: AtomicUsize::new(0),
            inner: factory.build(),
        },
    );
    for invocation in subject.invocations() {
        let call = invocation.clone();
        let mut wrapped = Invocation::new(invocation.label().name.clone(), move |o: &RealTimeOrdered<O>| {
            o.tick();
            let _exit = TickOnExit(o);
            match call.call(&o.inner) {
                Response::Returned(rendering) => Rendered(rendering),
                // `Invocation::call` lets a panic propagate; it never returns this.
                Response::Panicked(message) => std::panic::panic_any(message),
            }
        });
        for arg in &invocation.label().args {
            wrapped = wrapped.arg(Rendered(arg.clone()));
        }
        ordered = ordered.with(wrapped);
    }
    ordered
}

//! [`concurrent-queue`](https://crates.io/crates/concurrent-queue) 2.5.0, switched to loom by its
//! `loom` feature and `--cfg loom`: `ConcurrentQueue::bounded(1)` (its single-slot queue),
//! `bounded(n)` for `n > 1` (an array queue) and `unbounded()` (a linked list of blocks) are three
//! different implementations behind one type.
//!
//! Each invocation calls one method of the queue and returns what it returned, rendered with
//! `Debug`: `push` gives `Ok(())`, `Err(Full(v))` or `Err(Closed(v))`; `pop` gives `Ok(v)`,
//! `Err(Empty)` or `Err(Closed)`; `len`, `is_empty`, `is_full` and `close` give their number or
//! boolean.

use concurrent_queue::{ConcurrentQueue, PopError};
use lineup::{Invocation, Subject};

/// Positions of the invocations in the subjects of this module (what a matrix refers to).
pub mod op {
    /// `push(1)`
    pub const PUSH_1: usize = 0;
    /// `push(2)`
    pub const PUSH_2: usize = 1;
    /// `pop()`
    pub const POP: usize = 2;
    /// `len()`
    pub const LEN: usize = 3;
    /// `is_empty()`
    pub const IS_EMPTY: usize = 4;
    /// `is_full()`
    pub const IS_FULL: usize = 5;
    /// `close()`
    pub const CLOSE: usize = 6;
    /// `pop_if_not_empty()`, only in [`non_atomic_pop_if_not_empty`](super::non_atomic_pop_if_not_empty).
    pub const POP_IF_NOT_EMPTY: usize = 7;
}

fn with_queue_invocations(subject: Subject<ConcurrentQueue<u32>>) -> Subject<ConcurrentQueue<u32>> {
    subject
        .with(Invocation::new("push", |q: &ConcurrentQueue<u32>| q.push(1)).arg(1))
        .with(Invocation::new("push", |q: &ConcurrentQueue<u32>| q.push(2)).arg(2))
        .with(Invocation::new("pop", ConcurrentQueue::pop))
        .with(Invocation::new("len", ConcurrentQueue::len))
        .with(Invocation::new("is_empty", ConcurrentQueue::is_empty))
        .with(Invocation::new("is_full", ConcurrentQueue::is_full))
        .with(Invocation::new("close", ConcurrentQueue::close))
}

/// `ConcurrentQueue::bounded(capacity)` of `u32` with the invocations of [`op`] (but
/// `pop_if_not_empty`). Capacity 1 selects the crate's single-slot queue, more its array queue.
pub fn bounded(capacity: usize) -> Subject<ConcurrentQueue<u32>> {
    with_queue_invocations(Subject::new(
        format!("concurrent-queue 2.5.0 bounded({capacity})"),
        move || ConcurrentQueue::bounded(capacity),
    ))
}

/// `ConcurrentQueue::unbounded()` of `u32` with the invocations of [`op`] (but
/// `pop_if_not_empty`).
pub fn unbounded() -> Subject<ConcurrentQueue<u32>> {
    with_queue_invocations(Subject::new(
        "concurrent-queue 2.5.0 unbounded",
        ConcurrentQueue::unbounded,
    ))
}

/// A deliberately wrong wrapper, to show that the harness is not vacuous: `pop_if_not_empty`
/// reports `if !q.is_empty() { Some(q.pop()) } else { None }` as *one* operation. Two calls of the
/// crate are not one atomic step: another thread's `pop` between them makes it return
/// `Some(Err(Empty))`, which no serial execution does. lineup must reject it.
pub fn non_atomic_pop_if_not_empty(capacity: usize) -> Subject<ConcurrentQueue<u32>> {
    with_queue_invocations(Subject::new(
        format!("concurrent-queue 2.5.0 bounded({capacity}) with a non-atomic pop_if_not_empty"),
        move || ConcurrentQueue::bounded(capacity),
    ))
    .with(Invocation::new(
        "pop_if_not_empty",
        |q: &ConcurrentQueue<u32>| -> Option<Result<u32, PopError>> {
            if q.is_empty() {
                None
            } else {
                Some(q.pop())
            }
        },
    ))
}

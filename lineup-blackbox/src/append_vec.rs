//! [`boxcar`](https://crates.io/crates/boxcar) 0.2.14, switched to loom by its `loom` feature and
//! `--cfg loom`: `boxcar::Vec`, an append-only vector whose `push(&self)` returns the index it
//! wrote.
//!
//! `push` first takes an index (a `fetch_add` on a counter of pushes in flight), then allocates
//! the bucket if needed, writes the value, marks the entry active and only then increments the
//! element count. The crate says of `count` that "due to concurrent writes, it is not guaranteed
//! that all elements `0..vec.count()` are initialized"; in the same way, an index can be handed
//! out and a later index be written, read and counted while the earlier one is not written yet.
//! [`vec()`] checks `push` (with its index), `get` and `count` as the crate offers them;
//! [`vec_unindexed`] checks `push` without its index and `count`, the part that does not observe
//! the order in which indices were handed out.

use lineup::{Invocation, Subject};

/// Positions of the invocations of [`vec()`] and [`vec_unindexed()`].
pub mod op {
    /// `push(10)`: the index it returned ([`vec`]), or `()` ([`vec_unindexed`](super::vec_unindexed)).
    pub const PUSH_10: usize = 0;
    /// `push(20)`, the same.
    pub const PUSH_20: usize = 1;
    /// `count()`
    pub const COUNT: usize = 2;
    /// `get(0)` (only in [`vec`](super::vec)): `Some(value)` or `None`.
    pub const GET_0: usize = 3;
    /// `get(1)` (only in [`vec`](super::vec)).
    pub const GET_1: usize = 4;
    /// `push_if_empty(10)` (only in
    /// [`non_atomic_push_if_empty`](super::non_atomic_push_if_empty)).
    pub const PUSH_IF_EMPTY: usize = 3;
}

/// `boxcar::Vec<u32>` with `push(10)`, `push(20)` (both returning their index), `count()`,
/// `get(0)` and `get(1)` (the value, copied out).
pub fn vec() -> Subject<boxcar::Vec<u32>> {
    Subject::new("boxcar 0.2.14 Vec", boxcar::Vec::new)
        .with(Invocation::new("push", |v: &boxcar::Vec<u32>| v.push(10)).arg(10))
        .with(Invocation::new("push", |v: &boxcar::Vec<u32>| v.push(20)).arg(20))
        .with(Invocation::new("count", boxcar::Vec::count))
        .with(Invocation::new("get", |v: &boxcar::Vec<u32>| v.get(0).copied()).arg(0))
        .with(Invocation::new("get", |v: &boxcar::Vec<u32>| v.get(1).copied()).arg(1))
}

/// `boxcar::Vec<u32>` with `push(10)` and `push(20)` whose index is dropped (they return `()`),
/// and `count()`.
pub fn vec_unindexed() -> Subject<boxcar::Vec<u32>> {
    unindexed("boxcar 0.2.14 Vec, push without its index")
}

fn unindexed(name: &str) -> Subject<boxcar::Vec<u32>> {
    Subject::new(name, boxcar::Vec::new)
        .with(
            Invocation::new("push", |v: &boxcar::Vec<u32>| {
                v.push(10);
            })
            .arg(10),
        )
        .with(
            Invocation::new("push", |v: &boxcar::Vec<u32>| {
                v.push(20);
            })
            .arg(20),
        )
        .with(Invocation::new("count", boxcar::Vec::count))
}

/// A deliberately wrong wrapper, to show that the harness is not vacuous: [`vec_unindexed`] plus
/// `push_if_empty(10)`, reported as one operation but made of two calls of the crate,
/// `if v.count() == 0 { v.push(10); true } else { false }`. Two threads can both see an empty
/// vector and both push, which no serial execution does. lineup must reject it.
pub fn non_atomic_push_if_empty() -> Subject<boxcar::Vec<u32>> {
    unindexed("boxcar 0.2.14 Vec with a non-atomic push_if_empty").with(
        Invocation::new("push_if_empty", |v: &boxcar::Vec<u32>| {
            if v.count() == 0 {
                v.push(10);
                true
            } else {
                false
            }
        })
        .arg(10),
    )
}

//! The partial-order reduction on objects written on shuttle's own primitives
//! (`lineup::shuttle::sync` used directly), whose steps lineup reads from shuttle's `tracing`
//! events (`lineup-core/src/explore/shuttle_events.rs`) or, where it cannot, keeps opaque: every
//! distinct history found without the reduction is found with it, at the same bound, and the
//! comparison fails when the dependency information read from the mutex's events is broken on
//! purpose (`ReductionFault::ShuttleLocksCommute`; for `RwLock`, `Barrier` and `Once`, see
//! tests/shuttle_sync_reduction.rs).

use lineup::ReductionFault;
use lineup_zoo::native;
use lineup_zoo::reduction::{assert_some_lost, assert_sound, compare, m};

/// Shuttle's `Mutex` and `Condvar`, which lineup sees.
#[test]
fn the_blocking_queue_on_shuttle_keeps_every_history() {
    let (_, queue) = native::queues();
    assert_sound(&[
        compare(&queue, &m(&[&[0, 2], &[1, 2]]), 2, None),
        compare(&queue, &m(&[&[3], &[0], &[1]]), 2, None),
        compare(&queue, &m(&[&[0, 3], &[1, 2]]), 2, None),
        compare(&queue, &m(&[&[2, 0], &[1, 2]]), 2, None),
    ]);
}

/// Shuttle's `RwLock`, `Barrier` and `Once`, which lineup sees too (tests/shuttle_sync_reduction.rs
/// has objects with threads of their own on them, and the broken reduction).
#[test]
fn the_rwlock_map_and_the_barrier_keep_every_history() {
    let map = native::rwlock_map();
    let barrier = native::barrier_once();
    assert_sound(&[
        compare(&map, &m(&[&[0, 2], &[1, 2]]), 2, None),
        compare(&map, &m(&[&[2], &[0], &[1]]), 2, None),
        compare(&barrier, &m(&[&[0, 1], &[1, 0]]), 2, None),
        compare(&barrier, &m(&[&[1, 0], &[0, 1]]), 2, None),
    ]);
}

/// With two lock operations of one shuttle mutex taken to commute, some matrix of the queue
/// loses a history.
#[test]
fn commuting_shuttle_locks_lose_a_history() {
    let (_, queue) = native::queues();
    let matrices = [
        m(&[&[0], &[1], &[2]]),
        m(&[&[0, 2], &[1, 2]]),
        m(&[&[2, 0], &[1, 2]]),
        m(&[&[0], &[2]]),
    ];
    let broken: Vec<_> = matrices
        .iter()
        .map(|matrix| compare(&queue, matrix, 2, Some(ReductionFault::ShuttleLocksCommute)))
        .collect();
    assert_some_lost(&broken);
}

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

/// Two counters behind shuttle's own `Mutex`es; `both` holds the first while it locks the second.
#[derive(Default)]
struct Pair {
    a: lineup::shuttle::sync::Mutex<u32>,
    b: lineup::shuttle::sync::Mutex<u32>,
}

impl Pair {
    fn both(&self) -> u32 {
        let mut a = self.a.lock().unwrap();
        let mut b = self.b.lock().unwrap();
        *a += 1;
        *b += 1;
        *a + *b
    }

    fn a(&self) -> u32 {
        let mut a = self.a.lock().unwrap();
        *a += 10;
        *a
    }

    fn b(&self) -> u32 {
        let mut b = self.b.lock().unwrap();
        *b += 100;
        *b
    }
}

/// A lock of shuttle's `Mutex` that blocks is still seen: lineup's `vendor/shuttle-std` drives
/// the semaphore's acquire itself (so that lineup can abandon the wait), and the switch of that
/// wait is a place lineup knows. Regression: with the place unknown, the step resumed from the wait
/// was opaque and `both() | a() | b()` explored all 286 executions at bound 2 with the reduction
/// (278 with it known; 197 on `lineup::sync::Mutex`).
#[test]
fn a_blocked_lock_of_shuttle_s_mutex_is_seen_by_the_reduction() {
    let pair = lineup::Subject::new("Pair", Pair::default)
        .with(lineup::Invocation::new("both", Pair::both))
        .with(lineup::Invocation::new("a", Pair::a))
        .with(lineup::Invocation::new("b", Pair::b));
    let rows = [
        compare(&pair, &m(&[&[0], &[1], &[2]]), 2, None),
        compare(&pair, &m(&[&[0], &[0], &[2]]), 2, None),
    ];
    assert_sound(&rows);
    for row in &rows {
        assert!(
            row.executions_reduced < row.executions_plain,
            "{}: {} executions with the reduction, {} without",
            row.notation,
            row.executions_reduced,
            row.executions_plain
        );
    }
}

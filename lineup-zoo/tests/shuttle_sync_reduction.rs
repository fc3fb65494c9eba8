//! The partial-order reduction on objects with a thread of their own written on shuttle's own
//! `RwLock`, `Barrier` and `Once` (`lineup_zoo::shuttle_sync`), whose steps lineup reads from
//! shuttle's `tracing` events: each buggy object fails and its correct twin passes; every distinct
//! history found without the reduction is found with it, at the same bound, the correct and the
//! buggy objects alike; and the comparison fails when the information read from these primitives'
//! events is broken on purpose (`ReductionFault::ShuttleSyncStepsCommute`).
//!
//! `the_reduction_now_reduces_phase_1` prints the phase-1 figures of
//! docs/partial-order-reduction.md, §2.5
//! (`cargo test -p lineup-zoo --test shuttle_sync_reduction -- --nocapture`).

use lineup::{ReductionFault, Subject, TestMatrix};
use lineup_zoo::reduction::{assert_fail, assert_pass, assert_sound, compare, m, ReductionRow};
use lineup_zoo::shuttle_sync::{barrier_hand_off, once_flag, once_start, rw_helper_counter};
use lineup_zoo::{announced, native};

#[test]
fn rwlock_lost_update_fails_and_the_write_locked_counter_passes() {
    // add() | add()
    let matrix = m(&[&[0], &[0]]);
    assert_fail(&rw_helper_counter(true), &matrix);
    assert_pass(&rw_helper_counter(false), &matrix);
}

#[test]
fn barrier_early_meet_fails_and_the_hand_off_passes() {
    let matrix = m(&[&[0], &[0]]);
    assert_fail(&barrier_hand_off(true), &matrix);
    assert_pass(&barrier_hand_off(false), &matrix);
}

#[test]
fn once_unguarded_fails_and_call_once_passes() {
    let matrix = m(&[&[0], &[0]]);
    assert_fail(&once_start(true), &matrix);
    assert_pass(&once_start(false), &matrix);
}

/// Every history found without the reduction is found with it, on the correct and the buggy
/// objects.
#[test]
fn the_reduction_keeps_every_history_of_shuttle_s_rwlock_barrier_and_once() {
    for buggy in [false, true] {
        assert_sound(&[
            compare(&rw_helper_counter(buggy), &m(&[&[0], &[0]]), 2, None),
            compare(&rw_helper_counter(buggy), &m(&[&[0], &[1]]), 2, None),
            compare(&barrier_hand_off(buggy), &m(&[&[0], &[0]]), 1, None),
            compare(&once_start(buggy), &m(&[&[0], &[0]]), 2, None),
        ]);
    }
}

/// With the reduction on, phase 1 explores fewer executions than without it: the steps of the
/// helper threads on shuttle's primitives commute with the operations' own counting.
#[test]
fn the_reduction_now_reduces_phase_1() {
    let rows = [
        compare(&rw_helper_counter(false), &m(&[&[0], &[0]]), 2, None),
        compare(&barrier_hand_off(false), &m(&[&[0], &[0]]), 1, None),
        compare(&once_start(false), &m(&[&[0], &[0]]), 2, None),
    ];
    assert_sound(&rows);
    let reduced = |r: &ReductionRow| r.serial_reduced < r.serial_plain;
    assert!(
        rows.iter().all(reduced),
        "the reduction saw nothing to reduce: {rows:?}"
    );
}

/// Compares each matrix with the reduction broken on purpose
/// (`ReductionFault::ShuttleSyncStepsCommute`), and asserts that some matrix loses a history.
fn assert_broken_loses<O: Send + Sync + 'static>(subject: &Subject<O>, matrices: &[TestMatrix], bound: u32) {
    let broken: Vec<_> = matrices
        .iter()
        .map(|matrix| compare(subject, matrix, bound, Some(ReductionFault::ShuttleSyncStepsCommute)))
        .collect();
    for r in &broken {
        eprintln!(
            "broken {}: histories {} -> {}, sound {}",
            r.notation,
            r.histories_plain,
            r.histories_reduced,
            r.sound()
        );
    }
    assert!(
        broken.iter().any(|r| !r.sound()),
        "the broken reduction lost nothing on {}: {broken:?}",
        subject.name()
    );
}

/// The matrices of the broken-reduction tests, with the correct reduction: nothing lost.
#[test]
fn the_reduction_keeps_every_history_where_the_broken_one_loses() {
    let (_, counters) = announced::two_counters();
    assert_sound(&[
        compare(&native::rwlock_map(), &m(&[&[0], &[2]]), 2, None),
        compare(&counters, &m(&[&[0], &[0]]), 2, None),
        compare(&native::barrier_once(), &m(&[&[0, 0], &[0], &[0]]), 2, None),
        compare(&native::barrier_once(), &m(&[&[0], &[0], &[0]]), 2, None),
        compare(&once_flag(), &m(&[&[0], &[1]]), 2, None),
        compare(&once_flag(), &m(&[&[0], &[1], &[1]]), 2, None),
        compare(&once_flag(), &m(&[&[1, 1], &[0]]), 2, None),
    ]);
}

/// With two write locks of one shuttle `RwLock` taken to commute, the map loses a history.
#[test]
fn commuting_rwlock_steps_lose_a_history() {
    let map = native::rwlock_map();
    assert_broken_loses(&map, &[m(&[&[0], &[2]]), m(&[&[0, 2], &[1, 2]])], 2);
}

/// With two waits at one shuttle `Barrier` taken to commute, the object on it loses a history
/// (which two of three threads pass the two-party barrier first).
#[test]
fn commuting_barrier_waits_lose_a_history() {
    let barrier = native::barrier_once();
    assert_broken_loses(&barrier, &[m(&[&[0, 0], &[0], &[0]])], 2);
}

/// With the steps of a shuttle `Once`'s initializer not opaque (and its accesses reads),
/// `is_completed`, which emits no event, commutes with the initializer, and the flag loses a
/// history.
#[test]
fn a_once_initializer_that_is_not_opaque_loses_a_history() {
    assert_broken_loses(&once_flag(), &[m(&[&[0], &[1]]), m(&[&[1, 1], &[0]])], 2);
}

//! The primitives of `lineup::sync` and `lineup::thread` that have std's shape and that lineup's
//! partial-order reduction sees (`RwLock`, `Barrier`, `Once`, `OnceLock`, `park` /
//! `Thread::unpark`, see `lineup_zoo::announced`): each buggy object fails and its correct twin
//! passes; every distinct history found without the reduction is found with it, at the same
//! bound; and the comparison fails when the steps of these primitives are taken to commute
//! (`ReductionFault::SyncStepsCommute`).

use lineup::ReductionFault;
use lineup_zoo::announced;
use lineup_zoo::native;
use lineup_zoo::reduction::{assert_fail, assert_pass, assert_some_lost, assert_sound, compare, m, ReductionRow};

#[test]
fn rwlock_lost_update_fails_and_the_write_locked_counter_passes() {
    // add() | add() | get()
    let matrix = m(&[&[0], &[0, 1]]);
    assert_fail(&announced::rw_counter(true), &matrix);
    assert_pass(&announced::rw_counter(false), &matrix);
}

#[test]
fn barrier_early_meet_fails_and_the_hand_off_passes() {
    let matrix = m(&[&[0], &[0]]);
    assert_fail(&announced::hand_off(true), &matrix);
    assert_pass(&announced::hand_off(false), &matrix);
}

#[test]
fn once_lock_check_then_set_fails_and_get_or_init_passes() {
    // init(1) | init(2), and get() init(1) | init(2). (A thread's second operation here starts
    // without a scheduling point, as on shuttle's own `Once`: see the report on phase 1's orders.)
    let matrix = m(&[&[0], &[1]]);
    assert_fail(&announced::set_once(true), &matrix);
    assert_pass(&announced::set_once(false), &matrix);
}

#[test]
fn once_unguarded_fails_and_call_once_passes() {
    let matrix = m(&[&[0], &[0]]);
    assert_fail(&announced::start_once(true), &matrix);
    assert_pass(&announced::start_once(false), &matrix);
}

#[test]
fn a_lock_that_trusts_park_fails_and_one_that_looks_again_passes() {
    let matrix = m(&[&[0], &[0]]);
    assert_fail(&announced::park_lock(true), &matrix);
    assert_pass(&announced::park_lock(false), &matrix);
}

/// The `RwLock` map and the `Barrier`/`Once` object on `lineup::sync`, on the matrices
/// `shuttle_reduction_superset.rs` runs their twins on shuttle's own primitives, and the other
/// objects above (the buggy ones too: their histories count as well).
#[test]
fn the_reduction_keeps_every_history_of_the_new_primitives() {
    let map = announced::rwlock_map();
    let barrier = announced::barrier_once();
    let (counters, _) = announced::two_counters();
    assert_sound(&[
        compare(&counters, &m(&[&[0, 1], &[1, 0]]), 2, None),
        compare(&counters, &m(&[&[0, 2], &[1, 0]]), 2, None),
        compare(&counters, &m(&[&[0], &[1], &[2]]), 2, None),
        compare(&map, &m(&[&[0, 2], &[1, 2]]), 2, None),
        compare(&map, &m(&[&[2], &[0], &[1]]), 2, None),
        compare(&barrier, &m(&[&[0, 1], &[1, 0]]), 2, None),
        compare(&barrier, &m(&[&[1, 0], &[0, 1]]), 2, None),
    ]);
    for buggy in [false, true] {
        assert_sound(&[
            compare(&announced::rw_counter(buggy), &m(&[&[0], &[0, 1]]), 2, None),
            compare(&announced::set_once(buggy), &m(&[&[0], &[1], &[2]]), 2, None),
            compare(&announced::start_once(buggy), &m(&[&[0], &[0]]), 2, None),
            compare(&announced::park_lock(buggy), &m(&[&[0], &[0]]), 2, None),
        ]);
    }
    // (The buggy hand-off fails in phase 1 already: its phase 2 never runs.)
    assert_sound(&[compare(&announced::hand_off(false), &m(&[&[0], &[0]]), 1, None)]);
}

/// The same objects on `lineup::sync` explore no more executions with the reduction than their
/// twins on shuttle's own `RwLock`, `Barrier` and `Once`, whose steps lineup reads from shuttle's
/// events with names it can compare across executions by kind only (two shuttle locks may be the
/// same lock), and find the same histories.
#[test]
fn the_new_primitives_reduce_at_least_as_much_as_shuttle_s_own() {
    let (ours, theirs) = announced::two_counters();
    let cases = [
        (
            compare(&ours, &m(&[&[0, 1], &[1, 0]]), 2, None),
            compare(&theirs, &m(&[&[0, 1], &[1, 0]]), 2, None),
        ),
        (
            compare(&ours, &m(&[&[0], &[1], &[2]]), 2, None),
            compare(&theirs, &m(&[&[0], &[1], &[2]]), 2, None),
        ),
        (
            compare(&announced::rwlock_map(), &m(&[&[0, 2], &[1, 2]]), 2, None),
            compare(&native::rwlock_map(), &m(&[&[0, 2], &[1, 2]]), 2, None),
        ),
        (
            compare(&announced::barrier_once(), &m(&[&[0, 1], &[1, 0]]), 2, None),
            compare(&native::barrier_once(), &m(&[&[0, 1], &[1, 0]]), 2, None),
        ),
    ];
    for (ours, theirs) in &cases {
        eprintln!(
            "{}: lineup::sync {} -> {} executions, shuttle::sync {} -> {}; histories {} and {}",
            ours.notation,
            ours.executions_plain,
            ours.executions_reduced,
            theirs.executions_plain,
            theirs.executions_reduced,
            ours.histories_reduced,
            theirs.histories_reduced
        );
        assert!(ours.sound() && theirs.sound());
        assert_eq!(ours.histories_plain, theirs.histories_plain);
        assert_eq!(
            ours.executions_plain, theirs.executions_plain,
            "the same scheduling points"
        );
        assert!(ours.executions_reduced <= theirs.executions_reduced);
    }
    let reduced = |(ours, _): &(ReductionRow, ReductionRow)| ours.executions_reduced < ours.executions_plain;
    assert!(
        reduced(&cases[0]) && reduced(&cases[1]),
        "the reduction saw nothing to reduce"
    );
}

/// With every step of these primitives taken to commute, some matrix loses a history.
#[test]
fn commuting_steps_of_the_new_primitives_lose_a_history() {
    let map = announced::rwlock_map();
    let (counters, _) = announced::two_counters();
    let broken = [
        compare(&counters, &m(&[&[0], &[0]]), 2, Some(ReductionFault::SyncStepsCommute)),
        compare(&map, &m(&[&[0, 2], &[1, 2]]), 2, Some(ReductionFault::SyncStepsCommute)),
        compare(&map, &m(&[&[2], &[0], &[1]]), 2, Some(ReductionFault::SyncStepsCommute)),
        compare(&map, &m(&[&[0], &[2]]), 2, Some(ReductionFault::SyncStepsCommute)),
    ];
    assert_some_lost(&broken);
}

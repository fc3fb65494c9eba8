//! The partial-order reduction on objects written on shuttle's own atomics
//! (`lineup::shuttle::sync::atomic` used directly), which lineup sees through the events of its
//! `vendor/shuttle-std` (`[patch.crates-io]` in the workspace's `Cargo.toml`): the helper counter
//! with a lost update fails and its correct twin passes; every distinct history found without the
//! reduction is found with it, at the same bound, on the counters and on the lock-free stack; the
//! reduction explores fewer executions than without it, in phase 1 and in phase 2; and the
//! comparison fails when the information read from the atomics' events is broken on purpose
//! (every access taken to be a load: `ReductionFault::ShuttleAtomicsCommute`).

use lineup::ReductionFault;
use lineup_zoo::native;
use lineup_zoo::reduction::{assert_fail, assert_pass, assert_some_lost, assert_sound, compare, m};
use lineup_zoo::shuttle_atomics::helper_counter;

// The counter's invocations: add(), get(). The stack's: push(1), push(2), pop().

#[test]
fn the_lost_update_fails_and_the_fetch_add_counter_passes() {
    let matrix = m(&[&[0], &[0]]);
    assert_fail(&helper_counter(true), &matrix);
    assert_pass(&helper_counter(false), &matrix);
}

/// Every history found without the reduction is found with it, and with fewer executions: the
/// helper's steps on the count commute with the operation's ticks on another atomic (phase 1),
/// and the stack's steps of one thread commute with the other's until they meet at the top.
#[test]
fn the_reduction_keeps_every_history_of_shuttle_s_atomics_and_reduces() {
    let (_, stack) = native::stacks();
    let rows = [
        compare(&helper_counter(false), &m(&[&[0], &[0]]), 2, None),
        compare(&helper_counter(false), &m(&[&[0], &[1]]), 2, None),
        compare(&helper_counter(true), &m(&[&[0], &[0]]), 2, None),
        compare(&helper_counter(true), &m(&[&[0, 1], &[0]]), 1, None),
        compare(&stack, &m(&[&[0, 2], &[1, 2]]), 2, None),
        compare(&stack, &m(&[&[0, 2], &[1, 2], &[2]]), 1, None),
    ];
    for r in &rows {
        eprintln!(
            "{} bound {}: phase 1 {} -> {}, phase 2 {} -> {}, histories {} -> {}",
            r.notation,
            r.bound,
            r.serial_plain,
            r.serial_reduced,
            r.executions_plain,
            r.executions_reduced,
            r.histories_plain,
            r.histories_reduced
        );
    }
    assert_sound(&rows);
    assert!(
        rows[0].serial_reduced < rows[0].serial_plain,
        "phase 1 of the helper counter is not reduced: {:?}",
        rows[0]
    );
    assert!(
        rows[4].executions_reduced < rows[4].executions_plain,
        "phase 2 of the stack is not reduced: {:?}",
        rows[4]
    );
}

/// Whichever atomics the stack is written on, the reduction explores about as much: shuttle's, seen
/// through the events of lineup's `vendor/shuttle-std`, within twice `lineup::sync::atomic`'s
/// phase-2 executions (shuttle's atomics are named by their address, compared across executions
/// by family only; lineup's by their creation), with the same histories.
#[test]
fn the_stack_on_shuttle_s_atomics_is_reduced_within_twice_lineup_s() {
    let (ours, theirs) = native::stacks();
    for (matrix, bound) in [(m(&[&[0, 2], &[1, 2]]), 2), (m(&[&[0, 2], &[1, 2], &[2]]), 1)] {
        let (ours, theirs) = (
            compare(&ours, &matrix, bound, None),
            compare(&theirs, &matrix, bound, None),
        );
        eprintln!(
            "{} bound {bound}: lineup::sync {} -> {}, shuttle {} -> {}",
            ours.notation,
            ours.executions_plain,
            ours.executions_reduced,
            theirs.executions_plain,
            theirs.executions_reduced
        );
        assert_sound(&[ours.clone(), theirs.clone()]);
        assert_eq!(ours.histories_reduced, theirs.histories_reduced);
        assert!(
            theirs.executions_reduced <= 2 * ours.executions_reduced,
            "shuttle's atomics: {theirs:?}; lineup's: {ours:?}"
        );
    }
}

/// With every access of shuttle's atomics taken to be a load, two stores (or compare-and-swaps)
/// commute, and the stack loses histories.
#[test]
fn atomics_whose_writes_commute_lose_a_history() {
    let (_, stack) = native::stacks();
    let fault = Some(ReductionFault::ShuttleAtomicsCommute);
    assert_some_lost(&[
        compare(&stack, &m(&[&[0, 2], &[1, 2]]), 2, fault),
        compare(&helper_counter(true), &m(&[&[0], &[0]]), 2, fault),
    ]);
}

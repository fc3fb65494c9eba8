//! The partial-order reduction on objects whose operations join threads of shuttle's own
//! (`lineup::shuttle::thread::spawn` and `JoinHandle::join` used directly), which lineup sees
//! through the event of its `vendor/shuttle-std` that names the joined thread: the sum whose
//! `add` does not wait for its thread fails and its twin that joins passes; every distinct history
//! found without the reduction is found with it, at the same bound; and the reduction explores
//! fewer executions than without it. (A join and the joined thread's last step taken to commute,
//! `ReductionFault::ShuttleJoinsCommute`, lose no history of the sums: either order leaves the
//! joiner about to return the thread's result; the dependency is checked on footprints in
//! `explore::shuttle_events`'s tests. Under the same fault the thread's last step only reads its
//! end, and the search misses an answer of the probe that asks `is_finished`: the last test.)

use lineup::{Config, Reduction, ReductionFault};
use lineup_zoo::reduction::{assert_fail, assert_pass, assert_sound, compare, comparison_config, m};
use lineup_zoo::shuttle_atomics::helper_counter;
use lineup_zoo::shuttle_joins::{fork_join_sum, scoped_probe};

// The sum's invocations: add(1), add(2), get().

#[test]
fn the_detached_sum_fails_and_the_joining_sum_passes() {
    let matrix = m(&[&[0, 2], &[1]]);
    assert_fail(&fork_join_sum(true), &matrix);
    assert_pass(&fork_join_sum(false), &matrix);
}

/// Every history found without the reduction is found with it, and with fewer phase-2 executions:
/// the step of a join commutes with every step of the other operations' threads. (Phase 1 of the
/// sum has nothing to reduce: its serial executions differ in the order of the operations alone.)
#[test]
fn the_reduction_keeps_every_history_of_shuttle_s_joins_and_reduces() {
    let rows = [
        compare(&fork_join_sum(false), &m(&[&[0], &[1]]), 2, None),
        compare(&fork_join_sum(false), &m(&[&[0, 2], &[1]]), 2, None),
        compare(&fork_join_sum(false), &m(&[&[0, 2], &[1, 2]]), 1, None),
        compare(&fork_join_sum(true), &m(&[&[0, 2], &[1]]), 2, None),
        compare(&helper_counter(false), &m(&[&[0], &[0]]), 2, None),
        compare(&helper_counter(true), &m(&[&[0, 1], &[0]]), 1, None),
    ];
    assert_sound(&rows);
    for r in [&rows[0], &rows[1], &rows[2]] {
        assert!(
            r.executions_reduced < r.executions_plain,
            "phase 2 of a sum that joins is not reduced: {r:?}"
        );
    }
}

/// Under the fault, a join and the joined thread's last step commute: still sound here (see the
/// module), and still reduced.
#[test]
fn joins_that_commute_with_the_end_lose_nothing_here() {
    let fault = Some(ReductionFault::ShuttleJoinsCommute);
    assert_sound(&[
        compare(&fork_join_sum(false), &m(&[&[0, 2], &[1]]), 2, fault),
        compare(&fork_join_sum(true), &m(&[&[0, 2], &[1]]), 2, fault),
    ]);
}

/// `ScopedJoinHandle::is_finished` reads whether the thread finished without a scheduling point;
/// lineup's `vendor/shuttle-std` names the thread there, and the step that asks reads the thread's
/// end, which its last step writes. Phase 1 must meet both answers of the probe, with the
/// reduction and without. (This passed before the read was added too: phase 1 covers a sibling
/// only after a step that touched nothing, so it explored both orders here; the dependency itself
/// is checked on footprints in `explore::shuttle_events`'s tests.)
#[test]
fn asking_a_scoped_thread_whether_it_finished_meets_both_answers() {
    let matrix = m(&[&[0]]);
    assert_fail(&scoped_probe(), &matrix);
    let plain = lineup::check(
        &scoped_probe(),
        &matrix,
        &lineup::Config {
            reduction: lineup::Reduction::Off,
            ..lineup::Config::default()
        },
    )
    .expect("the check runs");
    assert!(plain.violation().is_some(), "without the reduction: {plain:?}");
}

/// The dependency that meets both answers of the probe is the thread's end, which its last step
/// writes: under `ReductionFault::ShuttleJoinsCommute` that step only reads it, the probe's read
/// commutes with it, and the search alone (no interlude) meets one answer: the check passes where
/// it must report the operation's nondeterminism.
#[test]
fn a_thread_s_end_taken_to_be_read_hides_an_answer_of_the_probe() {
    let run = |fault| {
        let config = Config {
            reduction: Reduction::On,
            reduction_fault: fault,
            ..comparison_config(2)
        };
        lineup::check(&scoped_probe(), &m(&[&[0]]), &config).expect("the check runs")
    };
    assert!(run(None).violation().is_some(), "the probe's two answers");
    let broken = run(Some(ReductionFault::ShuttleJoinsCommute));
    assert!(broken.is_pass(), "the fault hides nothing: {broken:?}");
}

//! The partial-order reduction on an object whose threads park and unpark with shuttle's own
//! `park` and `Thread::unpark` (used directly), which lineup sees through the events of its
//! `vendor/shuttle-std` that name the thread: the counter whose woken waiter takes the lock as
//! handed over fails and its twin that tries again passes; every distinct history found without
//! the reduction is found with it, at the same bound; and the reduction explores fewer executions
//! than without it. (A park and an unpark taken to commute, `ReductionFault::ShuttleParksCommute`,
//! lose no history of this object; see the last test.)

use lineup::ReductionFault;
use lineup_zoo::reduction::{assert_fail, assert_pass, assert_sound, compare, m};
use lineup_zoo::shuttle_parks::park_lock_counter;

// The counter's one invocation: incr().

#[test]
fn the_handoff_counter_fails_and_the_retrying_counter_passes() {
    let matrix = m(&[&[0], &[0]]);
    assert_fail(&park_lock_counter(true), &matrix);
    assert_pass(&park_lock_counter(false), &matrix);
    assert_pass(&park_lock_counter(false), &m(&[&[0, 0], &[0]]));
}

/// Every history found without the reduction is found with it, and with fewer phase-2 executions.
/// Measured at `incr() | incr() | incr()`, bound 3: 80,556 executions without the reduction,
/// 75,408 with it while an unpark's steps were opaque (the published shuttle-std), 70,374 now.
#[test]
fn the_reduction_keeps_every_history_of_shuttle_s_parks_and_reduces() {
    let rows = [
        compare(&park_lock_counter(false), &m(&[&[0], &[0]]), 2, None),
        compare(&park_lock_counter(true), &m(&[&[0], &[0]]), 2, None),
        compare(&park_lock_counter(false), &m(&[&[0, 0], &[0]]), 2, None),
        compare(&park_lock_counter(false), &m(&[&[0], &[0], &[0]]), 3, None),
    ];
    assert_sound(&rows);
    for r in &rows {
        assert!(
            r.executions_reduced < r.executions_plain,
            "phase 2 of a lock whose waiters park is not reduced: {r:?}"
        );
    }
}

/// Under the fault, a park and an unpark of the same thread commute: still sound here (the
/// dependency is checked on footprints in `explore::shuttle_events`'s tests). A woken waiter tries
/// the lock again (or, in the buggy twin, takes it), whichever order the park's look and the unpark
/// came in, and a park that blocks yields, which ends the sleep sets at its switch.
#[test]
fn parks_that_commute_with_unparks_lose_nothing_here() {
    let fault = Some(ReductionFault::ShuttleParksCommute);
    assert_sound(&[
        compare(&park_lock_counter(false), &m(&[&[0], &[0]]), 2, fault),
        compare(&park_lock_counter(true), &m(&[&[0], &[0]]), 2, fault),
        compare(&park_lock_counter(true), &m(&[&[0], &[0], &[0]]), 2, fault),
    ]);
}

//! The partial-order reduction on an object whose operations run their futures on shuttle's own
//! `future::block_on` (used directly) over `tokio::sync::Mutex`, which lineup's
//! `vendor/shuttle-std` polls through `lineup_signals::footprint::Observed`: the counter that
//! releases its lock between its read and its write fails and its twin passes; every distinct
//! history found without the reduction is found with it, at the same bound; and the reduction
//! explores fewer executions than without it; with tokio's lock steps taken to commute, it loses
//! histories.

use lineup_zoo::reduction::{assert_fail, assert_pass, assert_sound, compare, m};
use lineup_zoo::shuttle_futures::block_on_counter;

// The counter's invocations: incr(0), incr(1).

#[test]
fn the_lost_update_fails_and_the_counter_passes() {
    assert_fail(&block_on_counter(true), &m(&[&[0], &[0]]));
    assert_pass(&block_on_counter(false), &m(&[&[0], &[0]]));
    assert_pass(&block_on_counter(false), &m(&[&[0, 1], &[1, 0]]));
}

/// Every history found without the reduction is found with it, and with fewer phase-2 executions:
/// operations on the two counts commute. Measured at bound 2, phase-2 executions without the
/// reduction, with it while `block_on`'s waits were opaque, and now: `incr(0) | incr(1) |
/// incr(0)`, 202, 142, 115; the lost update's `incr(0) incr(1) | incr(1) incr(0)`, 134, 102, 90
/// (130 without the reduction now: `Observed` polls a future again only after a wake).
#[test]
fn the_reduction_keeps_every_history_of_block_on_s_futures_and_reduces() {
    let rows = [
        compare(&block_on_counter(false), &m(&[&[0], &[1]]), 2, None),
        compare(&block_on_counter(false), &m(&[&[0], &[1], &[0]]), 2, None),
        compare(&block_on_counter(false), &m(&[&[0, 1], &[1, 0]]), 2, None),
        compare(&block_on_counter(true), &m(&[&[0, 1], &[1, 0]]), 2, None),
    ];
    assert_sound(&rows);
    for r in [&rows[0], &rows[1], &rows[3]] {
        assert!(
            r.executions_reduced < r.executions_plain,
            "phase 2 of a counter on block_on is not reduced: {r:?}"
        );
    }
    // With `block_on`'s waits opaque (lineup's shuttle-std without `Observed`), 142.
    assert!(
        rows[1].executions_reduced < 142,
        "block_on's waits are not seen: {:?}",
        rows[1]
    );
}

/// The dependency that keeps the reduction sound here is the lock's: with tokio's lock steps
/// taken to commute (`ReductionFault::TokioLocksCommute`), the reduction loses histories of the
/// lost update (measured: 6 of 10 at `incr(0) | incr(0)`, 30 of 52 at the 2x2 matrix, and its
/// verdict; 2 of 10 and 14 of 52 while `block_on`'s waits were opaque).
#[test]
fn locks_that_commute_lose_a_history_on_block_on() {
    let fault = Some(lineup::ReductionFault::TokioLocksCommute);
    let rows = [
        compare(&block_on_counter(true), &m(&[&[0], &[0]]), 2, fault),
        compare(&block_on_counter(true), &m(&[&[0, 1], &[1, 0]]), 2, fault),
    ];
    lineup_zoo::reduction::assert_some_lost(&rows);
}

//! Spin loops that yield with shuttle's own `thread::yield_now` (`lineup_zoo::shuttle_yields`)
//! get what those on `lineup::thread::yield_now` get: a yield gives way for lineup's scheduler
//! whichever primitive yields. The hand-off with the early flag fails and its correct twin passes
//! on both; every distinct history found without the reduction is found with it; and the loop on
//! shuttle's yield explores exactly the executions of the loop on lineup's, in both phases.

use lineup_zoo::reduction::{assert_fail, assert_pass, assert_sound, compare, m, ReductionRow};
use lineup_zoo::shuttle_yields::{spin_hand_off, Yields};

// The hand-off's invocations: add(), get().

#[test]
fn the_early_flag_fails_and_the_hand_off_passes() {
    let matrix = m(&[&[0], &[0]]);
    for yields in [Yields::Shuttle, Yields::Lineup] {
        assert_fail(&spin_hand_off(yields, true), &matrix);
        assert_pass(&spin_hand_off(yields, false), &matrix);
    }
}

fn rows(yields: Yields) -> Vec<ReductionRow> {
    [false, true]
        .into_iter()
        .flat_map(|early_flag| {
            [
                compare(&spin_hand_off(yields, early_flag), &m(&[&[0], &[0]]), 1, None),
                compare(&spin_hand_off(yields, early_flag), &m(&[&[0], &[1]]), 2, None),
            ]
        })
        .collect()
}

/// Every history found without the reduction is found with it, and the loops on shuttle's yield
/// explore the executions of those on lineup's, in both phases, with the reduction and without.
#[test]
fn shuttle_s_yield_explores_what_lineup_s_explores_and_keeps_every_history() {
    let shuttle = rows(Yields::Shuttle);
    let lineup = rows(Yields::Lineup);
    assert_sound(&shuttle);
    assert_sound(&lineup);
    let counts = |r: &ReductionRow| {
        (
            r.serial_plain,
            r.serial_reduced,
            r.executions_plain,
            r.executions_reduced,
        )
    };
    for (s, l) in shuttle.iter().zip(&lineup) {
        assert_eq!(counts(s), counts(l), "{}: shuttle's yield against lineup's", s.notation);
    }
}

//! A step that stops before the look of a receive of shuttle's own `mpsc` (mpsc.rs:328) counts as
//! one step with that look when the look commutes with every step and blocks, for the record of
//! the branch point the step was chosen at (docs/partial-order-reduction.md, §3.12): every history
//! found without the reduction is still found with it; the register on shuttle's channels is
//! reduced exactly as the same register on `lineup::sync::mpsc`, whose receive has no switch
//! before its look; and the comparison fails when the deferred step's conflicts with other
//! threads' steps are not watched (`ReductionFault::ShuttleLookUnwatched`).

use lineup::{survey, Config, ReductionFault};
use lineup_zoo::native;
use lineup_zoo::reduction::{assert_some_lost, assert_sound, compare, comparison_config, m};
use lineup_zoo::shuttle_channels::{bounded_tally, tally};

// The counters' invocations: add(), get().

#[test]
fn a_step_joined_to_the_look_after_it_keeps_every_history() {
    let tally = tally();
    let bounded = bounded_tally();
    assert_sound(&[
        compare(&tally, &m(&[&[0], &[0, 1]]), 1, None),
        compare(&tally, &m(&[&[0], &[0], &[1]]), 1, None),
        compare(&bounded, &m(&[&[0], &[1]]), 2, None),
        compare(&bounded, &m(&[&[0], &[0, 1]]), 1, None),
    ]);
}

#[test]
fn a_joined_step_whose_conflicts_are_not_watched_loses_a_history() {
    let tally = tally();
    let fault = Some(ReductionFault::ShuttleLookUnwatched);
    // add() | add() get(): 25 -> 23 histories at bound 1.
    assert_some_lost(&[compare(&tally, &m(&[&[0], &[0, 1]]), 1, fault)]);
}

#[test]
fn the_register_on_shuttle_s_channels_is_reduced_as_on_lineup_s() {
    let (lineup, shuttle) = native::registers(false);
    // write(1) | read()
    let matrix = m(&[&[0], &[2]]);
    let config = Config {
        reduction: true.into(),
        ..comparison_config(1)
    };
    let on_lineup = survey(&lineup, &matrix, &config).expect("the survey runs");
    let on_shuttle = survey(&shuttle, &matrix, &config).expect("the survey runs");
    let (l, s) = (on_lineup.verdict.stats(), on_shuttle.verdict.stats());
    eprintln!(
        "write(1) | read() at bound 1: phase 2 {} on lineup::sync, {} on shuttle::sync; histories {} and {}",
        l.concurrent_executions,
        s.concurrent_executions,
        on_lineup.histories.len(),
        on_shuttle.histories.len()
    );
    assert_eq!(s.concurrent_executions, l.concurrent_executions);
    assert_eq!(on_shuttle.histories.len(), on_lineup.histories.len());
}

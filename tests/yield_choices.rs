//! Yields are choices (`Config::yield_choices`, pb-dfs): a spin-wait race that needs one
//! particular thread to run right after a yield is found at default settings, and only because of
//! the yield choice; its fixed twin passes; with two threads the choice costs nothing.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, Config, TestMatrix, Verdict, ViolationKind};
use objects::spin::{filter_lock_counter_for, Levels};

/// Four threads, one `inc` each, thread `i` as the lock's thread `i`.
fn four_incs() -> TestMatrix {
    TestMatrix::new(vec![vec![0], vec![1], vec![2], vec![3]])
}

fn with_yield_choices(yield_choices: u32) -> Config {
    Config {
        yield_choices,
        ..Config::default()
    }
}

fn check_four(levels: Levels, config: &Config) -> Verdict {
    check(&filter_lock_counter_for(4, levels), &four_incs(), config).unwrap()
}

#[test]
fn a_filter_lock_one_level_short_is_found_at_default_settings() {
    let verdict = check_four(Levels::OneShort, &Config::default());
    let violation = verdict.violation().expect("two threads get through the lock together");
    // Two incs return the same value: a lost update, a full history without a serial witness.
    assert!(
        matches!(violation.kind, ViolationKind::NotLinearizable { .. }),
        "{violation}"
    );
    let report = violation.to_string();
    assert!(report.contains("preemption bound 2"), "{report}");
}

#[test]
fn without_the_yield_choice_two_preemptions_miss_it() {
    // The same bound, every yield a fixed switch to the thread that ran least recently: the race
    // then needs a third preemption, so the feature is what finds it.
    let verdict = check_four(Levels::OneShort, &with_yield_choices(0));
    if let Some(violation) = verdict.violation() {
        panic!("found without a yield choice at bound 2:\n{violation}");
    }
}

/// The fix on three threads (two levels): on the four threads of the failing matrix it passes
/// too, with about 710,000 executions (docs/yield-choices-measurements.md), too many for a debug
/// test.
#[test]
fn the_filter_lock_with_all_its_levels_passes_at_default_settings() {
    let three = TestMatrix::new(vec![vec![0], vec![1], vec![2]]);
    let verdict = check(
        &filter_lock_counter_for(3, Levels::NMinusOne),
        &three,
        &Config::default(),
    )
    .unwrap();
    if let Some(violation) = verdict.violation() {
        panic!("the correct filter lock fails:\n{violation}");
    }
}

/// The ticket lock of `tests/strategies.rs` spins without yielding; Peterson's lock (the filter
/// lock for two threads) yields in its wait, and still has nothing to choose after a yield.
#[test]
fn yield_choices_cost_nothing_with_two_threads_that_yield() {
    let two = TestMatrix::new(vec![vec![0, 0], vec![1, 1]]);
    let subject = filter_lock_counter_for(2, Levels::NMinusOne);
    let executions = |yield_choices| {
        let verdict = check(&subject, &two, &with_yield_choices(yield_choices)).unwrap();
        assert!(verdict.is_pass());
        verdict.stats().concurrent_executions
    };
    assert_eq!(executions(0), executions(1));
}

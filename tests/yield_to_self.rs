//! At a yield the yielding thread itself may run next (`Config::yield_to_self`): a spin-then-park
//! event whose waiter registers without looking at the flag again loses a wake-up only when the
//! waiter runs again right after its own yield; it FAILs with the option at the default bound, is
//! missed without it at any bound, and its correct twin PASSes with it.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, Config, TestMatrix, Verdict, ViolationKind};
use objects::spin::{spin_then_park_event, Registration};

/// `wait()` on one thread, `set()` on the other.
fn wait_and_set() -> TestMatrix {
    TestMatrix::new(vec![vec![0], vec![1]])
}

fn with_yield_to_self(on: bool) -> Config {
    Config {
        yield_to_self: on,
        ..Config::default()
    }
}

fn check_event(registration: Registration, config: &Config) -> Verdict {
    check(&spin_then_park_event(registration), &wait_and_set(), config).unwrap()
}

#[test]
fn a_lost_wake_up_after_the_spin_is_found_with_the_yielding_thread_as_an_option() {
    let verdict = check_event(Registration::Blind, &with_yield_to_self(true));
    let violation = verdict.violation().expect("the waiter parks after set() has returned");
    assert!(
        matches!(violation.kind, ViolationKind::StuckNotLinearizable { .. }),
        "{violation}"
    );
}

#[test]
fn without_the_option_no_bound_finds_it() {
    // Every yield of the waiter hands the turn to set(), whose next step raises the flag: a
    // preemption buys the waiter one more look, never two, so more preemptions do not help.
    for preemption_bound in [2, 4] {
        let config = Config {
            preemption_bound,
            ..with_yield_to_self(false)
        };
        if let Some(violation) = check_event(Registration::Blind, &config).violation() {
            panic!("found without the yielding thread as an option at bound {preemption_bound}:\n{violation}");
        }
    }
}

#[test]
fn the_event_that_looks_again_passes_with_the_option() {
    let verdict = check_event(Registration::Recheck, &with_yield_to_self(true));
    if let Some(violation) = verdict.violation() {
        panic!("the correct spin-then-park event fails:\n{violation}");
    }
    assert!(verdict.stats().concurrent_executions > 0);
}

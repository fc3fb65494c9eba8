//! `LINEUP_REPLAY`: with a token from a report in the environment, `check` runs phase 2 on that
//! one schedule. A test binary of its own, with one test, because the environment is shared by
//! every thread of the process.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, Config, TestMatrix, ViolationKind, REPLAY_ENV};
use objects::counters::counter1;

#[test]
fn check_replays_the_schedule_named_by_the_environment() {
    assert_eq!(REPLAY_ENV, "LINEUP_REPLAY");
    assert!(
        std::env::var_os(REPLAY_ENV).is_none(),
        "run this test without {REPLAY_ENV} set"
    );
    let subject = counter1();
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
    let config = Config::default();

    let explored = check(&subject, &matrix, &config).unwrap();
    let violation = explored.violation().expect("Counter1 loses updates");
    assert!(matches!(violation.kind, ViolationKind::NotLinearizable { .. }));
    assert!(violation.stats.concurrent_executions > 1, "{:?}", violation.stats);

    std::env::set_var(REPLAY_ENV, violation.replay.to_string());
    let replayed = check(&subject, &matrix, &config);
    std::env::remove_var(REPLAY_ENV);

    let replayed = replayed.unwrap();
    let again = replayed.violation().expect("the replayed schedule fails again");
    assert!(matches!(again.kind, ViolationKind::NotLinearizable { .. }), "{again}");
    assert_eq!(again.kind.history(), violation.kind.history());
    assert_eq!(again.kind, violation.kind);
    assert_eq!(again.replay, violation.replay);
    assert_eq!(again.stats.concurrent_executions, 1, "{:?}", again.stats);
    assert_eq!(again.stats.distinct_histories, 1);
    // Phase 1 is never bounded, replay or not.
    assert_eq!(again.stats.serial_executions, violation.stats.serial_executions);
}

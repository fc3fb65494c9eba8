//! Two checks in one process at once, as `cargo test` runs a binary's tests: the one that records
//! footprints must see shuttle's events whatever the other does. A check with the reduction off
//! installs no subscriber of lineup's, and when its thread was the first to reach one of shuttle's
//! `tracing` callsites while no subscriber of lineup's lived, `tracing` cached "never" for that
//! callsite, and the other check's reduction lost those events for a whole phase (sound, but its
//! steps opaque: the replicated register's phase 1 did not finish within its time). This file holds
//! a single test, so that its checks are the first of the process to reach shuttle's callsites.

use std::time::Duration;

use lineup::{synthesize_spec, Config, Reduction, Subject, TestMatrix};
use lineup_zoo::native;

/// Phase 1's executions, or `None` if it did not finish within 30 s (alone, it takes well under
/// a second).
fn phase_1<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix) -> Option<u64> {
    let config = Config {
        workers: 1,
        max_duration: Some(Duration::from_secs(30)),
        ..Config::default()
    };
    synthesize_spec(subject, matrix, &config).ok().map(|s| s.executions)
}

#[test]
fn a_check_without_the_reduction_beside_takes_nothing_from_one_with_it() {
    // write(1) read() | write(2) read()
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    let plain = std::thread::spawn(|| {
        let (_, stack) = native::stacks();
        let config = Config {
            workers: 1,
            reduction: Reduction::Off,
            max_duration: Some(Duration::from_secs(20)),
            ..Config::default()
        };
        for _ in 0..5 {
            let _ = lineup::check(&stack, &TestMatrix::new(vec![vec![0, 2], vec![1, 2]]), &config);
        }
    });
    let reduced = std::thread::spawn(move || {
        let (_, register) = native::registers(false);
        (0..3).map(|_| phase_1(&register, &matrix)).collect::<Vec<_>>()
    });
    plain.join().expect("the plain checks run");
    let beside = reduced.join().expect("the reduced phase 1 runs");
    let (_, register) = native::registers(false);
    let alone = phase_1(&register, &TestMatrix::new(vec![vec![0, 2], vec![1, 2]]));
    assert!(alone.is_some(), "phase 1 alone did not finish");
    assert!(
        beside.iter().all(|&e| e == alone),
        "phase 1 beside a plain check: {beside:?} executions; alone: {alone:?}"
    );
}

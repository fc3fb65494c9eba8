//! async-lock 3.5.0 (event-listener 5.4.2) under loom (see `docs/black-box-crates.md`).
#![cfg(loom)]

use lineup::{Config, TestMatrix};
use lineup_blackbox::expectation::{expect_verdict, Expected};
use lineup_blackbox::locks::{self, mutex_op::*, semaphore_op::*};
use lineup_blackbox::real_time::real_time_ordered;

#[test]
fn mutex_lock_try_lock_unlock_passes() {
    expect_verdict(
        &locks::mutex(),
        &TestMatrix::new(vec![vec![LOCK, UNLOCK], vec![TRY_LOCK, UNLOCK]]),
        &Config::default(),
        Expected::Pass,
    );
}

#[test]
fn mutex_contended_lock_passes() {
    let verdict = expect_verdict(
        &locks::mutex(),
        &TestMatrix::new(vec![vec![LOCK, UNLOCK], vec![LOCK, UNLOCK]]),
        &Config::default(),
        Expected::Pass,
    );
    // A lock of a held mutex blocks: the serial orders that run it there are stuck.
    assert!(verdict.stats().serial_stuck > 0);
}

#[test]
fn mutex_lock_blocking_and_with_lock_passes() {
    expect_verdict(
        &locks::mutex(),
        &TestMatrix::new(vec![vec![LOCK_BLOCKING, UNLOCK], vec![WITH_LOCK, TRY_LOCK]]),
        &Config::default(),
        Expected::Pass,
    );
}

#[test]
fn mutex_scoped_try_lock_fails() {
    // try_lock inside one operation meets another thread's critical section: None, which no
    // serial execution returns.
    expect_verdict(
        &locks::scoped_try_lock_mutex(),
        &TestMatrix::new(vec![vec![WITH_LOCK], vec![TRY_WITH_LOCK]]),
        &Config::default(),
        Expected::FailFull,
    );
}

#[test]
fn semaphore_one_permit_passes() {
    expect_verdict(
        &real_time_ordered(&locks::semaphore(1)),
        &TestMatrix::new(vec![vec![ACQUIRE, RELEASE], vec![TRY_ACQUIRE, RELEASE]]),
        &Config::default(),
        Expected::Pass,
    );
}

#[test]
fn semaphore_one_permit_without_real_time_order_fails_by_weak_memory_only() {
    // try_acquire starts with an Acquire load of the count; nothing orders it after the other
    // thread's release, which returned before it was called.
    let verdict = expect_verdict(
        &locks::semaphore(1),
        &TestMatrix::new(vec![vec![ACQUIRE, RELEASE], vec![TRY_ACQUIRE, RELEASE]]),
        &Config::default(),
        Expected::FailFull,
    );
    let history = verdict.violation().unwrap().kind.history();
    // No two operations overlap: a sequentially consistent execution would be a serial one.
    assert!(history.is_serial(), "{}", history.notation());
}

#[test]
fn semaphore_contended_acquire_passes() {
    let verdict = expect_verdict(
        &real_time_ordered(&locks::semaphore(1)),
        &TestMatrix::new(vec![vec![ACQUIRE, RELEASE], vec![ACQUIRE, AVAILABLE]]),
        &Config::default(),
        Expected::Pass,
    );
    assert!(verdict.stats().serial_stuck > 0);
}

#[test]
fn semaphore_shared_pile_fails() {
    let verdict = expect_verdict(
        &real_time_ordered(&locks::shared_stash_semaphore(1)),
        &TestMatrix::new(vec![vec![ACQUIRE, RELEASE], vec![TRY_ACQUIRE, RELEASE]]),
        &Config::default(),
        Expected::FailFull,
    );
    // It fails for its own reason: another thread's operations between acquire and the pile.
    let history = verdict.violation().unwrap().kind.history();
    assert!(!history.is_serial(), "{}", history.notation());
}

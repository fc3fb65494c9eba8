//! async-lock 3.5.0 (event-listener 5.4.2) under loom (see `docs/black-box-crates.md`).
//!
//! Each thread keeps the guards it acquired across its operations, in its own per-thread state
//! (`lineup_blackbox::locks`), and drops the ones it still holds after its last operation, in its
//! `drop(handle)` operation.
//! Each matrix is checked in loom's bare C11 model (`*_c11`, `real_time_happens_before: false`)
//! and with real-time order as happens-before (`*_real_time`, lineup's default; see
//! `lineup_blackbox::expectation`).
#![cfg(loom)]

use lineup::{Config, TestMatrix};
use lineup_blackbox::c11_and_real_time;
use lineup_blackbox::expectation::{expect_verdict, Expected};
use lineup_blackbox::locks::{self, mutex_op::*, semaphore_op::*};

/// loom's bare C11 model: real-time order is not happens-before.
fn c11() -> Config {
    Config {
        real_time_happens_before: false,
        ..Config::default()
    }
}

// The Mutex: its state changes only by read-modify-writes (`try_lock` is a CAS), so the C11 and
// the real-time checks agree.

c11_and_real_time!(
    mutex_lock_try_lock_unlock_c11,
    mutex_lock_try_lock_unlock_real_time,
    locks::mutex(),
    TestMatrix::new(vec![vec![LOCK, UNLOCK], vec![TRY_LOCK, UNLOCK]]),
    Expected::Pass,
    Expected::Pass
);

#[test]
fn mutex_contended_lock_c11() {
    let verdict = expect_verdict(
        &locks::mutex(),
        &TestMatrix::new(vec![vec![LOCK, UNLOCK], vec![LOCK, UNLOCK]]),
        &c11(),
        Expected::Pass,
    );
    // A lock of a held mutex blocks: the serial orders that run it there are stuck, and they are
    // the witnesses of the concurrent executions in which the second lock waits.
    assert!(verdict.stats().serial_stuck > 0);
}

#[test]
fn mutex_contended_lock_real_time() {
    expect_verdict(
        &locks::mutex(),
        &TestMatrix::new(vec![vec![LOCK, UNLOCK], vec![LOCK, UNLOCK]]),
        &Config::default(),
        Expected::Pass,
    );
}

c11_and_real_time!(
    mutex_lock_blocking_and_with_lock_c11,
    mutex_lock_blocking_and_with_lock_real_time,
    locks::mutex(),
    TestMatrix::new(vec![vec![LOCK_BLOCKING, UNLOCK], vec![WITH_LOCK, TRY_LOCK]]),
    Expected::Pass,
    Expected::Pass
);

// Each thread ends holding the mutex: its guard is dropped in the thread's `drop(handle)`
// operation after its lock, so the other thread's lock gets the mutex once the first thread has
// dropped its handle. Serially, a lock called between the other thread's lock and its drop blocks
// for good: two stuck serial histories (one per thread), and no stuck concurrent history, since
// the drop comes concurrently.
#[test]
fn mutex_held_at_thread_end_c11() {
    let verdict = expect_verdict(
        &locks::mutex(),
        &TestMatrix::new(vec![vec![LOCK], vec![LOCK]]),
        &c11(),
        Expected::Pass,
    );
    assert_eq!((verdict.stats().serial_stuck, verdict.stats().stuck_histories), (2, 0));
}

#[test]
fn mutex_held_at_thread_end_real_time() {
    let verdict = expect_verdict(
        &locks::mutex(),
        &TestMatrix::new(vec![vec![LOCK], vec![LOCK]]),
        &Config::default(),
        Expected::Pass,
    );
    assert_eq!((verdict.stats().serial_stuck, verdict.stats().stuck_histories), (2, 0));
}

c11_and_real_time!(
    mutex_three_threads_c11,
    mutex_three_threads_real_time,
    locks::mutex(),
    // Not `with_lock` in one thread and `try_lock` in another: a `try_lock` that meets a critical
    // section inside one operation is the scoped try_lock below, seen from the other side.
    TestMatrix::new(vec![
        vec![LOCK, UNLOCK],
        vec![LOCK_BLOCKING, UNLOCK],
        vec![WITH_LOCK, WITH_LOCK]
    ]),
    Expected::Pass,
    Expected::Pass
);

// The harness is not vacuous: try_lock inside one operation meets another thread's critical
// section and returns None, which no serial execution does.
c11_and_real_time!(
    mutex_scoped_try_lock_fails_c11,
    mutex_scoped_try_lock_fails_real_time,
    locks::scoped_try_lock_mutex(),
    TestMatrix::new(vec![vec![WITH_LOCK], vec![TRY_WITH_LOCK]]),
    Expected::FailFull,
    Expected::FailFull
);

// The Semaphore: `try_acquire` starts with an Acquire load of the permit count and answers None
// if it reads 0. In C11, nothing orders that load after a release that returned before the
// try_acquire was called: it can read the count from before the release.

#[test]
fn semaphore_one_permit_c11() {
    let verdict = expect_verdict(
        &locks::semaphore(1),
        &TestMatrix::new(vec![vec![ACQUIRE, RELEASE], vec![TRY_ACQUIRE, RELEASE]]),
        &c11(),
        Expected::FailFull,
    );
    let history = verdict.violation().unwrap().kind.history();
    // No two operations overlap: in a sequentially consistent execution the history would be a
    // serial one, which phase 1 ran. The violation needs a stale load: weak memory only.
    assert!(history.is_serial(), "{}", history.notation());
}

#[test]
fn semaphore_one_permit_real_time() {
    expect_verdict(
        &locks::semaphore(1),
        &TestMatrix::new(vec![vec![ACQUIRE, RELEASE], vec![TRY_ACQUIRE, RELEASE]]),
        &Config::default(),
        Expected::Pass,
    );
}

#[test]
fn semaphore_contended_acquire_c11() {
    let verdict = expect_verdict(
        &locks::semaphore(1),
        &TestMatrix::new(vec![vec![ACQUIRE, RELEASE], vec![ACQUIRE, AVAILABLE]]),
        &c11(),
        Expected::Pass,
    );
    assert!(verdict.stats().serial_stuck > 0);
}

#[test]
fn semaphore_contended_acquire_real_time() {
    expect_verdict(
        &locks::semaphore(1),
        &TestMatrix::new(vec![vec![ACQUIRE, RELEASE], vec![ACQUIRE, AVAILABLE]]),
        &Config::default(),
        Expected::Pass,
    );
}

c11_and_real_time!(
    semaphore_two_permits_three_threads_c11,
    semaphore_two_permits_three_threads_real_time,
    locks::semaphore(2),
    TestMatrix::new(vec![
        vec![ACQUIRE, RELEASE],
        vec![ACQUIRE, AVAILABLE],
        vec![TRY_ACQUIRE, RELEASE]
    ]),
    Expected::FailFull,
    Expected::Pass
);

// The harness is not vacuous: permits on one shared pile, put there after they are taken.
#[test]
fn semaphore_shared_pile_fails_real_time() {
    let verdict = expect_verdict(
        &locks::shared_stash_semaphore(1),
        &TestMatrix::new(vec![vec![ACQUIRE, RELEASE], vec![TRY_ACQUIRE, RELEASE]]),
        &Config::default(),
        Expected::FailFull,
    );
    // It fails for its own reason: another thread's operations between acquire and the pile.
    let history = verdict.violation().unwrap().kind.history();
    assert!(!history.is_serial(), "{}", history.notation());
}

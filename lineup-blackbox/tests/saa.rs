//! saa 5.6.2 under loom (see `docs/black-box-crates.md`). Each matrix is checked in loom's bare
//! C11 model (`*_c11`, `real_time_happens_before: false`) and with real-time order as
//! happens-before (`*_real_time`, lineup's default; see `lineup_blackbox::expectation`).
#![cfg(loom)]

use lineup::TestMatrix;
use lineup_blackbox::c11_and_real_time;
use lineup_blackbox::expectation::Expected;
use lineup_blackbox::rw_lock::{self, op::*};

// C11 fails by weak memory only: `try_lock` after the other thread's `release` returned reads a
// stale lock word.
c11_and_real_time!(
    lock_try_lock_c11,
    lock_try_lock_real_time,
    rw_lock::rw_lock(),
    TestMatrix::new(vec![vec![LOCK, RELEASE], vec![TRY_LOCK, RELEASE]]),
    Expected::FailFull,
    Expected::Pass
);

c11_and_real_time!(
    lock_share_c11,
    lock_share_real_time,
    rw_lock::rw_lock(),
    TestMatrix::new(vec![vec![LOCK, RELEASE], vec![SHARE, TRY_LOCK, RELEASE]]),
    Expected::Pass,
    Expected::Pass
);

// C11 fails by weak memory only, on a serial history: `try_share` after C's `release` returned
// reads the lock word from before it.
c11_and_real_time!(
    shares_and_lock_c11,
    shares_and_lock_real_time,
    rw_lock::rw_lock(),
    TestMatrix::new(vec![
        vec![SHARE, RELEASE],
        vec![TRY_SHARE, RELEASE],
        vec![LOCK, RELEASE]
    ]),
    Expected::FailFull,
    Expected::Pass
);

// The harness is not vacuous: try_lock and release_lock in one operation, against a critical
// section in one operation.
c11_and_real_time!(
    scoped_try_lock_fails_c11,
    scoped_try_lock_fails_real_time,
    rw_lock::scoped_try_lock(),
    TestMatrix::new(vec![vec![WITH_LOCK], vec![TRY_WITH_LOCK]]),
    Expected::FailFull,
    Expected::FailFull
);

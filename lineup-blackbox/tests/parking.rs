//! parking 2.2.1 under loom (see `docs/black-box-crates.md`). Each matrix is checked in loom's
//! bare C11 model (`*_c11`, `real_time_happens_before: false`) and with real-time order as
//! happens-before (`*_real_time`, lineup's default; see `lineup_blackbox::expectation`).
#![cfg(loom)]

use lineup::TestMatrix;
use lineup_blackbox::c11_and_real_time;
use lineup_blackbox::expectation::Expected;
use lineup_blackbox::parker::{self, op::*};

// The owner parks, unparks itself and parks again; another thread unparks twice (the second
// answers false while the first token is still there; a park may then block for good: a stuck
// history, explained by a stuck serial one). loom's first schedule must finish (see
// `expect_verdict`): with `park() park()` in A it ends with A parked for good.
c11_and_real_time!(
    park_unpark_park_c11,
    park_unpark_park_real_time,
    parker::parker(),
    TestMatrix::new(vec![vec![PARK, UNPARK, PARK], vec![UNPARK, UNPARK]]),
    Expected::Pass,
    Expected::Pass
);

// Two unparking threads against one park.
c11_and_real_time!(
    park_against_two_unparkers_c11,
    park_against_two_unparkers_real_time,
    parker::parker(),
    TestMatrix::new(vec![vec![UNPARK, PARK], vec![UNPARK], vec![UNPARK]]),
    Expected::Pass,
    Expected::Pass
);

// The owner unparks itself, then parks and unparks again, against another thread's unparks.
c11_and_real_time!(
    owner_unparks_too_c11,
    owner_unparks_too_real_time,
    parker::parker(),
    TestMatrix::new(vec![vec![UNPARK, PARK, UNPARK], vec![UNPARK, UNPARK]]),
    Expected::Pass,
    Expected::Pass
);

// The harness is not vacuous: two unparks reported as one.
c11_and_real_time!(
    non_atomic_unpark_twice_fails_c11,
    non_atomic_unpark_twice_fails_real_time,
    parker::non_atomic_unpark_twice(),
    TestMatrix::new(vec![vec![PARK], vec![UNPARK_TWICE]]),
    Expected::FailFull,
    Expected::FailFull
);

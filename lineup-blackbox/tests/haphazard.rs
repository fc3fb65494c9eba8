//! haphazard 0.1.8 under loom (see `docs/black-box-crates.md`). Each matrix is checked in loom's
//! bare C11 model (`*_c11`, `real_time_happens_before: false`) and with real-time order as
//! happens-before (`*_real_time`, lineup's default; see `lineup_blackbox::expectation`).
#![cfg(loom)]

use lineup::TestMatrix;
use lineup_blackbox::c11_and_real_time;
use lineup_blackbox::expectation::Expected;
use lineup_blackbox::hazard_pointer::{self, op::*};

c11_and_real_time!(
    store_load_c11,
    store_load_real_time,
    hazard_pointer::cell(),
    TestMatrix::new(vec![vec![STORE_1, LOAD], vec![STORE_2, LOAD]]),
    Expected::Pass,
    Expected::Pass
);

// Taking a hazard pointer locks the domain's list of free records with a lock bit, and a thread
// that finds the bit set spins *without yielding* (`try_acquire_available` only yields after a
// failed CAS). With the preemption bound used up loom never runs the holder again, and the spinner
// spins until loom's branch limit; an OS would preempt it. That used to be reported as a stuck
// history without a stuck serial witness (a false alarm); since the fair-verdicts change it is an
// inconclusive execution (no thread yielded), counted and never judged, and loom's exploration goes
// on from its stored path. It goes on for very long: the spinner is often the only runnable thread
// and reloads a stale (locked) value, and loom stops offering stores a thread has seen only after
// it yields, so it explores every number of stale reads (see docs/black-box-crates.md). The
// "capacity overflow" this used to end in after four minutes was loom's `set_max_branches` on a
// stored path longer than the limit; lineup no longer hands loom such paths. The real-time check
// passes in 78 s with LOOM_MAX_BRANCHES=1000; at the default limit it would take hours.
#[test]
#[ignore = "loom explores every number of stale loads in haphazard's non-yielding spin: hours at the default branch limit"]
fn compare_and_set_c11() {
    let config = lineup::Config {
        real_time_happens_before: false,
        ..lineup::Config::default()
    };
    let matrix = TestMatrix::new(vec![vec![CAS_0_1, LOAD], vec![CAS_1_2, CAS_0_1]]);
    lineup_blackbox::expectation::expect_verdict(&hazard_pointer::cell(), &matrix, &config, Expected::Pass);
}

#[test]
#[ignore = "loom explores every number of stale loads in haphazard's non-yielding spin: hours at the default branch limit"]
fn compare_and_set_real_time() {
    let matrix = TestMatrix::new(vec![vec![CAS_0_1, LOAD], vec![CAS_1_2, CAS_0_1]]);
    lineup_blackbox::expectation::expect_verdict(
        &hazard_pointer::cell(),
        &matrix,
        &lineup::Config::default(),
        Expected::Pass,
    );
}

// Reclamation while readers protect: four stores before the threads start leave four boxes
// retired (the loom threshold is five); the stores and the eager reclaim of the threads free them
// while the other thread loads.
c11_and_real_time!(
    reclaim_while_loading_c11,
    reclaim_while_loading_real_time,
    hazard_pointer::cell(),
    TestMatrix::new(vec![vec![STORE_1, RECLAIM], vec![LOAD, LOAD]])
        .with_initial(vec![STORE_2, STORE_1, STORE_2, STORE_1]),
    Expected::Pass,
    Expected::Pass
);

// The harness is not vacuous: a swap made of a load and a store.
c11_and_real_time!(
    non_atomic_swap_fails_c11,
    non_atomic_swap_fails_real_time,
    hazard_pointer::non_atomic_swap(),
    TestMatrix::new(vec![vec![LOAD_THEN_STORE_1], vec![LOAD_THEN_STORE_1]]),
    Expected::FailFull,
    Expected::FailFull
);

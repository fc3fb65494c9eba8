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

// Both fail with a stuck history, an artefact of loom's bounded preemption, not a bug: taking a
// hazard pointer locks the domain's list of free records with a lock bit, and a thread that finds
// the bit set spins *without yielding* (`try_acquire_available` only yields after a failed CAS).
// With the preemption bound used up loom never runs the holder again, and the spinner spins
// forever; an OS would preempt it. lineup reports the livelock as a stuck history that no serial
// execution has (Def. 2).
c11_and_real_time!(
    compare_and_set_c11,
    compare_and_set_real_time,
    hazard_pointer::cell(),
    TestMatrix::new(vec![vec![CAS_0_1, LOAD], vec![CAS_1_2, CAS_0_1]]),
    Expected::FailStuck,
    Expected::FailStuck
);

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

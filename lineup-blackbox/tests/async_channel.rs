//! async-channel 2.5.0 under loom (see `docs/black-box-crates.md`). Each matrix is checked in
//! loom's bare C11 model (`*_c11`, `real_time_happens_before: false`) and with real-time order as
//! happens-before (`*_real_time`, lineup's default; see `lineup_blackbox::expectation`).
#![cfg(loom)]

use lineup::TestMatrix;
use lineup_blackbox::c11_and_real_time;
use lineup_blackbox::channels::{self, op::*};
use lineup_blackbox::expectation::Expected;

// concurrent-queue's single-slot bug, inherited: `async_channel::bounded(1)` is built on
// `ConcurrentQueue::bounded(1)`. While A's `try_recv` holds the slot locked (between its two
// read-modify-writes), B's `try_recv` answers `Err(Empty)` and B's `try_send(2)` answers
// `Err(Full(2))`: empty, then full, with nothing sent in between. An interleaving bug (both fail).
c11_and_real_time!(
    bounded1_try_ops_c11,
    bounded1_try_ops_real_time,
    channels::bounded(1),
    TestMatrix::new(vec![vec![TRY_RECV], vec![TRY_RECV, TRY_SEND_2]]).with_initial(vec![TRY_SEND_1]),
    Expected::FailFull,
    Expected::FailFull
);

c11_and_real_time!(
    bounded1_send_recv_c11,
    bounded1_send_recv_real_time,
    channels::bounded(1),
    TestMatrix::new(vec![vec![SEND_3, SEND_3], vec![RECV]]),
    Expected::Pass,
    Expected::Pass
);

// C11 fails by weak memory only (the array queue's index loads, as for concurrent-queue).
c11_and_real_time!(
    bounded2_c11,
    bounded2_real_time,
    channels::bounded(2),
    TestMatrix::new(vec![vec![TRY_SEND_1, TRY_RECV], vec![TRY_SEND_2, LEN]]),
    Expected::FailFull,
    Expected::Pass
);

c11_and_real_time!(
    unbounded_c11,
    unbounded_real_time,
    channels::unbounded(),
    TestMatrix::new(vec![vec![SEND_3, CLOSE], vec![RECV, TRY_RECV]]),
    Expected::Pass,
    Expected::Pass
);

// The harness is not vacuous: is_empty then try_recv, reported as one operation.
c11_and_real_time!(
    non_atomic_recv_if_not_empty_fails_c11,
    non_atomic_recv_if_not_empty_fails_real_time,
    channels::non_atomic_recv_if_not_empty(),
    TestMatrix::new(vec![vec![RECV_IF_NOT_EMPTY], vec![RECV_IF_NOT_EMPTY]]).with_initial(vec![TRY_SEND_1]),
    Expected::FailFull,
    Expected::FailFull
);

//! oneshot 0.2.1 under loom (`--cfg oneshot_loom`; see `docs/black-box-crates.md`). Each matrix is
//! checked in loom's bare C11 model (`*_c11`, `real_time_happens_before: false`) and with
//! real-time order as happens-before (`*_real_time`, lineup's default; see
//! `lineup_blackbox::expectation`). Receiver operations stay in one column (the channel has one
//! consumer; see `lineup_blackbox::oneshot_channel`).
#![cfg(all(loom, oneshot_loom))]

use lineup::TestMatrix;
use lineup_blackbox::c11_and_real_time;
use lineup_blackbox::expectation::Expected;
use lineup_blackbox::oneshot_channel::{self, op::*};

// `try_recv` is a Relaxed load of the state (its fence comes only after it saw a message): in C11,
// it can answer `Err(Empty)` after a `send` that returned. A weak-memory-only failure;
// with real-time order as happens-before it passes.
c11_and_real_time!(
    send_try_recv_recv_c11,
    send_try_recv_recv_real_time,
    oneshot_channel::channel(),
    TestMatrix::new(vec![vec![SEND, SEND], vec![TRY_RECV, RECV]]),
    Expected::FailFull,
    Expected::Pass
);

c11_and_real_time!(
    drop_sender_during_recv_c11,
    drop_sender_during_recv_real_time,
    oneshot_channel::channel(),
    TestMatrix::new(vec![vec![DROP_SENDER, SEND], vec![RECV, TRY_RECV]]),
    Expected::Pass,
    Expected::Pass
);

c11_and_real_time!(
    send_against_drop_receiver_c11,
    send_against_drop_receiver_real_time,
    oneshot_channel::channel(),
    TestMatrix::new(vec![vec![SEND, DROP_SENDER], vec![TRY_RECV, DROP_RECEIVER]]),
    Expected::FailFull,
    Expected::Pass
);

c11_and_real_time!(
    three_threads_c11,
    three_threads_real_time,
    oneshot_channel::channel(),
    TestMatrix::new(vec![vec![SEND, DROP_SENDER], vec![TRY_RECV, RECV], vec![SEND, SEND]]),
    Expected::FailFull,
    Expected::Pass
);

// The harness is not vacuous: a try_recv that takes the receiver out and puts it back.
c11_and_real_time!(
    taken_out_try_recv_fails_c11,
    taken_out_try_recv_fails_real_time,
    oneshot_channel::taken_out_try_recv_channel(),
    TestMatrix::new(vec![vec![TRY_RECV_TAKEN_OUT], vec![TRY_RECV]]).with_initial(vec![SEND]),
    Expected::FailFull,
    Expected::FailFull
);

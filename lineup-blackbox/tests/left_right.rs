//! left-right 0.11.8 under loom (see `docs/black-box-crates.md`). Each matrix is checked in loom's
//! bare C11 model (`*_c11`, `real_time_happens_before: false`) and with real-time order as
//! happens-before (`*_real_time`, lineup's default; see `lineup_blackbox::expectation`).
#![cfg(loom)]

use lineup::TestMatrix;
use lineup_blackbox::c11_and_real_time;
use lineup_blackbox::expectation::Expected;
use lineup_blackbox::left_right_buffer::{self, op::*};

// One writer (push, publish), one reader.
// Both checks fail, and neither is a bug of left-right as built for real. A read that is in progress
// across two publishes returns the second one's vector, then the next read returns the first one's:
// the writer applied its log to the copy the reader was in. left-right's protocol is a store-buffering
// pair with SeqCst fences (the reader bumps its epoch, fence, loads the pointer; the writer swaps the
// pointer, fence, reads the epochs), which C11 forbids to miss both ways, but its loom shim
// (`src/sync.rs`) turns every fence into `fence(Acquire)` ("loom only supports acquire fences",
// loom issue 117; loom 0.7.2 has SeqCst fences), so under loom the writer can miss the reader's epoch
// while the reader loads the old pointer. A loom modelling artefact of the crate's own shim.
c11_and_real_time!(
    writer_and_reader_c11,
    writer_and_reader_real_time,
    left_right_buffer::buffer(),
    TestMatrix::new(vec![vec![PUSH_1, PUBLISH, PUSH_2, PUBLISH], vec![READ, READ]]),
    Expected::FailFull,
    Expected::FailFull
);

// Two readers against one writer; the writer asks whether pushes are pending.
// One publish: no read spans two publishes. C11 fails by weak memory only (a read called after the
// publish returned loads the old pointer). Each thread's read handle is made when it starts, which
// locks left-right's list of readers: with lineup-core 395ed11 the real-time check has 2 executions
// stuck outside lineup::sync that are the loom harness's, not left-right's (a worker that ended
// before the last worker was spawned; see tests/handles_on_loom.rs), each resumed from loom's stored
// path.
c11_and_real_time!(
    writer_two_readers_c11,
    writer_two_readers_real_time,
    left_right_buffer::buffer(),
    TestMatrix::new(vec![vec![PUSH_1, PUBLISH, PENDING], vec![READ], vec![READ, READ]]),
    Expected::FailFull,
    Expected::Pass
);

// The harness is not vacuous: two reads reported as one.
c11_and_real_time!(
    non_atomic_read_twice_fails_c11,
    non_atomic_read_twice_fails_real_time,
    left_right_buffer::non_atomic_read_twice(),
    TestMatrix::new(vec![vec![PUSH_1, PUBLISH], vec![READ_TWICE]]),
    Expected::FailFull,
    Expected::FailFull
);

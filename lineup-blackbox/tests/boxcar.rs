//! boxcar 0.2.14 under loom (see `docs/black-box-crates.md`). Each matrix is checked in loom's
//! bare C11 model (`*_c11`, `real_time_happens_before: false`) and with real-time order as
//! happens-before (`*_real_time`, lineup's default; see `lineup_blackbox::expectation`).
#![cfg(loom)]

use lineup::TestMatrix;
use lineup_blackbox::append_vec::{self, op::*};
use lineup_blackbox::c11_and_real_time;
use lineup_blackbox::expectation::Expected;

// A finding about `push`, `get` and `count` as the crate offers them: `push` takes its index
// (`fetch_add` on the in-flight counter) before it writes the entry and counts it. Thread A takes
// index 0 and is preempted; thread B takes index 1, writes, returns 1, and its `get(0)` returns
// None. B's index 1 says A's push came first, and after it `get(0)` cannot be None. Both checks
// fail (an interleaving, not weak memory): boxcar does not promise more (its docs: "it is not
// guaranteed that all elements 0..vec.count() are initialized"), lineup shows what that means.
c11_and_real_time!(
    push_get_c11,
    push_get_real_time,
    append_vec::vec(),
    TestMatrix::new(vec![vec![PUSH_10], vec![PUSH_20, GET_0]]),
    Expected::FailFull,
    Expected::FailFull
);

// The same with `count`: B's push returns 1 and B's count returns 1, but index 1 means that A's
// push came first, so the count after B's push is 2.
c11_and_real_time!(
    push_count_c11,
    push_count_real_time,
    append_vec::vec(),
    TestMatrix::new(vec![vec![PUSH_10, GET_1], vec![PUSH_20, COUNT]]),
    Expected::FailFull,
    Expected::FailFull
);

// Without the index, `push` and `count` are linearizable: a push takes effect at its increment
// of the count. With three threads the C11 check fails by weak memory only: `count` is an
// Acquire load that can read a count older than a push that already returned wrote.
c11_and_real_time!(
    unindexed_push_count_c11,
    unindexed_push_count_real_time,
    append_vec::vec_unindexed(),
    TestMatrix::new(vec![vec![PUSH_10, COUNT], vec![PUSH_20, COUNT]]),
    Expected::Pass,
    Expected::Pass
);

c11_and_real_time!(
    unindexed_three_threads_c11,
    unindexed_three_threads_real_time,
    append_vec::vec_unindexed(),
    TestMatrix::new(vec![vec![PUSH_10, COUNT], vec![PUSH_20, COUNT], vec![COUNT, PUSH_10]]),
    Expected::FailFull,
    Expected::Pass
);

// The harness is not vacuous: a check-then-act wrapper reported as one operation.
c11_and_real_time!(
    non_atomic_push_if_empty_fails_c11,
    non_atomic_push_if_empty_fails_real_time,
    append_vec::non_atomic_push_if_empty(),
    TestMatrix::new(vec![vec![PUSH_IF_EMPTY], vec![PUSH_IF_EMPTY]]).with_final(vec![COUNT]),
    Expected::FailFull,
    Expected::FailFull
);

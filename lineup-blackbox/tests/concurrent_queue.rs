//! concurrent-queue 2.5.0 under loom (see `docs/black-box-crates.md`): its single-slot queue
//! (`bounded(1)`), its array queue (`bounded(2)`) and its unbounded queue.
//!
//! Every matrix is checked twice: in loom's bare C11 model (`*_c11`, `real_time_happens_before:
//! false`), and with real-time order as happens-before (`*_real_time`, lineup's default; see
//! `lineup_blackbox::expectation`). A C11 check that fails while the real-time one passes is a
//! weak-memory-only finding: an operation read an older value than one that an operation which
//! had already returned wrote, with nothing to make it see it (C11 allows that; linearizability's
//! real-time order does not).
#![cfg(loom)]

use lineup::TestMatrix;
use lineup_blackbox::c11_and_real_time;
use lineup_blackbox::expectation::Expected;
use lineup_blackbox::queues::{self, op::*};

// The single-slot queue (`bounded(1)`): a state word of LOCKED, PUSHED and CLOSED bits, changed
// only by read-modify-writes, so the C11 and the real-time checks agree.

c11_and_real_time!(
    single_push_pop_is_full_c11,
    single_push_pop_is_full_real_time,
    queues::bounded(1),
    TestMatrix::new(vec![vec![PUSH_1, POP], vec![PUSH_2, IS_FULL]]),
    Expected::Pass,
    Expected::Pass
);

c11_and_real_time!(
    single_len_is_empty_c11,
    single_len_is_empty_real_time,
    queues::bounded(1),
    TestMatrix::new(vec![vec![PUSH_1, LEN], vec![POP, IS_EMPTY]]),
    Expected::Pass,
    Expected::Pass
);

c11_and_real_time!(
    single_close_c11,
    single_close_real_time,
    queues::bounded(1),
    TestMatrix::new(vec![vec![PUSH_1, CLOSE], vec![PUSH_2, POP]]),
    Expected::Pass,
    Expected::Pass
);

// A finding: `pop` empties the slot with one CAS (PUSHED -> LOCKED) and unlocks with a second RMW;
// between the two, another `pop` answers `Err(Empty)` (the value is gone) but `push` answers
// `Err(Full)` (its CAS expects the state 0 and finds LOCKED). A thread that sees `Empty` and then
// gets `Full` on an empty, open queue: no serial execution does that. Only read-modify-writes are
// involved (they read the latest value in loom as in C11), so this is an interleaving bug, not a
// weak-memory one.
c11_and_real_time!(
    single_three_threads_c11,
    single_three_threads_real_time,
    queues::bounded(1),
    TestMatrix::new(vec![vec![PUSH_1, POP], vec![PUSH_2, LEN], vec![POP, CLOSE]]),
    Expected::FailFull,
    Expected::FailFull
);

// The same bug, on the smallest matrix that shows it: B's pop sees the slot emptied by A's pop,
// then B's push finds it full.
c11_and_real_time!(
    single_full_after_empty_c11,
    single_full_after_empty_real_time,
    queues::bounded(1),
    TestMatrix::new(vec![vec![POP], vec![POP, PUSH_2]]).with_initial(vec![PUSH_1]),
    Expected::FailFull,
    Expected::FailFull
);

// The array queue (`bounded(2)`): `len`, `is_empty`, `is_full` and `pop`'s emptiness test load
// the head and tail indices (SeqCst loads, which loom treats as Acquire). In C11, an operation
// can read an index older than the one an already returned operation wrote: every C11 failure
// below is such a weak-memory-only history (the real-time checks pass).

c11_and_real_time!(
    array_push_pop_len_c11,
    array_push_pop_len_real_time,
    queues::bounded(2),
    TestMatrix::new(vec![vec![PUSH_1, POP], vec![PUSH_2, LEN]]),
    Expected::FailFull,
    Expected::Pass
);

c11_and_real_time!(
    array_fill_c11,
    array_fill_real_time,
    queues::bounded(2),
    TestMatrix::new(vec![vec![PUSH_1, PUSH_2], vec![POP, IS_FULL]]),
    Expected::FailFull,
    Expected::Pass
);

c11_and_real_time!(
    array_close_c11,
    array_close_real_time,
    queues::bounded(2),
    TestMatrix::new(vec![vec![PUSH_1, CLOSE], vec![POP, PUSH_2]]),
    Expected::FailFull,
    Expected::Pass
);

c11_and_real_time!(
    array_two_by_three_c11,
    array_two_by_three_real_time,
    queues::bounded(2),
    TestMatrix::new(vec![vec![PUSH_1, PUSH_2, POP], vec![PUSH_2, POP, LEN]]),
    Expected::FailFull,
    Expected::Pass
);

c11_and_real_time!(
    array_three_threads_c11,
    array_three_threads_real_time,
    queues::bounded(2),
    TestMatrix::new(vec![vec![PUSH_1, POP], vec![PUSH_2, IS_FULL], vec![PUSH_1, LEN]]),
    Expected::FailFull,
    Expected::Pass
);

// The unbounded queue: the same kind of index loads, the same weak-memory-only C11 failures.

c11_and_real_time!(
    unbounded_push_pop_len_c11,
    unbounded_push_pop_len_real_time,
    queues::unbounded(),
    TestMatrix::new(vec![vec![PUSH_1, POP], vec![PUSH_2, LEN]]),
    Expected::FailFull,
    Expected::Pass
);

c11_and_real_time!(
    unbounded_close_c11,
    unbounded_close_real_time,
    queues::unbounded(),
    TestMatrix::new(vec![vec![PUSH_1, IS_EMPTY], vec![POP, CLOSE]]),
    Expected::FailFull,
    Expected::Pass
);

c11_and_real_time!(
    unbounded_two_by_three_c11,
    unbounded_two_by_three_real_time,
    queues::unbounded(),
    TestMatrix::new(vec![vec![PUSH_1, PUSH_2, POP], vec![POP, LEN, IS_EMPTY]]),
    Expected::FailFull,
    Expected::Pass
);

// A loom false alarm, not a bug of the crate: in the violating history C's `pop` returns
// `Err(Empty)` while B's `len` returned 2 (B's push done, A's pop not yet). For that, C's pop must
// read the tail index older than B's push wrote, after a `fence(SeqCst)` that comes after A's
// head CAS in the SeqCst order, which itself comes after B's SeqCst push and len loads. C11
// forbids that read; loom treats SeqCst accesses as AcqRel (its README: "causing Loom to generate
// false alarms") and allows it. See docs/black-box-crates.md.
c11_and_real_time!(
    unbounded_three_threads_c11,
    unbounded_three_threads_real_time,
    queues::unbounded(),
    TestMatrix::new(vec![vec![PUSH_1, POP], vec![PUSH_2, LEN], vec![POP, IS_EMPTY]]),
    Expected::FailFull,
    Expected::FailFull
);

// Three threads that only push and pop: at preemption bound 2 the real-time check runs for
// more than 15 minutes (loom explores the pops' spinning on a block being installed), so this
// one is checked at bound 1.
c11_and_real_time!(
    unbounded_three_threads_push_pop_c11,
    unbounded_three_threads_push_pop_real_time,
    queues::unbounded(),
    TestMatrix::new(vec![vec![PUSH_1, POP], vec![PUSH_2, POP], vec![POP, PUSH_1]]),
    Expected::Pass,
    Expected::Pass,
    lineup::Config {
        preemption_bound: 1,
        ..lineup::Config::default()
    }
);

// The harness is not vacuous: a wrapper that reports two calls of the crate as one operation.
c11_and_real_time!(
    non_atomic_pop_if_not_empty_fails_c11,
    non_atomic_pop_if_not_empty_fails_real_time,
    queues::non_atomic_pop_if_not_empty(2),
    TestMatrix::new(vec![vec![POP_IF_NOT_EMPTY], vec![POP]]).with_initial(vec![PUSH_1]),
    Expected::FailFull,
    Expected::FailFull
);

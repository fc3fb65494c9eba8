//! Running one check of a crate under test, printing what it explored, and asserting its verdict;
//! and [`c11_and_real_time!`](crate::c11_and_real_time), the two checks of one matrix that tell a
//! weak-memory-only finding from an interleaving bug.
//!
//! # Real-time order, happens-before, and the two checks of a matrix
//!
//! Linearizability orders two operations when one returns before the other is called (real-time
//! order). loom, following the C11 memory model, does not: an operation that starts after another
//! one returned, with nothing to synchronize the two threads, may still load an older value than
//! the other operation stored (an `Acquire` load may read any store that it does not
//! happen-after, and loom treats `SeqCst` loads as `Acquire`). A `Semaphore` whose permit was
//! released by thread A can then look empty to thread B afterwards, and lineup sees a history in
//! which no two operations even overlap but that no serial execution has. Whether that is a bug
//! depends on the notion of correctness: under C11, a client can only *know* that A's operation
//! came first through some synchronization, and the usual correctness notion for C11 libraries is
//! linearizability with happens-before in place of real time.
//!
//! lineup's loom backend makes real-time order happens-before by default
//! ([`lineup::Config::real_time_happens_before`], on): each call and each return of phase 2 does an
//! acquire-release read-modify-write of one harness atomic, inside the operation's interval. A
//! read-modify-write always reads the latest value of its atomic, so the one at the call of B's
//! operation reads from (and acquires) the one at the return of every operation that returned
//! before, and every store of those operations happens-before B's loads. Nothing else changes: the
//! threads, the interleavings (there are more scheduling points, the bound is the same) and the
//! operations' own orderings inside overlapping operations, where a weak-memory finding still
//! shows. `real_time_happens_before: false` is loom's bare C11 model.
//!
//! [`c11_and_real_time!`](crate::c11_and_real_time) checks a matrix both ways. The comparison is
//! the label that lineup cannot give for a black-box crate, whose atomics are loom's, not
//! `lineup::sync::atomic` (which lineup tracks and labels in its report): if the C11 check fails
//! and the real-time one passes, every violation of the C11 check needs a load that did not return
//! the latest store of the interleaving (in a sequentially consistent execution the harness's
//! read-modify-writes change nothing), so it is a weak-memory-only finding, not an interleaving
//! bug.

use std::time::Instant;

use lineup::{check, Config, Subject, TestMatrix, Verdict, ViolationKind};

/// What the figures lines call the memory model of a check.
fn model(config: &Config) -> &'static str {
    if config.real_time_happens_before {
        "real-time order as happens-before"
    } else {
        "C11"
    }
}

/// What a check must conclude.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// No violation within the explored schedules.
    Pass,
    /// Phase 2 found a full history without a serial witness (Def. 1).
    FailFull,
    /// Phase 2 found a stuck history with a pending operation that no stuck serial history
    /// explains (Def. 2).
    FailStuck,
    /// Phase 1 found two serial histories that share a prefix ending in a call and then differ.
    FailNondeterministic,
}

impl Expected {
    /// The conclusion of a verdict.
    pub fn of(verdict: &Verdict) -> Self {
        match verdict.violation().map(|v| &v.kind) {
            None => Expected::Pass,
            Some(ViolationKind::NotLinearizable { .. }) => Expected::FailFull,
            Some(ViolationKind::StuckNotLinearizable { .. }) => Expected::FailStuck,
            Some(ViolationKind::Nondeterministic(_)) => Expected::FailNondeterministic,
        }
    }
}

/// Checks `subject` on `matrix` with `config`, prints the matrix, the memory model (C11 or
/// real-time order as happens-before, see the module), the preemption bound, the executions of
/// both phases, the stuck histories and resumed executions of phase 2 and the time (on stderr, one
/// line for people and one JSON line for the documentation's table), prints the report of a
/// violation, and panics unless the verdict is `expected`. Returns the verdict for further
/// assertions.
///
/// Stuck executions of phase 2 come in two kinds. A worker blocked for good in `lineup::sync`'s
/// `Mutex` or `Condvar` (the oneshot channel's halves, the shared pile of permits) is seen by
/// lineup's loom backend, which takes the stuck history and ends the execution normally: loom's
/// exploration goes on, nothing is skipped. A worker blocked anywhere else (loom's own primitives,
/// as in `lineup::future::block_on`, or the crate's: event-listener's waits, oneshot's `recv`) or
/// spinning ends in loom's deadlock assertion (or its branch limit), and the backend resumes loom's
/// exploration from the path loom stored *before* running that execution, which skips the
/// schedules that only it would have led to; [`lineup::CheckStats::stuck_resumed`] counts those
/// executions, and the figures print it.
///
/// A pass is refused if every execution that phase 2 explored was resumed that way: when the very
/// first execution gets stuck outside `lineup::sync`, the stored path is empty, so the exploration
/// ends there. Such a "pass" explored one schedule; the matrix must change (see
/// `docs/black-box-crates.md`). A pass in which every history is stuck inside `lineup::sync` is
/// not refused: the exploration went on past each of them.
///
/// Run each check in its own `#[test]`: the loom backend re-runs the current test in child
/// processes until it reaches the same check, so a test with several checks runs the earlier
/// ones again for every later one.
pub fn expect_verdict<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    expected: Expected,
) -> Verdict {
    let start = Instant::now();
    let verdict = match check(subject, matrix, config) {
        Ok(verdict) => verdict,
        Err(e) => panic!("the check of {} could not run: {e}", subject.name()),
    };
    let elapsed = start.elapsed();
    let got = Expected::of(&verdict);
    let labels = subject.labels();
    let s = verdict.stats();
    eprintln!(
        "{} on loom, {}, preemption bound {}:\n{}",
        subject.name(),
        model(config),
        config.preemption_bound,
        matrix.display(&labels)
    );
    eprintln!(
        "  verdict {got:?}; phase 1: {} serial executions ({} full, {} stuck histories) in {:.2?}; phase 2: {} \
         executions ({} stuck outside lineup::sync, each resumed from loom's stored path), {} distinct histories ({} \
         stuck) in {:.2?}; total {:.2?}",
        s.serial_executions,
        s.serial_full,
        s.serial_stuck,
        s.phase1_time,
        s.concurrent_executions,
        s.stuck_resumed,
        s.distinct_histories,
        s.stuck_histories,
        s.phase2_time,
        elapsed
    );
    eprintln!(
        "{{\"blackbox\":{:?},\"matrix\":{:?},\"real_time_happens_before\":{},\"preemption_bound\":{},\"verdict\":\"{got:?}\",\
         \"serial_executions\":{},\"concurrent_executions\":{},\"distinct_histories\":{},\"stuck_histories\":{},\"stuck_resumed\":{},\"seconds\":{:.3}}}",
        subject.name(),
        matrix.display(&labels).to_string().trim_end().replace('\n', ";"),
        config.real_time_happens_before,
        config.preemption_bound,
        s.serial_executions,
        s.concurrent_executions,
        s.distinct_histories,
        s.stuck_histories,
        s.stuck_resumed,
        elapsed.as_secs_f64()
    );
    if let Some(violation) = verdict.violation() {
        eprintln!("{violation}");
    }
    assert!(
        !(verdict.is_pass() && s.concurrent_executions > 0 && s.concurrent_executions <= s.stuck_resumed as u64),
        "{} ({}): a vacuous pass: every one of the {} execution(s) of phase 2 got stuck outside lineup::sync (in loom's \
         or the crate's own primitives, or spinning), and loom's exploration cannot resume after a first execution that \
         got stuck there; choose a matrix whose first (unpreempted) schedule finishes",
        subject.name(),
        model(config),
        s.concurrent_executions
    );
    assert_eq!(
        got,
        expected,
        "{} ({}): expected {expected:?}, got {got:?}\n{}",
        subject.name(),
        model(config),
        verdict.violation().map(|v| v.to_string()).unwrap_or_default()
    );
    verdict
}

/// Two tests for one matrix, both with `$config` (default: [`Config::default()`](lineup::Config)):
/// `$c11_test` checks it in loom's bare C11 model (`real_time_happens_before: false`) and expects
/// `$c11`; `$real_time_test` checks it with real-time order as happens-before
/// (`real_time_happens_before: true`, lineup's default) and expects `$real_time`. A C11 failure
/// next to a real-time pass is a weak-memory-only finding (see
/// [`expectation`](crate::expectation)).
///
/// ```ignore
/// c11_and_real_time!(
///     push_pop_c11,
///     push_pop_real_time,
///     queues::unbounded(),
///     TestMatrix::new(vec![vec![PUSH_1, POP], vec![PUSH_2, LEN]]),
///     Expected::FailFull,
///     Expected::Pass
/// );
/// ```
#[macro_export]
macro_rules! c11_and_real_time {
    ($c11_test:ident, $real_time_test:ident, $subject:expr, $matrix:expr, $c11:expr, $real_time:expr) => {
        $crate::c11_and_real_time!(
            $c11_test,
            $real_time_test,
            $subject,
            $matrix,
            $c11,
            $real_time,
            ::lineup::Config::default()
        );
    };
    ($c11_test:ident, $real_time_test:ident, $subject:expr, $matrix:expr, $c11:expr, $real_time:expr, $config:expr) => {
        #[test]
        fn $c11_test() {
            let config = ::lineup::Config {
                real_time_happens_before: false,
                ..$config
            };
            $crate::expectation::expect_verdict(&$subject, &$matrix, &config, $c11);
        }

        #[test]
        fn $real_time_test() {
            let config = ::lineup::Config {
                real_time_happens_before: true,
                ..$config
            };
            $crate::expectation::expect_verdict(&$subject, &$matrix, &config, $real_time);
        }
    };
}

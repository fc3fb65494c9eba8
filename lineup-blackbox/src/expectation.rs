//! Running one check of a crate under test, printing what it explored, and asserting its verdict.

use std::time::Instant;

use lineup::{check, Config, Subject, TestMatrix, Verdict, ViolationKind};

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

/// Checks `subject` on `matrix` with `config`, prints the matrix, the preemption bound, the
/// executions of both phases and the time (on stderr, one line for people and one JSON line for
/// the documentation's table), prints the report of a violation, and panics unless the verdict
/// is `expected`. Returns the verdict for further assertions.
///
/// A pass is refused if every execution that phase 2 explored got stuck: lineup's loom backend
/// resumes loom's exploration after a stuck execution from the path loom stored *before* running
/// it, and when the very first execution gets stuck that path is empty, so the exploration ends
/// there. Such a "pass" explored one schedule; the matrix must change (see
/// `docs/black-box-crates.md`). Fewer stuck executions cut the exploration too (the schedules
/// after them that only they would have led to are skipped); the figures line says how many.
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
        "{} on loom, preemption bound {}:\n{}",
        subject.name(),
        config.preemption_bound,
        matrix.display(&labels)
    );
    eprintln!(
        "  verdict {got:?}; phase 1: {} serial executions ({} full, {} stuck histories) in {:.2?}; phase 2: {} \
         executions, {} distinct histories ({} stuck, each one cuts loom's exploration) in {:.2?}; total {:.2?}",
        s.serial_executions,
        s.serial_full,
        s.serial_stuck,
        s.phase1_time,
        s.concurrent_executions,
        s.distinct_histories,
        s.stuck_histories,
        s.phase2_time,
        elapsed
    );
    eprintln!(
        "{{\"blackbox\":{:?},\"matrix\":{:?},\"preemption_bound\":{},\"verdict\":\"{got:?}\",\"serial_executions\":{},\
         \"concurrent_executions\":{},\"distinct_histories\":{},\"stuck_histories\":{},\"seconds\":{:.3}}}",
        subject.name(),
        matrix.display(&labels).to_string().trim_end().replace('\n', ";"),
        config.preemption_bound,
        s.serial_executions,
        s.concurrent_executions,
        s.distinct_histories,
        s.stuck_histories,
        elapsed.as_secs_f64()
    );
    if let Some(violation) = verdict.violation() {
        eprintln!("{violation}");
    }
    assert!(
        !(verdict.is_pass() && s.concurrent_executions > 0 && s.concurrent_executions <= s.stuck_histories as u64),
        "{}: a vacuous pass: every one of the {} execution(s) of phase 2 got stuck, and loom's exploration cannot \
         resume after a stuck first execution; choose a matrix whose first (unpreempted) schedule finishes",
        subject.name(),
        s.concurrent_executions
    );
    assert_eq!(
        got,
        expected,
        "{}: expected {expected:?}, got {got:?}\n{}",
        subject.name(),
        verdict.violation().map(|v| v.to_string()).unwrap_or_default()
    );
    verdict
}

/// Two tests for one matrix: `$plain_test` checks the subject as it is and expects `$plain`;
/// `$ordered_test` checks it with real-time order turned into happens-before
/// ([`real_time_ordered`](crate::real_time::real_time_ordered)) and expects `$ordered`, both with
/// `$config` (default: [`Config::default()`](lineup::Config)). A plain failure next to a
/// real-time-ordered pass is a weak-memory-only finding (see [`real_time`](crate::real_time)).
///
/// ```ignore
/// plain_and_real_time!(
///     push_pop_plain,
///     push_pop_real_time,
///     queues::unbounded(),
///     TestMatrix::new(vec![vec![PUSH_1, POP], vec![PUSH_2, LEN]]),
///     Expected::FailFull,
///     Expected::Pass
/// );
/// ```
#[macro_export]
macro_rules! plain_and_real_time {
    ($plain_test:ident, $ordered_test:ident, $subject:expr, $matrix:expr, $plain:expr, $ordered:expr) => {
        $crate::plain_and_real_time!(
            $plain_test,
            $ordered_test,
            $subject,
            $matrix,
            $plain,
            $ordered,
            ::lineup::Config::default()
        );
    };
    ($plain_test:ident, $ordered_test:ident, $subject:expr, $matrix:expr, $plain:expr, $ordered:expr, $config:expr) => {
        #[test]
        fn $plain_test() {
            $crate::expectation::expect_verdict(&$subject, &$matrix, &$config, $plain);
        }

        #[test]
        fn $ordered_test() {
            $crate::expectation::expect_verdict(
                &$crate::real_time::real_time_ordered(&$subject),
                &$matrix,
                &$config,
                $ordered,
            );
        }
    };
}

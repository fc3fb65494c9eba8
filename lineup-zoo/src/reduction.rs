//! The partial-order reduction side by side with the plain search: the same check with
//! [`Config::reduction`] off and on, and whether the distinct histories found with it include
//! every one found without it (no history lost), with the verdicts and phase 1's specification
//! equal. The superset test (`tests/reduction_superset.rs`) and the `reduction` benchmark lines
//! use it.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use lineup::{check, sample_matrices, survey, Config, Invocations, ReductionFault, Subject, TestMatrix, Verdict};

use crate::table::ZooEntry;

/// One matrix, checked with the reduction off and on.
#[derive(Clone, Debug)]
pub struct ReductionRow {
    /// The matrix on one line: each thread's invocations, threads separated by `|`.
    pub notation: String,
    /// The preemption bound of both searches.
    pub bound: u32,
    /// Phase-2 executions without and with the reduction (with it, the redundant ones included).
    pub executions_plain: u64,
    pub executions_reduced: u64,
    /// Distinct phase-2 histories without and with it.
    pub histories_plain: usize,
    pub histories_reduced: usize,
    /// Phase-1 executions without and with it.
    pub serial_plain: u64,
    pub serial_reduced: u64,
    /// Every history found without the reduction was found with it.
    pub superset: bool,
    /// The same verdict, and the same specification from phase 1.
    pub same_verdict: bool,
    pub same_spec: bool,
    /// Both phases, without and with it.
    pub elapsed_plain: Duration,
    pub elapsed_reduced: Duration,
}

impl ReductionRow {
    /// Whether the reduction lost nothing here.
    pub fn sound(&self) -> bool {
        self.superset && self.same_verdict && self.same_spec
    }
}

/// Prints each row (phase 1, phase 2 and distinct histories without and with the reduction) and
/// panics naming the matrices where the reduction lost something.
pub fn assert_sound(rows: &[ReductionRow]) {
    for r in rows {
        eprintln!(
            "{}: phase 1 {} -> {}, phase 2 {} -> {}, histories {} -> {}, sound {}",
            r.notation,
            r.serial_plain,
            r.serial_reduced,
            r.executions_plain,
            r.executions_reduced,
            r.histories_plain,
            r.histories_reduced,
            r.sound()
        );
    }
    let lost: Vec<_> = rows.iter().filter(|r| !r.sound()).map(|r| &r.notation).collect();
    assert!(lost.is_empty(), "histories lost on {lost:?}");
}

/// The settings of a comparison: the defaults without the interlude, with a livelock found after
/// 16 yields instead of 500 (a survey explores every schedule of a spin loop, not only up to the first violation).
pub fn comparison_config(bound: u32) -> Config {
    Config {
        preemption_bound: bound,
        spin_bound: 16,
        workers: 1,
        // The search alone: the trees are compared execution for execution.
        interlude: None,
        ..Config::default()
    }
}

/// Checks `matrix` at `bound` with the reduction off and on (with `fault`, a deliberately broken
/// one), on one worker, with [`comparison_config`].
pub fn compare<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    bound: u32,
    fault: Option<ReductionFault>,
) -> ReductionRow {
    compare_with(subject, matrix, &comparison_config(bound), fault)
}

/// [`compare`] with the given settings (their `reduction` and `reduction_fault` are replaced).
pub fn compare_with<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    base: &Config,
    fault: Option<ReductionFault>,
) -> ReductionRow {
    let bound = base.preemption_bound;
    let run = |reduction: bool| {
        let config = Config {
            reduction: reduction.into(),
            reduction_fault: if reduction { fault } else { None },
            ..base.clone()
        };
        let start = Instant::now();
        let found = survey(subject, matrix, &config).expect("the survey runs");
        (found, start.elapsed())
    };
    let (plain, elapsed_plain) = run(false);
    let (reduced, elapsed_reduced) = run(true);
    let (ps, rs) = (plain.verdict.stats(), reduced.verdict.stats());
    let plain_set: HashSet<u128> = plain.histories.iter().map(|h| h.fingerprint).collect();
    let reduced_set: HashSet<u128> = reduced.histories.iter().map(|h| h.fingerprint).collect();
    let labels = subject.labels();
    let notation = matrix
        .threads
        .iter()
        .map(|t| t.iter().map(|&i| labels[i].to_string()).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join(" | ");
    ReductionRow {
        notation,
        bound,
        executions_plain: ps.concurrent_executions,
        executions_reduced: rs.concurrent_executions,
        histories_plain: plain_set.len(),
        histories_reduced: reduced_set.len(),
        serial_plain: ps.serial_executions,
        serial_reduced: rs.serial_executions,
        superset: reduced_set.is_superset(&plain_set),
        same_verdict: plain.verdict.is_pass() == reduced.verdict.is_pass(),
        same_spec: (ps.serial_full, ps.serial_stuck) == (rs.serial_full, rs.serial_stuck),
        elapsed_plain,
        elapsed_reduced,
    }
}

/// [`compare`] on `samples` random `threads` x `ops` matrices of the entry's class (from `seed`).
pub(crate) fn measure<O: Invocations + Default>(
    entry: &ZooEntry,
    threads: usize,
    ops: usize,
    samples: usize,
    seed: u64,
    bound: u32,
    fault: Option<ReductionFault>,
) -> Vec<ReductionRow> {
    let subject = Subject::of(entry.class, O::default);
    sample_matrices(subject.invocations().len(), threads, ops, samples, seed)
        .iter()
        .map(|m| compare(&subject, m, bound, fault))
        .collect()
}

/// Asserts that a deliberately broken reduction lost a history in at least one of `rows`
/// (printing each row's counts): the comparison can fail.
///
/// # Panics
///
/// If every row is sound.
pub fn assert_some_lost(rows: &[ReductionRow]) {
    for r in rows {
        eprintln!(
            "broken {}: histories {} -> {}",
            r.notation, r.histories_plain, r.histories_reduced
        );
    }
    assert!(
        rows.iter().any(|r| !r.sound()),
        "the broken reduction lost nothing: {rows:?}"
    );
}

/// The matrix with these worker columns (invocation indices), for the reduction tests.
pub fn m(columns: &[&[usize]]) -> TestMatrix {
    TestMatrix::new(columns.iter().map(|c| c.to_vec()).collect())
}

/// The verdict of `subject` on `matrix` at the default settings (panics if the check cannot run).
fn verdict<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix) -> Verdict {
    check(subject, matrix, &Config::default()).expect("the check runs")
}

/// Asserts that `subject` passes on `matrix` at the default settings, and prints its figures.
///
/// # Panics
///
/// With the violation, if it fails.
pub fn assert_pass<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix) {
    let verdict = verdict(subject, matrix);
    if let Some(v) = verdict.violation() {
        panic!("{}: expected PASS on {matrix:?}, got:\n{v}", subject.name());
    }
    eprintln!("{} passes {matrix:?}: {:?}", subject.name(), verdict.stats());
}

/// Asserts that `subject` fails on `matrix` at the default settings, and prints the violation.
///
/// # Panics
///
/// If it passes.
pub fn assert_fail<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix) {
    match verdict(subject, matrix) {
        Verdict::Pass(stats) => panic!("{}: expected FAIL on {matrix:?}, got PASS ({stats:?})", subject.name()),
        Verdict::Fail(v) => eprintln!("{} fails {matrix:?}:\n{v}", subject.name()),
    }
}

//! The registry of zoo classes and the Table 2 measurement of one class: RandomCheck over a
//! sample of random 3x3 matrices, every matrix checked (not only up to the first failure), with
//! the paper's columns.

use std::time::{Duration, Instant};

use lineup::{check, sample_matrices, shrink, Config, Invocations, Subject, TestMatrix, Verdict};

/// What a class is expected to do under lineup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Deterministically linearizable: every matrix passes.
    Pass,
    /// A bug, intentional nondeterminism or intentional non-linearizability that some matrices
    /// expose (the root causes say which).
    Fail,
}

/// One row of Table 2: a class in one version.
#[derive(Clone, Copy)]
pub struct ZooEntry {
    /// The class, as in Table 1 (`ManualResetEvent`).
    pub class: &'static str,
    /// `correct`, or the variant (`Pre`, `bug A`, ...).
    pub version: &'static str,
    /// Root causes the variant reproduces, by the paper's letters: bugs (A to G).
    pub bugs: &'static str,
    /// Intentional nondeterminism (H, I, J).
    pub nondeterminism: &'static str,
    /// Intentional non-linearizability (K, L).
    pub nonlinearizability: &'static str,
    /// What the class is expected to do.
    pub expected: Expected,
    /// The preemption bound to use (the paper's PB column: 2, or lower where 2 is too slow).
    pub preemption_bound: u32,
    /// Runs the measurement for this entry's type.
    run: fn(&TableSettings, &ZooEntry) -> TableRow,
    /// Runs the first-bug measurement for this entry's type.
    first_bug: FirstBugFn,
    /// Runs the reduction comparison for this entry's type.
    reduction: ReductionFn,
    /// Measures the report of a violation of this entry's type.
    trace: TraceFn,
}

type ReductionFn =
    fn(&ZooEntry, usize, usize, usize, u64, u32, Option<lineup::ReductionFault>) -> Vec<crate::reduction::ReductionRow>;

type TraceFn = fn(&ZooEntry, u64, usize) -> Option<crate::trace::TraceRow>;

type FirstBugFn = fn(&ZooEntry, &[(lineup::Strategy, bool)], u64, usize) -> Option<Vec<crate::first_bug::FirstBug>>;

impl std::fmt::Debug for ZooEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ZooEntry({} {})", self.class, self.version)
    }
}

impl ZooEntry {
    /// An entry for the object type `O`, built by `O::default()`-like `build`. Use
    /// [`ZooEntry::of`].
    pub fn of<O: Invocations + Default>(
        class: &'static str,
        version: &'static str,
        expected: Expected,
        preemption_bound: u32,
    ) -> Self {
        Self {
            class,
            version,
            bugs: "",
            nondeterminism: "",
            nonlinearizability: "",
            expected,
            preemption_bound,
            run: measure::<O>,
            first_bug: crate::first_bug::measure::<O>,
            reduction: crate::reduction::measure::<O>,
            trace: crate::trace::measure::<O>,
        }
    }

    /// Sets the bug letters this variant reproduces.
    pub fn bugs(mut self, letters: &'static str) -> Self {
        self.bugs = letters;
        self
    }

    /// Sets the intentional-nondeterminism letters.
    pub fn nondeterminism(mut self, letters: &'static str) -> Self {
        self.nondeterminism = letters;
        self
    }

    /// Sets the intentional non-linearizability letters.
    pub fn nonlinearizability(mut self, letters: &'static str) -> Self {
        self.nonlinearizability = letters;
        self
    }
}

/// Every entry of the zoo, in Table 2's order.
pub fn entries() -> Vec<ZooEntry> {
    let mut all = crate::sync_primitives::entries();
    all.extend(crate::collections::entries());
    all
}

/// How a Table 2 run samples.
#[derive(Clone, Debug)]
pub struct TableSettings {
    /// Random matrices per class (the paper: 100).
    pub samples: usize,
    /// Threads and operations per thread (the paper: 3x3).
    pub threads: usize,
    /// Operations per thread.
    pub ops: usize,
    /// The sample's seed.
    pub seed: u64,
    /// Worker threads.
    pub workers: usize,
}

/// The measured columns of one Table 2 row.
#[derive(Clone, Debug, Default)]
pub struct TableRow {
    /// Matrices that passed.
    pub passed: usize,
    /// Matrices that failed.
    pub failed: usize,
    /// Matrices whose check could not finish (reported, never counted as pass or fail).
    pub errors: usize,
    /// The smallest failing matrix after shrinking the first failing one, as `threads x ops`,
    /// with the kind of its violation.
    pub smallest_failing: Option<(usize, usize, &'static str)>,
    /// Phase-1 serial histories: average and maximum over the sample.
    pub phase1_histories: (f64, usize),
    /// Phase-1 time: average and maximum.
    pub phase1_time: (Duration, Duration),
    /// Average time of a passing and of a failing matrix (both phases).
    pub time_pass: Option<Duration>,
    /// Average time of a failing matrix.
    pub time_fail: Option<Duration>,
    /// Wall time of the whole row.
    pub elapsed: Duration,
}

/// For a class that fails: a failing 3x3 matrix (the first of `tries` sampled from `seed` that the
/// default check fails), the smallest one it shrinks to, and each strategy's executions,
/// histories and time to the first violation on both (`None` when no sampled matrix fails).
pub fn first_bugs(
    entry: &ZooEntry,
    strategies: &[(lineup::Strategy, bool)],
    seed: u64,
    tries: usize,
) -> Option<Vec<crate::first_bug::FirstBug>> {
    (entry.first_bug)(entry, strategies, seed, tries)
}

/// Checks `samples` random `threads` x `ops` matrices of `entry`'s class (from `seed`) at `bound`
/// with the partial-order reduction off and on (see [`reduction::compare`](crate::reduction::compare)).
pub fn compare_reduction(
    entry: &ZooEntry,
    threads: usize,
    ops: usize,
    samples: usize,
    seed: u64,
    bound: u32,
    fault: Option<lineup::ReductionFault>,
) -> Vec<crate::reduction::ReductionRow> {
    (entry.reduction)(entry, threads, ops, samples, seed, bound, fault)
}

/// For a class that fails: the report of the violation of the first of `tries` 3x3 matrices sampled
/// from `seed` that fails, shrunk (see [`TraceRow`](crate::trace::TraceRow)).
pub fn measure_trace(entry: &ZooEntry, seed: u64, tries: usize) -> Option<crate::trace::TraceRow> {
    (entry.trace)(entry, seed, tries)
}

/// Runs the Table 2 measurement of `entry`.
pub fn run_entry(entry: &ZooEntry, settings: &TableSettings) -> TableRow {
    (entry.run)(settings, entry)
}

fn kind_name(kind: &lineup::ViolationKind) -> &'static str {
    match kind {
        lineup::ViolationKind::Nondeterministic(_) => "nondeterminism",
        lineup::ViolationKind::NotLinearizable { .. } => "full history",
        lineup::ViolationKind::StuckNotLinearizable { .. } => "stuck history",
    }
}

fn measure<O: Invocations + Default>(settings: &TableSettings, entry: &ZooEntry) -> TableRow {
    let start = Instant::now();
    let subject = Subject::of(entry.class, O::default);
    // The row's workers take matrices; each matrix is checked on one.
    let config = Config {
        preemption_bound: entry.preemption_bound,
        workers: 1,
        ..Config::default()
    };
    let matrices = sample_matrices(
        subject.invocations().len(),
        settings.threads,
        settings.ops,
        settings.samples,
        settings.seed,
    );
    struct One {
        index: usize,
        verdict: Result<Verdict, String>,
        time: Duration,
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::<One>::new());
    std::thread::scope(|scope| {
        for _ in 0..settings.workers.max(1) {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(matrix) = matrices.get(index) else { break };
                let t = Instant::now();
                let verdict = check(&subject, matrix, &config).map_err(|e| e.to_string());
                results.lock().unwrap().push(One {
                    index,
                    verdict,
                    time: t.elapsed(),
                });
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.index);
    let mut row = TableRow::default();
    let (mut pass_time, mut fail_time) = (Duration::ZERO, Duration::ZERO);
    let (mut histories_sum, mut histories_max) = (0usize, 0usize);
    let (mut p1_sum, mut p1_max) = (Duration::ZERO, Duration::ZERO);
    let mut first_failure: Option<(TestMatrix, Box<lineup::Violation>)> = None;
    for r in &results {
        let stats = match &r.verdict {
            Ok(v) => v.stats().clone(),
            Err(_) => {
                row.errors += 1;
                continue;
            }
        };
        let histories = stats.serial_full + stats.serial_stuck;
        histories_sum += histories;
        histories_max = histories_max.max(histories);
        p1_sum += stats.phase1_time;
        p1_max = p1_max.max(stats.phase1_time);
        match &r.verdict {
            Ok(Verdict::Pass(_)) => {
                row.passed += 1;
                pass_time += r.time;
            }
            Ok(Verdict::Fail(v)) => {
                row.failed += 1;
                fail_time += r.time;
                if first_failure.is_none() {
                    first_failure = Some((matrices[r.index].clone(), v.clone()));
                }
            }
            Err(_) => {}
        }
    }
    let measured = (row.passed + row.failed).max(1);
    row.phase1_histories = (histories_sum as f64 / measured as f64, histories_max);
    row.phase1_time = (p1_sum / measured as u32, p1_max);
    row.time_pass = (row.passed > 0).then(|| pass_time / row.passed as u32);
    row.time_fail = (row.failed > 0).then(|| fail_time / row.failed as u32);
    if let Some((matrix, violation)) = first_failure {
        if let Ok(shrunk) = shrink(&subject, &matrix, violation, &config) {
            let (t, o) = shrunk.matrix.dimensions();
            row.smallest_failing = Some((t, o, kind_name(&shrunk.violation.kind)));
        }
    }
    row.elapsed = start.elapsed();
    row
}

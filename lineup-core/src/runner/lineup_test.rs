//! The test runner behind `#[lineup_test]`: explicit regression matrices, RandomCheck over a
//! seeded sample (paper §4.3), AutoCheck within a time budget (Fig. 6), on every core, with
//! shrinking, saved failures and committed specifications. A person can call it directly.

use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::check::check_without_report as check;
use crate::check::shorten_schedule;
use crate::check::synthesize_in;
use crate::config::Config;
use crate::config::{SpinPruning, Strategy, StrategyParseError};
use crate::environment::{Environment, EnvironmentError};
use crate::error::CheckError;
use crate::judge::verdict::Violation;
use crate::judge::verdict::{CheckStats, Verdict};
use crate::model::invocation::InvocationLabel;
use crate::model::invocations::Invocations;
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::Phase;
use crate::model::subject::Subject;
use crate::report::html::{write_report_in, Picture};
use crate::runner::deepening::{distinct_smallest_first, plan, DeepeningStage, Plan, PlanInput, Stage};
use crate::runner::parallel::{check_matrices, DeepenedMatrix, Inconclusiveness, SmallMatrixDeepening};
use crate::runner::progress::Progress;
use crate::runner::regressions::{Regression, RegressionError, RegressionFile};
use crate::runner::sampling::shard_indices;
use crate::runner::shapes::{sample_shaped_grouped, ShapeCounts, Shapes};
use crate::runner::shrink::shrink;
use crate::spec::spec_snapshot::{compare_or_bless, SnapshotError};

/// Where a matrix came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatrixOrigin {
    /// Saved in the regression file by an earlier failing run.
    Saved {
        /// The file.
        file: PathBuf,
        /// The seed of the run that found it.
        seed: Option<u64>,
    },
    /// Listed in the test.
    Explicit {
        /// Its position in the test's list.
        index: usize,
    },
    /// Drawn in the random sample.
    Sampled {
        /// The sample's seed.
        seed: u64,
        /// Its position in the sample.
        index: usize,
        /// The sample's size.
        of: usize,
    },
    /// A stage of the deepening after the sample, within the time budget.
    Deepening {
        /// The stage (`pct:3:2000 on the sample`, ...).
        stage: String,
        /// The matrix's position in the stage.
        index: usize,
    },
    /// AutoCheck's enumeration.
    Auto {
        /// Its position in the enumeration.
        index: usize,
    },
}

impl fmt::Display for MatrixOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatrixOrigin::Saved { file, seed: Some(seed) } => {
                write!(f, "saved in {} (found with seed {seed})", file.display())
            }
            MatrixOrigin::Saved { file, seed: None } => write!(f, "saved in {}", file.display()),
            MatrixOrigin::Explicit { index } => write!(f, "regression matrix #{index} of the test"),
            MatrixOrigin::Sampled { seed, index, of } => write!(f, "sample #{index} of {of} drawn with seed {seed}"),
            MatrixOrigin::Deepening { stage, index } => write!(f, "matrix #{index} of the deepening stage {stage}"),
            MatrixOrigin::Auto { index } => write!(f, "AutoCheck matrix #{index}"),
        }
    }
}

/// How phase 2 explored each matrix of a test's sample, as the PASS line states it: the
/// strategy, and for `pb-dfs` the bounds of a schedule.
///
/// ```
/// use lineup_core::{Phase2Coverage, SpinPruning, Strategy};
/// let coverage = Phase2Coverage {
///     strategy: Strategy::PbDfs,
///     preemption_bound: 2,
///     fair_switch_steps: 64,
///     spin_pruning: SpinPruning::default(),
/// };
/// assert_eq!(
///     coverage.to_string(),
///     "pb-dfs, preemption bound 2, a fair switch after 64 steps in a row, after 5 in a spin on an unchanged value"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phase2Coverage {
    /// The strategy (a sampling one covers a sample of the schedules, not all of them).
    pub strategy: Strategy,
    /// `pb-dfs`'s preemption bound.
    pub preemption_bound: u32,
    /// A thread that runs this many steps in a row gives way ([`Config::fair_switch_steps`](crate::Config)).
    pub fair_switch_steps: u32,
    /// What a spin on an unchanged value gets ([`Config::spin_pruning`](crate::Config)).
    pub spin_pruning: SpinPruning,
}

impl fmt::Display for Phase2Coverage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bound = match self.strategy {
            Strategy::PbDfs => self.preemption_bound,
            Strategy::DbDfs { delays } => return write!(f, "db-dfs, delay bound {delays}"),
            sampling => return write!(f, "{sampling}: a sample of the schedules"),
        };
        write!(
            f,
            "pb-dfs, preemption bound {bound}, a fair switch after {} steps in a row",
            self.fair_switch_steps
        )?;
        match self.spin_pruning {
            SpinPruning::Off => Ok(()),
            SpinPruning::SwitchAfter(n) => write!(f, ", after {n} in a spin on an unchanged value"),
            pruning => write!(f, ", spin pruning `{pruning}`"),
        }
    }
}

/// What a passing test run checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestSummary {
    /// The seed of the random sample.
    pub seed: u64,
    /// Matrices checked, saved, explicit, sampled and AutoCheck ones together.
    pub matrices: usize,
    /// Executions of both phases.
    pub executions: u64,
    /// Phase-2 executions of passing matrices that reached the step limit
    /// ([`Config::max_steps`](crate::Config)): not judged, so the PASS does not cover them.
    pub inconclusive_executions: u64,
    /// Passing matrices whose inconclusive executions outnumber their judged ones, and those
    /// with none judged (a run all of whose matrices have none judged fails).
    pub inconclusive_matrices: Inconclusiveness,
    /// Time taken.
    pub elapsed: Duration,
    /// How phase 2 explored each matrix of the sample: its strategy and bounds.
    pub phase2: Phase2Coverage,
    /// How many matrices of each shape the random sample checked.
    pub shapes: ShapeCounts,
    /// The time budget of the deepening after the sample (`None`: a fixed run).
    pub budget: Option<Duration>,
    /// What the time budget covered after the sample, stage by stage, in order.
    pub deepening: Vec<DeepeningStage>,
    /// Passing matrices whose phase 2 ran the [interlude](crate::Interlude) (their trees were
    /// larger than its start).
    pub interludes: usize,
    /// Worker threads used: as set, or one per core.
    pub workers: usize,
}

impl TestSummary {
    /// Whether the run checked matrices and judged no execution of any of them: the test fails
    /// ([`TestFailure::Inconclusive`]), as a vacuous check does.
    pub fn all_inconclusive(&self) -> bool {
        let inconclusive = &self.inconclusive_matrices;
        inconclusive.wholly == self.matrices && (self.matrices > 0 || inconclusive.unfinished > 0)
    }

    /// What the time budget covered, stage by stage, or that there was none.
    fn deepening_line(&self) -> String {
        match &self.budget {
            None => "; no time budget: no deepening".to_string(),
            Some(budget) if self.deepening.is_empty() => {
                format!("; time budget {budget:.0?}: spent before any deepening stage")
            }
            Some(budget) => format!(
                "; within the time budget of {budget:.0?}: {}",
                self.deepening
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// The PASS line: what the run covered, sample and deepening stages, and what it did not.
impl fmt::Display for TestSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PASS, {} matrices, {} executions in {:.2?} (seed {}, phase 2 {})",
            self.matrices, self.executions, self.elapsed, self.seed, self.phase2
        )?;
        if self.interludes > 0 {
            write!(
                f,
                "; {} matrices had trees past the interlude's start and ran it",
                self.interludes
            )?;
        }
        if !self.shapes.0.is_empty() {
            write!(f, "; sample shapes {}", self.shapes)?;
        }
        write!(f, "{}", self.deepening_line())?;
        if self.inconclusive_executions > 0 {
            write!(
                f,
                "; {} executions reached the step limit (max_steps) and were not judged: the PASS does not cover them",
                self.inconclusive_executions
            )?;
        }
        let Inconclusiveness {
            mostly,
            wholly,
            unfinished,
            cut,
            not_reached,
            ..
        } = self.inconclusive_matrices;
        if cut > 0 {
            write!(
                f,
                "; {cut} sampled matrices were cut when the time budget ran out (their PASS covers the executions that ran)"
            )?;
        }
        if not_reached > 0 {
            write!(f, "; {not_reached} sampled matrices not reached within the time budget")?;
        }
        if unfinished > 0 {
            write!(
                f,
                "; {unfinished} matrices INCONCLUSIVE, not counted: {}",
                self.inconclusive_matrices
                    .unfinished_cause
                    .as_deref()
                    .unwrap_or_default()
            )?;
        }
        if wholly > 0 {
            write!(
                f,
                "; {wholly} of {} matrices inconclusive (no execution judged)",
                self.matrices
            )?;
        }
        if mostly > wholly {
            write!(
                f,
                "; in {} matrices inconclusive executions outnumber judged ones",
                mostly - wholly
            )?;
        }
        Ok(())
    }
}

/// Why a test run failed.
#[derive(Debug)]
pub enum TestFailure {
    /// A matrix fails: the smallest failing matrix found by shrinking, with its violation, and
    /// the matrix that failed first.
    Violation {
        /// The test.
        test: String,
        /// The smallest failing matrix's violation (its matrix is `violation.matrix`).
        smallest: Box<Violation>,
        /// The matrix that failed first and its violation.
        original: Box<Violation>,
        /// Where the original came from.
        origin: MatrixOrigin,
        /// Removals that shrinking made.
        shrink_steps: u32,
        /// Whether shrinking tried every smaller matrix to a verdict ([`Shrunk::complete`](crate::Shrunk::complete)):
        /// `false` when its time ran out first (it gets the run's time budget again,
        /// [`SHRINK_BUDGET_WITHOUT_TIME_BUDGET`] when the run has none), so that a smaller failing
        /// matrix may exist.
        shrink_complete: bool,
        /// Milliseconds shrinking took (the run found the failure that much earlier than it
        /// returned).
        shrink_ms: u64,
        /// Where it was saved for the next run, if it was.
        saved_in: Option<PathBuf>,
    },
    /// A check could not reach a verdict.
    Check {
        /// The test.
        test: String,
        /// The matrix.
        origin: MatrixOrigin,
        /// The error.
        error: Box<CheckError>,
    },
    /// The test is set up wrongly (an unknown invocation label, an empty invocation set, ...).
    Setup {
        /// The test.
        test: String,
        /// What is wrong.
        problem: String,
    },
    /// Every matrix checked was inconclusive: none of its phase-2 executions was judged (each
    /// reached the step limit), so a PASS would be vacuous.
    Inconclusive {
        /// The test.
        test: String,
        /// What the run checked.
        summary: Box<TestSummary>,
    },
    /// An environment variable cannot be read.
    Env(EnvironmentError),
    /// The regression file cannot be read or written.
    Regressions(RegressionError),
    /// A committed specification differs from the object's serial behaviour.
    Snapshot(SnapshotError),
}

impl fmt::Display for TestFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TestFailure::Violation {
                test,
                smallest,
                original,
                origin,
                shrink_steps,
                shrink_complete,
                shrink_ms,
                saved_in,
                ..
            } => {
                let (t, o) = smallest.matrix.dimensions();
                let (ot, oo) = original.matrix.dimensions();
                writeln!(f, "lineup_test `{test}` FAILED on {origin}.")?;
                if *shrink_steps > 0 {
                    writeln!(
                        f,
                        "Shrunk from {ot}x{oo} ({} operations) to {t}x{o} ({} operations) in {shrink_steps} steps; the smallest \
                         failing matrix first:",
                        original.matrix.op_count(),
                        smallest.matrix.op_count()
                    )?;
                }
                if !shrink_complete {
                    writeln!(
                        f,
                        "Shrinking stopped after {:.1} s, its time: a smaller failing matrix may exist (a longer time \
                         budget, LINEUP_TIME_BUDGET, gives it more).",
                        *shrink_ms as f64 / 1e3
                    )?;
                }
                writeln!(f)?;
                writeln!(f, "{smallest}")?;
                if *shrink_steps > 0 {
                    writeln!(f)?;
                    writeln!(f, "The original failing matrix ({origin}):")?;
                    write!(f, "{}", original.matrix.display(&original.labels))?;
                    writeln!(f, "  its violating history: {}", original.kind.history().notation())?;
                }
                if let Some(file) = saved_in {
                    writeln!(f)?;
                    writeln!(
                        f,
                        "The failing matrix is saved in {} and is checked first from now on.",
                        file.display()
                    )?;
                }
                if let MatrixOrigin::Sampled { seed, .. } = origin {
                    writeln!(f, "Reproduce the sample with LINEUP_SEED={seed}.")?;
                }
                Ok(())
            }
            TestFailure::Check { test, origin, error } => write!(f, "lineup_test `{test}`: {origin}: {error}"),
            TestFailure::Setup { test, problem } => write!(f, "lineup_test `{test}`: {problem}"),
            TestFailure::Inconclusive { test, summary } if summary.matrices == 0 => write!(
                f,
                "lineup_test `{test}`: INCONCLUSIVE: no matrix could be checked: the phase 1 of each that was tried did not \
                 finish within its share of the time budget. What ran: {summary}"
            ),
            TestFailure::Inconclusive { test, summary } => write!(
                f,
                "lineup_test `{test}`: INCONCLUSIVE: every one of its {} matrices reached the step limit (Config::max_steps) \
                 in every phase-2 execution, so nothing was judged; raise max_steps, or look for an operation that never \
                 returns (a spin loop on a primitive lineup cannot see). What ran: {summary}",
                summary.matrices
            ),
            TestFailure::Env(e) => write!(f, "lineup_test: {e}"),
            TestFailure::Regressions(e) => write!(f, "lineup_test: {e}"),
            TestFailure::Snapshot(e) => write!(f, "lineup_test: {e}"),
        }
    }
}

impl std::error::Error for TestFailure {}

/// A test run: regression matrices and a random sample of matrices of one object type.
///
/// `#[lineup_test(threads = 2, ops = 2)]` expands to `LineupTest::new(..).threads(2).ops(2).run(build)`.
/// Without options a run checks 100 random matrices of up to 3x3 (the paper's setting) at
/// preemption bound 2, then the deepening stages ([`Stage::DEFAULT_ORDER`]) within
/// [`DEFAULT_TIME_BUDGET`], and its PASS line ([`TestSummary`]'s `Display`) says what each
/// covered. Environment variables ([`crate::environment`]) override the sample size, seed,
/// preemption bound, time budget and shard, so that nightly sweeps need no code change.
///
/// ```
/// use lineup_core::{Invocation, Invocations, LineupTest};
/// use shuttle::sync::atomic::{AtomicU64, Ordering};
///
/// #[derive(Default)]
/// struct Counter(AtomicU64);
///
/// impl Invocations for Counter {
///     fn invocations() -> Vec<Invocation<Self>> {
///         vec![
///             Invocation::new("inc", |c: &Counter| { c.0.fetch_add(1, Ordering::SeqCst); }),
///             Invocation::new("get", |c: &Counter| c.0.load(Ordering::SeqCst)),
///         ]
///     }
/// }
///
/// let summary = LineupTest::new("counter").threads(2).ops(2).samples(10).seed(1).time_budget(None).check(Counter::default).unwrap();
/// assert_eq!(summary.matrices, 10);
/// ```
#[derive(Clone, Debug)]
pub struct LineupTest {
    name: String,
    source_file: Option<String>,
    threads: usize,
    ops: usize,
    samples: usize,
    seed: Option<u64>,
    workers: Option<usize>,
    time_budget: Option<Duration>,
    config: Config,
    matrices: Vec<Vec<Vec<String>>>,
    initial: Vec<String>,
    finals: Vec<String>,
    observations: Option<PathBuf>,
    strategy_error: Option<StrategyParseError>,
    budget_error: Option<String>,
    shapes: Shapes,
    stages: Vec<Stage>,
}

/// The time budget of a run when neither the test nor `LINEUP_TIME_BUDGET` sets one: the sample,
/// then the deepening stages, end when it is spent (a check running then stops where it is, and
/// the PASS line says what it did not cover). Measured so that the default check of a passing
/// object stays within about 10 to 20 s on two cores (docs/strategies.md).
pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(15);

/// The time shrinking a failure may take in a run without a time budget. With one, shrinking
/// gets the run's budget again: a smaller matrix that passes is explored to its end, which can take
/// far longer than the failing check, and shrinking stops rather than run on in silence
/// ([`TestFailure::Violation`]'s `shrink_complete` says so).
pub const SHRINK_BUDGET_WITHOUT_TIME_BUDGET: Duration = Duration::from_secs(60);

impl LineupTest {
    /// A run named `name` (the test's path) with the paper's defaults: 100 samples of 3x3.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            source_file: None,
            threads: 3,
            ops: 3,
            samples: 100,
            seed: None,
            workers: None,
            time_budget: Some(DEFAULT_TIME_BUDGET),
            config: Config::default(),
            matrices: Vec::new(),
            initial: Vec::new(),
            finals: Vec::new(),
            observations: None,
            strategy_error: None,
            budget_error: None,
            shapes: Shapes::default(),
            stages: Stage::DEFAULT_ORDER.to_vec(),
        }
    }

    /// Which shapes the random sample draws: by default every shape up to `threads x ops`, half
    /// of the matrices full size ([`Shapes`]); [`Shapes::Exact`] for the paper's sample.
    pub fn shapes(mut self, shapes: Shapes) -> Self {
        self.shapes = shapes;
        self
    }

    /// The test's source file (`file!()`): failing matrices are saved beside it.
    pub fn source_file(mut self, file: &str) -> Self {
        self.source_file = Some(file.to_string());
        self
    }

    /// Threads of the sampled matrices.
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n;
        self
    }

    /// Operations per thread of the sampled matrices.
    pub fn ops(mut self, m: usize) -> Self {
        self.ops = m;
        self
    }

    /// How many matrices to sample (0: only the explicit ones).
    pub fn samples(mut self, k: usize) -> Self {
        self.samples = k;
        self
    }

    /// Phase 2's preemption bound.
    pub fn preemption_bound(mut self, bound: u32) -> Self {
        self.config.preemption_bound = bound;
        self
    }

    /// Phase 2's strategy ([`Config::strategy`](crate::Config::strategy); `LINEUP_STRATEGY`
    /// overrides it). A sampling strategy with seed 0 takes the test's seed.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.config.strategy = strategy;
        self.strategy_error = None;
        self
    }

    /// The partial-order reduction ([`Config::reduction`](crate::Config::reduction);
    /// `LINEUP_REDUCTION` overrides it).
    pub fn reduction(mut self, on: bool) -> Self {
        self.config.reduction = on.into();
        self
    }

    /// The interlude of phase 2 ([`Config::interlude`](crate::Config::interlude), `None` for none;
    /// `LINEUP_INTERLUDE` overrides it). A sampling strategy with seed 0 takes the test's seed.
    pub fn interlude(mut self, interlude: Option<crate::Interlude>) -> Self {
        self.config.interlude = interlude;
        self
    }

    /// [`interlude`](Self::interlude) by its setting (`"off"` or `"AFTER:STRATEGY"`, as
    /// [`Interlude::parse_setting`](crate::Interlude::parse_setting) reads it); a setting that
    /// cannot be read fails the run with what is wrong.
    pub fn interlude_named(mut self, setting: &str) -> Self {
        match crate::Interlude::parse_setting(setting) {
            Ok(interlude) => self = self.interlude(interlude),
            Err(e) => self.strategy_error = Some(e),
        }
        self
    }

    /// [`strategy`](Self::strategy) by name (`"pct:3:1000"`, as [`Strategy`] parses it); a name
    /// that is not a strategy fails the run with what is wrong.
    pub fn strategy_named(mut self, name: &str) -> Self {
        match name.parse() {
            Ok(strategy) => self = self.strategy(strategy),
            Err(e) => self.strategy_error = Some(e),
        }
        self
    }

    /// The sample's seed (otherwise a random one, printed).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Worker threads (default: the number of cores): RandomCheck checks that many matrices at a
    /// time, and a matrix checked on its own splits its exploration among them
    /// ([`Config::workers`](crate::Config::workers)).
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = Some(n);
        self
    }

    /// The time the run may take ([`DEFAULT_TIME_BUDGET`] unless set): the sample first, each of
    /// its checks stopping when the budget is spent (a matrix whose phase 1 cannot finish by then
    /// is inconclusive, one whose phase 2 cannot is cut, the rest are not reached: the PASS line
    /// counts each), then deeper stages in the order of [`stages`](Self::stages) until it is
    /// spent; [`TestSummary::deepening`] says how far each got. `None`: a fixed run, the saved,
    /// explicit and sampled matrices only, each to its end. `LINEUP_TIME_BUDGET` overrides it
    /// (`off` for none).
    pub fn time_budget(mut self, budget: impl Into<Option<Duration>>) -> Self {
        self.time_budget = budget.into();
        self
    }

    /// [`time_budget`](Self::time_budget) by its setting (`"90s"`, `"500ms"`, `"15m"`, or
    /// `"off"` for a fixed run), as `LINEUP_TIME_BUDGET` reads it; a setting that cannot be read
    /// fails the run with what is wrong.
    pub fn time_budget_named(mut self, setting: &str) -> Self {
        match crate::environment::parse_budget(setting) {
            Some(budget) => self.time_budget = budget,
            None => {
                self.budget_error = Some(format!(
                    "time_budget = {setting:?}: expected off or a duration such as 500ms, 90s, 15m or 2h"
                ))
            }
        }
        self
    }

    /// The deepening stages and their order ([`Stage::DEFAULT_ORDER`] unless set).
    pub fn stages(mut self, stages: &[Stage]) -> Self {
        self.stages = stages.to_vec();
        self
    }

    /// Accept matrices in which every operation panics in every serial execution, for an object
    /// whose operations are all meant to panic ([`Config::allow_all_panics`]); otherwise such a
    /// check cannot fail and the test fails with [`CheckError::Vacuous`].
    pub fn allow_all_panics(mut self, on: bool) -> Self {
        self.config.allow_all_panics = on;
        self
    }

    /// Whether to check stuck histories (Def. 2).
    pub fn check_stuck(mut self, on: bool) -> Self {
        self.config.check_stuck = on;
        self
    }

    /// All check settings at once.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// An explicit regression matrix: one column of invocation labels per thread, as the labels
    /// print (`add(200)`, `try_take()`).
    pub fn matrix(mut self, columns: &[&[&str]]) -> Self {
        self.matrices.push(
            columns
                .iter()
                .map(|c| c.iter().map(|s| s.to_string()).collect())
                .collect(),
        );
        self
    }

    /// Operations the main thread runs before the threads start, in every matrix.
    pub fn initial(mut self, ops: &[&str]) -> Self {
        self.initial = ops.iter().map(|s| s.to_string()).collect();
        self
    }

    /// Operations the main thread runs after the threads are joined, in every matrix.
    pub fn finals(mut self, ops: &[&str]) -> Self {
        self.finals = ops.iter().map(|s| s.to_string()).collect();
        self
    }

    /// Keep the phase-1 specification of each explicit matrix as an observation file in `dir`
    /// (`<dir>/<test>-<n>.xml`), compared on every run and re-blessed with `LINEUP_BLESS=1`.
    pub fn observations(mut self, dir: &str) -> Self {
        self.observations = Some(PathBuf::from(dir));
        self
    }

    /// Runs the test and panics with the report if it fails (what `#[lineup_test]` calls).
    pub fn run<O: Invocations>(self, build: fn() -> O) {
        let subject = Subject::of(self.name.clone(), build);
        self.run_subject(&subject);
    }

    /// Runs the test: saved failing matrices first, then the explicit matrices, then the random
    /// sample (this shard of it), then the deeper stages within the time budget.
    pub fn check<O: Invocations>(&self, build: fn() -> O) -> Result<TestSummary, TestFailure> {
        self.check_subject(&Subject::of(self.name.clone(), build))
    }

    /// [`run`](Self::run) for a subject given as a list of named closures: the way to test a
    /// type you do not own (the orphan rule keeps you from implementing [`Invocations`] for it),
    /// with no wrapper type.
    ///
    /// ```
    /// use lineup_core::{Invocation, LineupTest, Subject};
    /// use shuttle::sync::Mutex;
    ///
    /// // A type from another crate, used as it is.
    /// let subject = Subject::new("Mutex<Vec<u32>>", || Mutex::new(Vec::<u32>::new()))
    ///     .with(Invocation::new("push", |v: &Mutex<Vec<u32>>| v.lock().unwrap().push(1)).arg(1))
    ///     .with(Invocation::new("pop", |v: &Mutex<Vec<u32>>| v.lock().unwrap().pop()));
    /// LineupTest::new("vec").threads(2).ops(2).samples(5).seed(9).time_budget(None).run_subject(&subject);
    /// ```
    pub fn run_subject<O: Send + Sync + 'static>(self, subject: &Subject<O>) {
        match self.check_subject(subject) {
            Ok(summary) => eprintln!("lineup_test `{}`: {summary}", self.name),
            Err(failure) => panic!("{failure}"),
        }
    }

    /// [`check`](Self::check) for a subject given as a list of named closures (see
    /// [`run_subject`](Self::run_subject)).
    pub fn check_subject<O: Send + Sync + 'static>(&self, subject: &Subject<O>) -> Result<TestSummary, TestFailure> {
        let start = Instant::now();
        let settings = self.settings()?;
        let labels = subject.labels();
        if labels.is_empty() {
            return Err(self.setup("the object has no invocations".into()));
        }
        if let Some(e) = &self.strategy_error {
            return Err(self.setup(e.to_string()));
        }
        if let Some(e) = &self.budget_error {
            return Err(self.setup(e.clone()));
        }
        let frame = Frame {
            initial: self.resolve(&labels, &self.initial)?,
            finals: self.resolve(&labels, &self.finals)?,
        };
        if settings.samples > 0 || settings.time_budget.is_some() {
            let seed = settings.seed;
            eprintln!(
                "lineup_test `{}`: seed {seed} (set LINEUP_SEED={seed} to draw the same sample)",
                self.name
            );
        }
        let mut run = TestRun {
            test: self,
            subject,
            labels,
            summary: TestSummary {
                seed: settings.seed,
                matrices: 0,
                executions: 0,
                inconclusive_executions: 0,
                inconclusive_matrices: Inconclusiveness::default(),
                elapsed: Duration::ZERO,
                phase2: Phase2Coverage {
                    strategy: settings.config.strategy,
                    preemption_bound: settings.config.preemption_bound,
                    fair_switch_steps: settings.config.fair_switch_steps,
                    spin_pruning: settings.config.spin_pruning,
                },
                shapes: ShapeCounts::default(),
                budget: settings.time_budget,
                deepening: Vec::new(),
                interludes: 0,
                workers: settings.workers,
            },
            settings,
            frame,
            regressions: self.source_file.as_deref().map(RegressionFile::beside),
        };
        // 1. Failing matrices saved by earlier runs.
        run.saved()?;
        // 2. Explicit regression matrices, with their committed specifications.
        run.explicit()?;
        // 3. The random sample (RandomCheck), this shard of it, on every core, within the time
        //    budget if there is one.
        let deadline = run.settings.time_budget.map(|budget| start + budget);
        let sampled = run.sample(deadline)?;
        // 4. Deepening in what is left of the time budget.
        if let Some(deadline) = deadline {
            let rate = run.summary.executions as f64 / start.elapsed().as_secs_f64().max(1e-3);
            run.deepen(deadline, rate, &sampled)?;
        }
        run.summary.elapsed = start.elapsed();
        let summary = run.summary;
        if summary.all_inconclusive() {
            return Err(TestFailure::Inconclusive {
                test: self.name.clone(),
                summary: Box::new(summary),
            });
        }
        Ok(summary)
    }

    /// The settings of a run: the test's, with the sweep environment's overrides, a seed (drawn
    /// if none is set) for the sampling strategies that have none, and the number of workers.
    fn settings(&self) -> Result<Settings, TestFailure> {
        let environment = Environment::from_env().map_err(TestFailure::Env)?;
        let env = &environment.sweep;
        let mut config = self.config.clone();
        if let Some(bound) = env.preemption_bound {
            config.preemption_bound = bound;
        }
        let samples = env.samples.unwrap_or(self.samples);
        let seed = env.seed.or(self.seed).unwrap_or_else(random_seed);
        if let Some(strategy) = env.strategy {
            config.strategy = strategy;
        }
        if let Some(reduction) = env.reduction {
            config.reduction = reduction;
        }
        if let Some(interlude) = env.interlude {
            config.interlude = interlude;
        }
        if let Some(interlude) = &mut config.interlude {
            interlude.strategy = seeded(interlude.strategy, seed);
        }
        config.strategy = seeded(config.strategy, seed);
        let workers = env.workers.or(self.workers).unwrap_or_else(cores).max(1);
        // A matrix checked on its own (saved, explicit, shrinking, AutoCheck) uses every worker;
        // RandomCheck's batch gives one to each matrix while there are more matrices than workers.
        config.workers = workers;
        Ok(Settings {
            config,
            samples,
            seed,
            time_budget: self.time_budget_in(&environment),
            workers,
            shard: env.shard,
            environment,
        })
    }

    /// The run's time budget: `LINEUP_TIME_BUDGET`'s, else the test's.
    fn time_budget_in(&self, environment: &Environment) -> Option<Duration> {
        environment.sweep.time_budget.unwrap_or(self.time_budget)
    }

    /// A [`TestFailure::Setup`] of this test.
    fn setup(&self, problem: String) -> TestFailure {
        TestFailure::Setup {
            test: self.name.clone(),
            problem,
        }
    }

    /// The invocations `names` name, by their index among `labels`.
    fn resolve(&self, labels: &[InvocationLabel], names: &[String]) -> Result<Vec<usize>, TestFailure> {
        names
            .iter()
            .map(|name| {
                labels.iter().position(|l| l.to_string() == *name).ok_or_else(|| {
                    let known: Vec<String> = labels.iter().map(ToString::to_string).collect();
                    self.setup(format!(
                        "`{name}` is not an invocation of the object; it has {}",
                        known.join(", ")
                    ))
                })
            })
            .collect()
    }

    /// Checks one matrix; a failure is shrunk (and saved when `save_in` is given).
    #[allow(clippy::too_many_arguments)]
    fn check_one<O: Send + Sync + 'static>(
        &self,
        subject: &Subject<O>,
        matrix: &TestMatrix,
        config: &Config,
        origin: MatrixOrigin,
        save_in: Option<&RegressionFile>,
        summary: &mut TestSummary,
        environment: &Environment,
    ) -> Result<CheckStats, TestFailure> {
        let result = check(subject, matrix, config);
        match result {
            // Only a deepening check has a time of its own: its stage counts it as cut.
            Err(CheckError::Unfinished { executions, .. }) => {
                summary.executions += executions;
                Ok(CheckStats {
                    serial_executions: executions,
                    unfinished: true,
                    ..CheckStats::default()
                })
            }
            Ok(Verdict::Pass(stats)) => {
                summary.matrices += 1;
                summary.executions += stats.serial_executions + stats.concurrent_executions;
                summary.inconclusive_executions += stats.inconclusive_executions;
                summary.interludes += usize::from(stats.interlude.is_some());
                summary.inconclusive_matrices.add(&stats);
                Ok(stats)
            }
            Ok(Verdict::Fail(v)) => {
                summary.matrices += 1;
                Err(self.failed(subject, matrix, Ok(v), config, origin, save_in, environment))
            }
            Err(e) => {
                summary.matrices += 1;
                Err(self.failed(subject, matrix, Err(e), config, origin, save_in, environment))
            }
        }
    }

    /// The failure report of a failing matrix: shrunk, saved for the next run, and written as an
    /// HTML page when `environment` names a report directory.
    #[allow(clippy::too_many_arguments)]
    fn failed<O: Send + Sync + 'static>(
        &self,
        subject: &Subject<O>,
        matrix: &TestMatrix,
        result: Result<Box<Violation>, CheckError>,
        config: &Config,
        origin: MatrixOrigin,
        save_in: Option<&RegressionFile>,
        environment: &Environment,
    ) -> TestFailure {
        let original = match result {
            Ok(v) => v,
            Err(error) => {
                return TestFailure::Check {
                    test: self.name.clone(),
                    origin,
                    error: Box::new(error),
                }
            }
        };
        let shrinking = Instant::now();
        let shrink_config = Config {
            max_duration: Some(
                self.time_budget_in(environment)
                    .unwrap_or(SHRINK_BUDGET_WITHOUT_TIME_BUDGET),
            ),
            ..config.clone()
        };
        let shrunk = match shrink(subject, matrix, original.clone(), &shrink_config) {
            Ok(shrunk) => shrunk,
            Err(error) => {
                return TestFailure::Check {
                    test: self.name.clone(),
                    origin,
                    error: Box::new(error),
                }
            }
        };
        let seed = match origin {
            MatrixOrigin::Sampled { seed, .. } => Some(seed),
            _ => None,
        };
        let saved_in = save_in.and_then(|file| {
            let labels: Vec<InvocationLabel> = subject.labels();
            let entry = Regression::new(&self.name, seed, &shrunk.matrix, &labels);
            match file.add(&entry) {
                Ok(()) => Some(file.path().to_path_buf()),
                Err(e) => {
                    eprintln!("lineup_test `{}`: could not save the failing matrix: {e}", self.name);
                    None
                }
            }
        });
        let mut smallest = shrunk.violation;
        // The shortest schedule of the smallest matrix's violation; a search that fails leaves the
        // one found (a replayed schedule is shown as it is).
        if environment.run.replay.is_none() && config.shortest_schedule > 0 {
            let _ = shorten_schedule(subject, &mut smallest, config, config.shortest_schedule);
        }
        smallest.html_report = write_report_in(environment.run.report_dir.as_deref(), &self.name, || {
            let mut sections = vec![smallest.section()];
            if shrunk.steps > 0 {
                let mut first = original.section();
                first.heading = format!("the original failing matrix ({origin}): {}", first.heading);
                sections.push(first);
            }
            Picture {
                title: format!("lineup_test `{}` FAILED", self.name),
                summary: format!("on {origin}; the smallest failing matrix first"),
                sections,
            }
        });
        TestFailure::Violation {
            test: self.name.clone(),
            smallest,
            original,
            origin,
            shrink_steps: u32::try_from(shrunk.steps).unwrap_or(u32::MAX),
            shrink_complete: shrunk.complete,
            shrink_ms: u64::try_from(shrinking.elapsed().as_millis()).unwrap_or(u64::MAX),
            saved_in,
        }
    }
}

/// The settings of one run of a [`LineupTest`].
struct Settings {
    config: Config,
    samples: usize,
    seed: u64,
    time_budget: Option<Duration>,
    workers: usize,
    /// This run's shard of the sample, and how many there are.
    shard: Option<(usize, usize)>,
    /// The environment, read once when the run starts.
    environment: Environment,
}

/// A sampling strategy without a seed of its own (seed 0) gets the run's.
fn seeded(strategy: Strategy, seed: u64) -> Strategy {
    if matches!(
        strategy,
        Strategy::Random { seed: 0, .. } | Strategy::Pct { seed: 0, .. }
    ) {
        strategy.with_seed(seed)
    } else {
        strategy
    }
}

/// The operations every matrix of a test runs before and after its threads.
#[derive(Clone)]
struct Frame {
    initial: Vec<usize>,
    finals: Vec<usize>,
}

impl Frame {
    fn around(&self, matrix: TestMatrix) -> TestMatrix {
        matrix
            .with_initial(self.initial.clone())
            .with_final(self.finals.clone())
    }
}

/// One run of a [`LineupTest`] on a subject: what its stages share.
struct TestRun<'a, O> {
    test: &'a LineupTest,
    subject: &'a Subject<O>,
    labels: Vec<InvocationLabel>,
    settings: Settings,
    frame: Frame,
    /// The file of saved failing matrices beside the test's source, if it has one.
    regressions: Option<RegressionFile>,
    summary: TestSummary,
}

impl<O: Send + Sync + 'static> TestRun<'_, O> {
    /// Checks the failing matrices saved by earlier runs.
    fn saved(&mut self) -> Result<(), TestFailure> {
        let Some(file) = &self.regressions else {
            return Ok(());
        };
        for (line, saved) in file.load_for(&self.test.name).map_err(TestFailure::Regressions)? {
            let matrix = saved.matrix(&self.labels).map_err(|problem| {
                TestFailure::Regressions(RegressionError::Invalid {
                    path: file.path().to_path_buf(),
                    line: line + 2,
                    problem,
                })
            })?;
            if let Err(broken) = self.subject.groups().check(&matrix) {
                return Err(TestFailure::Regressions(RegressionError::Invalid {
                    path: file.path().to_path_buf(),
                    line: line + 2,
                    problem: format!("{}; delete this line", broken.describe(&self.labels)),
                }));
            }
            let origin = MatrixOrigin::Saved {
                file: file.path().to_path_buf(),
                seed: saved.seed,
            };
            let config = &self.settings.config;
            let environment = &self.settings.environment;
            self.test.check_one(
                self.subject,
                &matrix,
                config,
                origin,
                None,
                &mut self.summary,
                environment,
            )?;
        }
        Ok(())
    }

    /// Checks the explicit regression matrices, comparing (or blessing) their committed
    /// specifications first.
    fn explicit(&mut self) -> Result<(), TestFailure> {
        let test = self.test;
        for (index, columns) in test.matrices.iter().enumerate() {
            let threads = columns
                .iter()
                .map(|c| test.resolve(&self.labels, c))
                .collect::<Result<Vec<_>, _>>()?;
            let matrix = self.frame.around(TestMatrix::new(threads));
            if let Err(broken) = self.subject.groups().check(&matrix) {
                let problem = broken.describe(&self.labels);
                return Err(test.setup(format!("regression matrix #{index} of the test: {problem}")));
            }
            if let Some(dir) = &test.observations {
                self.compare_spec(dir, index, &matrix)?;
            }
            let origin = MatrixOrigin::Explicit { index };
            test.check_one(
                self.subject,
                &matrix,
                &self.settings.config,
                origin,
                None,
                &mut self.summary,
                &self.settings.environment,
            )?;
        }
        Ok(())
    }

    /// Compares the specification of explicit matrix `index` with the one committed in `dir` (or
    /// blesses it).
    fn compare_spec(&self, dir: &std::path::Path, index: usize, matrix: &TestMatrix) -> Result<(), TestFailure> {
        let fresh = synthesize_in(self.subject, matrix, &self.settings.config, &self.settings.environment).map_err(
            |error| TestFailure::Check {
                test: self.test.name.clone(),
                origin: MatrixOrigin::Explicit { index },
                error: Box::new(error),
            },
        )?;
        // A nondeterministic object's phase 1 stops at its proof, so its specification is
        // partial: neither compared nor blessed; the check reports the nondeterminism.
        if fresh.nondeterminism.is_none() {
            let file = dir.join(format!("{}-{index}.xml", file_name_of(&self.test.name)));
            compare_or_bless(&file, &fresh.spec, self.settings.environment.run.bless).map_err(TestFailure::Snapshot)?;
        }
        Ok(())
    }

    /// Checks this shard of the random sample on every core; gives the matrices checked when all
    /// pass (the deepening checks them again).
    fn sample(&mut self, deadline: Option<Instant>) -> Result<Vec<TestMatrix>, TestFailure> {
        let test = self.test;
        let Settings {
            samples, seed, workers, ..
        } = self.settings;
        if samples == 0 || test.threads == 0 || test.ops == 0 {
            return Ok(Vec::new());
        }
        let groups = self.subject.groups();
        let sample = sample_shaped_grouped(&groups, test.threads, test.ops, samples, seed, test.shapes);
        let (shard, shards) = self.settings.shard.unwrap_or((0, 1));
        let indices: Vec<usize> = shard_indices(samples, shard, shards).collect();
        let matrices: Vec<TestMatrix> = indices.iter().map(|&i| self.frame.around(sample[i].clone())).collect();
        let progress = Progress::new(matrices.len(), &test.name, &self.settings.environment);
        let config = &self.settings.config;
        // With a time budget, small matrices are deepened as soon as they pass (iterative
        // deepening, at once): a bug one preemption deeper shows in the sample's first second.
        let deepening = (deadline.is_some() && test.stages.contains(&Stage::IterativeDeepening))
            .then(SmallMatrixDeepening::default);
        let outcome = check_matrices(self.subject, &matrices, config, workers, &progress, deadline, deepening);
        progress.finish();
        if deepening.is_some() {
            self.summary
                .deepening
                .push(small_matrices_deepened(&outcome.deepened, config.preemption_bound));
        }
        self.summary.matrices += outcome.checked - outcome.inconclusive.unfinished;
        self.summary.executions += outcome.executions;
        self.summary.inconclusive_executions += outcome.inconclusive_executions;
        self.summary.interludes += outcome.interludes;
        self.summary.inconclusive_matrices.merge(outcome.inconclusive);
        let Some((position, result)) = outcome.first_failure else {
            matrices.iter().for_each(|m| self.summary.shapes.add(m));
            return Ok(matrices);
        };
        let index = indices[position];
        // A violation of a deeper tree came from deepening the sampled matrix at once: it is
        // shrunk with that tree's settings.
        let deeper = match &result {
            Ok(v) => found_deeper(config, v),
            Err(_) => None,
        };
        let (origin, config) = match deeper {
            Some((deeper, how)) => (
                MatrixOrigin::Deepening {
                    stage: format!("iterative deepening of sample #{index} at once ({how})"),
                    index,
                },
                deeper,
            ),
            None => (
                MatrixOrigin::Sampled {
                    seed,
                    index,
                    of: samples,
                },
                config.clone(),
            ),
        };
        let regressions = self.regressions.as_ref();
        let environment = &self.settings.environment;
        Err(test.failed(
            self.subject,
            &matrices[position],
            result,
            &config,
            origin,
            regressions,
            environment,
        ))
    }

    /// Deepening within the time budget: the test's stages in order, each as far as its equal
    /// share of what is left goes. Every check gets a share of what is left (in executions, at `rate` executions per
    /// second); one that reaches its share is cut and counted as not covered.
    fn deepen(&mut self, deadline: Instant, rate: f64, sampled: &[TestMatrix]) -> Result<(), TestFailure> {
        let budget = Budget {
            deadline,
            rate: if rate.is_finite() && rate > 1.0 { rate } else { 1000.0 },
        };
        let around = self.frame.clone();
        let frame = move |m: TestMatrix| around.around(m);
        let config = self.settings.config.clone();
        let groups = self.subject.groups();
        let input = PlanInput {
            config: &config,
            seed: self.settings.seed,
            samples: self.settings.samples,
            threads: self.test.threads,
            ops: self.test.ops,
            shapes: self.test.shapes,
            groups: &groups,
            sampled,
            frame: &frame,
        };
        let plans: Vec<Option<Plan>> = self.test.stages.iter().map(|&s| plan(s, &input)).collect();
        let stages = plans.len();
        for (index, plan) in plans.into_iter().enumerate() {
            if budget.spent() {
                break;
            }
            // Each stage gets an equal share of what is left, so that every stage runs; one that
            // ends early leaves its time to the stages after it.
            let slice = Budget {
                deadline: Instant::now()
                    + budget.deadline.saturating_duration_since(Instant::now()) / (stages - index) as u32,
                rate: budget.rate,
            };
            let done = match plan {
                Some(plan) => self.run_plan(plan, &slice)?,
                None => self.iterative_deepening(sampled, &slice)?,
            };
            self.summary.deepening.push(done);
        }
        Ok(())
    }

    /// Checks a stage's matrices in order until the budget is spent.
    fn run_plan(&mut self, plan: Plan, budget: &Budget) -> Result<DeepeningStage, TestFailure> {
        let mut done = DeepeningStage::new(plan.name, plan.of);
        let mut left = plan.of.unwrap_or(usize::MAX);
        for (index, matrix) in plan.matrices.enumerate() {
            if budget.spent() {
                break;
            }
            // An exhaustive search gets a share of what is left; a sampling one runs its fixed
            // number of executions.
            let cap = match plan.config.strategy.is_exhaustive() {
                true => budget.share(left.min(64)),
                false => u64::MAX,
            };
            let config = Config {
                max_executions: (cap < u64::MAX).then_some(cap),
                // The stage's time left bounds the check (phase 1 included); its share in
                // executions keeps one large phase 2 from taking all of it.
                max_duration: Some(budget.time_left()),
                ..plan.config.clone()
            };
            left = left.saturating_sub(1);
            let origin = MatrixOrigin::Deepening {
                stage: done.name.clone(),
                index,
            };
            let stats = self.check_deeper(&matrix, &config, origin)?;
            done.executions += stats.serial_executions + stats.concurrent_executions;
            if stats.concurrent_executions >= cap || stats.unfinished {
                done.cut += 1;
            } else {
                done.checked += 1;
            }
        }
        Ok(done)
    }

    /// Each distinct matrix of the sample, fewest operations first, at one preemption more than
    /// the sample, then another, ... while its tree stays within its share of the budget.
    fn iterative_deepening(&mut self, sampled: &[TestMatrix], budget: &Budget) -> Result<DeepeningStage, TestFailure> {
        let matrices = distinct_smallest_first(sampled);
        let base = self.settings.config.preemption_bound;
        let mut done = DeepeningStage::new(
            format!("iterative deepening from bound {} on the sample", base + 1),
            Some(matrices.len()),
        );
        for (index, matrix) in matrices.iter().enumerate() {
            if budget.spent() {
                break;
            }
            let share = budget.share(matrices.len() - index);
            let mut used = 0;
            let mut covered = None;
            for bound in base + 1..=base + MAX_EXTRA_PREEMPTIONS {
                let cap = share.saturating_sub(used);
                if cap < MIN_SHARE || budget.spent() {
                    break;
                }
                let config = Config {
                    preemption_bound: bound,
                    max_executions: Some(cap),
                    max_duration: Some(budget.time_left()),
                    ..self.settings.config.clone()
                };
                let origin = MatrixOrigin::Deepening {
                    stage: format!("{} (bound {bound})", done.name),
                    index,
                };
                let stats = self.check_deeper(matrix, &config, origin)?;
                done.executions += stats.serial_executions + stats.concurrent_executions;
                used += stats.concurrent_executions;
                if stats.concurrent_executions >= cap || stats.unfinished {
                    break;
                }
                covered = Some(bound);
            }
            match covered {
                Some(bound) => {
                    done.checked += 1;
                    done.covered_to(matrix.dimensions(), bound);
                }
                None => done.cut += 1,
            }
        }
        Ok(done)
    }

    /// Checks one matrix of a deepening stage (a failure is shrunk and saved).
    fn check_deeper(
        &mut self,
        matrix: &TestMatrix,
        config: &Config,
        origin: MatrixOrigin,
    ) -> Result<CheckStats, TestFailure> {
        let regressions = self.regressions.as_ref();
        self.test.check_one(
            self.subject,
            matrix,
            config,
            origin,
            regressions,
            &mut self.summary,
            &self.settings.environment,
        )
    }
}

/// When `violation`, found on a sampled matrix checked with `config`, came from deepening the
/// matrix at once (a deeper bound, or more choices at yields): the deeper tree's settings, and
/// how they read (`bound 3`, `bound 2, 2 choices at yields, the yielding thread too`).
fn found_deeper(config: &Config, violation: &Violation) -> Option<(Config, String)> {
    match violation.replay.phase {
        Phase::ConcurrentYields {
            preemption_bound,
            yield_choices,
            yield_to_self,
        } if (yield_choices, yield_to_self) != (config.yield_choices, config.yield_to_self) => {
            let deeper = Config {
                preemption_bound,
                yield_choices,
                yield_to_self,
                ..config.clone()
            };
            let to_self = if yield_to_self { ", the yielding thread too" } else { "" };
            Some((
                deeper,
                format!("bound {preemption_bound}, {yield_choices} choices at yields{to_self}"),
            ))
        }
        _ if violation.stats.preemption_bound > config.preemption_bound => {
            let bound = violation.stats.preemption_bound;
            let deeper = Config {
                preemption_bound: bound,
                ..config.clone()
            };
            Some((deeper, format!("bound {bound}")))
        }
        _ => None,
    }
}

/// What deepening the sample's small matrices at once covered, as a stage of the PASS line.
fn small_matrices_deepened(deepened: &[DeepenedMatrix], base: u32) -> DeepeningStage {
    let mut stage = DeepeningStage::new(
        format!(
            "iterative deepening of the sample's small matrices at once (bound-{base} trees within {} executions)",
            SmallMatrixDeepening::default().small_tree
        ),
        Some(deepened.len()),
    );
    for matrix in deepened {
        stage.executions += matrix.executions;
        if matrix.bound > base {
            stage.checked += 1;
            stage.covered_to(matrix.shape, matrix.bound);
        } else {
            stage.cut += 1;
        }
        if let Some(choices) = matrix.yield_choices {
            stage.covered_at_yields(matrix.shape, choices);
        }
    }
    stage
}

/// Preemptions beyond the sample's bound that iterative deepening tries at most.
const MAX_EXTRA_PREEMPTIONS: u32 = 8;

/// The fewest executions a deepening check is given.
const MIN_SHARE: u64 = 50;

/// What is left of a run's time budget, and how fast it runs.
struct Budget {
    deadline: Instant,
    /// Executions per second, as measured on the run so far.
    rate: f64,
}

impl Budget {
    /// Whether the budget is spent.
    fn spent(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// The time left until the deadline.
    fn time_left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// The executions that one of `ways` checks left may take: an equal share of the time left.
    fn share(&self, ways: usize) -> u64 {
        let left = self.time_left().as_secs_f64();
        ((left * self.rate / ways.max(1) as f64) as u64).max(MIN_SHARE)
    }
}

/// A file name for a test path (`tests::queue` becomes `tests__queue`).
fn file_name_of(test: &str) -> String {
    test.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A seed from the clock and the process, for runs that do not fix one (it is printed).
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    RandomState::new().hash_one((nanos, std::process::id())) % 1_000_000_000
}

/// The number of cores.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> TestSummary {
        TestSummary {
            seed: 7,
            matrices: 12,
            executions: 3456,
            inconclusive_executions: 0,
            inconclusive_matrices: Inconclusiveness::default(),
            elapsed: Duration::from_secs(3),
            phase2: Phase2Coverage {
                strategy: Strategy::PbDfs,
                preemption_bound: 2,
                fair_switch_steps: 64,
                spin_pruning: SpinPruning::default(),
            },
            shapes: ShapeCounts::default(),
            budget: Some(Duration::from_secs(10)),
            deepening: Vec::new(),
            interludes: 0,
            workers: 2,
        }
    }

    #[test]
    fn the_pass_line_lists_each_stage_with_what_it_covered() {
        let mut s = summary();
        let mut deep = DeepeningStage::new("iterative deepening from bound 3 on the sample".into(), Some(5));
        deep.checked = 4;
        deep.cut = 1;
        deep.executions = 800;
        deep.covered_to((2, 1), 6);
        s.deepening.push(deep);
        s.deepening
            .push(DeepeningStage::new("4x1 and 4x2 matrices".into(), Some(100)));
        let line = s.to_string();
        assert!(line.contains("within the time budget of 10s: iterative deepening from bound 3 on the sample 4/5 (800 executions, 1 cut"), "{line}");
        assert!(line.contains("2x1 \u{d7}1 to bound 6"), "{line}");
        assert!(line.contains(", 4x1 and 4x2 matrices 0/100 (0 executions)"), "{line}");
        s.budget = None;
        assert!(s.to_string().contains("no time budget"), "{}", s);
    }

    #[test]
    fn the_pass_line_counts_inconclusive_executions_and_matrices() {
        let mut s = summary();
        assert!(!s.to_string().contains("inconclusive"), "{s}");
        s.inconclusive_executions = 40;
        s.inconclusive_matrices = Inconclusiveness {
            mostly: 3,
            wholly: 1,
            ..Inconclusiveness::default()
        };
        let line = s.to_string();
        assert!(line.contains("40 executions reached the step limit"), "{line}");
        assert!(
            line.contains("1 of 12 matrices inconclusive (no execution judged)"),
            "{line}"
        );
        assert!(
            line.contains("in 2 matrices inconclusive executions outnumber judged ones"),
            "{line}"
        );
        assert!(!s.all_inconclusive());
        s.inconclusive_matrices = Inconclusiveness {
            mostly: 12,
            wholly: 12,
            ..Inconclusiveness::default()
        };
        assert!(s.all_inconclusive(), "every matrix inconclusive fails the test");
        s.matrices = 0;
        assert!(!s.all_inconclusive());
    }
}

//! Stress mode: run an object's invocations on real OS threads, record every call and return
//! with a monotonic clock, and check the recorded history with a model.
//!
//! Unlike lineup's model-checked tests, nothing here controls the schedule: the object runs on
//! `std` threads at full speed, so it must be built from `std` primitives (`std::sync::Mutex`,
//! atomics, ...), not shuttle's (those panic outside a shuttle test). The test is a
//! [`TestMatrix`] over the object's invocation set ([`lineup_core::Invocations`] or a
//! [`lineup_core::Subject`]), run once: by default a random one, `threads` columns of
//! `ops_per_thread` invocations drawn uniformly from a seed (printed when it is drawn), or one
//! you give ([`StressTest::matrix`]). Every call time is read just before the invocation and every
//! return time just after it, from one shared [`std::time::Instant`]; an operation that returned
//! before another was called (by the clock) must be linearized before it, and operations whose
//! times overlap or tie may be linearized in either order, so the recorded history never claims
//! more order than there was. A user-supplied mapping turns each (invocation, response) pair into
//! a model operation, and the history is checked with [`crate::check`], or partitioned with
//! [`crate::check_partitioned`] for a P-compositional model.
//!
//! Operations must not block forever: a thread stuck in an operation keeps the run from ending.
//!
//! ```
//! use std::collections::HashSet;
//! use std::sync::Mutex;
//! use lineup_core::{Invocation, InvocationLabel, Response, Subject};
//! use lineup_histories::models::{SetInput, SetModel};
//! use lineup_histories::stress::{StressTest, StressVerdict};
//! use lineup_histories::CheckOptions;
//!
//! let mut subject = Subject::new("Mutex<HashSet>", || Mutex::new(HashSet::<u8>::new()));
//! for x in 0..4u8 {
//!     subject = subject
//!         .with(Invocation::new("insert", move |s: &Mutex<HashSet<u8>>| s.lock().unwrap().insert(x)).arg(x))
//!         .with(Invocation::new("remove", move |s: &Mutex<HashSet<u8>>| s.lock().unwrap().remove(&x)).arg(x));
//! }
//! let map = |label: &InvocationLabel, response: &Response| -> Result<(SetInput<u8>, bool), String> {
//!     let x: u8 = label.args[0].parse().map_err(|e| format!("{e}"))?;
//!     let result = response.to_string() == "true";
//!     Ok((if label.name == "insert" { SetInput::Insert(x) } else { SetInput::Remove(x) }, result))
//! };
//! let recording = StressTest::new(subject).threads(2).ops_per_thread(500).seed(7).run();
//! let report = recording.check_partitioned(&SetModel::new(), map, &CheckOptions::default()).unwrap();
//! assert_eq!(report.verdict(), StressVerdict::Pass, "{report}");
//! assert_eq!(report.seed, Some(7));
//! ```

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use lineup_core::{Invocation, InvocationLabel, Invocations, Response, Subject, TestMatrix};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{check, check_partitioned, CheckOptions, CheckOutcome, CheckReport, History, Model, OpId, Operation};
use crate::{PartitionError, PartitionedModel};

/// A stress test of an object: a test matrix run once on real threads, either drawn at random
/// (how many threads, how many operations each, from a seed) or given.
///
/// Build it with [`StressTest::new`] (from a [`Subject`]) or [`StressTest::of`] (from a type
/// that implements [`Invocations`]), then [`run`](StressTest::run) it.
pub struct StressTest<O> {
    subject: Subject<O>,
    threads: usize,
    ops_per_thread: usize,
    seed: Option<u64>,
    matrix: Option<TestMatrix>,
}

impl<O: Invocations> StressTest<O> {
    /// A stress test of a type that knows its invocations, built by `factory`.
    pub fn of(name: impl Into<String>, factory: impl Fn() -> O + Send + Sync + 'static) -> Self {
        Self::new(Subject::of(name, factory))
    }
}

impl<O: Send + Sync + 'static> StressTest<O> {
    /// A stress test of `subject`: by default a random matrix of 4 threads × 10,000 operations,
    /// seed drawn at random and printed.
    pub fn new(subject: Subject<O>) -> Self {
        Self {
            subject,
            threads: 4,
            ops_per_thread: 10_000,
            seed: None,
            matrix: None,
        }
    }

    /// The number of threads of the random matrix (at least 1).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// The number of operations each thread of the random matrix performs.
    pub fn ops_per_thread(mut self, ops: usize) -> Self {
        self.ops_per_thread = ops;
        self
    }

    /// The seed of the random matrix. Without one, a seed is drawn and printed to stderr (it is
    /// also in the recording and the report).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Runs this matrix instead of a random one: its initial operations on the calling thread
    /// first, then one thread per column, started together, then its final operations on the
    /// calling thread. The calling thread is client number `matrix.threads.len()` in the
    /// history.
    ///
    /// # Panics
    /// [`run`](Self::run) panics if the matrix names an invocation the subject does not have.
    pub fn matrix(mut self, matrix: TestMatrix) -> Self {
        self.matrix = Some(matrix);
        self
    }

    /// The random matrix of `seed`: `threads` columns of `ops_per_thread` invocations, each
    /// drawn uniformly from the subject's invocation set.
    pub fn plan(&self, seed: u64) -> TestMatrix {
        let count = self.subject.invocations().len();
        assert!(count > 0, "the subject `{}` has no invocations", self.subject.name());
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        TestMatrix::new(
            (0..self.threads)
                .map(|_| (0..self.ops_per_thread).map(|_| rng.random_range(0..count)).collect())
                .collect(),
        )
    }

    /// Builds a fresh object and runs the matrix on real threads, recording every call and
    /// return time.
    pub fn run(&self) -> StressRecording {
        let (matrix, seed) = match &self.matrix {
            Some(matrix) => (matrix.clone(), None),
            None => {
                let seed = self.seed.unwrap_or_else(|| {
                    let seed = random_seed();
                    eprintln!(
                        "lineup stress: seed {seed} (StressTest::seed({seed}) repeats the choice of invocations)"
                    );
                    seed
                });
                (self.plan(seed), Some(seed))
            }
        };
        if let Err(error) = self.subject.validate(&matrix) {
            panic!("lineup stress: {error}");
        }
        let threads = matrix.threads.len();
        let main_client = threads;
        let object = Arc::new(self.subject.build());
        let invocations = Arc::new(self.subject.invocations().to_vec());
        // The shared clock origin, taken before any operation.
        let start = Instant::now();
        let mut calls = Vec::with_capacity(matrix.op_count());
        let mut last_return = None;
        for &invocation in &matrix.initial {
            let call = record(&invocations, &object, main_client, invocation, start, last_return);
            last_return = Some(call.ret);
            calls.push(call);
        }
        let barrier = Arc::new(Barrier::new(threads.max(1)));
        let handles: Vec<_> = matrix
            .threads
            .iter()
            .cloned()
            .enumerate()
            .map(|(thread, column)| {
                let object = Arc::clone(&object);
                let barrier = Arc::clone(&barrier);
                let invocations = Arc::clone(&invocations);
                std::thread::Builder::new()
                    .name(format!("lineup-stress-{thread}"))
                    .spawn(move || {
                        let mut records = Vec::with_capacity(column.len());
                        barrier.wait();
                        // Every worker's first call comes after the initial operations.
                        let mut last = last_return;
                        for invocation in column {
                            let call = record(&invocations, &object, thread, invocation, start, last);
                            last = Some(call.ret);
                            records.push(call);
                        }
                        records
                    })
                    .expect("spawn a stress thread")
            })
            .collect();
        for handle in handles {
            calls.extend(handle.join().expect("a stress thread panicked outside an operation"));
        }
        // The final operations come after every worker's last return.
        let mut last_return = calls.iter().map(|c| c.ret).max();
        for &invocation in &matrix.finals {
            let call = record(&invocations, &object, main_client, invocation, start, last_return);
            last_return = Some(call.ret);
            calls.push(call);
        }
        let elapsed = start.elapsed();
        calls.sort_by_key(|c| (c.call, c.thread));
        StressRecording {
            subject: self.subject.name().to_string(),
            labels: self.subject.labels(),
            seed,
            threads,
            calls,
            elapsed,
        }
    }
}

/// Performs one invocation, reading the clock just before (strictly after `last`) and just after.
fn record<O>(
    invocations: &[Invocation<O>],
    object: &O,
    thread: usize,
    invocation: usize,
    start: Instant,
    last: Option<u64>,
) -> RecordedCall {
    let call = clock_after(start, last);
    let response = catch_unwind(AssertUnwindSafe(|| invocations[invocation].call(object)))
        .unwrap_or_else(|payload| Response::Panicked(panic_message(payload.as_ref())));
    let ret = nanos_since(start);
    RecordedCall {
        thread,
        invocation,
        response,
        call,
        ret,
    }
}

/// A seed from the process's random hasher state and the time.
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.finish()
}

fn nanos_since(start: Instant) -> u64 {
    start.elapsed().as_nanos() as u64
}

/// The clock, read strictly after `last` (spinning for the nanosecond or so it can take), so
/// that a thread's next call never ties with its previous return.
fn clock_after(start: Instant, last: Option<u64>) -> u64 {
    loop {
        let now = nanos_since(start);
        if last.is_none_or(|last| now > last) {
            return now;
        }
        std::hint::spin_loop();
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".to_string())
}

/// One recorded operation of a stress run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedCall {
    /// The thread (0-based) that performed it; the calling thread (initial and final
    /// operations of a given matrix) is number `threads`.
    pub thread: usize,
    /// Its invocation (index into the subject's invocation list).
    pub invocation: usize,
    /// What it returned (or its panic).
    pub response: Response,
    /// Nanoseconds from the run's start to just before the call.
    pub call: u64,
    /// Nanoseconds from the run's start to just after the return.
    pub ret: u64,
}

/// The record of a stress run: every call with its response and times, in call order.
#[derive(Clone, Debug)]
pub struct StressRecording {
    /// The subject's name.
    pub subject: String,
    /// The subject's invocation labels (indexed by [`RecordedCall::invocation`]).
    pub labels: Vec<InvocationLabel>,
    /// The seed the matrix was drawn from (`None` for a given matrix).
    pub seed: Option<u64>,
    /// The number of threads.
    pub threads: usize,
    /// The operations, by call time.
    pub calls: Vec<RecordedCall>,
    /// The wall-clock time of the run.
    pub elapsed: Duration,
}

/// A recorded response that the mapping to a model refused.
#[derive(Debug, thiserror::Error)]
#[error(
    "stress run of `{subject}` ({run}): thread {thread}'s `{label}` returned `{response}`, which maps to no model \
     operation: {reason}",
    run = seed_text(*.seed)
)]
pub struct MappingError {
    /// The subject's name.
    pub subject: String,
    /// The run's seed (`None` for a given matrix).
    pub seed: Option<u64>,
    /// The thread.
    pub thread: usize,
    /// The invocation, as its label renders (`insert(3)`).
    pub label: String,
    /// Its response, as it renders.
    pub response: String,
    /// What the mapping said.
    pub reason: String,
}

impl StressRecording {
    /// The recorded history for a model: each (invocation, response) is mapped to a model input
    /// and output by `map`. Operation `i` of the history ([`OpId`]`(i)`) is `self.calls[i]`.
    ///
    /// Times become ticks that keep exactly the order the clock saw: a call at `t` ns gets tick
    /// `2t`, a return at `t` ns gets `2t + 1`, so an operation precedes another only if it
    /// returned at an earlier nanosecond than the other's call; equal readings are concurrent.
    pub fn history<I, Out, F>(&self, map: F) -> Result<History<I, Out>, MappingError>
    where
        F: Fn(&InvocationLabel, &Response) -> Result<(I, Out), String>,
    {
        let mut operations = Vec::with_capacity(self.calls.len());
        for call in &self.calls {
            let label = &self.labels[call.invocation];
            let (input, output) = map(label, &call.response).map_err(|reason| MappingError {
                subject: self.subject.clone(),
                seed: self.seed,
                thread: call.thread,
                label: label.to_string(),
                response: call.response.to_string(),
                reason,
            })?;
            operations.push(Operation::returned(
                call.thread as u64,
                input,
                output,
                2 * call.call,
                2 * call.ret + 1,
            ));
        }
        Ok(History::from_operations(operations).expect("a stress recording is a well-formed history"))
    }

    /// Checks the recording with `model` as a whole.
    pub fn check<M, F>(&self, model: &M, map: F, options: &CheckOptions) -> Result<StressReport, MappingError>
    where
        M: Model,
        F: Fn(&InvocationLabel, &Response) -> Result<(M::Input, M::Output), String>,
    {
        let history = self.history(map)?;
        Ok(self.report(check(model, &history, options)))
    }

    /// Checks the recording with a P-compositional `model`, partitioned by its key (unless
    /// `options.partition` is off). A model that refuses to partition the history is reported
    /// as [`StressCheckError::Partition`].
    pub fn check_partitioned<M, F>(
        &self,
        model: &M,
        map: F,
        options: &CheckOptions,
    ) -> Result<StressReport, StressCheckError>
    where
        M: PartitionedModel,
        F: Fn(&InvocationLabel, &Response) -> Result<(M::Input, M::Output), String>,
    {
        let history = self.history(map)?;
        let report = if options.partition {
            check_partitioned(model, &history, options)?
        } else {
            check(model, &history, options)
        };
        Ok(self.report(report))
    }

    fn report(&self, check: CheckReport) -> StressReport {
        let describe = |id: OpId| {
            let call = &self.calls[id.0];
            format!(
                "{id}: thread {} {} -> {}",
                call.thread, self.labels[call.invocation], call.response
            )
        };
        let legend = match &check.outcome {
            CheckOutcome::NotLinearizable(violation) => violation
                .unplaced
                .iter()
                .chain(violation.blocking.iter())
                .map(|&id| describe(id))
                .collect(),
            _ => Vec::new(),
        };
        StressReport {
            subject: self.subject.clone(),
            seed: self.seed,
            threads: self.threads,
            operations: self.calls.len(),
            run_time: self.elapsed,
            check,
            legend,
        }
    }
}

/// Why a partitioned stress check gave no report.
#[derive(Debug, thiserror::Error)]
pub enum StressCheckError {
    /// A response mapped to no model operation.
    #[error(transparent)]
    Mapping(#[from] MappingError),
    /// The model refused to partition the history.
    #[error(transparent)]
    Partition(#[from] PartitionError),
}

/// `seed N`, or `given matrix`.
fn seed_text(seed: Option<u64>) -> String {
    seed.map_or_else(|| "given matrix".to_string(), |seed| format!("seed {seed}"))
}

/// The verdict of a stress check, in one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StressVerdict {
    /// The recorded history is linearizable.
    Pass,
    /// It is not: the object is not linearizable with respect to the model.
    Fail,
    /// A limit was reached first.
    Unknown,
}

/// The result of a stress check: the run's figures, the verdict and its explanation.
///
/// Its `Display` is a verdict line (with the seed) and, for a failure, the violation: the
/// longest linearizable prefix, the operations that could not be placed (with their threads,
/// invocations and responses) and a per-thread timeline.
#[derive(Clone, Debug)]
pub struct StressReport {
    /// The subject's name.
    pub subject: String,
    /// The seed of the run (`None` for a given matrix).
    pub seed: Option<u64>,
    /// The number of threads.
    pub threads: usize,
    /// The number of operations recorded.
    pub operations: usize,
    /// The wall-clock time of the run (recording only).
    pub run_time: Duration,
    /// The check's verdict, explanation and figures.
    pub check: CheckReport,
    /// For a failure: the operations that could not be placed, with thread, invocation and
    /// response.
    pub legend: Vec<String>,
}

impl StressReport {
    /// The verdict in one word.
    pub fn verdict(&self) -> StressVerdict {
        match self.check.outcome {
            CheckOutcome::Linearizable { .. } => StressVerdict::Pass,
            CheckOutcome::NotLinearizable(_) => StressVerdict::Fail,
            CheckOutcome::Unknown { .. } => StressVerdict::Unknown,
        }
    }
}

impl fmt::Display for StressReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = match self.verdict() {
            StressVerdict::Pass => "PASS",
            StressVerdict::Fail => "FAIL",
            StressVerdict::Unknown => "UNKNOWN",
        };
        writeln!(
            f,
            "lineup stress: {word}: `{}`, {} threads, {} operations, {} (run {:.3} s, check {:.3} s)",
            self.subject,
            self.threads,
            self.operations,
            seed_text(self.seed),
            self.run_time.as_secs_f64(),
            self.check.stats.elapsed.as_secs_f64()
        )?;
        match &self.check.outcome {
            CheckOutcome::Linearizable { .. } => Ok(()),
            CheckOutcome::Unknown { reason } => writeln!(f, "no verdict: {reason}"),
            CheckOutcome::NotLinearizable(violation) => {
                writeln!(f, "the recorded history is not linearizable:")?;
                for line in &self.legend {
                    writeln!(f, "  {line}")?;
                }
                write!(f, "{violation}")
            }
        }
    }
}

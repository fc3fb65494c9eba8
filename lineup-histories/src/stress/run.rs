//! Running a stress test: the matrix on real threads, every call and return timed.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Barrier};
use std::time::Instant;

use lineup_core::{Invocation, Invocations, Response, Subject, TestMatrix};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{RecordedCall, StressRecording};

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

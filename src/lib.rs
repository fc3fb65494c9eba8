//! lineup: find concurrency bugs in thread-safe objects automatically.
//!
//! lineup checks *deterministic linearizability* after Line-Up (Burckhardt, Dern, Musuvathi, Tan:
//! "Line-Up: A Complete and Automatic Linearizability Checker", PLDI 2010), on the
//! [shuttle](https://crates.io/crates/shuttle) model checker by default and on
//! [loom](https://crates.io/crates/loom) under `--cfg loom`. You give it a thread-safe object, the
//! invocations to try (an operation with fixed arguments, e.g. `add(200)`) and a test matrix (which
//! invocations each thread runs, e.g. `[add(200), try_take()] | [add(400), try_take()]`). You do not
//! write a specification: lineup synthesizes it.
//!
//! This crate is the one dependency a user adds: it re-exports the engine ([`lineup_core`]), the
//! macros [`invocations`] and [`lineup_test`], and [`histories`] (checking long recorded histories).
//! This page is the guide; the repository's `README.md` is the front door and `docs/` holds the
//! rest (strategies, actors, the loom backend, recorded histories, benchmarks).
//!
//! # How a check works
//!
//! [`check`] runs `Check(X, m)` of the paper (Fig. 5) in two phases:
//!
//! 1. **Phase 1** runs every *serial* execution of the matrix (operations never overlap; every
//!    order of the threads' operations) and collects the serial histories as the specification
//!    (an [`ObservationSet`]). It is **never bounded**. If two serial histories share a prefix that
//!    ends in a call and then differ (another result, or a result in one and blocking in the
//!    other), the object is nondeterministic and the check fails right there (§2.3).
//! 2. **Phase 2** explores concurrent schedules up to a *preemption bound* (default 2) and judges
//!    every distinct history against that specification:
//!    * a **full history** needs a serial witness (Def. 1): a serial history with the same
//!      per-thread invocations and results that keeps every real-time order of the history (an
//!      operation that returned before another was called stays before it); pending operations
//!      may be completed or dropped;
//!    * a **stuck history** (some operation can never return) needs, for each pending operation
//!      `e`, a *stuck* serial witness of `H[e]`, the history with only `e` left pending (Def. 2).
//!      So an operation may block concurrently only where it also blocks serially after the same
//!      operations. This is what catches a lost wake-up or a leaked lock even when every value
//!      returned is right.
//!
//! Because phase 1 is exhaustive, a reported failure is a proof: the object is not linearizable
//! with respect to *any* deterministic sequential specification. A PASS covers the schedules
//! within the preemption bound. Every setting is a field of [`Config`], whose `default()` is the
//! paper's.
//!
//! # Building the object: `lineup::sync`
//!
//! Build the object under test from **one** import path: [`sync`], [`thread`], [`hint`] and
//! [`future`]. They have std's names and shapes, so that switching a real object between std and
//! lineup is one `cfg` line:
//!
//! ```
//! #[cfg(not(test))]
//! use std::sync::{Mutex, RwLock};
//! #[cfg(test)]
//! use lineup::sync::{Mutex, RwLock};
//! # let _ = (Mutex::new(0), RwLock::new(0));
//! ```
//!
//! [`sync`] has `Mutex`, `Condvar`, `RwLock`, `Barrier`, `Once`, `OnceLock`, the atomics of every
//! width, `mpsc::channel` and `mpsc::sync_channel` (and the rest of the model checker's `sync`:
//! `Arc`, `LockResult`, ...); [`thread`] has `spawn`, `current`, `park`, `park_timeout`,
//! `Thread::unpark`, `yield_now`. On shuttle they are lineup's own, with shuttle's scheduling
//! points (the same executions are explored as with shuttle's), and two things more:
//!
//! * every step tells the partial-order reduction ([`Config::reduction`]) which object it
//!   touches, so that steps on different objects are not explored in both orders;
//! * when an execution is stuck, lineup records the stuck history and then ends the execution
//!   cleanly, waking the operations that wait in a `Condvar`, an `RwLock`, a `Barrier` or a
//!   channel's receive (or spin through [`thread::yield_now`] / [`hint::spin_loop`]) so that they
//!   unwind, which lets shuttle reuse the threads' stacks.
//!
//! Under `--cfg loom` all four modules switch to loom (with the same names). The model checker's
//! own primitives are reachable as `lineup::shuttle::sync` / `lineup::shuttle::thread`, and an
//! object built on them directly gets the same verdicts: the reduction sees their `Mutex`,
//! `Condvar`, `RwLock`, `Barrier`, `Once` and thread spawns (read from shuttle's `tracing`
//! events), their channels and atomics only if the workspace uses lineup's copy of shuttle-std
//! (the README's `[patch]`), and takes every other step of theirs (`join`, `park`, a future's
//! poll) to conflict with everything (more executions); an execution stuck in them is stopped
//! instead of ended, and shuttle throws its unfinished threads' stacks away (slower, especially
//! with several workers), unless the workspace uses that copy (its waits end cleanly as
//! `lineup::sync`'s do); and they do not switch to loom. An execution stuck in
//! `std::hint::spin_loop` is stopped the same way.
//!
//! # Checking an object by hand
//!
//! ```
//! use lineup::sync::Mutex;
//! use lineup::{check, Config, Invocation, Subject, TestMatrix, Verdict};
//!
//! /// The object under test, built from lineup::sync primitives.
//! #[derive(Default)]
//! struct Stack {
//!     items: Mutex<Vec<u32>>,
//! }
//!
//! impl Stack {
//!     fn push(&self, value: u32) {
//!         self.items.lock().unwrap().push(value);
//!     }
//!
//!     fn pop(&self) -> Option<u32> {
//!         self.items.lock().unwrap().pop()
//!     }
//! }
//!
//! let subject = Subject::new("Stack", Stack::default)
//!     .with(Invocation::new("push", |s: &Stack| s.push(1)).arg(1)) // invocation 0
//!     .with(Invocation::new("push", |s: &Stack| s.push(2)).arg(2)) // invocation 1
//!     .with(Invocation::new("pop", Stack::pop)); // invocation 2
//!
//! // Thread A: push(1), pop(); thread B: push(2), pop().
//! let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
//! match check(&subject, &matrix, &Config::default()).unwrap() {
//!     Verdict::Pass(stats) => assert!(stats.concurrent_executions > 0),
//!     Verdict::Fail(violation) => panic!("{violation}"),
//! }
//! ```
//!
//! * [`Subject::new`]`(name, factory)` builds a fresh object for every execution; `.with(...)` adds
//!   invocations, which matrices refer to by position.
//! * [`Invocation::new`]`(name, closure)` calls the operation; its return value is rendered with
//!   `Debug` and compared as text. `.arg(value)` only records an argument for display. A panic
//!   inside an operation is a response too ([`Response::Panicked`]), not a crash.
//! * [`TestMatrix::new`]`(columns)` gives one column per worker thread (threads `A`, `B`, `C`, ...);
//!   `.with_initial(...)` / `.with_final(...)` add operations the main thread runs before the
//!   workers start and after they are joined. Operations are numbered from 1: the initial ones,
//!   then each column in turn, then the final ones.
//! * [`check`] returns [`Verdict::Pass`]`(CheckStats)` or [`Verdict::Fail`]`(Box<Violation>)`, whose
//!   `Display` is the report ([Reading a report](#reading-a-report)), or a [`CheckError`] when no
//!   verdict can be reached (a matrix naming an invocation the subject does not have, a panic
//!   outside any operation such as in the constructor, an object that uses something the model
//!   checker does not control, a bad replay token or observation file).
//! * [`synthesize_spec`] runs phase 1 alone; [`witness::find_witness`] is the Def. 1 search on its
//!   own, usable on hand-built [`History`] values (see `tests/witness_herlihy_wing.rs`).
//!
//! # Tests with `#[lineup_test]`
//!
//! Describe the invocations once on the `impl` block with [`invocations`], and let [`lineup_test`]
//! turn a function that builds the object into an ordinary `#[test]`. [`LineupTest`] is the same
//! runner as a builder; its `check` returns the failure instead of panicking:
//!
//! ```
//! use lineup::sync::atomic::{AtomicU64, Ordering};
//! use lineup::{invocations, lineup_test, LineupTest};
//!
//! #[derive(Default)]
//! struct Counter(AtomicU64);
//!
//! #[invocations]
//! impl Counter {
//!     #[invoke(1, 2)] // add(1), add(2)
//!     fn add(&self, n: u64) -> u64 {
//!         self.0.fetch_add(n, Ordering::SeqCst) + n
//!     }
//!
//!     #[invoke] // get()
//!     fn get(&self) -> u64 {
//!         self.0.load(Ordering::SeqCst)
//!     }
//! }
//!
//! // 100 random matrices up to 3x3 (the paper's setting), preemption bound 2, on every core.
//! #[lineup_test]
//! fn counter_is_linearizable() -> Counter {
//!     Counter::default()
//! }
//!
//! // The same runner as a builder: 5 random matrices up to 2x2, a fixed seed.
//! let summary = LineupTest::new("counter").threads(2).ops(2).samples(5).seed(7).time_budget(None).check(Counter::default);
//! assert!(summary.is_ok(), "{}", summary.unwrap_err());
//! ```
//!
//! * [`invocations`] generates `impl lineup::Invocations for Counter`, a trait a person can also
//!   implement by hand (see [`Invocations`]): `#[invoke]` for a method without arguments,
//!   `#[invoke(a, b)]` for one invocation per value, `#[invoke((1, "x"), (2, "y"))]` for several
//!   arguments. Arguments are any `Clone + Debug` values, results any `Debug` type. For a type you
//!   do not own, build a [`Subject`] from named closures instead (`Subject::new(..).with(..)`).
//! * The options of `#[lineup_test(...)]` (`threads`, `ops`, `samples`, `preemption_bound`,
//!   `seed`, `workers`, `time_budget` / `time_budget_ms`, `check_stuck`, `strategy`, `reduction`, `interlude`,
//!   `allow_all_panics`, repeatable `matrix = [["add(200)", "try_take()"], ["add(400)"]]` for
//!   explicit regression matrices by invocation label, `initial`, `final`, `observations`) are
//!   listed on [`lineup_test`], each with the [`LineupTest`] builder call it becomes. Without
//!   options a run checks 100 random matrices of up to 3x3 (the paper's setting) at preemption
//!   bound 2, with a random seed that it prints, on every core, then deepens, all within
//!   15 s ([`DEFAULT_TIME_BUDGET`]; `time_budget = "off"` for a fixed run). Mistakes (an unknown option, a
//!   wrong type, an empty matrix, a method taking `&mut self`) are compile errors at your code
//!   (`tests/ui/`).
//! * A run checks, in order: failing matrices saved by earlier runs, the explicit matrices, then,
//!   within the time budget, the random sample (RandomCheck, §4.3; its small matrices are
//!   explored one preemption deeper, and deeper, as soon as they pass) and the deeper stages of
//!   `Stage::DEFAULT_ORDER` (a fourth operation on a thread, one preemption more, a fourth thread,
//!   iterative deepening, yields as a spinning core runs them, random and PCT on the sample, more
//!   matrices, AutoCheck). No check runs past the budget: one still running when it ends stops,
//!   and the PASS line counts what was cut, not reached, or inconclusive (a phase 1 that could
//!   not finish), and says how far each stage got. The sample draws
//!   every shape up to `threads x ops`, half of it full size (smaller shapes need fewer
//!   preemptions for the same bug and cost far less; `LineupTest::shapes(Shapes::Exact)` for the
//!   paper's sample); the PASS line says how many matrices of each shape it checked, and which
//!   strategy explored them. Matrices are checked on every core (one runner per OS thread); when
//!   fewer matrices are left than workers, the last checks split their trees among the idle
//!   workers, and the first failure reported is the same as with one worker. A progress bar
//!   (matrices done, failures, executions/s, ETA) shows on a terminal only, and never under `CI`
//!   or while the test harness captures output (run `cargo test -- --nocapture` to see it).
//! * A failing matrix is **shrunk**: operations, then threads, are dropped while it still fails,
//!   with a violation of any kind (a smaller matrix that fails otherwise is still a smaller failing
//!   test, as proptest and Lincheck treat it); at equal size, the original kind is preferred. The
//!   report shows the smallest failing matrix with its violating history first, then the original
//!   one, and the seed. The smallest failing matrix is **saved** in
//!   `lineup-regressions/<test file>.jsonl` beside the test (commit it) and re-run first from then
//!   on, as proptest does.
//! * With `observations = "dir"`, the phase-1 specification of each explicit matrix is kept as an
//!   observation file `dir/<test>-<n>.xml`. When a fresh phase 1 differs, the test fails with a
//!   diff of the serial histories that appeared (`+`) and disappeared (`-`);
//!   `LINEUP_BLESS=1 cargo test ...` rewrites the files after a deliberate change, as insta does.
//!
//! ## Nightly sweeps without code changes
//!
//! Environment variables override a `#[lineup_test]` (the samples, the seed, the bound, the time
//! budget, the workers, the strategy, and `LINEUP_SHARD=i/n`, which makes this machine check exactly
//! the sample indices `i, i+n, i+2n, ...` of the same seeded sample); `docs/environment.md` lists
//! them all. A nightly CI job (GitHub Actions syntax):
//!
//! ```yaml
//! nightly-lineup:
//!   strategy:
//!     matrix: { shard: [0, 1, 2, 3] }
//!   steps:
//!     - uses: actions/checkout@v4
//!     - run: cargo test --release -- --test-threads 1
//!       env:
//!         LINEUP_SAMPLES: "5000"
//!         LINEUP_SEED: "${{ github.run_number }}"   # one seed per night, the same on every shard
//!         LINEUP_SHARD: "${{ matrix.shard }}/4"
//!         LINEUP_TIME_BUDGET: "20m"
//! ```
//!
//! A failure prints the seed and saves the failing matrix; commit the regression file to keep it.
//!
//! # Reading a report
//!
//! `cargo run --release --example fig1_queue` prints this report (the timings vary, and the
//! violating history found first may differ between versions of the engine):
//!
//! ```text
//! lineup: FAIL: `GiveUpQueue` is not linearizable with respect to any deterministic sequential specification.
//!
//! test matrix (2 threads x 2 operations):
//!   A:       add(200)  try_take()
//!   B:       add(400)  try_take()
//!
//! kind: FULL HISTORY WITHOUT SERIAL WITNESS (Def. 1). No serial execution explains these results in an order that respects this history.
//!
//! violating history (full):
//!   1[ ]1 3[ ]3 4[ 2[ ]2 ]4
//!
//! per-thread timeline:
//!   step  A                  B
//!      1  1[ add(200) ...
//!      2  ... -> () ]1
//!      3                     3[ add(400) ...
//!      4                     ... -> () ]3
//!      5                     4[ try_take() ...
//!      6  2[ try_take() ...
//!      7  ... -> None ]2
//!      8                     ... -> Some(200) ]4
//!
//! operations:
//!     1  A     add(200)  -> ()
//!     3  B     add(400)  -> ()
//!     4  B     try_take()  -> Some(200)
//!     2  A     try_take()  -> None
//!
//! no serial execution of this matrix produced these per-thread results.
//!
//! interleaving (7 steps of the violating execution in the order they took effect, 2 preemptions; 3 of them shown, folded where a thread ran on; LINEUP_TRACE=full shows every step):
//!   A                                         B
//!   1[ add(200)
//!      2 steps  @ queues.rs:57
//!   ]1 -> ()
//!      state: GiveUpQueue { items: Mutex { data: [200], poisoned: false, .. } }
//!      -- preempted --
//!                                             3[ add(400)
//!                                                2 steps  @ queues.rs:57
//!                                             ]3 -> ()
//!                                                state: GiveUpQueue { items: Mutex { data: [200, 400], poisoned: false, .. } }
//!                                             4[ try_take()
//!                                                try_lock Mutex#0: acquired  @ queues.rs:63
//!                                                -- preempted --
//!   2[ try_take()
//!      try_lock Mutex#0: busy  @ queues.rs:63
//!   ]2 -> None
//!      state: GiveUpQueue { items: Mutex { data: "<locked>", poisoned: false, .. } }
//!                                                unlock Mutex#0
//!                                             ]4 -> Some(200)
//!                                                state: GiveUpQueue { items: Mutex { data: [400], poisoned: false, .. } }
//!
//! replay: LINEUP_REPLAY=lineup:p2-b2:0.0.0.1.0.0.0.1 re-runs exactly this schedule in phase 2 (or lineup::replay with this token)
//! explored: phase 1 6 serial executions (6 full, 0 stuck serial histories) in 176.3µs; phase 2 4 executions (4 distinct histories, 0 stuck) in 66.9µs at preemption bound 2
//! ```
//!
//! * **kind** is one of `NONDETERMINISM (phase 1)` (two serial histories that agree up to a call
//!   and then differ, both printed), `FULL HISTORY WITHOUT SERIAL WITNESS (Def. 1)`, or `STUCK
//!   HISTORY WITHOUT STUCK SERIAL WITNESS (Def. 2)` (which names the pending operation that
//!   blocks without justification, why the history is stuck, and `H[e]`).
//! * **violating history** is in the paper's notation: operations are numbered by the matrix
//!   (here 1, 2 on thread A and 3, 4 on thread B), `i[` is the call of operation `i`, `]i` its
//!   return, and a final `#` marks a stuck history.
//! * **per-thread timeline** puts each event in its thread's column with the invocation and the
//!   result; **operations** lists the results in call order.
//! * Then either the **observation group**, the serial histories that have the same per-thread
//!   results, each with the order of the history it breaks, or, as here, the statement that no
//!   serial execution produced these results at all. Here a `try_take()` returned `None` although
//!   both `add`s had returned before it did and only one element had been taken: it gave up
//!   because the other thread's `try_take()` held the lock.
//! * **interleaving** shows why: the violating schedule replayed once more with step recording on
//!   (nothing is recorded while the check explores), every step of lineup's primitives under the
//!   operation it belongs to, in its thread's column, in the order the steps took effect, with the
//!   values read and written, the object (`Mutex#0`: numbered by first touch), and the line of your
//!   code that called it (`#[track_caller]`). `-- preempted --` is a switch away from a thread
//!   that could have gone on; `yielded`, `blocked`, `fair switch` and `finished` are the other
//!   reasons. By default only the operations that overlap another one are shown step by step, and
//!   a thread's run of steps between two switches is folded into one line; `LINEUP_TRACE=full`
//!   shows every step with its full location and where each object was created. With
//!   `#[invocations(state)]` (or [`Subject::with_state`]) the object's `Debug` after each
//!   operation is shown too (`state:`; its `Debug` must not block). Steps of shuttle's own
//!   primitives used directly are scheduling points only; loom's executions are not recorded.
//!   [`record_steps`] records the steps of a violation again; [`Violation::interleaving`] holds
//!   them.
//! * **replay** is the token of the violating schedule ([Replaying a
//!   violation](#replaying-a-violation)); **explored** gives the statistics of both phases.
//!
//! The same report can be written as an HTML page (`LINEUP_REPORT_DIR`, [`report_html`]; see
//! `docs/html-reports.md`).
//!
//! # Stuck histories, fairness and inconclusive executions
//!
//! A history is **stuck** when:
//!
//! * **deadlock**: every unfinished thread is blocked. An always-runnable task that the
//!   scheduler never picks while anything else can run (a watchdog) turns this into a state the
//!   scheduler sees, instead of a shuttle panic;
//! * **livelock**: every thread that can run is inside an operation that has yielded
//!   (`yield_now`, [`hint::spin_loop`], or a fair switch) [`Config::spin_bound`] times while no
//!   operation was called or returned anywhere: no fair continuation lets an operation return.
//!
//! Stuck means "cannot return under a *fair* schedule" (Def. 2). A spin-wait that another thread
//! will end is not stuck: yields are free switches, so the other thread gets to run. A loop
//! that spins on `std::hint::spin_loop()`, the CPU hint that yields to no scheduler, gets the same
//! treatment: once a thread has run [`Config::fair_switch_steps`] scheduling steps in a row, the
//! scheduler switches away from it for free (not a preemption) to the thread that ran least
//! recently, in both phases. Without that, a spent preemption budget would let the spinner spin
//! forever while the lock holder it waits for never runs again, a schedule no real machine keeps
//! up, and a correct ticket lock would FAIL. The price: schedules in which one thread runs more than
//! `fair_switch_steps` steps without any other thread running are not explored as such (raise it
//! for objects whose operations are that long without a scheduling point of another thread).
//!
//! An execution that reaches [`Config::max_steps`] is **inconclusive**: its history is not judged
//! (a PASS does not cover it, and [`CheckStats::inconclusive_executions`] says how many there
//! were), and it is never a FAIL. In phase 1 an inconclusive serial execution would leave the
//! specification incomplete, so the check returns [`CheckError::StepLimit`] instead of a verdict.
//!
//! **The Counter2 example.** The paper's Counter2 (§2.2.2) leaks its lock on *every* `get`. A
//! synthesized specification explains that: "after a `get`, every operation blocks" is a
//! deterministic sequential specification, and the implementation is deterministically
//! linearizable with respect to it, so Line-Up cannot call it a bug. Our `Counter2`
//! (`examples/objects/counters.rs`) leaks the lock only on the contended path (`try_lock` fails,
//! then `lock` without release), which a serial execution never takes. Every value it returns is
//! right, so only the stuck-history check (Def. 2) finds it: a concurrent history blocks where no
//! serial history does (`tests/two_phase.rs`).
//!
//! # Replaying a violation
//!
//! The token in a report (`lineup:p2-b2:0.0.1...`: phase 2 at preemption bound 2, then the option
//! taken at each branch point) re-runs exactly that schedule:
//!
//! * Set `LINEUP_REPLAY` ([`REPLAY_ENV`]) and re-run the failing test:
//!   `LINEUP_REPLAY=lineup:p2-b2:0.0.0.1.0.0.0.1 cargo test --test my_test failing_test_name`.
//!   Phase 1 still runs in full; phase 2 runs that one schedule instead of exploring (the verdict
//!   shows `concurrent_executions == 1`), which is convenient under a debugger. The variable
//!   affects every `check` in the process, so select the one test. Only phase-2 tokens are
//!   accepted there.
//! * Or call [`replay`]: it returns a [`Replayed`] with the `history`, why it is `stuck` (if it
//!   is), and for a phase-2 token the `violation` found by judging it against a fresh phase 1. It
//!   also replays phase-1 tokens (`lineup:p1:...`, reported for nondeterminism: the second serial
//!   history).
//!
//! ```
//! use lineup::sync::Mutex;
//! use lineup::{check, replay, Config, Invocation, Subject, TestMatrix};
//!
//! /// try_take gives up when the lock is busy (the paper's Fig. 1 bug).
//! #[derive(Default)]
//! struct Queue(Mutex<Vec<u32>>);
//!
//! let subject = Subject::new("Queue", Queue::default)
//!     .with(Invocation::new("add", |q: &Queue| q.0.lock().unwrap().push(1)).arg(1))
//!     .with(Invocation::new("try_take", |q: &Queue| q.0.try_lock().ok()?.pop()));
//! let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
//! let config = Config::default();
//! let verdict = check(&subject, &matrix, &config).unwrap();
//! let token = &verdict.violation().expect("the bug is found").replay;
//! let token: lineup::ReplayToken = token.to_string().parse().unwrap(); // as printed in the report
//! let replayed = replay(&subject, &matrix, &token, &config).unwrap();
//! assert!(replayed.violation.is_some());
//! ```
//!
//! A token belongs to its subject and matrix; [`ReplayToken`] parses and prints tokens. Under loom a
//! violation is replayed by loom itself (`docs/loom-backend.md`).
//!
//! # Observation files
//!
//! Phase 1's specification can be stored as XML (paper §4.2, Fig. 7) and phase 2 run from it
//! later, without a fresh phase 1. The format is documented in [`observation_file`]; in short:
//!
//! * `<observationset>` holds a `<matrix>` listing every operation (`<op id thread name>` with its
//!   `<arg>`s), then one `<observation>` per group of serial histories that share every thread's
//!   operations and results;
//! * each `<observation>` lists each thread's operations (`<thread id="B">3 4B</thread>`, `B`
//!   marking the operation left blocking in a stuck group), each operation's `<result>` (or
//!   `<panicked>`, or nothing when it does not return), and its serial histories in the paper's
//!   notation (`<history>1[ ]1 3[ ]3 2[ #</history>`);
//! * operation ids are the matrix's numbers in every group.
//!
//! ```
//! use lineup::observation_file::{read_observation_file, write_observation_file};
//! use lineup::sync::Mutex;
//! use lineup::{check_against_spec, synthesize_spec, Config, Invocation, Subject, TestMatrix};
//!
//! #[derive(Default)]
//! struct Register(Mutex<u32>);
//!
//! let subject = Subject::new("Register", Register::default)
//!     .with(Invocation::new("write", |r: &Register| *r.0.lock().unwrap() = 1).arg(1))
//!     .with(Invocation::new("read", |r: &Register| *r.0.lock().unwrap()));
//! let matrix = TestMatrix::new(vec![vec![0], vec![1]]);
//! let config = Config::default();
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("register.xml");
//!
//! let synthesis = synthesize_spec(&subject, &matrix, &config).unwrap();
//! write_observation_file(&path, &synthesis.spec).unwrap(); // atomic: temporary file + rename
//! let spec = read_observation_file(&path).unwrap(); // errors name the file and line
//! let verdict = check_against_spec(&subject, &matrix, &spec, &config).unwrap();
//! assert!(verdict.is_pass() && verdict.stats().spec_from_file);
//! ```
//!
//! [`check_against_spec`] first checks that the specification belongs to the matrix (same
//! operations, threads and invocations; otherwise [`CheckError::ObservationFile`] naming the first
//! operation that differs). [`check_against_file`] reads the file and names it in every error. A
//! failure found against a stored specification is confirmed against a fresh phase 1 of the object
//! before it is reported: a file the object no longer matches gives [`CheckError::StaleSpec`]
//! (naming the file and what changed), never a violation, so a reported failure stays a proof. A
//! passing check runs no phase 1. `cargo run --release --example observation_file [PATH]` does all
//! of this for the blocking queue on `[add(200), try_take()] | [take(), add(400)]` and writes
//! `observations/blocking_queue_2x2.xml` by default.
//!
//! # Operations that are nondeterministic by design
//!
//! Some operations may legitimately return different results after the same serial past: a bag's
//! `try_take` that hands out any element, a `len()` that is only a snapshot while a background
//! thread works. Line-Up's determinism check (§2.3) fails them; section 6 of the paper left them as
//! future work. Mark such an operation (`#[invoke(nondeterministic)]`, or
//! [`Invocation::nondeterministic`]), and lineup checks linearizability with respect to the
//! *observed* serial behaviours:
//!
//! ```
//! use lineup::sync::Mutex;
//! use lineup::{check, invocations, Config, Subject, TestMatrix};
//!
//! #[derive(Default)]
//! struct Bag(Mutex<Vec<u32>>);
//!
//! #[invocations]
//! impl Bag {
//!     #[invoke(1, 2)]
//!     fn add(&self, value: u32) {
//!         self.0.lock().unwrap().push(value);
//!     }
//!
//!     // Any element may come out (this bag happens to hand out the newest).
//!     #[invoke(nondeterministic)]
//!     fn try_take(&self) -> Option<u32> {
//!         self.0.lock().unwrap().pop()
//!     }
//! }
//!
//! let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
//! let verdict = check(&Subject::of("Bag", Bag::default), &matrix, &Config::default()).unwrap();
//! assert!(verdict.is_pass());
//! ```
//!
//! * Phase 1's determinism check tolerates different *results* of a marked operation after the same
//!   serial past (not a result in one serial history and blocking in another, which stays
//!   nondeterminism); unmarked operations are checked as before.
//! * Phase 2 is unchanged: a history needs a serial witness among *all* the serial histories phase 1
//!   observed, each with the results it observed. A bag that hands out an item twice still fails,
//!   and so do two racy snapshot `len()`s that both count a moving element twice (no serial pair of
//!   `len()`s does that). The option only widens the specification to what serial executions of the
//!   object really do (`tests/nondeterministic_ops.rs`).
//!
//! # Asynchronous operations
//!
//! An operation may be an `async fn` (or any future): `#[invoke]` takes `async fn` methods as they
//! are, and [`Invocation::new_async`] makes an invocation from an async closure or an `async fn`:
//!
//! ```
//! use lineup::sync::Mutex;
//! use lineup::{check, Config, Invocation, Subject, TestMatrix};
//!
//! #[derive(Default)]
//! struct Slot(Mutex<Option<u32>>);
//!
//! impl Slot {
//!     async fn put(&self, value: u32) -> bool {
//!         lineup::future::yield_now().await; // a scheduling point, as any .await that suspends
//!         self.0.lock().unwrap().replace(value).is_none()
//!     }
//!
//!     async fn take(&self) -> Option<u32> {
//!         self.0.lock().unwrap().take()
//!     }
//! }
//!
//! let subject = Subject::new("Slot", Slot::default)
//!     .with(Invocation::new_async("put", async |s: &Slot| s.put(1).await).arg(1))
//!     .with(Invocation::new_async("take", Slot::take));
//! let matrix = TestMatrix::new(vec![vec![0], vec![0, 1]]);
//! assert!(check(&subject, &matrix, &Config::default()).unwrap().is_pass());
//! ```
//!
//! Each worker drives its operation with [`future::block_on`], the executor of the backend
//! lineup controls (shuttle's; lineup's own on loom), so every `.await` that suspends is a
//! scheduling point: while the future is pending, the worker is blocked until its waker is woken,
//! and the other threads and tasks run. The call is recorded when the operation starts and the
//! return when its future completes; both phases, the report, replay and shrinking are those of
//! synchronous operations. A future that is never woken (a lost wake-up) is an operation that never
//! returns: a stuck history, judged by Def. 2 like a thread blocked on a lock.
//! [`future`] also has `yield_now` and `spawn` (on loom, a thread that runs the future), for
//! tasks of the object.
//! (A closure `|c: &Channel| async move { c.recv().await }` does not compile, since its future
//! borrows `c`: write an async closure, `async |c: &Channel| c.recv().await`.) See
//! `tests/async_operations.rs`: an async channel built on `lineup::sync` with `Waker`s, its
//! lost-wake-up twin (a stuck history) and a non-atomic `recv` (a full history without witness).
//! Actor systems (objects whose constructor spawns tasks or threads that serve requests) are in
//! `docs/actors.md`.
//!
//! **Cancellation safety.** An asynchronous operation marked `#[invoke(cancellable)]`
//! ([`Invocation::cancellable`]) may also be dropped at each point where its future returned
//! `Pending`, as a `select!` or a timeout drops it; the drop is a scheduling point of its own, and
//! the thread goes on with its next operation. The cancelled operation is recorded as called and
//! never returned ([`Response::Cancelled`], with the poll after which it was dropped) and judged as
//! a pending operation of Def. 1: a witness completes it or leaves it out (phase 1 also runs the
//! serial executions that skip it). [`Config::max_cancellations`] bounds the cancellations per
//! execution (default 2). See the README's "Cancellation safety" and `tests/cancellation.rs`.
//!
//! # Per-thread handles and operation groups
//!
//! An object that threads reach through handles of their own (a channel's `Sender` and
//! `Receiver`, an SPSC ring's `Producer` and `Consumer`, a guard kept between operations) gives
//! each thread its handle from a method marked `#[handles]` (or [`Subject::with_handles`]); an
//! operation whose first parameter after `&self` is `&mut` of the handle runs on the calling
//! thread's ([`Invocation::on_handle`]). An operation only one thread may call is marked
//! `#[invoke(group = "...")]` ([`Invocation::group`]), and the handle method learns from
//! [`MatrixThread::runs_group`] which thread got the group:
//!
//! ```
//! use lineup::sync::atomic::{AtomicU32, Ordering::SeqCst};
//! use lineup::{check, invocations, Config, Subject, TestMatrix};
//!
//! /// Tickets: each thread remembers the tickets it drew and can show the last one.
//! #[derive(Default)]
//! struct Tickets(AtomicU32);
//!
//! #[invocations]
//! impl Tickets {
//!     #[handles]
//!     fn drawn(&self) -> Vec<u32> {
//!         Vec::new()
//!     }
//!
//!     #[invoke]
//!     fn draw(&self, drawn: &mut Vec<u32>) -> u32 {
//!         let ticket = self.0.fetch_add(1, SeqCst);
//!         drawn.push(ticket);
//!         ticket
//!     }
//!
//!     #[invoke]
//!     fn last(&self, drawn: &mut Vec<u32>) -> Option<u32> {
//!         drawn.last().copied()
//!     }
//! }
//!
//! let subject = Subject::of("Tickets", Tickets::default);
//! let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
//! assert!(check(&subject, &matrix, &Config::default()).unwrap().is_pass());
//! ```
//!
//! Each worker drops its handle after its last operation, as an operation of the history,
//! `drop(handle)`, explored like the others ([`Handles`] says when handles are made and dropped,
//! and why). The README's "Objects with handles" has a complete example with a group.
#![forbid(unsafe_code)]

pub use lineup_core::*;
/// The procedural macros (they arrive with `#[lineup_test]`; they only generate calls into
/// the public traits of `lineup-core`).
pub use lineup_derive;
/// `#[invocations]` on an `impl` block and `#[lineup_test]` on a function that builds the
/// object (see `lineup-derive`).
pub use lineup_derive::{invocations, lineup_test};
/// Checking long recorded histories (stress runs, Jepsen logs) for linearizability against a
/// sequential model: the WGL search with P-compositional partitioning, and an online checker
/// (see `lineup-histories`).
pub use lineup_histories as histories;

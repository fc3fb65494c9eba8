//! Stress mode: objects built on `std` primitives run on real threads; correct ones pass, buggy
//! ones are caught.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;

use lineup_core::{Invocation, InvocationLabel, Invocations, Response, Subject, TestMatrix};
use lineup_histories::models::{
    CounterInput, CounterModel, CounterOutput, QueueInput, QueueModel, QueueOutput, RegisterInput, RegisterModel,
    RegisterOutput, SetInput, SetModel,
};
use lineup_histories::stress::{StressTest, StressVerdict};
use lineup_histories::CheckOptions;

/// The value a response rendered with `Debug` shows, e.g. `Some(3)` -> `Some("3")`.
fn returned(response: &Response) -> Result<&str, String> {
    match response {
        Response::Returned(text) => Ok(text),
        Response::Panicked(message) => Err(format!("the operation panicked: {message}")),
        Response::Cancelled { polls } => Err(format!("the operation was cancelled after poll {polls}")),
    }
}

fn arg<T: std::str::FromStr>(label: &InvocationLabel) -> Result<T, String> {
    label
        .args
        .first()
        .ok_or_else(|| format!("{label} has no argument"))?
        .parse()
        .map_err(|_| format!("{label}: the argument is not a number"))
}

// ---- A FIFO queue on a std Mutex<VecDeque>, described with `Invocations`. ----

#[derive(Default)]
struct MutexQueue(Mutex<VecDeque<u32>>);

impl MutexQueue {
    fn enqueue(&self, value: u32) {
        self.0.lock().unwrap().push_back(value);
    }

    fn dequeue(&self) -> Option<u32> {
        self.0.lock().unwrap().pop_front()
    }
}

impl Invocations for MutexQueue {
    fn invocations() -> Vec<Invocation<Self>> {
        let mut set: Vec<Invocation<Self>> = (1..=4u32)
            .map(|v| Invocation::new("enqueue", move |q: &MutexQueue| q.enqueue(v)).arg(v))
            .collect();
        set.push(Invocation::new("dequeue", MutexQueue::dequeue));
        set
    }
}

fn queue_op(label: &InvocationLabel, response: &Response) -> Result<(QueueInput<u32>, QueueOutput<u32>), String> {
    let text = returned(response)?;
    match label.name.as_str() {
        "enqueue" => Ok((QueueInput::Enqueue(arg(label)?), QueueOutput::Ok)),
        "dequeue" => match text {
            "None" => Ok((QueueInput::Dequeue, QueueOutput::Empty)),
            some => {
                let inner = some.strip_prefix("Some(").and_then(|s| s.strip_suffix(')'));
                let value = inner
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| format!("dequeue returned {some}"))?;
                Ok((QueueInput::Dequeue, QueueOutput::Dequeued(value)))
            }
        },
        other => Err(format!("no queue operation `{other}`")),
    }
}

#[test]
fn a_mutex_queue_passes() {
    // A FIFO queue with repeated values is the checker's hard case (exponential in the overlap);
    // on a loaded CI machine real threads overlap a lot, so the check is bounded: it may end
    // Unknown, never Fail. (It once took 18 GiB unbounded with 3 x 1500 operations.)
    let recording = StressTest::of("MutexQueue", MutexQueue::default)
        .threads(3)
        .ops_per_thread(300)
        .seed(20261122)
        .run();
    assert_eq!(recording.calls.len(), 900);
    assert_eq!(recording.seed, Some(20261122));
    let options = CheckOptions::default()
        .with_time_limit(std::time::Duration::from_secs(20))
        .with_max_cache_entries(2_000_000);
    let report = recording.check(&QueueModel::new(), queue_op, &options).unwrap();
    eprintln!("{report}");
    assert_ne!(report.verdict(), StressVerdict::Fail, "{report}");
    if report.verdict() == StressVerdict::Pass {
        assert!(report
            .to_string()
            .starts_with("lineup stress: PASS: `MutexQueue`, 3 threads, 900 operations, seed 20261122"));
    }
}

#[test]
fn the_same_seed_draws_the_same_invocations() {
    let test = StressTest::of("MutexQueue", MutexQueue::default)
        .threads(2)
        .ops_per_thread(50);
    assert_eq!(test.plan(7), test.plan(7));
    assert_ne!(test.plan(7), test.plan(8));
}

/// A "queue" that is really a stack: wrong whatever the schedule.
#[derive(Default)]
struct StackQueue(Mutex<Vec<u32>>);

impl Invocations for StackQueue {
    fn invocations() -> Vec<Invocation<Self>> {
        let mut set: Vec<Invocation<Self>> = (1..=4u32)
            .map(|v| Invocation::new("enqueue", move |q: &StackQueue| q.0.lock().unwrap().push(v)).arg(v))
            .collect();
        set.push(Invocation::new("dequeue", |q: &StackQueue| q.0.lock().unwrap().pop()));
        set
    }
}

/// Initial `enqueue(1) enqueue(2)`, two threads `dequeue()` | `enqueue(3)`, final `dequeue()`
/// twice (invocation 0 is `enqueue(1)`, 4 is `dequeue()`).
fn given_matrix() -> TestMatrix {
    TestMatrix::new(vec![vec![4], vec![2]])
        .with_initial(vec![0, 1])
        .with_final(vec![4, 4])
}

#[test]
fn a_given_matrix_runs_initial_columns_and_final_in_order() {
    let recording = StressTest::of("MutexQueue", MutexQueue::default)
        .matrix(given_matrix())
        .run();
    assert_eq!(recording.seed, None);
    assert_eq!(recording.threads, 2);
    assert_eq!(recording.calls.len(), 6);
    // The calling thread is client 2; its initial operations precede, its final ones follow,
    // every worker operation.
    let main: Vec<_> = recording.calls.iter().filter(|c| c.thread == 2).collect();
    let workers: Vec<_> = recording.calls.iter().filter(|c| c.thread < 2).collect();
    assert_eq!((main.len(), workers.len()), (4, 2));
    for w in &workers {
        assert!(main[1].ret < w.call && w.ret < main[2].call, "{recording:?}");
    }
    let report = recording
        .check(&QueueModel::new(), queue_op, &CheckOptions::default())
        .unwrap();
    assert_eq!(report.verdict(), StressVerdict::Pass, "{report}");
    assert!(report.to_string().contains("given matrix"), "{report}");
}

#[test]
fn a_stack_posing_as_a_queue_fails_a_given_matrix() {
    // enqueue(1) enqueue(2) then a dequeue returns 2 (or 3): never FIFO, whatever the schedule.
    let recording = StressTest::of("StackQueue", StackQueue::default)
        .matrix(given_matrix())
        .run();
    let report = recording
        .check(&QueueModel::new(), queue_op, &CheckOptions::default())
        .unwrap();
    assert_eq!(report.verdict(), StressVerdict::Fail, "{report}");
}

#[test]
#[should_panic(expected = "lineup stress:")]
fn a_matrix_naming_a_missing_invocation_is_refused() {
    StressTest::of("MutexQueue", MutexQueue::default)
        .matrix(TestMatrix::new(vec![vec![9]]))
        .run();
}

// ---- A register on an AtomicI64 with compare-and-swap. ----

fn atomic_register() -> Subject<AtomicI64> {
    let mut subject = Subject::new("AtomicI64 register", || AtomicI64::new(0))
        .with(Invocation::new("read", |r: &AtomicI64| r.load(Ordering::SeqCst)));
    for v in 0..3i64 {
        subject = subject.with(Invocation::new("write", move |r: &AtomicI64| r.store(v, Ordering::SeqCst)).arg(v));
        for to in 0..3i64 {
            subject = subject.with(
                Invocation::new("cas", move |r: &AtomicI64| {
                    r.compare_exchange(v, to, Ordering::SeqCst, Ordering::SeqCst).is_ok()
                })
                .arg(v)
                .arg(to),
            );
        }
    }
    subject
}

fn register_op(
    label: &InvocationLabel,
    response: &Response,
) -> Result<(RegisterInput<i64>, RegisterOutput<i64>), String> {
    let text = returned(response)?;
    match label.name.as_str() {
        "read" => Ok((
            RegisterInput::Read,
            RegisterOutput::Value(text.parse().map_err(|_| text.to_string())?),
        )),
        "write" => Ok((RegisterInput::Write(arg(label)?), RegisterOutput::Ok)),
        "cas" => {
            let from = arg(label)?;
            let to = label.args[1].parse().map_err(|_| label.to_string())?;
            let output = if text == "true" {
                RegisterOutput::Ok
            } else {
                RegisterOutput::Fail
            };
            Ok((RegisterInput::Cas { from, to }, output))
        }
        other => Err(format!("no register operation `{other}`")),
    }
}

#[test]
fn an_atomic_register_passes() {
    let recording = StressTest::new(atomic_register())
        .threads(4)
        .ops_per_thread(1_000)
        .seed(5)
        .run();
    let report = recording
        .check(&RegisterModel::new(0), register_op, &CheckOptions::default())
        .unwrap();
    assert_eq!(report.verdict(), StressVerdict::Pass, "{report}");
}

// ---- Sets on a std Mutex<HashSet>: one correct, one whose insert checks and inserts under two
// separate locks (two concurrent inserts of the same element can both return true). ----

fn set_subject(name: &str, racy_insert: bool) -> Subject<Mutex<HashSet<u8>>> {
    let mut subject = Subject::new(name, || Mutex::new(HashSet::new()));
    for x in 0..4u8 {
        let insert = move |s: &Mutex<HashSet<u8>>| {
            if racy_insert {
                if s.lock().unwrap().contains(&x) {
                    return false;
                }
                // The window between the check and the insertion.
                std::thread::yield_now();
                s.lock().unwrap().insert(x);
                true
            } else {
                s.lock().unwrap().insert(x)
            }
        };
        subject = subject
            .with(Invocation::new("insert", insert).arg(x))
            .with(Invocation::new("remove", move |s: &Mutex<HashSet<u8>>| s.lock().unwrap().remove(&x)).arg(x))
            .with(Invocation::new("contains", move |s: &Mutex<HashSet<u8>>| s.lock().unwrap().contains(&x)).arg(x));
    }
    subject
}

fn set_op(label: &InvocationLabel, response: &Response) -> Result<(SetInput<u8>, bool), String> {
    let result = match returned(response)? {
        "true" => true,
        "false" => false,
        other => return Err(format!("not a boolean: {other}")),
    };
    let x = arg(label)?;
    let input = match label.name.as_str() {
        "insert" => SetInput::Insert(x),
        "remove" => SetInput::Remove(x),
        "contains" => SetInput::Contains(x),
        other => return Err(format!("no set operation `{other}`")),
    };
    Ok((input, result))
}

#[test]
fn a_mutex_set_passes_partitioned_and_whole() {
    let recording = StressTest::new(set_subject("Mutex<HashSet>", false))
        .threads(4)
        .ops_per_thread(2_000)
        .seed(11)
        .run();
    let report = recording
        .check_partitioned(&SetModel::new(), set_op, &CheckOptions::default())
        .unwrap();
    assert_eq!(report.verdict(), StressVerdict::Pass, "{report}");
    assert_eq!(report.check.stats.partitions, 4);
    let whole = recording
        .check_partitioned(
            &SetModel::new(),
            set_op,
            &CheckOptions::default().with_partitioning(false),
        )
        .unwrap();
    assert_eq!(whole.verdict(), StressVerdict::Pass, "{whole}");
    assert_eq!(whole.check.stats.partitions, 1);
}

/// Runs seeds 1, 2, ... (at most `tries`) until a run fails; returns the failing report.
fn first_failure(tries: u64, run: impl Fn(u64) -> lineup_histories::stress::StressReport) -> String {
    let mut verdicts = Vec::new();
    for seed in 1..=tries {
        let report = run(seed);
        if report.verdict() == StressVerdict::Fail {
            return report.to_string();
        }
        verdicts.push(format!("seed {seed}: {:?}", report.verdict()));
    }
    panic!("the bug was not caught in {tries} runs: {verdicts:?}");
}

#[test]
fn a_set_with_a_racy_insert_fails() {
    let report = first_failure(5, |seed| {
        StressTest::new(set_subject("RacySet", true))
            .threads(4)
            .ops_per_thread(2_000)
            .seed(seed)
            .run()
            .check_partitioned(&SetModel::new(), set_op, &CheckOptions::default())
            .unwrap()
    });
    assert!(
        report.starts_with("lineup stress: FAIL: `RacySet`, 4 threads, 8000 operations, seed "),
        "{report}"
    );
    assert!(report.contains("in partition"), "{report}");
    assert!(report.contains("insert("), "the legend names the invocations: {report}");
    assert!(report.contains("timeline"), "{report}");
}

// ---- A counter whose increment is a separate load and store (lost updates). ----

#[derive(Default)]
struct RacyCounter(AtomicI64);

impl Invocations for RacyCounter {
    fn invocations() -> Vec<Invocation<Self>> {
        vec![
            Invocation::new("increment", |c: &RacyCounter| {
                let v = c.0.load(Ordering::SeqCst);
                std::thread::yield_now();
                c.0.store(v + 1, Ordering::SeqCst);
            }),
            Invocation::new("get", |c: &RacyCounter| c.0.load(Ordering::SeqCst)),
        ]
    }
}

#[derive(Default)]
struct AtomicCounter(AtomicI64);

impl Invocations for AtomicCounter {
    fn invocations() -> Vec<Invocation<Self>> {
        vec![
            Invocation::new("increment", |c: &AtomicCounter| {
                c.0.fetch_add(1, Ordering::SeqCst);
            }),
            Invocation::new("get", |c: &AtomicCounter| c.0.load(Ordering::SeqCst)),
        ]
    }
}

fn counter_op(label: &InvocationLabel, response: &Response) -> Result<(CounterInput, CounterOutput), String> {
    let text = returned(response)?;
    match label.name.as_str() {
        "increment" => Ok((CounterInput::Increment, CounterOutput::Ok)),
        "get" => Ok((
            CounterInput::Get,
            CounterOutput::Value(text.parse().map_err(|_| text.to_string())?),
        )),
        other => Err(format!("no counter operation `{other}`")),
    }
}

#[test]
fn an_atomic_counter_passes() {
    let recording = StressTest::of("AtomicCounter", AtomicCounter::default)
        .threads(4)
        .ops_per_thread(1_000)
        .seed(3)
        .run();
    let report = recording
        .check(&CounterModel::default(), counter_op, &CheckOptions::default())
        .unwrap();
    assert_eq!(report.verdict(), StressVerdict::Pass, "{report}");
}

#[test]
fn a_counter_with_lost_updates_fails() {
    let report = first_failure(5, |seed| {
        StressTest::of("RacyCounter", RacyCounter::default)
            .threads(4)
            .ops_per_thread(1_000)
            .seed(seed)
            .run()
            .check(&CounterModel::default(), counter_op, &CheckOptions::default())
            .unwrap()
    });
    assert!(report.contains("FAIL: `RacyCounter`"), "{report}");
    assert!(
        report.contains("get() -> "),
        "the legend names the invocations: {report}"
    );
}

#[test]
fn a_response_the_mapping_refuses_is_an_error() {
    let recording = StressTest::of("AtomicCounter", AtomicCounter::default)
        .threads(1)
        .ops_per_thread(10)
        .seed(1)
        .run();
    let err = recording
        .check(
            &CounterModel::default(),
            |_, _| Err::<(CounterInput, CounterOutput), _>("nope".to_string()),
            &CheckOptions::default(),
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("(seed 1)") && err.to_string().ends_with("nope"),
        "{err}"
    );
}

#[test]
fn a_panicking_operation_is_recorded_as_a_panic() {
    let subject = Subject::new("panicky", || ()).with(Invocation::new("boom", |_: &()| -> u8 { panic!("boom") }));
    let recording = StressTest::new(subject).threads(2).ops_per_thread(3).seed(1).run();
    assert_eq!(recording.calls.len(), 6);
    assert!(recording
        .calls
        .iter()
        .all(|c| c.response == Response::Panicked("boom".into())));
}

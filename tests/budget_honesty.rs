//! A check never runs past its time without saying so: a phase 1 that cannot finish within the
//! check's time (`Config::max_duration`) makes the matrix inconclusive, with what it saw, and a
//! `LineupTest` none of whose matrices could be checked within its budget is INCONCLUSIVE, not a
//! PASS; a phase 2 that cannot finish is cut and says so. The same checks without a time limit
//! finish and pass.

use std::time::{Duration, Instant};

use lineup::shuttle::sync::atomic::{AtomicU64, Ordering::SeqCst};
use lineup::shuttle::sync::mpsc::{channel, Receiver, Sender};
use lineup::{check, CheckError, Config, Invocation, LineupTest, Reduction, Subject, TestFailure, TestMatrix, Verdict};

/// A message to the primary of [`ShuttleRegister`], with where to answer.
enum Request {
    Write(u64, Sender<()>),
    Read(Sender<u64>),
}

/// A register replicated over a primary and two backups, three threads of the object that talk
/// over shuttle's own channels (`lineup::shuttle::sync::mpsc`) and keep their values in shuttle's
/// own atomics. With the partial-order reduction off (as the checks below set it), its serial
/// executions are every interleaving of those threads, far more than half a second's worth.
struct ShuttleRegister {
    primary: Sender<Request>,
}

fn backup(inbox: Receiver<(u64, Sender<()>)>) {
    let value = AtomicU64::new(0);
    while let Ok((v, ack)) = inbox.recv() {
        value.store(v, SeqCst);
        let _ = ack.send(());
    }
}

impl ShuttleRegister {
    fn new() -> Self {
        let (primary, requests) = channel::<Request>();
        let backups: Vec<Sender<(u64, Sender<()>)>> = (0..2)
            .map(|_| {
                let (to_backup, inbox) = channel();
                lineup::shuttle::thread::spawn(move || backup(inbox));
                to_backup
            })
            .collect();
        lineup::shuttle::thread::spawn(move || {
            let value = AtomicU64::new(0);
            while let Ok(request) = requests.recv() {
                match request {
                    Request::Write(v, done) => {
                        value.store(v, SeqCst);
                        for to_backup in &backups {
                            let (ack, acked) = channel();
                            let _ = to_backup.send((v, ack));
                            let _ = acked.recv();
                        }
                        let _ = done.send(());
                    }
                    Request::Read(answer) => {
                        let _ = answer.send(value.load(SeqCst));
                    }
                }
            }
        });
        Self { primary }
    }

    fn write(&self, v: u64) {
        let (done, wait) = channel();
        self.primary.send(Request::Write(v, done)).unwrap();
        wait.recv().unwrap();
    }

    fn read(&self) -> u64 {
        let (answer, wait) = channel();
        self.primary.send(Request::Read(answer)).unwrap();
        wait.recv().unwrap()
    }
}

fn shuttle_register() -> Subject<ShuttleRegister> {
    Subject::new("ShuttleRegister", ShuttleRegister::new)
        .with(Invocation::new("write(1)", |r: &ShuttleRegister| r.write(1)))
        .with(Invocation::new("write(2)", |r: &ShuttleRegister| r.write(2)))
        .with(Invocation::new("read", ShuttleRegister::read))
}

#[test]
fn a_phase_1_that_cannot_finish_in_its_time_is_inconclusive_and_says_what_it_saw() {
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    let config = Config {
        max_duration: Some(Duration::from_millis(500)),
        workers: 1,
        reduction: Reduction::Off,
        ..Config::default()
    };
    let start = Instant::now();
    let error = match check(&shuttle_register(), &matrix, &config) {
        Err(error) => error,
        Ok(verdict) => panic!("phase 1 finished within 0.5 s after all: {verdict:?}"),
    };
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "it ran on: {:?}",
        start.elapsed()
    );
    let CheckError::Unfinished { executions, .. } = &error else {
        panic!("not an unfinished phase 1: {error}");
    };
    assert!(*executions > 0);
    let message = error.to_string();
    assert!(
        message.contains("phase 1 (serial executions) did not finish"),
        "{message}"
    );
    assert!(message.contains("threads of its own"), "{message}");
    assert!(
        message.contains("the partial-order reduction is off") && message.contains("turn it on"),
        "{message}"
    );
}

#[test]
fn a_test_none_of_whose_matrices_could_be_checked_in_its_budget_is_inconclusive() {
    let start = Instant::now();
    let outcome = LineupTest::new("budget_honesty::register")
        .seed(1)
        .workers(1)
        .threads(2)
        .ops(2)
        .samples(4)
        .reduction(false)
        .time_budget(Duration::from_secs(1))
        .check_subject(&shuttle_register());
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "it ran on: {:?}",
        start.elapsed()
    );
    match outcome {
        Err(failure @ TestFailure::Inconclusive { .. }) => {
            let message = failure.to_string();
            assert!(message.contains("INCONCLUSIVE"), "{message}");
            assert!(message.contains("did not finish"), "{message}");
        }
        Err(other) => panic!("failed otherwise: {other}"),
        Ok(summary) => {
            // Small matrices of the sample (2x1) may finish: then the PASS line must count the
            // ones that did not.
            let line = summary.to_string();
            assert!(
                summary.inconclusive_matrices.unfinished + summary.inconclusive_matrices.not_reached > 0,
                "{line}"
            );
            assert!(
                line.contains("INCONCLUSIVE, not counted") || line.contains("not reached"),
                "{line}"
            );
        }
    }
}

/// A correct counter: a load and a compare-and-swap loop per `inc`.
#[derive(Default)]
struct Counter(lineup::sync::atomic::AtomicU64);

impl Counter {
    fn inc(&self) {
        use lineup::sync::atomic::Ordering::SeqCst;
        let mut seen = self.0.load(SeqCst);
        while let Err(now) = self.0.compare_exchange(seen, seen + 1, SeqCst, SeqCst) {
            seen = now;
        }
    }

    fn get(&self) -> u64 {
        self.0.load(lineup::sync::atomic::Ordering::SeqCst)
    }
}

fn counter() -> Subject<Counter> {
    Subject::new("Counter", Counter::default)
        .with(Invocation::new("inc", Counter::inc))
        .with(Invocation::new("get", Counter::get))
}

#[test]
fn a_phase_2_that_cannot_finish_in_its_time_is_cut_and_says_so() {
    // 2,520 serial orders, and without the reduction more schedules at bound 5 than any machine
    // explores in 3 s (a release build explored 1.3 million in 20 s without finishing).
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![1, 0], vec![0, 1], vec![0, 0]]);
    let config = |limit: Option<Duration>| Config {
        preemption_bound: 5,
        max_duration: limit,
        workers: 1,
        interlude: None,
        // Without the reduction, which makes this tree small enough to finish in under a second.
        reduction: Reduction::Off,
        ..Config::default()
    };
    let cut = match check(&counter(), &matrix, &config(Some(Duration::from_secs(3)))) {
        Ok(Verdict::Pass(stats)) => stats,
        other => panic!("the correct counter did not pass: {other:?}"),
    };
    assert!(cut.unfinished, "{cut:?}");
    // Without the limit, a smaller tree finishes and says so.
    let small = TestMatrix::new(vec![vec![0], vec![1]]);
    let Ok(Verdict::Pass(whole)) = check(&counter(), &small, &config(None)) else {
        panic!("the correct counter failed");
    };
    assert!(!whole.unfinished, "{whole:?}");
    assert!(whole.concurrent_executions > 0);
}

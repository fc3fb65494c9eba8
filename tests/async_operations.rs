//! Asynchronous operations (`Invocation::new_async`, `async fn` under `#[invocations]`): each
//! runs on its worker through the backend's `block_on`, so every `.await` that suspends is a
//! scheduling point, and a future never woken is a pending operation of a stuck history. An async
//! channel built on `lineup::sync` with `Waker`s: the correct one passes, its twin with a lost
//! wake-up fails with a stuck history, and one whose `recv` is not atomic fails with a full
//! history. The same file runs on both backends:
//!
//! * `cargo test --test async_operations` on shuttle, and
//! * `RUSTFLAGS="--cfg loom --cfg oneshot_loom" CARGO_TARGET_DIR=target/loom cargo test --test async_operations`
//!   on loom (the replay test is shuttle's: loom replays through its checkpoint file).

use std::collections::VecDeque;
use std::future::poll_fn;
use std::task::{Context, Poll, Waker};

use lineup::sync::Mutex;
use lineup::{
    check, invocations, Config, Invocation, LineupTest, Subject, TestFailure, TestMatrix, Verdict, ViolationKind,
};

/// Which `recv` the channel has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flavor {
    /// Registers its waker while it holds the queue's lock: `send` cannot slip in between.
    Correct,
    /// Finds the queue empty, releases the lock, then registers its waker: a `send` in between
    /// wakes nobody, and the receiver waits for good although an item is there.
    LostWakeUp,
    /// Reads the front item, awaits (a yield), then pops: two receivers may both take the
    /// same item.
    PeekThenPop,
}

/// An unbounded async channel: `send` pushes and wakes the waiting receivers, `recv().await`
/// waits for an item.
struct Channel {
    flavor: Flavor,
    items: Mutex<VecDeque<u32>>,
    waiters: Mutex<Vec<Waker>>,
}

impl Channel {
    fn new(flavor: Flavor) -> Self {
        Self {
            flavor,
            items: Mutex::new(VecDeque::new()),
            waiters: Mutex::new(Vec::new()),
        }
    }

    fn correct() -> Self {
        Self::new(Flavor::Correct)
    }

    fn lost_wake_up() -> Self {
        Self::new(Flavor::LostWakeUp)
    }

    fn peek_then_pop() -> Self {
        Self::new(Flavor::PeekThenPop)
    }

    /// The front item (removed unless `peek`), or `Pending` with the waker registered.
    fn poll_front(&self, cx: &mut Context<'_>, peek: bool) -> Poll<u32> {
        let mut items = self.items.lock().unwrap();
        let front = if peek {
            items.front().copied()
        } else {
            items.pop_front()
        };
        if let Some(value) = front {
            return Poll::Ready(value);
        }
        if self.flavor == Flavor::LostWakeUp {
            drop(items);
        }
        self.waiters.lock().unwrap().push(cx.waker().clone());
        Poll::Pending
    }
}

#[invocations]
impl Channel {
    #[invoke(1, 2)]
    async fn send(&self, value: u32) {
        self.items.lock().unwrap().push_back(value);
        let waiters = std::mem::take(&mut *self.waiters.lock().unwrap());
        for waker in waiters {
            waker.wake();
        }
    }

    #[invoke]
    async fn recv(&self) -> u32 {
        if self.flavor == Flavor::PeekThenPop {
            let value = poll_fn(|cx| self.poll_front(cx, true)).await;
            lineup::future::yield_now().await;
            self.items.lock().unwrap().pop_front();
            return value;
        }
        poll_fn(|cx| self.poll_front(cx, false)).await
    }
}

/// The channel's invocations built by hand with `Invocation::new_async`: 0 `send(1)`, 1
/// `send(2)`, 2 `recv()`.
fn by_hand(name: &str, build: fn() -> Channel) -> Subject<Channel> {
    Subject::new(name, build)
        .with(Invocation::new_async("send", async |c: &Channel| c.send(1).await).arg(1))
        .with(Invocation::new_async("send", async |c: &Channel| c.send(2).await).arg(2))
        .with(Invocation::new_async("recv", Channel::recv))
}

fn verdict(subject: &Subject<Channel>, matrix: &TestMatrix) -> Verdict {
    check(subject, matrix, &Config::default()).unwrap_or_else(|e| panic!("the check runs: {e}"))
}

/// recv() | send(1): the receiver may wait before the item comes.
fn recv_vs_send() -> TestMatrix {
    TestMatrix::new(vec![vec![2], vec![0]])
}

/// send(1), recv() | send(2), recv()
fn send_recv_2x2() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 2], vec![1, 2]])
}

/// send(1), send(2) first; then recv() | recv().
fn two_receivers() -> TestMatrix {
    TestMatrix::new(vec![vec![2], vec![2]]).with_initial(vec![0, 1])
}

#[test]
fn the_correct_channel_passes() {
    let subject = by_hand("Channel", Channel::correct);
    for matrix in [recv_vs_send(), send_recv_2x2(), two_receivers()] {
        let verdict = verdict(&subject, &matrix);
        assert!(verdict.is_pass(), "{matrix:?}: {}", verdict.violation().unwrap());
        assert!(
            verdict.stats().serial_executions > 0,
            "phase 1 ran: {:?}",
            verdict.stats()
        );
    }
    // recv() | recv() with one send(1) first: one receiver waits for good, serially too.
    let one_item = TestMatrix::new(vec![vec![2], vec![2]]).with_initial(vec![0]);
    assert!(verdict(&subject, &one_item).is_pass());
}

#[test]
fn a_lost_wake_up_gives_a_stuck_history() {
    let subject = by_hand("LostWakeUpChannel", Channel::lost_wake_up);
    // Serially, recv() after send(1) returns 1, and recv() before it waits: deterministic.
    let verdict = verdict(&subject, &recv_vs_send());
    let violation = verdict.violation().expect("the lost wake-up is found");
    match &violation.kind {
        ViolationKind::StuckNotLinearizable {
            history, pending_op, ..
        } => {
            // The receiver (operation 1, thread A) waits for good after send(1) returned.
            assert_eq!(*pending_op, 1, "{violation}");
            assert_eq!(history.notation(), "1[ 2[ ]2 #", "{violation}");
        }
        other => panic!("expected a stuck history, got {other:?}\n{violation}"),
    }
    // With another operation after the receiver's, the same.
    let longer = TestMatrix::new(vec![vec![2, 1], vec![0]]);
    let longer_verdict = self::verdict(&subject, &longer);
    assert!(
        longer_verdict.violation().is_some_and(|v| v.kind.is_stuck()),
        "{longer_verdict:?}"
    );
    // Where no send can slip in (the item is there before), the twin passes.
    let sent_first = TestMatrix::new(vec![vec![2]]).with_initial(vec![0]);
    assert!(self::verdict(&subject, &sent_first).is_pass());
}

#[test]
fn a_receive_that_is_not_atomic_is_not_linearizable() {
    let subject = by_hand("PeekThenPopChannel", Channel::peek_then_pop);
    let verdict = verdict(&subject, &two_receivers());
    let violation = verdict.violation().expect("both receivers take item 1");
    assert!(
        matches!(violation.kind, ViolationKind::NotLinearizable { .. }),
        "{violation}"
    );
    // One receiver alone is right.
    let alone = TestMatrix::new(vec![vec![2]]).with_initial(vec![0, 1]);
    assert!(self::verdict(&subject, &alone).is_pass());
}

#[test]
fn an_await_is_a_scheduling_point() {
    // A counter whose increment reads, awaits a yield, and writes: only the schedule that
    // switches at the `.await` loses an update.
    #[derive(Default)]
    struct Counter(Mutex<u32>);
    let subject = Subject::new("YieldingCounter", Counter::default)
        .with(Invocation::new_async("inc", async |c: &Counter| {
            let seen = *c.0.lock().unwrap();
            lineup::future::yield_now().await;
            *c.0.lock().unwrap() = seen + 1;
        }))
        .with(Invocation::new_async("get", async |c: &Counter| *c.0.lock().unwrap()));
    let matrix = TestMatrix::new(vec![vec![0], vec![0]]).with_final(vec![1]);
    let verdict = check(&subject, &matrix, &Config::default()).unwrap();
    let violation = verdict.violation().expect("the lost update is found");
    assert!(violation.to_string().contains("get()  -> 1"), "{violation}");
}

#[test]
fn the_derived_invocations_are_async_operations() {
    let labels: Vec<String> = <Channel as lineup::Invocations>::invocations()
        .iter()
        .map(|i| i.label().to_string())
        .collect();
    assert_eq!(labels, ["send(1)", "send(2)", "recv()"]);
    // Random 2x2 matrices of the derived invocations, with shrinking on failure (on loom, whose
    // exhaustive exploration is slower, one explicit matrix instead).
    // One name per object: loom's child processes find their check by subject name and matrix.
    let run = |name: &str, build: fn() -> Channel| {
        let test = LineupTest::new(name)
            .time_budget(None)
            .threads(2)
            .ops(2)
            .seed(14)
            .workers(1);
        let test = if cfg!(loom) {
            test.samples(0).matrix(&[&["recv()", "send(2)"], &["send(1)"]])
        } else {
            test.samples(20)
        };
        test.check(build)
    };
    let summary = run("async_operations::derived_correct", Channel::correct).unwrap_or_else(|f| panic!("{f}"));
    assert!(summary.matrices > 0, "{summary:?}");
    match run("async_operations::derived_lost_wake_up", Channel::lost_wake_up) {
        Err(TestFailure::Violation { smallest, .. }) => {
            assert!(smallest.kind.is_stuck(), "{smallest}");
            // Shrunk to one receiver and one sender.
            assert_eq!(smallest.matrix.threads.iter().flatten().count(), 2, "{smallest}");
        }
        other => panic!("expected the lost wake-up, got {other:?}"),
    }
}

#[cfg(not(loom))]
#[test]
fn the_replay_token_of_an_async_failure_replays() {
    let subject = by_hand("LostWakeUpChannel", Channel::lost_wake_up);
    let config = Config::default();
    let violation = verdict(&subject, &recv_vs_send())
        .violation()
        .cloned()
        .expect("a violation");
    let token: lineup::ReplayToken = violation.replay.to_string().parse().unwrap();
    let replayed = lineup::replay(&subject, &recv_vs_send(), &token, &config).unwrap();
    assert_eq!(&replayed.history, violation.kind.history());
    assert_eq!(replayed.stuck, Some(lineup::StuckKind::Deadlock));
    assert_eq!(replayed.violation, Some(violation.kind.clone()));
}

/// A counter whose `add` hands the increment to a task (`lineup::future::spawn`) and awaits it
/// or, detached, returns at once.
#[derive(Default)]
struct TaskCounter(std::sync::Arc<Mutex<u32>>);

impl TaskCounter {
    async fn add(&self, await_task: bool) {
        let count = std::sync::Arc::clone(&self.0);
        let task = lineup::future::spawn(async move {
            *count.lock().unwrap() += 1;
        });
        if await_task {
            task.await.expect("the task completes");
        }
    }

    async fn get(&self) -> u32 {
        *self.0.lock().unwrap()
    }
}

#[test]
fn tasks_an_operation_spawns_are_explored() {
    let subject = |await_task: bool| {
        Subject::new(
            if await_task {
                "TaskCounter"
            } else {
                "DetachedTaskCounter"
            },
            TaskCounter::default,
        )
        .with(Invocation::new_async("add", async move |c: &TaskCounter| {
            c.add(await_task).await
        }))
        .with(Invocation::new_async("get", TaskCounter::get))
    };
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![0]]);
    let awaited = check(&subject(true), &matrix, &Config::default()).unwrap();
    assert!(awaited.is_pass(), "{}", awaited.violation().unwrap());
    // Detached: add(), get() on one thread returns 0 or 1 serially, as the task runs before or
    // after get(). (loom's phase 1 runs without preemption, so the task runs only once get() has
    // returned, and its phase 2 reports the other result as a full history without witness: see
    // lineup-core/src/loom_backend/mod.rs.)
    let detached = check(&subject(false), &TestMatrix::new(vec![vec![0, 1]]), &Config::default()).unwrap();
    let violation = detached.violation().expect("the detached task is seen");
    assert!(violation.kind.is_nondeterminism() || cfg!(loom), "{violation}");
}

//! The partial-order reduction on tokio code (shuttle-tokio on shuttle's runtime): every
//! distinct history found without the reduction is found with it, at the same bound, on objects
//! behind `tokio::sync::Mutex` and `Notify` (`lineup_zoo::native`'s tokio queue and stack) and on
//! an actor (a task spawned with `tokio::spawn`, served over `tokio::sync::mpsc` with replies over
//! `oneshot`).
//!
//! With lineup's `vendor/shuttle-tokio-impl-inner`, the steps of tokio's `mpsc` and `oneshot` name
//! their channel, and a task's step between polls is seen when its future registered its waker
//! only with them (`docs/partial-order-reduction.md` §2.7): the actor's search shrinks (phase 1 of
//! `add(1) | add(2) | get()` from 31,266 serial executions to 15) and keeps every history. tokio's
//! `Mutex`, `RwLock`, `Semaphore` and `Notify` are named too (the objects at the end of the file). The comparison catches a loss: with the calls and
//! returns taken to commute (`ReductionFault::HistoryIndependent`), the actor loses histories; and
//! a task that waits on a future lineup does not see (a silent flag, as a `CancellationToken`)
//! keeps every history only because the clone of its waker taints it: with the clones ignored
//! (`ReductionFault::ObservedClonesIgnored`), phase 1 loses a serial history. An operation whose
//! switch comes first (tokio's sends) touches its channel only from that switch on; one without
//! a switch (a oneshot's `is_closed`, the drop of its receiver) touches it in its own step, and
//! with every operation taken to touch after a switch (`ReductionFault::TouchesAfterTheirSwitch`)
//! histories are lost. So are they with the operations of one `Notify` taken to commute
//! (`ReductionFault::TokioNotifyCommutes`), as with those of one `Mutex` or `Semaphore`
//! (`ReductionFault::TokioLocksCommute`).

use lineup::{invocations, ReductionFault, Subject};
use lineup_zoo::native;
use lineup_zoo::reduction::{assert_some_lost, assert_sound, compare, m};
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};
use tokio::sync::oneshot;

/// A request to the counter's task.
enum Request {
    Add(u32, oneshot::Sender<u32>),
    Get(oneshot::Sender<u32>),
}

/// A counter kept by a task of its own: `add(1)`, `add(2)` (the new count) and `get()`, each a
/// request over an unbounded `mpsc` mailbox answered over a `oneshot`.
struct CounterActor {
    mailbox: UnboundedSender<Request>,
}

impl CounterActor {
    fn new() -> Self {
        let (mailbox, mut requests) = unbounded_channel();
        tokio::spawn(async move {
            let mut count = 0;
            while let Some(request) = requests.recv().await {
                // The asker may be gone (its future dropped): the reply is not checked.
                let reply = match request {
                    Request::Add(n, reply) => {
                        count += n;
                        reply
                    }
                    Request::Get(reply) => reply,
                };
                let _ = reply.send(count);
            }
        });
        Self { mailbox }
    }

    async fn ask(&self, request: impl FnOnce(oneshot::Sender<u32>) -> Request) -> u32 {
        let (reply, answer) = oneshot::channel();
        self.mailbox.send(request(reply)).expect("the counter runs");
        answer.await.expect("the counter replies")
    }
}

#[invocations]
impl CounterActor {
    /// Adds `n`: the new count.
    #[invoke(1, 2)]
    async fn add(&self, n: u32) -> u32 {
        self.ask(|reply| Request::Add(n, reply)).await
    }

    /// The count.
    #[invoke]
    async fn get(&self) -> u32 {
        self.ask(Request::Get).await
    }
}

fn counter_actor() -> Subject<CounterActor> {
    Subject::of("CounterActor(tokio)", CounterActor::new)
}

#[test]
fn tokio_s_mutex_and_notify_keep_every_history() {
    let queue = native::tokio_queue();
    let stack = native::tokio_stack();
    assert_sound(&[
        compare(&queue, &m(&[&[0, 2], &[1, 2]]), 2, None),
        compare(&queue, &m(&[&[0, 3], &[1, 2]]), 2, None),
        compare(&stack, &m(&[&[0, 2], &[1, 2]]), 2, None),
        compare(&stack, &m(&[&[2], &[0], &[1]]), 2, None),
    ]);
}

#[test]
fn a_tokio_actor_keeps_every_history() {
    let counter = counter_actor();
    let rows = [
        compare(&counter, &m(&[&[0], &[1]]), 2, None),
        compare(&counter, &m(&[&[0], &[2]]), 2, None),
        compare(&counter, &m(&[&[0, 2], &[1]]), 1, None),
        compare(&counter, &m(&[&[0], &[1], &[2]]), 1, None),
    ];
    assert_sound(&rows);
    // The actor's steps are seen: the reduction explores less, in both phases.
    for row in &rows {
        assert!(row.serial_reduced < row.serial_plain, "{row:?}");
        assert!(row.executions_reduced < row.executions_plain, "{row:?}");
    }
}

/// The comparison catches a loss on tokio code: with the steps that record calls and returns
/// taken to commute (`ReductionFault::HistoryIndependent`), `add(1) get() | add(2)` on the actor
/// loses histories (14 without the reduction, 12 with).
#[test]
fn a_broken_reduction_loses_a_history_of_the_tokio_actor() {
    let counter = counter_actor();
    assert_some_lost(&[compare(
        &counter,
        &m(&[&[0, 2], &[1]]),
        2,
        Some(ReductionFault::HistoryIndependent),
    )]);
}

/// A flag raised without a channel: `std` state and a stored waker, as tokio-util's
/// `CancellationToken` keeps them (silent under shuttle: no scheduling point, nothing named).
#[derive(Default)]
struct SilentFlag(std::sync::Mutex<(bool, Option<std::task::Waker>)>);

impl SilentFlag {
    fn raise(&self) {
        let waker = {
            let mut state = self.0.lock().unwrap();
            state.0 = true;
            state.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
    fn poll_raised(&self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        let mut state = self.0.lock().unwrap();
        if state.0 {
            std::task::Poll::Ready(())
        } else {
            state.1 = Some(cx.waker().clone());
            std::task::Poll::Pending
        }
    }
}

/// A task that takes requests until the silent flag is raised (looked at first in each poll):
/// `put()` is `true` if the task took the request before it stopped, `false` if not; `raise()`
/// raises the flag. The task looks at the flag and then at its mailbox, with the receive's
/// scheduling point between them, so even a `put()` called after `raise()` returned may be taken:
/// the object is not deterministic (phase 1 finds it), which is what the comparisons below need
/// phase 1 to see.
struct Stoppable {
    requests: UnboundedSender<oneshot::Sender<bool>>,
    flag: std::sync::Arc<SilentFlag>,
}

impl Stoppable {
    fn new() -> Self {
        let (requests, mut rx) = unbounded_channel::<oneshot::Sender<bool>>();
        let flag = std::sync::Arc::new(SilentFlag::default());
        let seen = flag.clone();
        tokio::spawn(async move {
            loop {
                let next = std::future::poll_fn(|cx| {
                    if seen.poll_raised(cx).is_ready() {
                        return std::task::Poll::Ready(None);
                    }
                    rx.poll_recv(cx)
                })
                .await;
                match next {
                    Some(reply) => {
                        let _ = reply.send(true);
                    }
                    None => break,
                }
            }
            rx.close();
            while let Ok(reply) = rx.try_recv() {
                let _ = reply.send(false);
            }
        });
        Self { requests, flag }
    }
}

#[invocations]
impl Stoppable {
    /// Whether the task took the request.
    #[invoke]
    async fn put(&self) -> bool {
        let (reply, answer) = oneshot::channel();
        if self.requests.send(reply).is_err() {
            return false;
        }
        answer.await.unwrap_or(false)
    }
    /// Raises the flag.
    #[invoke]
    fn raise(&self) {
        self.flag.raise();
    }
}

fn stoppable() -> Subject<Stoppable> {
    Subject::of("Stoppable(tokio)", Stoppable::new)
}

/// A task that registers its waker with a future lineup does not see is tainted: its steps depend
/// on every step, and both phases keep every history (here the same search both ways).
#[test]
fn a_task_waiting_on_an_unseen_future_keeps_every_history() {
    let stoppable = stoppable();
    assert_sound(&[
        compare(&stoppable, &m(&[&[0], &[1]]), 2, None),
        compare(&stoppable, &m(&[&[1], &[0]]), 2, None),
        compare(&stoppable, &m(&[&[0], &[1], &[0]]), 1, None),
    ]);
}

/// Without the taint (`ReductionFault::ObservedClonesIgnored`), the step that resumes the task
/// counts only its mailbox, and commutes with `raise()`'s silent write: phase 1 loses the serial
/// history in which a `put()` after `raise()` is still taken (55 serial executions without the
/// reduction find it, 45 with the fault do not), and the verdict changes.
#[test]
fn ignoring_the_waker_clones_of_unseen_futures_loses_a_serial_history() {
    let stoppable = stoppable();
    assert_some_lost(&[
        compare(
            &stoppable,
            &m(&[&[0], &[1]]),
            2,
            Some(ReductionFault::ObservedClonesIgnored),
        ),
        compare(
            &stoppable,
            &m(&[&[1], &[0]]),
            2,
            Some(ReductionFault::ObservedClonesIgnored),
        ),
    ]);
}

/// Two counters, each behind a `tokio::sync::Mutex` of its own: `bump_a()`, `bump_b()` (the new
/// count, read and written under the lock across a yield, so that the lock is held over a
/// scheduling point) and `total()` (both locks, one after the other).
#[derive(Default)]
struct TwoLocks {
    a: tokio::sync::Mutex<u32>,
    b: tokio::sync::Mutex<u32>,
}

/// Adds one to the count that `lock` guards, holding the guard across a yield: the new count.
async fn bump<G: std::ops::DerefMut<Target = u32>>(lock: impl std::future::Future<Output = G>) -> u32 {
    let mut count = lock.await;
    let seen = *count;
    tokio::task::yield_now().await;
    *count = seen + 1;
    *count
}

#[invocations]
impl TwoLocks {
    /// Adds one to the first count: the new count.
    #[invoke]
    async fn bump_a(&self) -> u32 {
        bump(self.a.lock()).await
    }

    /// Adds one to the second count: the new count.
    #[invoke]
    async fn bump_b(&self) -> u32 {
        bump(self.b.lock()).await
    }

    /// Both counts.
    #[invoke]
    async fn total(&self) -> u32 {
        let a = *self.a.lock().await;
        let b = *self.b.lock().await;
        a + b
    }
}

fn two_locks() -> Subject<TwoLocks> {
    Subject::of("TwoLocks(tokio)", TwoLocks::default)
}

/// tokio's `Mutex` is named by lineup's shuttle-tokio-impl-inner: steps under two different
/// locks commute, and the reduction explores fewer executions with every history kept; with the
/// lock operations taken to commute (`ReductionFault::TokioLocksCommute`), histories are lost.
#[test]
fn tokio_s_mutex_is_seen_and_keeps_every_history() {
    let locks = two_locks();
    let rows = [
        compare(&locks, &m(&[&[0], &[1]]), 2, None),
        compare(&locks, &m(&[&[0], &[0]]), 2, None),
        compare(&locks, &m(&[&[0, 2], &[1]]), 2, None),
        compare(&locks, &m(&[&[0], &[1], &[2]]), 1, None),
    ];
    assert_sound(&rows);
    assert!(
        rows.iter().any(|r| r.executions_reduced < r.executions_plain),
        "the reduction changed nothing: {rows:?}"
    );
    assert_some_lost(&[
        compare(&locks, &m(&[&[0], &[0]]), 2, Some(ReductionFault::TokioLocksCommute)),
        compare(&locks, &m(&[&[0, 2], &[0]]), 2, Some(ReductionFault::TokioLocksCommute)),
    ]);
}

/// Two events, each a `tokio::sync::Notify` with a count beside it behind a `tokio::sync::Mutex`:
/// `raise_a()` and `raise_b()` count and notify one waiter (or leave the permit), `await_a()`
/// waits for a notification of the first and answers its count.
#[derive(Default)]
struct TwoEvents {
    a: tokio::sync::Notify,
    b: tokio::sync::Notify,
    raised_a: tokio::sync::Mutex<u32>,
    raised_b: tokio::sync::Mutex<u32>,
}

#[invocations]
impl TwoEvents {
    /// Raises the first event: how many times it was raised.
    #[invoke]
    async fn raise_a(&self) -> u32 {
        let mut raised = self.raised_a.lock().await;
        *raised += 1;
        self.a.notify_one();
        *raised
    }

    /// Raises the second event: how many times it was raised.
    #[invoke]
    async fn raise_b(&self) -> u32 {
        let mut raised = self.raised_b.lock().await;
        *raised += 1;
        self.b.notify_one();
        *raised
    }

    /// Waits for the first event: how many times it was raised then.
    #[invoke]
    async fn await_a(&self) -> u32 {
        self.a.notified().await;
        *self.raised_a.lock().await
    }
}

/// tokio's `Notify` and `Semaphore` are named by lineup's shuttle-tokio-impl-inner: the steps of
/// two events commute, with every history kept, and a waiter's registration inside `notified()`
/// does not taint its task.
#[test]
fn tokio_s_notify_is_seen_and_keeps_every_history() {
    let events = Subject::of("TwoEvents(tokio)", TwoEvents::default);
    let rows = [
        compare(&events, &m(&[&[0], &[1]]), 2, None),
        compare(&events, &m(&[&[0, 1], &[2]]), 2, None),
        compare(&events, &m(&[&[2], &[0], &[1]]), 1, None),
        compare(&events, &m(&[&[2], &[0, 0]]), 2, None),
    ];
    assert_sound(&rows);
    assert!(
        rows.iter().any(|r| r.executions_reduced < r.executions_plain),
        "the reduction changed nothing: {rows:?}"
    );
}

/// Two counters, each behind a `tokio::sync::RwLock` of its own: `bump_a()` and `bump_b()` (the
/// new count, read and written under the write lock across a yield), `peek_a()` (the first
/// count, under a read lock held across a yield) and `try_peek_a()` (the first count if its read
/// lock is free, else `u32::MAX`).
#[derive(Default)]
struct TwoRwLocks {
    a: tokio::sync::RwLock<u32>,
    b: tokio::sync::RwLock<u32>,
}

#[invocations]
impl TwoRwLocks {
    /// Adds one to the first count: the new count.
    #[invoke]
    async fn bump_a(&self) -> u32 {
        bump(self.a.write()).await
    }

    /// Adds one to the second count: the new count.
    #[invoke]
    async fn bump_b(&self) -> u32 {
        bump(self.b.write()).await
    }

    /// The first count, read under a read lock held across a yield.
    #[invoke]
    async fn peek_a(&self) -> u32 {
        let count = self.a.read().await;
        tokio::task::yield_now().await;
        *count
    }

    /// The first count if its read lock is free, else `u32::MAX`.
    #[invoke]
    async fn try_peek_a(&self) -> u32 {
        self.a.try_read().map_or(u32::MAX, |count| *count)
    }
}

/// tokio's `RwLock` is named by lineup's shuttle-tokio-impl-inner: steps under two different
/// locks commute, and the reduction explores fewer executions with every history kept; with the
/// lock operations taken to commute (`ReductionFault::TokioLocksCommute`), histories are lost.
#[test]
fn tokio_s_rwlock_is_seen_and_keeps_every_history() {
    let locks = Subject::of("TwoRwLocks(tokio)", TwoRwLocks::default);
    let rows = [
        compare(&locks, &m(&[&[0], &[1]]), 2, None),
        compare(&locks, &m(&[&[0], &[0]]), 2, None),
        compare(&locks, &m(&[&[0, 2], &[1]]), 2, None),
        compare(&locks, &m(&[&[0], &[3]]), 2, None),
        compare(&locks, &m(&[&[2], &[0], &[3]]), 1, None),
    ];
    assert_sound(&rows);
    assert!(
        rows.iter().any(|r| r.executions_reduced < r.executions_plain),
        "the reduction changed nothing: {rows:?}"
    );
    assert_some_lost(&[
        compare(&locks, &m(&[&[0], &[0]]), 2, Some(ReductionFault::TokioLocksCommute)),
        compare(&locks, &m(&[&[0], &[3]]), 2, Some(ReductionFault::TokioLocksCommute)),
        compare(&locks, &m(&[&[2], &[3]]), 2, Some(ReductionFault::TokioLocksCommute)),
    ]);
}

/// A `tokio::sync::Notify`: `ring()` notifies one waiter or leaves the permit, `heard()` registers
/// a waiter and says whether the permit was there (and takes it). Each does it between two
/// scheduling points of a lock of its own (which commute with everything else), so that the
/// notification and the look are steps of their own, apart from the steps that record the calls
/// and the returns.
#[derive(Default)]
struct Bell {
    bell: tokio::sync::Notify,
    ringer: tokio::sync::Mutex<()>,
    listener: tokio::sync::Mutex<()>,
}

#[invocations]
impl Bell {
    /// Notifies one waiter, or leaves the permit.
    #[invoke]
    async fn ring(&self) {
        drop(self.ringer.lock().await);
        self.bell.notify_one();
        drop(self.ringer.lock().await);
    }

    /// Whether the permit was there.
    #[invoke]
    async fn heard(&self) -> bool {
        drop(self.listener.lock().await);
        let heard = std::pin::pin!(self.bell.notified()).as_mut().enable();
        drop(self.listener.lock().await);
        heard
    }
}

/// The operations of one `Notify` conflict with each other: with them taken to commute
/// (`ReductionFault::TokioNotifyCommutes`), a ring before the look and one after it are one, and
/// histories are lost.
#[test]
fn tokio_s_notify_operations_do_not_commute() {
    let bell = Subject::of("Bell(tokio)", Bell::default);
    assert_sound(&[
        compare(&bell, &m(&[&[0], &[1]]), 2, None),
        compare(&bell, &m(&[&[0], &[1, 1]]), 2, None),
    ]);
    assert_some_lost(&[
        compare(&bell, &m(&[&[0], &[1]]), 2, Some(ReductionFault::TokioNotifyCommutes)),
        compare(
            &bell,
            &m(&[&[0], &[1, 1]]),
            2,
            Some(ReductionFault::TokioNotifyCommutes),
        ),
    ]);
}

/// Two `tokio::sync::Semaphore`s of one permit each: `hold_a()` and `hold_b()` take the permit,
/// yield holding it, and give it back; `try_a()` says whether the first permit was free.
struct TwoPermits {
    a: tokio::sync::Semaphore,
    b: tokio::sync::Semaphore,
}

impl Default for TwoPermits {
    fn default() -> Self {
        Self {
            a: tokio::sync::Semaphore::new(1),
            b: tokio::sync::Semaphore::new(1),
        }
    }
}

#[invocations]
impl TwoPermits {
    /// Holds the first permit across a yield.
    #[invoke]
    async fn hold_a(&self) {
        let _permit = self.a.acquire().await.expect("never closed");
        tokio::task::yield_now().await;
    }

    /// Holds the second permit across a yield.
    #[invoke]
    async fn hold_b(&self) {
        let _permit = self.b.acquire().await.expect("never closed");
        tokio::task::yield_now().await;
    }

    /// Whether the first permit was free.
    #[invoke]
    async fn try_a(&self) -> bool {
        self.a.try_acquire().is_ok()
    }
}

/// tokio's `Semaphore` is named by lineup's shuttle-tokio-impl-inner: the steps on two
/// semaphores commute, with every history kept; with acquires and releases taken to commute
/// (`ReductionFault::TokioLocksCommute`), histories are lost.
#[test]
fn tokio_s_semaphore_is_seen_and_keeps_every_history() {
    let permits = Subject::of("TwoPermits(tokio)", TwoPermits::default);
    let rows = [
        compare(&permits, &m(&[&[0], &[1]]), 2, None),
        compare(&permits, &m(&[&[0], &[2]]), 2, None),
        compare(&permits, &m(&[&[0, 2], &[1]]), 2, None),
        compare(&permits, &m(&[&[0], &[1], &[2]]), 1, None),
    ];
    assert_sound(&rows);
    assert!(
        rows.iter().any(|r| r.executions_reduced < r.executions_plain),
        "the reduction changed nothing: {rows:?}"
    );
    assert_some_lost(&[
        compare(&permits, &m(&[&[0], &[2]]), 2, Some(ReductionFault::TokioLocksCommute)),
        compare(
            &permits,
            &m(&[&[0, 2], &[2]]),
            2,
            Some(ReductionFault::TokioLocksCommute),
        ),
    ]);
}

/// The two ends of a oneshot kept apart, each behind a `tokio::sync::Mutex` of its own:
/// `closed()` answers whether the receiver is gone (`Sender::is_closed`) and `hang_up()` drops the
/// receiver. Neither operation on the channel has a scheduling point of its own: each touches the
/// channel in the step it runs in, between its lock's acquire and release, and only the channel
/// orders the two (the locks are different).
struct Handoff {
    sender: tokio::sync::Mutex<Option<oneshot::Sender<u32>>>,
    receiver: tokio::sync::Mutex<Option<oneshot::Receiver<u32>>>,
}

impl Handoff {
    fn new() -> Self {
        let (sender, receiver) = oneshot::channel();
        Self {
            sender: tokio::sync::Mutex::new(Some(sender)),
            receiver: tokio::sync::Mutex::new(Some(receiver)),
        }
    }
}

#[invocations]
impl Handoff {
    /// Whether the receiver is gone.
    #[invoke]
    async fn closed(&self) -> bool {
        let sender = self.sender.lock().await;
        sender.as_ref().is_none_or(oneshot::Sender::is_closed)
    }

    /// Drops the receiver.
    #[invoke]
    async fn hang_up(&self) {
        self.receiver.lock().await.take();
    }
}

fn handoff() -> Subject<Handoff> {
    Subject::of("Handoff(tokio)", Handoff::new)
}

/// An operation of lineup's shuttle-tokio-impl-inner touches its channel in the step it runs in,
/// unless it says that a scheduling point comes first (`touching_after_switch`, tokio's sends and
/// the oneshot's `close` and `try_recv`), and every history is kept. With every operation taken
/// to touch its channel only after a switch (`ReductionFault::TouchesAfterTheirSwitch`), what
/// `is_closed` and the receiver's drop touch is counted nowhere, the two steps commute, and
/// histories are lost.
#[test]
fn a_touch_without_a_switch_counts_in_its_own_step() {
    let handoff = handoff();
    assert_sound(&[
        compare(&handoff, &m(&[&[0], &[1]]), 2, None),
        compare(&handoff, &m(&[&[0, 0], &[1]]), 2, None),
    ]);
    assert_some_lost(&[
        compare(
            &handoff,
            &m(&[&[0], &[1]]),
            2,
            Some(ReductionFault::TouchesAfterTheirSwitch),
        ),
        compare(
            &handoff,
            &m(&[&[0, 0], &[1]]),
            2,
            Some(ReductionFault::TouchesAfterTheirSwitch),
        ),
    ]);
}

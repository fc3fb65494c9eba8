//! The partial-order reduction on tokio code (shuttle-tokio on shuttle's runtime): every
//! distinct history found without the reduction is found with it, at the same bound, on objects
//! behind `tokio::sync::Mutex` and `Notify` (`lineup_zoo::native`'s tokio queue and stack) and on
//! an actor (a task spawned with `tokio::spawn`, served over `tokio::sync::mpsc` with replies over
//! `oneshot`).
//!
//! With lineup's `vendor/shuttle-tokio-impl-inner`, the steps of tokio's `mpsc` and `oneshot` name
//! their channel, and a task's step between polls is seen when its future registered its waker
//! only with them (`docs/partial-order-reduction.md` §2.7): the actor's search shrinks (phase 1 of
//! `add(1) | add(2) | get()` from 31,266 serial executions to 15) and keeps every history. The
//! queue and the stack, on tokio's `Mutex` and `Notify` (not vendored), stay opaque: their
//! comparisons show the same search both ways. The comparison catches a loss: with the calls and
//! returns taken to commute (`ReductionFault::HistoryIndependent`), the actor loses histories; and
//! a task that waits on a future lineup does not see (a silent flag, as a `CancellationToken`)
//! keeps every history only because the clone of its waker taints it: with the clones ignored
//! (`ReductionFault::ObservedClonesIgnored`), phase 1 loses a serial history.

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

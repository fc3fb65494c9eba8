//! The quiet end of tokio's tasks: once the history is complete, the object's own tasks
//! (`tokio::spawn`, labelled by lineup's `vendor/shuttle-std` as its threads are) run until they
//! finish, so that shuttle reuses their stacks instead of freeing them in every execution. An
//! actor whose mailbox's last sender went with the object ends its loop; one that panics on the
//! closed mailbox (an `expect` on its receive) ends quietly, with no finding: the history was
//! complete before.

use std::sync::atomic::{AtomicUsize, Ordering};

use lineup::{check, invocations, Config, Subject, TestMatrix};
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};
use tokio::sync::oneshot;

/// Loops of [`Counter`]'s task that ended (the code after the loop ran), in this process.
static LOOPS_ENDED: AtomicUsize = AtomicUsize::new(0);

/// A counter kept by a task: `add()` returns the new count. With `expects`, the task panics when
/// its mailbox closes (`recv().await.expect(..)`); without, its loop ends.
struct Counter {
    mailbox: UnboundedSender<oneshot::Sender<u32>>,
}

impl Counter {
    fn new(expects: bool) -> Self {
        let (mailbox, mut requests) = unbounded_channel::<oneshot::Sender<u32>>();
        tokio::spawn(async move {
            let mut count = 0;
            loop {
                let reply = if expects {
                    requests.recv().await.expect("the counter's handle is alive")
                } else {
                    match requests.recv().await {
                        Some(reply) => reply,
                        None => break,
                    }
                };
                count += 1;
                let _ = reply.send(count);
            }
            LOOPS_ENDED.fetch_add(1, Ordering::Relaxed);
        });
        Self { mailbox }
    }
}

#[invocations]
impl Counter {
    /// Adds one: the new count.
    #[invoke]
    async fn add(&self) -> u32 {
        let (reply, answer) = oneshot::channel();
        self.mailbox.send(reply).expect("the counter runs");
        answer.await.expect("the counter replies")
    }
}

fn config() -> Config {
    Config {
        workers: 1,
        ..Config::default()
    }
}

#[test]
fn an_actor_task_whose_mailbox_goes_with_the_object_finishes_in_every_execution() {
    let before = LOOPS_ENDED.load(Ordering::Relaxed);
    let subject = Subject::of("Counter(tokio)", || Counter::new(false));
    let verdict = check(&subject, &TestMatrix::new(vec![vec![0, 0], vec![0]]), &config()).unwrap();
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
    let stats = verdict.stats();
    let ended = LOOPS_ENDED.load(Ordering::Relaxed) - before;
    // Every execution that reached its end let the task finish (redundant executions end early).
    assert!(ended > 0, "{stats:?}");
    assert!(
        ended as u64 + stats.redundant_executions >= stats.serial_executions + stats.concurrent_executions,
        "{ended} loops ended: {stats:?}"
    );
}

#[test]
fn an_actor_task_that_panics_on_its_closed_mailbox_ends_quietly() {
    let subject = Subject::of("Counter(tokio, expects)", || Counter::new(true));
    let verdict = check(&subject, &TestMatrix::new(vec![vec![0, 0], vec![0]]), &config()).unwrap();
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
}

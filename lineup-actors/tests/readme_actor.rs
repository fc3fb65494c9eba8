//! The example of docs/actors.md's section "Checking an actor system", as it is there: a counter
//! actor written against tokio, checked with `#[invocations]` on its `async fn`s.

use lineup::{invocations, lineup_test};
use tokio::sync::{mpsc, oneshot};

/// A request to the counter actor, with the channel for its reply.
enum Request {
    Add(u64, oneshot::Sender<u64>),
    Get(oneshot::Sender<u64>),
}

/// The handle of a counter actor: a task that owns the count and serves requests one at a time.
struct Counter {
    mailbox: mpsc::Sender<Request>,
}

impl Counter {
    fn new() -> Self {
        let (mailbox, mut requests) = mpsc::channel(8);
        tokio::spawn(async move {
            let mut count = 0;
            while let Some(request) = requests.recv().await {
                match request {
                    Request::Add(n, reply) => {
                        count += n;
                        let _ = reply.send(count);
                    }
                    Request::Get(reply) => {
                        let _ = reply.send(count);
                    }
                }
            }
        });
        Self { mailbox }
    }
}

#[invocations]
impl Counter {
    #[invoke(1, 2)] // add(1), add(2)
    async fn add(&self, n: u64) -> u64 {
        let (reply, answer) = oneshot::channel();
        self.mailbox.send(Request::Add(n, reply)).await.unwrap();
        answer.await.unwrap()
    }

    #[invoke] // get()
    async fn get(&self) -> u64 {
        let (reply, answer) = oneshot::channel();
        self.mailbox.send(Request::Get(reply)).await.unwrap();
        answer.await.unwrap()
    }
}

// 5 random matrices of 2 threads x 1 operation (an actor multiplies the schedules: keep them small).
#[lineup_test(time_budget = "off", threads = 2, ops = 1, samples = 5)]
fn counter_actor_is_linearizable() -> Counter {
    Counter::new()
}

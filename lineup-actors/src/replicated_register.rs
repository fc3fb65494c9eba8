//! A register replicated over three actor tasks: a primary and two backups, connected by
//! `tokio::sync::mpsc` channels. `write(v)` goes to the primary, which updates its value, sends
//! the update to both backups and waits for both acknowledgements before it replies; `read()` is
//! answered by the primary. Correct; the object on which phase 1's cost is measured
//! (`examples/phase1_cost.rs`): idle backups interleave freely inside every serial operation.
//! Measured (release build, 2 cores shared with other work): phase 1 of `read()` alone runs
//! 154,720 serial executions (21 s, one serial history); `write(1)` alone, `write(1) | read()` and
//! the 2x2 matrix `write(1), read() | write(2), read()` each do not finish within 4 minutes.

use tokio::sync::{mpsc, oneshot};

/// A request to the primary.
enum Request {
    Read(oneshot::Sender<u32>),
    Write(u32, oneshot::Sender<()>),
}

/// An update to a backup, acknowledged.
struct Update(u32, oneshot::Sender<()>);

/// The client's handle.
pub struct ReplicatedRegister {
    primary: mpsc::Sender<Request>,
}

impl ReplicatedRegister {
    /// Spawns the primary and its two backups (on the current runtime). The register holds 0.
    pub fn new() -> Self {
        let backups: Vec<_> = (0..2)
            .map(|_| {
                let (tx, rx) = mpsc::channel(8);
                tokio::spawn(backup(rx));
                tx
            })
            .collect();
        let (tx, rx) = mpsc::channel(8);
        tokio::spawn(primary(rx, backups));
        Self { primary: tx }
    }

    /// Writes `value` once both backups have it.
    pub async fn write(&self, value: u32) {
        let (reply, answer) = oneshot::channel();
        self.primary
            .send(Request::Write(value, reply))
            .await
            .expect("the primary runs");
        answer.await.expect("the primary replies");
    }

    /// The primary's value.
    pub async fn read(&self) -> u32 {
        let (reply, answer) = oneshot::channel();
        self.primary.send(Request::Read(reply)).await.expect("the primary runs");
        answer.await.expect("the primary replies")
    }
}

impl Default for ReplicatedRegister {
    fn default() -> Self {
        Self::new()
    }
}

async fn primary(mut requests: mpsc::Receiver<Request>, backups: Vec<mpsc::Sender<Update>>) {
    let mut value = 0;
    while let Some(request) = requests.recv().await {
        match request {
            Request::Read(reply) => {
                let _ = reply.send(value);
            }
            Request::Write(new, reply) => {
                value = new;
                let mut acks = Vec::with_capacity(backups.len());
                for backup in &backups {
                    let (ack, acked) = oneshot::channel();
                    backup.send(Update(new, ack)).await.expect("the backup runs");
                    acks.push(acked);
                }
                for acked in acks {
                    acked.await.expect("the backup acknowledges");
                }
                let _ = reply.send(());
            }
        }
    }
}

async fn backup(mut updates: mpsc::Receiver<Update>) {
    let mut value = 0;
    while let Some(Update(new, ack)) = updates.recv().await {
        value = new;
        let _ = ack.send(());
    }
    let _ = value;
}

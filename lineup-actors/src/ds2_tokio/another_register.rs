//! The tokio twin of DS2's "another distributed register" (ADR): [`crate::ds2::another_register`], whose docs describe the protocol,
//! the bug if any, and the harnesses. The same code, with each agent a task (`tokio::spawn`) on a
//! `tokio::sync::mpsc` unbounded mailbox and each reply a `tokio::sync::oneshot`; the client
//! operations are `async fn`s.

use lineup::invocations;
use lineup::TestMatrix;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver as Receiver, UnboundedSender as Sender};
use tokio::sync::oneshot;

use crate::ds2::{majority, matrix};

/// A write's timestamp: `(counter, writer)`, ordered lexicographically.
type Stamp = (u32, usize);

/// A message in an agent's mailbox.
enum Msg {
    /// A client's read.
    Read(oneshot::Sender<u32>),
    /// A client's write.
    Write(u32, oneshot::Sender<()>),
    /// Coordinator `from` asks for the stamped value (operation `op` of `from`).
    Query { op: u64, from: usize },
    /// The answer to a query.
    QueryAck { op: u64, stamp: Stamp, value: u32 },
    /// Coordinator `from` asks to store a stamped value.
    Update {
        op: u64,
        from: usize,
        stamp: Stamp,
        value: u32,
    },
    /// Stored (or already newer).
    UpdateAck { op: u64 },
}

/// What an operation the agent coordinates is waiting for.
enum Phase {
    /// Answers to its query: how many (the agent itself counted), and the stamps heard.
    Query { answers: Vec<(Stamp, u32)> },
    /// Acknowledgements of its update, the agent itself and the peers already holding it counted.
    Update { acks: usize, result: u32 },
}

/// The client waiting for an operation.
enum Client {
    Read(oneshot::Sender<u32>),
    Write(u32, oneshot::Sender<()>),
}

/// An operation the agent coordinates.
struct Operation {
    op: u64,
    client: Client,
    phase: Phase,
}

/// One agent: a replica of the stamped value and the coordinator of its clients' operations.
async fn agent(id: usize, mut mailbox: Receiver<Msg>, peers: Vec<Sender<Msg>>) {
    let quorum = majority(peers.len());
    let mut stamp: Stamp = (0, 0);
    let mut value = 0;
    let mut next_op = 0;
    let mut ops: Vec<Operation> = Vec::new();
    let others = || peers.iter().enumerate().filter(move |&(i, _)| i != id);
    while let Some(msg) = mailbox.recv().await {
        let (op, answer) = match msg {
            Msg::Read(reply) => {
                next_op += 1;
                start(&mut ops, next_op, Client::Read(reply), others(), id);
                continue;
            }
            Msg::Write(v, reply) => {
                next_op += 1;
                start(&mut ops, next_op, Client::Write(v, reply), others(), id);
                continue;
            }
            Msg::Query { op, from } => {
                let _ = peers[from].send(Msg::QueryAck { op, stamp, value });
                continue;
            }
            Msg::Update {
                op,
                from,
                stamp: s,
                value: v,
            } => {
                if s > stamp {
                    stamp = s;
                    value = v;
                }
                let _ = peers[from].send(Msg::UpdateAck { op });
                continue;
            }
            Msg::QueryAck { op, stamp: s, value: v } => (op, Some((s, v))),
            Msg::UpdateAck { op } => (op, None),
        };
        let Some(at) = ops.iter().position(|o| o.op == op) else {
            continue;
        };
        let operation = &mut ops[at];
        match (&mut operation.phase, answer) {
            (Phase::Query { answers }, Some(heard)) => {
                answers.push(heard);
                if answers.len() + 1 < quorum {
                    continue;
                }
                let (best, best_value) = answers
                    .iter()
                    .copied()
                    .chain([(stamp, value)])
                    .max_by_key(|&(s, _)| s)
                    .expect("the agent's own value");
                let (new_stamp, new_value, result) = match operation.client {
                    Client::Write(v, _) => ((best.0 + 1, id), v, 0),
                    Client::Read(_) => (best, best_value, best_value),
                };
                if new_stamp > stamp {
                    stamp = new_stamp;
                    value = new_value;
                }
                // The agent and the peers that reported `new_stamp` hold it already.
                let holding = 1 + answers.iter().filter(|&&(s, _)| s == new_stamp).count();
                if holding >= quorum {
                    finish(ops.remove(at), result);
                    continue;
                }
                operation.phase = Phase::Update { acks: holding, result };
                for (_, peer) in others() {
                    let _ = peer.send(Msg::Update {
                        op,
                        from: id,
                        stamp: new_stamp,
                        value: new_value,
                    });
                }
            }
            (Phase::Update { acks, result }, None) => {
                *acks += 1;
                if *acks >= quorum {
                    let result = *result;
                    finish(ops.remove(at), result);
                }
            }
            _ => {}
        }
    }
}

/// Starts coordinating a client's operation `op`: queries the peers.
fn start<'a>(
    ops: &mut Vec<Operation>,
    op: u64,
    client: Client,
    others: impl Iterator<Item = (usize, &'a Sender<Msg>)>,
    id: usize,
) {
    ops.push(Operation {
        op,
        client,
        phase: Phase::Query { answers: Vec::new() },
    });
    for (_, peer) in others {
        let _ = peer.send(Msg::Query { op, from: id });
    }
}

/// Answers the client of a finished operation (`result` is a read's value).
fn finish(operation: Operation, result: u32) {
    match operation.client {
        Client::Read(reply) => {
            let _ = reply.send(result);
        }
        Client::Write(_, reply) => {
            let _ = reply.send(());
        }
    }
}

/// ADR: a register replicated over two agents, each of which coordinates reads and writes.
pub struct AnotherDistributedRegister {
    agents: Vec<Sender<Msg>>,
}

impl AnotherDistributedRegister {
    /// Spawns the two agents. The register holds 0.
    pub fn new() -> Self {
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..2).map(|_| unbounded_channel()).unzip();
        for (id, mailbox) in receivers.into_iter().enumerate() {
            let peers = senders.clone();
            tokio::spawn(agent(id, mailbox, peers));
        }
        Self { agents: senders }
    }

    /// DS2's 2R+1W: `[read(0)] | [read(1)] | [write(0, 1)]`.
    pub fn harness_2r1w() -> TestMatrix {
        matrix::<Self>(&[&["read(0)"], &["read(1)"], &["write(0, 1)"]])
    }

    /// DS2's 2R+2W: `[read(0)] | [read(1)] | [write(0, 1)] | [write(1, 2)]`.
    pub fn harness_2r2w() -> TestMatrix {
        matrix::<Self>(&[&["read(0)"], &["read(1)"], &["write(0, 1)"], &["write(1, 2)"]])
    }
}

impl Default for AnotherDistributedRegister {
    fn default() -> Self {
        Self::new()
    }
}

#[invocations]
impl AnotherDistributedRegister {
    /// Reads through agent `at`.
    #[invoke(0, 1)]
    pub async fn read(&self, at: usize) -> u32 {
        let (reply, answer) = oneshot::channel();
        self.agents[at].send(Msg::Read(reply)).expect("the agent runs");
        answer.await.expect("the agent answers")
    }

    /// Writes `value` through agent `at`.
    #[invoke((0, 1), (1, 2))]
    pub async fn write(&self, at: usize, value: u32) {
        let (reply, answer) = oneshot::channel();
        self.agents[at].send(Msg::Write(value, reply)).expect("the agent runs");
        answer.await.expect("the agent answers")
    }
}

//! The tokio twin of DS2's distributed register (DR) and its erroneous variant (EDR): [`crate::ds2::register`], whose docs describe the protocol,
//! the bug if any, and the harnesses. The same code, with each agent a task (`tokio::spawn`) on a
//! `tokio::sync::mpsc` unbounded mailbox and each reply a `tokio::sync::oneshot`; the client
//! operations are `async fn`s.

use lineup::invocations;
use lineup::TestMatrix;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver as Receiver, UnboundedSender as Sender};
use tokio::sync::oneshot;

use crate::ds2::{majority, matrix};

/// A message in an agent's mailbox: a client's request (with the channel for the answer) or
/// one of Algorithm 2's replication messages, numbered by the leader's request.
enum Msg {
    /// A client's read.
    Read(oneshot::Sender<u32>),
    /// A client's write.
    Write(u32, oneshot::Sender<()>),
    /// Leader to backup: store this value.
    WriteReplica(u64, u32),
    /// Backup to leader: stored.
    WriteReplicaAck(u64),
    /// Leader to backup: report your value (a majority read).
    ReadReplica(u64),
    /// Backup to leader: reported.
    ReadReplicaAck(u64),
    /// Stop serving (see `shutdown`).
    Stop,
}

/// How a backup serves a client's read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reads {
    /// Forwards it to the leader, which reads with a majority (Algorithm 2): DR.
    Majority,
    /// Answers from its own copy: EDR's bug.
    Local,
}

/// A request of the leader waiting for its majority.
struct Pending<T> {
    request: u64,
    acks: usize,
    reply: oneshot::Sender<T>,
}

/// One agent of Algorithm 2. Agent 0 is the leader (statically, as in the paper's runs, so no
/// `IAmLeader` is ever sent); `peers[i]` is agent `i`'s mailbox.
async fn agent(id: usize, mut mailbox: Receiver<Msg>, peers: Vec<Sender<Msg>>, reads: Reads) {
    const LEADER: usize = 0;
    let quorum = majority(peers.len());
    let mut reg = 0;
    let mut next_request = 0;
    let mut writes: Vec<Pending<()>> = Vec::new();
    let mut read_acks: Vec<Pending<u32>> = Vec::new();
    let backups = || peers.iter().enumerate().filter(|&(i, _)| i != LEADER);
    while let Some(msg) = mailbox.recv().await {
        match msg {
            Msg::Write(value, reply) if id == LEADER => {
                next_request += 1;
                reg = value;
                writes.push(Pending {
                    request: next_request,
                    acks: 1,
                    reply,
                });
                for (_, backup) in backups() {
                    let _ = backup.send(Msg::WriteReplica(next_request, value));
                }
            }
            Msg::Read(reply) if id == LEADER => {
                next_request += 1;
                read_acks.push(Pending {
                    request: next_request,
                    acks: 1,
                    reply,
                });
                for (_, backup) in backups() {
                    let _ = backup.send(Msg::ReadReplica(next_request));
                }
            }
            Msg::Read(reply) if reads == Reads::Local => {
                let _ = reply.send(reg);
            }
            forwarded @ (Msg::Read(_) | Msg::Write(..)) => {
                let _ = peers[LEADER].send(forwarded);
            }
            Msg::WriteReplica(request, value) => {
                reg = value;
                let _ = peers[LEADER].send(Msg::WriteReplicaAck(request));
            }
            Msg::ReadReplica(request) => {
                let _ = peers[LEADER].send(Msg::ReadReplicaAck(request));
            }
            Msg::WriteReplicaAck(request) => {
                if let Some(done) = acknowledge(&mut writes, request, quorum) {
                    let _ = done.send(());
                }
            }
            Msg::ReadReplicaAck(request) => {
                if let Some(done) = acknowledge(&mut read_acks, request, quorum) {
                    let _ = done.send(reg);
                }
            }
            Msg::Stop => return,
        }
    }
}

/// Counts an acknowledgement of `request`; once it has a majority, removes it and returns the
/// client to answer. A late acknowledgement (of a request already answered) is ignored.
fn acknowledge<T>(pending: &mut Vec<Pending<T>>, request: u64, quorum: usize) -> Option<oneshot::Sender<T>> {
    let at = pending.iter().position(|p| p.request == request)?;
    pending[at].acks += 1;
    (pending[at].acks >= quorum).then(|| pending.remove(at).reply)
}

/// The agents' mailboxes, after spawning them.
fn spawn_agents(agents: usize, reads: Reads) -> Vec<Sender<Msg>> {
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..agents).map(|_| unbounded_channel()).unzip();
    for (id, mailbox) in receivers.into_iter().enumerate() {
        let peers = senders.clone();
        tokio::spawn(agent(id, mailbox, peers, reads));
    }
    senders
}

/// Asks every agent to stop once it has served what it received before.
fn stop(agents: &[Sender<Msg>]) {
    for agent in agents {
        let _ = agent.send(Msg::Stop);
    }
}

async fn read_at(agents: &[Sender<Msg>], at: usize) -> u32 {
    let (reply, answer) = oneshot::channel();
    agents[at].send(Msg::Read(reply)).expect("the agent runs");
    answer.await.expect("the agent answers")
}

async fn write_at(agents: &[Sender<Msg>], at: usize, value: u32) {
    let (reply, answer) = oneshot::channel();
    agents[at].send(Msg::Write(value, reply)).expect("the agent runs");
    answer.await.expect("the agent answers")
}

/// DR: the correct distributed register, a leader and one backup with majority acknowledgements.
pub struct DistributedRegister {
    agents: Vec<Sender<Msg>>,
}

impl DistributedRegister {
    /// Spawns the leader (agent 0) and the backup (agent 1). The register holds 0.
    pub fn new() -> Self {
        Self {
            agents: spawn_agents(2, Reads::Majority),
        }
    }

    /// DS2's 2R+1W: `[read(0)] | [read(1)] | [write(1)]`, a read at each agent.
    pub fn harness_2r1w() -> TestMatrix {
        matrix::<Self>(&[&["read(0)"], &["read(1)"], &["write(1)"]])
    }

    /// DS2's 2R+2W: `[read(0)] | [read(1)] | [write(1)] | [write(2)]`.
    pub fn harness_2r2w() -> TestMatrix {
        matrix::<Self>(&[&["read(0)"], &["read(1)"], &["write(1)"], &["write(2)"]])
    }
}

impl DistributedRegister {
    /// Stops the agents once they have served what they received before (for runs outside
    /// lineup, whose model checker wants every task finished; lineup ends its executions
    /// itself).
    pub fn shutdown(&self) {
        stop(&self.agents)
    }
}

impl Default for DistributedRegister {
    fn default() -> Self {
        Self::new()
    }
}

#[invocations]
impl DistributedRegister {
    /// Reads, sending the request to agent `at` (a backup forwards it to the leader).
    #[invoke(0, 1)]
    pub async fn read(&self, at: usize) -> u32 {
        read_at(&self.agents, at).await
    }

    /// Writes `value` through the leader; returns once a majority has it.
    #[invoke(1, 2)]
    pub async fn write(&self, value: u32) {
        write_at(&self.agents, 0, value).await
    }
}

/// EDR: the erroneous distributed register, three agents and a quorum of two, whose backups
/// answer reads from their own copies.
pub struct ErroneousDistributedRegister {
    agents: Vec<Sender<Msg>>,
}

impl ErroneousDistributedRegister {
    /// Spawns the leader (agent 0) and two backups (agents 1 and 2). The register holds 0.
    pub fn new() -> Self {
        Self {
            agents: spawn_agents(3, Reads::Local),
        }
    }

    /// DS2's 2R+1W: `[read(1)] | [read(2)] | [write(1)]`, a read at each backup.
    pub fn harness_2r1w() -> TestMatrix {
        matrix::<Self>(&[&["read(1)"], &["read(2)"], &["write(1)"]])
    }

    /// DS2's 2R+2W: `[read(1)] | [read(2)] | [write(1)] | [write(2)]`.
    pub fn harness_2r2w() -> TestMatrix {
        matrix::<Self>(&[&["read(1)"], &["read(2)"], &["write(1)"], &["write(2)"]])
    }
}

impl ErroneousDistributedRegister {
    /// Stops the agents once they have served what they received before (for runs outside
    /// lineup, whose model checker wants every task finished; lineup ends its executions
    /// itself).
    pub fn shutdown(&self) {
        stop(&self.agents)
    }
}

impl Default for ErroneousDistributedRegister {
    fn default() -> Self {
        Self::new()
    }
}

#[invocations]
impl ErroneousDistributedRegister {
    /// Reads, sending the request to agent `at`: the leader reads with a majority, a backup
    /// answers from its own copy.
    #[invoke(0, 1, 2)]
    pub async fn read(&self, at: usize) -> u32 {
        read_at(&self.agents, at).await
    }

    /// Writes `value` through the leader; returns once a majority (two of three) has it.
    #[invoke(1, 2)]
    pub async fn write(&self, value: u32) {
        write_at(&self.agents, 0, value).await
    }
}

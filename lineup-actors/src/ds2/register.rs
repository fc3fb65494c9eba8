//! DS2's distributed register (DR, Algorithm 2 of the paper) and its erroneous variant (EDR).
//!
//! **DR** is a register replicated primary-backup over two agents: agent 0 is the leader, agent 1
//! a backup, and each agent runs Algorithm 2 on its own thread with one mailbox. A client sends
//! `Read` or `Write(v)` to any agent; a backup forwards it to the leader. On `Write(v)` the leader
//! sets its register, broadcasts `WriteReplica(v)` to the backups and answers the client once a
//! majority (itself included) has it: with two agents, once the backup acknowledged. On `Read` it
//! broadcasts `ReadReplica` and answers with its register once a majority acknowledged. Each
//! tracker is keyed by the request, so a late acknowledgement never completes another request.
//! DR is linearizable: the leader serves every request itself, one message at a time, so writes
//! take effect in the order the leader receives them and a read returns the leader's register
//! at a moment inside the read; replication only delays the answers.
//!
//! **EDR** has three agents and a quorum of two, as in the paper, and the same code but one
//! branch: a backup answers a `Read` from its own copy instead of forwarding it to the leader, so
//! the read does not wait for the majority agreement Algorithm 2 waits for. The paper's EDR skips
//! the agreement on writes ("it does not wait for majority agreement among backups before it
//! acknowledges a write"); on FIFO mailboxes that alone cannot be observed, since the leader queues
//! `WriteReplica` at every backup before it acknowledges anything and a later read queues behind
//! it. Skipping it on reads shows the paper's symptom, a read that misses a write another
//! read already saw: while the leader is between its two `WriteReplica` sends, backup 1 applies
//! the write and answers `read() -> 1`, then a read at backup 2 (queued before the leader's send
//! reaches it) answers `0`. That needs two reads overlapping a write (the 2R+1W harness); one
//! operation at a time never shows it, since a write is answered only after both sends.
//!
//! Harnesses (DS2's clients each send one request): 2R+1W is `[read] | [read] | [write(1)]`, the
//! reads at two different agents, and 2R+2W adds `[write(2)]`: see [`DistributedRegister::harness_2r1w`]
//! and [`ErroneousDistributedRegister::harness_2r1w`].

use lineup::invocations;
use lineup::sync::mpsc::{channel, Receiver, Sender};
use lineup::TestMatrix;

use super::{majority, matrix};

/// A message in an agent's mailbox: a client's request (with the channel for the answer) or
/// one of Algorithm 2's replication messages, numbered by the leader's request.
enum Msg {
    /// A client's read.
    Read(Sender<u32>),
    /// A client's write.
    Write(u32, Sender<()>),
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
    reply: Sender<T>,
}

/// One agent of Algorithm 2. Agent 0 is the leader (statically, as in the paper's runs, so no
/// `IAmLeader` is ever sent); `peers[i]` is agent `i`'s mailbox.
fn agent(id: usize, mailbox: Receiver<Msg>, peers: Vec<Sender<Msg>>, reads: Reads) {
    const LEADER: usize = 0;
    let quorum = majority(peers.len());
    let mut reg = 0;
    let mut next_request = 0;
    let mut writes: Vec<Pending<()>> = Vec::new();
    let mut read_acks: Vec<Pending<u32>> = Vec::new();
    let backups = || peers.iter().enumerate().filter(|&(i, _)| i != LEADER);
    while let Ok(msg) = mailbox.recv() {
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
fn acknowledge<T>(pending: &mut Vec<Pending<T>>, request: u64, quorum: usize) -> Option<Sender<T>> {
    let at = pending.iter().position(|p| p.request == request)?;
    pending[at].acks += 1;
    (pending[at].acks >= quorum).then(|| pending.remove(at).reply)
}

/// The agents' mailboxes, after spawning them.
fn spawn_agents(agents: usize, reads: Reads) -> Vec<Sender<Msg>> {
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..agents).map(|_| channel()).unzip();
    for (id, mailbox) in receivers.into_iter().enumerate() {
        let peers = senders.clone();
        lineup::thread::spawn(move || agent(id, mailbox, peers, reads));
    }
    senders
}

/// Asks every agent to stop once it has served what it received before.
fn stop(agents: &[Sender<Msg>]) {
    for agent in agents {
        let _ = agent.send(Msg::Stop);
    }
}

fn read_at(agents: &[Sender<Msg>], at: usize) -> u32 {
    let (reply, answer) = channel();
    agents[at].send(Msg::Read(reply)).expect("the agent runs");
    answer.recv().expect("the agent answers")
}

fn write_at(agents: &[Sender<Msg>], at: usize, value: u32) {
    let (reply, answer) = channel();
    agents[at].send(Msg::Write(value, reply)).expect("the agent runs");
    answer.recv().expect("the agent answers")
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
    /// lineup, whose model checker wants every thread finished; lineup ends its executions
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
    pub fn read(&self, at: usize) -> u32 {
        read_at(&self.agents, at)
    }

    /// Writes `value` through the leader; returns once a majority has it.
    #[invoke(1, 2)]
    pub fn write(&self, value: u32) {
        write_at(&self.agents, 0, value)
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
    /// lineup, whose model checker wants every thread finished; lineup ends its executions
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
    pub fn read(&self, at: usize) -> u32 {
        read_at(&self.agents, at)
    }

    /// Writes `value` through the leader; returns once a majority (two of three) has it.
    #[invoke(1, 2)]
    pub fn write(&self, value: u32) {
        write_at(&self.agents, 0, value)
    }
}

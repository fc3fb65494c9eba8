//! The tokio twin of DS2's Multi-Paxos replicated map (PX): [`crate::ds2::paxos`], whose docs describe the protocol,
//! the bug if any, and the harnesses. The same code, with each agent a task (`tokio::spawn`) on a
//! `tokio::sync::mpsc` unbounded mailbox and each reply a `tokio::sync::oneshot`; the client
//! operations are `async fn`s.

use std::collections::BTreeMap;

use lineup::invocations;
use lineup::TestMatrix;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver as Receiver, UnboundedSender as Sender};
use tokio::sync::oneshot;

use crate::ds2::{majority, matrix};

/// A command in the replicated log.
#[derive(Clone, Copy)]
struct Put {
    key: &'static str,
    value: u32,
}

/// A message in an agent's mailbox.
enum Msg {
    /// A client's read.
    Get(&'static str, oneshot::Sender<Option<u32>>),
    /// A client's write.
    Put(Put, oneshot::Sender<()>),
    /// Phase 1a, for every slot at once (Multi-Paxos).
    Prepare { ballot: u32 },
    /// Phase 1b: the promise, with the slots the acceptor accepted (slot, ballot, command).
    Promise {
        ballot: u32,
        accepted: Vec<(usize, u32, Put)>,
    },
    /// Phase 2a.
    Accept { ballot: u32, slot: usize, command: Put },
    /// Phase 2b.
    Accepted { ballot: u32, slot: usize },
}

/// The acceptor's state: the highest ballot promised and the log of accepted commands.
#[derive(Default)]
struct Acceptor {
    promised: u32,
    log: BTreeMap<usize, (u32, Put)>,
}

impl Acceptor {
    fn prepare(&mut self, ballot: u32) -> Option<Vec<(usize, u32, Put)>> {
        (ballot > self.promised).then(|| {
            self.promised = ballot;
            self.log.iter().map(|(&slot, &(b, c))| (slot, b, c)).collect()
        })
    }

    fn accept(&mut self, ballot: u32, slot: usize, command: Put) -> bool {
        let ok = ballot >= self.promised;
        if ok {
            self.promised = ballot;
            self.log.insert(slot, (ballot, command));
        }
        ok
    }
}

/// An agent other than the leader: an acceptor.
async fn acceptor(leader: Sender<Msg>, mut mailbox: Receiver<Msg>) {
    let mut state = Acceptor::default();
    while let Some(msg) = mailbox.recv().await {
        match msg {
            Msg::Prepare { ballot } => {
                if let Some(accepted) = state.prepare(ballot) {
                    let _ = leader.send(Msg::Promise { ballot, accepted });
                }
            }
            Msg::Accept { ballot, slot, command } => {
                if state.accept(ballot, slot, command) {
                    let _ = leader.send(Msg::Accepted { ballot, slot });
                }
            }
            _ => unreachable!("clients talk to the leader"),
        }
    }
}

/// A slot the leader proposed: the client to answer and the acceptances so far.
struct Proposal {
    command: Put,
    accepts: usize,
    reply: oneshot::Sender<()>,
}

/// The leader: proposer, learner and an acceptor. Runs phase 1, says `ready`, then serves.
async fn leader(mut mailbox: Receiver<Msg>, others: Vec<Sender<Msg>>, ready: oneshot::Sender<()>) {
    let quorum = majority(others.len() + 1);
    let ballot = 1;
    let mut me = Acceptor::default();
    me.prepare(ballot).expect("a fresh acceptor promises");
    for other in &others {
        let _ = other.send(Msg::Prepare { ballot });
    }
    let mut promises = 1;
    while promises < quorum {
        match mailbox.recv().await {
            // Nothing was accepted before the first ballot: there is nothing to re-propose.
            Some(Msg::Promise { ballot: b, accepted }) if b == ballot && accepted.is_empty() => promises += 1,
            Some(_) => unreachable!("only promises arrive before the leader is ready"),
            None => return,
        }
    }
    let _ = ready.send(());
    let mut next_slot = 0;
    let mut proposals: BTreeMap<usize, Proposal> = BTreeMap::new();
    let mut applied = 0;
    let mut map: BTreeMap<&'static str, u32> = BTreeMap::new();
    while let Some(msg) = mailbox.recv().await {
        match msg {
            Msg::Get(key, reply) => {
                let _ = reply.send(map.get(key).copied());
            }
            Msg::Put(command, reply) => {
                let slot = next_slot;
                next_slot += 1;
                assert!(me.accept(ballot, slot, command), "the leader accepts its own ballot");
                proposals.insert(
                    slot,
                    Proposal {
                        command,
                        accepts: 1,
                        reply,
                    },
                );
                for other in &others {
                    let _ = other.send(Msg::Accept { ballot, slot, command });
                }
            }
            Msg::Accepted { ballot: b, slot } if b == ballot => {
                if let Some(proposal) = proposals.get_mut(&slot) {
                    proposal.accepts += 1;
                }
                // Apply the chosen prefix of the log, in slot order.
                while let Some(first) = proposals.first_entry() {
                    if *first.key() != applied || first.get().accepts < quorum {
                        break;
                    }
                    let chosen = first.remove();
                    map.insert(chosen.command.key, chosen.command.value);
                    applied += 1;
                    let _ = chosen.reply.send(());
                }
            }
            _ => unreachable!("no other ballot runs"),
        }
    }
}

/// PX: a map replicated with Multi-Paxos over two agents, agent 0 the designated leader.
pub struct PaxosMap {
    leader: Sender<Msg>,
}

impl PaxosMap {
    /// Spawns the two agents and returns once the leader holds a majority of promises.
    pub fn new() -> Self {
        let (to_leader, leader_mailbox) = unbounded_channel();
        let (to_acceptor, acceptor_mailbox) = unbounded_channel();
        let (ready, is_ready) = oneshot::channel();
        let leader_for_acceptor = to_leader.clone();
        tokio::spawn(acceptor(leader_for_acceptor, acceptor_mailbox));
        tokio::spawn(leader(leader_mailbox, vec![to_acceptor], ready));
        lineup::future::block_on(is_ready).expect("the leader prepares");
        Self { leader: to_leader }
    }

    /// DS2's 2R+1W: `[get("k")] | [get("k")] | [put("k", 1)]`.
    pub fn harness_2r1w() -> TestMatrix {
        matrix::<Self>(&[&[r#"get("k")"#], &[r#"get("k")"#], &[r#"put("k", 1)"#]])
    }

    /// DS2's 2R+2W: `[get("k")] | [get("k")] | [put("k", 1)] | [put("k", 2)]`.
    pub fn harness_2r2w() -> TestMatrix {
        matrix::<Self>(&[
            &[r#"get("k")"#],
            &[r#"get("k")"#],
            &[r#"put("k", 1)"#],
            &[r#"put("k", 2)"#],
        ])
    }
}

impl Default for PaxosMap {
    fn default() -> Self {
        Self::new()
    }
}

#[invocations]
impl PaxosMap {
    /// The chosen value under `key`, read at the leader.
    #[invoke("k")]
    pub async fn get(&self, key: &'static str) -> Option<u32> {
        let (reply, answer) = oneshot::channel();
        self.leader.send(Msg::Get(key, reply)).expect("the leader runs");
        answer.await.expect("the leader answers")
    }

    /// Stores `value` under `key` once a majority accepted it.
    #[invoke(("k", 1), ("k", 2))]
    pub async fn put(&self, key: &'static str, value: u32) {
        let (reply, answer) = oneshot::channel();
        self.leader
            .send(Msg::Put(Put { key, value }, reply))
            .expect("the leader runs");
        answer.await.expect("the leader answers")
    }
}

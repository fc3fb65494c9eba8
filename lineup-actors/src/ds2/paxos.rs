//! DS2's Multi-Paxos replicated map (PX).
//!
//! Two agents, each a Paxos acceptor with a log of slots; agent 0 is the designated leader
//! (the distinguished proposer and learner), as in the paper, where a designated leader
//! serves reads. The constructor runs Paxos's first phase once for every slot, as Multi-Paxos
//! does under a stable leader: the leader sends `Prepare(ballot)` to the other acceptor, which
//! promises not to accept a lower ballot and reports what it accepted (nothing yet); the
//! constructor returns once the leader holds a majority of promises. Then `put(k, v)` goes to
//! the leader, which gives it the next slot, accepts it itself and sends `Accept(ballot, slot,
//! k, v)` to the other acceptor; once a majority (both agents) accepted the slot, it is chosen,
//! and the leader applies the chosen slots in slot order to its map and answers their clients.
//! `get(k)` goes to the leader, which answers from the map of chosen writes. PX is linearizable:
//! a write takes effect when the leader applies it, in slot order, which is the order the leader
//! received the writes (the other acceptor accepts in the order it was sent, and a slot is
//! applied only after every earlier one); a read sees exactly the writes applied before the
//! leader received it. The paper's PX retries a proposal that a later ballot rejected; with one
//! designated proposer no acceptor ever promised a higher ballot, so there is no rejection and no
//! retry path here (the paper's DR had retry code that never ran either).
//!
//! Harnesses: 2R+1W is `[get("k")] | [get("k")] | [put("k", 1)]` and 2R+2W adds
//! `[put("k", 2)]`, a competing write on the same key: see [`PaxosMap::harness_2r1w`].

use std::collections::BTreeMap;

use lineup::invocations;
use lineup::sync::mpsc::{channel, Receiver, Sender};
use lineup::TestMatrix;

use super::{majority, matrix};

/// A command in the replicated log.
#[derive(Clone, Copy)]
struct Put {
    key: &'static str,
    value: u32,
}

/// A message in an agent's mailbox.
enum Msg {
    /// A client's read.
    Get(&'static str, Sender<Option<u32>>),
    /// A client's write.
    Put(Put, Sender<()>),
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
fn acceptor(leader: Sender<Msg>, mailbox: Receiver<Msg>) {
    let mut state = Acceptor::default();
    while let Ok(msg) = mailbox.recv() {
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
    reply: Sender<()>,
}

/// The leader: proposer, learner and an acceptor. Runs phase 1, says `ready`, then serves.
fn leader(mailbox: Receiver<Msg>, others: Vec<Sender<Msg>>, ready: Sender<()>) {
    let quorum = majority(others.len() + 1);
    let ballot = 1;
    let mut me = Acceptor::default();
    me.prepare(ballot).expect("a fresh acceptor promises");
    for other in &others {
        let _ = other.send(Msg::Prepare { ballot });
    }
    let mut promises = 1;
    while promises < quorum {
        match mailbox.recv() {
            // Nothing was accepted before the first ballot: there is nothing to re-propose.
            Ok(Msg::Promise { ballot: b, accepted }) if b == ballot && accepted.is_empty() => promises += 1,
            Ok(_) => unreachable!("only promises arrive before the leader is ready"),
            Err(_) => return,
        }
    }
    let _ = ready.send(());
    let mut next_slot = 0;
    let mut proposals: BTreeMap<usize, Proposal> = BTreeMap::new();
    let mut applied = 0;
    let mut map: BTreeMap<&'static str, u32> = BTreeMap::new();
    while let Ok(msg) = mailbox.recv() {
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
        let (to_leader, leader_mailbox) = channel();
        let (to_acceptor, acceptor_mailbox) = channel();
        let (ready, is_ready) = channel();
        let leader_for_acceptor = to_leader.clone();
        lineup::thread::spawn(move || acceptor(leader_for_acceptor, acceptor_mailbox));
        lineup::thread::spawn(move || leader(leader_mailbox, vec![to_acceptor], ready));
        is_ready.recv().expect("the leader prepares");
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
    pub fn get(&self, key: &'static str) -> Option<u32> {
        let (reply, answer) = channel();
        self.leader.send(Msg::Get(key, reply)).expect("the leader runs");
        answer.recv().expect("the leader answers")
    }

    /// Stores `value` under `key` once a majority accepted it.
    #[invoke(("k", 1), ("k", 2))]
    pub fn put(&self, key: &'static str, value: u32) {
        let (reply, answer) = channel();
        self.leader
            .send(Msg::Put(Put { key, value }, reply))
            .expect("the leader runs");
        answer.recv().expect("the leader answers")
    }
}

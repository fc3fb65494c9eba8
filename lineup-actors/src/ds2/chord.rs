//! DS2's Open Chord model (OC): a distributed hash table on a Chord ring, with node joins.
//!
//! Two nodes on a ring of 64 identifiers: N1 (identifier 8) and N2 (identifier 40). A node owns
//! the keys whose identifiers fall in `(predecessor, itself]`; key `"k1"` hashes to 50 (owned by
//! N1 once both are in the ring) and `"k2"` to 20 (owned by N2). At the start N1 is a ring of its
//! own (its own successor and predecessor, owning every key) and N2 is outside the ring, relaying
//! the requests it gets to its bootstrap node N1. `join()` makes N2 join: N2 sends `FindSucc` to
//! N1; N1, its own successor, answers that N2's successor is N1, takes N2 as its predecessor and
//! successor, and hands over the keys N2 now owns; N2 takes them and is in the ring. A node that
//! gets `put(k, v)` or `get(k)` serves it if it owns `k` and forwards it to its successor
//! otherwise; the owner answers the client. Clients put through N1 and get through N2, as in the
//! paper's Listing 1 (its client IR1 reads at N2).
//!
//! The bug is the paper's (Figure 7, Listing 1): when N2 starts joining it first makes itself a
//! ring of its own, as a new Open Chord node does, so until N1's answer arrives it believes it is
//! its own successor, owns every key and answers reads from its empty store: a `get("k1")` that
//! starts after `put("k1", 1)` returned answers `None` while the join is under way. Serially
//! there is no such moment: before `join()` is called N2 relays to N1, and when it returns N2
//! knows its successor. So it takes a read overlapping the join (the paper's harness sends
//! `FindSucc` interleaved with the clients' requests). [`OpenChord::relaying_while_joining`]
//! is the fix: N2 keeps relaying until it knows its successor (N1 sends its answer before
//! anything it forwards back, so N2 has the handed-over keys first), and it is linearizable.
//!
//! Harnesses: DS2's 2R+1W is `[join()] | [put("k1", 1)] | [get("k1")] | [get("k1")]` (one
//! column per client, and one for the join, which DS2 interleaves with the clients' requests),
//! and 2R+2W adds `[put("k2", 2)]`, the paper's second write on another key, and reads `k2` in the
//! second get: see [`OpenChord::harness_2r1w`].

use lineup::invocations;
use lineup::sync::mpsc::{channel, Receiver, Sender};
use lineup::TestMatrix;

use super::matrix;

/// Identifiers on the ring: `0..RING`.
const RING: u32 = 64;

/// The nodes' identifiers: N1 and N2.
const NODE_IDS: [u32; 2] = [8, 40];

/// A key's identifier (the hash of the paper's consistent hashing, fixed for the two keys).
fn key_id(key: &str) -> u32 {
    match key {
        "k1" => 50,
        "k2" => 20,
        other => other.bytes().fold(0, |h, b| (h * 31 + u32::from(b)) % RING),
    }
}

/// Whether `x` is in the ring interval `(from, to]` (the whole ring when `from == to`).
fn in_interval(x: u32, from: u32, to: u32) -> bool {
    if from < to {
        from < x && x <= to
    } else {
        x > from || x <= to
    }
}

/// A message in a node's mailbox.
enum Msg {
    /// A client's read.
    Get(&'static str, Sender<Option<u32>>),
    /// A client's write.
    Put(&'static str, u32, Sender<()>),
    /// A client asks this node to join the ring.
    Join(Sender<()>),
    /// Who is the successor of node `joiner`? (Chord's `find_successor`, sent by a joining node.)
    FindSucc { joiner: usize },
    /// The answer: the joiner's successor and predecessor, and the keys it now owns.
    Succ {
        successor: usize,
        predecessor: usize,
        keys: Vec<(&'static str, u32)>,
    },
    /// Stop serving (see [`OpenChord::shutdown`]).
    Stop,
}

/// Where a node stands.
#[derive(Clone, Copy)]
enum Ring {
    /// Outside any ring: relays client requests to its bootstrap node.
    Outside { bootstrap: usize },
    /// In a ring, with its successor and predecessor (itself in a ring of one).
    Member { successor: usize, predecessor: usize },
}

/// What a node does while its join is under way.
#[derive(Clone, Copy, PartialEq, Eq)]
enum WhileJoining {
    /// Makes itself a ring of one, as a new Open Chord node does: the paper's bug.
    OwnRing,
    /// Keeps relaying to its bootstrap node until it knows its successor: the fix.
    Relay,
}

/// One node: its index `me` (0 is N1, 1 is N2), its mailbox and every node's mailbox.
fn node(me: usize, mailbox: Receiver<Msg>, nodes: Vec<Sender<Msg>>, start: Ring, joining: WhileJoining) {
    let mut ring = start;
    let mut store: Vec<(&'static str, u32)> = Vec::new();
    let mut join_reply: Option<Sender<()>> = None;
    while let Ok(msg) = mailbox.recv() {
        match msg {
            Msg::Get(key, _) | Msg::Put(key, ..) => {
                let next = match ring {
                    Ring::Outside { bootstrap } => Some(bootstrap),
                    Ring::Member { predecessor, successor } => {
                        let owns = in_interval(key_id(key), NODE_IDS[predecessor], NODE_IDS[me]);
                        (!owns).then_some(successor)
                    }
                };
                match (next, msg) {
                    (Some(next), forwarded) => {
                        let _ = nodes[next].send(forwarded);
                    }
                    (None, Msg::Get(key, reply)) => {
                        let found = store.iter().find(|&&(k, _)| k == key).map(|&(_, v)| v);
                        let _ = reply.send(found);
                    }
                    (None, Msg::Put(key, value, reply)) => {
                        store.retain(|&(k, _)| k != key);
                        store.push((key, value));
                        let _ = reply.send(());
                    }
                    (None, _) => unreachable!("a get or a put"),
                }
            }
            Msg::Join(reply) => {
                let Ring::Outside { bootstrap } = ring else {
                    let _ = reply.send(());
                    continue;
                };
                if joining == WhileJoining::OwnRing {
                    ring = Ring::Member {
                        successor: me,
                        predecessor: me,
                    };
                }
                join_reply = Some(reply);
                let _ = nodes[bootstrap].send(Msg::FindSucc { joiner: me });
            }
            Msg::FindSucc { joiner } => {
                let Ring::Member { successor, predecessor } = ring else {
                    unreachable!("only a ring member is asked");
                };
                if !in_interval(NODE_IDS[joiner], NODE_IDS[me], NODE_IDS[successor]) {
                    let _ = nodes[successor].send(Msg::FindSucc { joiner });
                    continue;
                }
                // The joiner goes between `me` and `successor`. This model answers only for a
                // joiner that becomes `me`'s predecessor too (a ring of one, or of two).
                let _ = predecessor;
                let moved: Vec<_> = store
                    .iter()
                    .copied()
                    .filter(|&(k, _)| !in_interval(key_id(k), NODE_IDS[joiner], NODE_IDS[me]))
                    .collect();
                store.retain(|&(k, _)| in_interval(key_id(k), NODE_IDS[joiner], NODE_IDS[me]));
                ring = Ring::Member {
                    successor: joiner,
                    predecessor: joiner,
                };
                let succ = Msg::Succ {
                    successor: me,
                    predecessor: me,
                    keys: moved,
                };
                let _ = nodes[joiner].send(succ);
            }
            Msg::Succ {
                successor,
                predecessor,
                keys,
            } => {
                ring = Ring::Member { successor, predecessor };
                store.extend(keys);
                if let Some(reply) = join_reply.take() {
                    let _ = reply.send(());
                }
            }
            Msg::Stop => return,
        }
    }
}

/// OC: two Chord nodes, N1 in the ring and N2 outside it until `join()`.
pub struct OpenChord {
    nodes: Vec<Sender<Msg>>,
}

impl OpenChord {
    /// The paper's model: a joining N2 first makes itself a ring of its own (not linearizable).
    pub fn new() -> Self {
        Self::spawn(WhileJoining::OwnRing)
    }

    /// The fix: a joining N2 relays requests to N1 until it knows its successor (linearizable).
    pub fn relaying_while_joining() -> Self {
        Self::spawn(WhileJoining::Relay)
    }

    fn spawn(joining: WhileJoining) -> Self {
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..2).map(|_| channel()).unzip();
        let starts = [
            Ring::Member {
                successor: 0,
                predecessor: 0,
            },
            Ring::Outside { bootstrap: 0 },
        ];
        for (me, mailbox) in receivers.into_iter().enumerate() {
            let nodes = senders.clone();
            let start = starts[me];
            lineup::thread::spawn(move || node(me, mailbox, nodes, start, joining));
        }
        Self { nodes: senders }
    }

    /// DS2's 2R+1W: `[join()] | [put("k1", 1)] | [get("k1")] | [get("k1")]`.
    pub fn harness_2r1w() -> TestMatrix {
        matrix::<Self>(&[&["join()"], &[r#"put("k1", 1)"#], &[r#"get("k1")"#], &[r#"get("k1")"#]])
    }

    /// DS2's 2R+2W: `[join()] | [put("k1", 1)] | [put("k2", 2)] | [get("k1")] | [get("k2")]`.
    pub fn harness_2r2w() -> TestMatrix {
        matrix::<Self>(&[
            &["join()"],
            &[r#"put("k1", 1)"#],
            &[r#"put("k2", 2)"#],
            &[r#"get("k1")"#],
            &[r#"get("k2")"#],
        ])
    }

    /// Stops the nodes once they have served what they received before (for runs outside
    /// lineup, whose model checker wants every thread finished; lineup ends its executions
    /// itself).
    pub fn shutdown(&self) {
        for node in &self.nodes {
            let _ = node.send(Msg::Stop);
        }
    }

    fn ask<T>(&self, at: usize, request: impl FnOnce(Sender<T>) -> Msg) -> T {
        let (reply, answer) = channel();
        self.nodes[at].send(request(reply)).expect("the node runs");
        answer.recv().expect("the node answers")
    }
}

impl Default for OpenChord {
    fn default() -> Self {
        Self::new()
    }
}

#[invocations]
impl OpenChord {
    /// Makes N2 join the ring; returns once N2 knows its successor.
    #[invoke]
    pub fn join(&self) {
        self.ask(1, Msg::Join)
    }

    /// Stores `value` under `key`, through N1.
    #[invoke(("k1", 1), ("k2", 2))]
    pub fn put(&self, key: &'static str, value: u32) {
        self.ask(0, |reply| Msg::Put(key, value, reply))
    }

    /// The value under `key`, through N2.
    #[invoke("k1", "k2")]
    pub fn get(&self, key: &'static str) -> Option<u32> {
        self.ask(1, |reply| Msg::Get(key, reply))
    }
}

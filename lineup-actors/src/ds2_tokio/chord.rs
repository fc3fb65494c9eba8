//! The tokio twin of DS2's Open Chord model (OC), with the paper's bug and its fix: [`crate::ds2::chord`], whose docs describe the protocol,
//! the bug if any, and the harnesses. The same code, with each agent a task (`tokio::spawn`) on a
//! `tokio::sync::mpsc` unbounded mailbox and each reply a `tokio::sync::oneshot`; the client
//! operations are `async fn`s.

use lineup::invocations;
use lineup::TestMatrix;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver as Receiver, UnboundedSender as Sender};
use tokio::sync::oneshot;

use crate::ds2::matrix;

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
    Get(&'static str, oneshot::Sender<Option<u32>>),
    /// A client's write.
    Put(&'static str, u32, oneshot::Sender<()>),
    /// A client asks this node to join the ring.
    Join(oneshot::Sender<()>),
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
async fn node(me: usize, mut mailbox: Receiver<Msg>, nodes: Vec<Sender<Msg>>, start: Ring, joining: WhileJoining) {
    let mut ring = start;
    let mut store: Vec<(&'static str, u32)> = Vec::new();
    let mut join_reply: Option<oneshot::Sender<()>> = None;
    while let Some(msg) = mailbox.recv().await {
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
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..2).map(|_| unbounded_channel()).unzip();
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
            tokio::spawn(node(me, mailbox, nodes, start, joining));
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
    /// lineup, whose model checker wants every task finished; lineup ends its executions
    /// itself).
    pub fn shutdown(&self) {
        for node in &self.nodes {
            let _ = node.send(Msg::Stop);
        }
    }

    async fn ask<T>(&self, at: usize, request: impl FnOnce(oneshot::Sender<T>) -> Msg) -> T {
        let (reply, answer) = oneshot::channel();
        self.nodes[at].send(request(reply)).expect("the node runs");
        answer.await.expect("the node answers")
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
    pub async fn join(&self) {
        self.ask(1, Msg::Join).await
    }

    /// Stores `value` under `key`, through N1.
    #[invoke(("k1", 1), ("k2", 2))]
    pub async fn put(&self, key: &'static str, value: u32) {
        self.ask(0, |reply| Msg::Put(key, value, reply)).await
    }

    /// The value under `key`, through N2.
    #[invoke("k1", "k2")]
    pub async fn get(&self, key: &'static str) -> Option<u32> {
        self.ask(1, |reply| Msg::Get(key, reply)).await
    }
}

//! The five actor systems of DS2 (Al-Mahfoudh, Stutsman, Gopalakrishnan: "Efficient
//! linearizability checking for actor-based systems", Softw. Pract. Exper. 2023), in Rust.
//!
//! Each system is a type whose constructor spawns its actors as threads
//! ([`lineup::thread::spawn`]); the actors talk only over [`lineup::sync::mpsc`] channels, each
//! actor owning one mailbox (its `Receiver`) and serving one message at a time. A client
//! operation sends a request carrying a reply `Sender` to one actor and blocks on the reply: the
//! `#[invoke]` methods of each type's `#[invocations]` impl. No system has a sequential model:
//! lineup synthesizes the specification from the serial runs (phase 1).
//!
//! | system | type | agents | quorum | verdict |
//! |---|---|---|---|---|
//! | DR | [`register::DistributedRegister`] | 2 | 2 | linearizable |
//! | EDR | [`register::ErroneousDistributedRegister`] | 3 | 2 | not linearizable |
//! | ADR | [`another_register::AnotherDistributedRegister`] | 2 | 2 | linearizable |
//! | OC | [`chord::OpenChord`] | 2 | - | not linearizable |
//! | PX | [`paxos::PaxosMap`] | 2 | 2 | linearizable |
//!
//! The agent counts and quorums are the paper's (its Tables A2 to A11). Every module has its
//! harnesses: `harness_2r1w()` and `harness_2r2w()`, DS2's "2R+1W" (two reads and one write) and
//! "2R+2W" (a second write) mapped to a [`TestMatrix`] with one column per client, since each of
//! DS2's synthetic clients sends one request and waits for its response. Open Chord adds a column
//! for the join of the second node (DS2 sends its `FindSucc` interleaved with the clients'
//! requests): see [`chord`].
//!
//! Mailboxes are FIFO: a message sent before another to the same actor (in real time, from any
//! senders) is received first. DS2's network may also reorder messages between two agents; the
//! bugs here need no such reordering, only the interleaving of the actors' steps.

pub mod another_register;
pub mod chord;
pub mod paxos;
pub mod register;

use lineup::{Invocations, TestMatrix};

/// The matrix whose columns run the invocations of `O` labelled as in `columns` (for example
/// `&[&["read(1)"], &["read(2)"], &["write(1)"]]`), looked up in `O::invocations()`.
///
/// # Panics
///
/// If a label is not one of `O`'s invocations.
pub fn matrix<O: Invocations>(columns: &[&[&str]]) -> TestMatrix {
    let labels: Vec<String> = O::invocations()
        .iter()
        .map(|invocation| invocation.label().to_string())
        .collect();
    let index = |label: &str| {
        labels
            .iter()
            .position(|known| known == label)
            .unwrap_or_else(|| panic!("no invocation `{label}` among {labels:?}"))
    };
    TestMatrix::new(
        columns
            .iter()
            .map(|column| column.iter().map(|label| index(label)).collect())
            .collect(),
    )
}

/// The majority of `agents`: the quorum of the paper's registers and of Paxos.
pub(crate) fn majority(agents: usize) -> usize {
    agents / 2 + 1
}

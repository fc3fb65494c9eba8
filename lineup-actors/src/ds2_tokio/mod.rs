//! Tokio twins of DS2's five actor systems ([`crate::ds2`]): the same agents, messages, bugs and
//! harnesses, written as tokio code is: each agent is a task (`tokio::spawn`) serving its
//! mailbox, a `tokio::sync::mpsc` unbounded channel (whose `send` does not wait, as
//! `lineup::sync::mpsc`'s does not), and a client operation is an `async fn` that sends its
//! request with a `tokio::sync::oneshot` reply channel and awaits the answer. With this crate's
//! `shuttle` feature (on in the tests) shuttle-tokio runs them on shuttle's runtime, the one lineup
//! drives.
//!
//! | system | type | original | verdict |
//! |---|---|---|---|
//! | DR | [`register::DistributedRegister`] | [`crate::ds2::register::DistributedRegister`] | linearizable |
//! | EDR | [`register::ErroneousDistributedRegister`] | [`crate::ds2::register::ErroneousDistributedRegister`] | not linearizable |
//! | ADR | [`another_register::AnotherDistributedRegister`] | [`crate::ds2::another_register::AnotherDistributedRegister`] | linearizable |
//! | OC | [`chord::OpenChord`] | [`crate::ds2::chord::OpenChord`] | not linearizable |
//! | PX | [`paxos::PaxosMap`] | [`crate::ds2::paxos::PaxosMap`] | linearizable |
//!
//! The invocations have the originals' labels, so [`crate::ds2::matrix`] builds the same
//! matrices, and every type has the original's `harness_2r1w()` and `harness_2r2w()`. The one
//! difference of shape: PX's constructor waits for the leader's promises with
//! [`lineup::future::block_on`] on a oneshot, where the original blocks on a channel's `recv`.
//!
//! With lineup's `vendor/shuttle-tokio-impl-inner` (the workspace's `[patch.crates-io]`), every
//! operation of tokio's `mpsc` and `oneshot` names its channel to the partial-order reduction and
//! the tasks' polls are seen (`docs/partial-order-reduction.md` §2.7), so that each twin explores
//! exactly what its original explores. `tests/ds2_tokio_verdicts.rs` checks the verdicts, the
//! distinct histories and the executions against the originals; the timings are in
//! `docs/actors.md`.

pub mod another_register;
pub mod chord;
pub mod paxos;
pub mod register;

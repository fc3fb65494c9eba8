//! Actor systems written against `tokio` (tasks owning their state, requests over
//! `tokio::sync::mpsc`, replies over `oneshot`), checked by lineup as they are.
//!
//! The code depends on `tokio = { package = "shuttle-tokio", .. }`: plain tokio by default, and
//! with the `shuttle` feature (which the tests turn on) tokio's API on shuttle's runtime, the one
//! lineup drives. The actors are then tasks of the execution: spawned by the constructor, they are
//! background tasks of the object, which lineup explores in both phases; each operation is an
//! `async fn` that sends a request and awaits the reply, run as an asynchronous invocation
//! (`lineup::Invocation::new_async`, or `async fn` under `#[invocations]`).
//!
//! * [`cached_register`]: a register actor with a read cache in front; the correct one is
//!   linearizable, the one that invalidates its cache too early answers reads from a stale copy.
//! * [`replicated_register`]: a register replicated over a primary and two backups, the object
//!   on which phase 1's cost is measured (`examples/phase1_cost.rs`).
//! * [`ds2`]: the five actor systems of DS2 (distributed registers, Open Chord, Multi-Paxos),
//!   written as threads over `lineup::sync::mpsc` channels rather than tokio tasks, with DS2's
//!   client harnesses as test matrices.
//! * [`ds2_tokio`]: tokio twins of the five systems (tasks, `mpsc` mailboxes, `oneshot` replies),
//!   with the same bugs and harnesses.
#![forbid(unsafe_code)]

pub mod cached_register;
pub mod ds2;
pub mod ds2_tokio;
pub mod replicated_register;

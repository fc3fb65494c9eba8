//! Phase 1 and its result: the synthesized specification (the observation set of every full and
//! stuck serial history), the determinism check of §2.3, observation files and committed
//! snapshots of specifications, and the vacuity check.

pub(crate) mod determinism;
pub(crate) mod observation;
pub mod observation_file;
pub mod spec_snapshot;
pub(crate) mod synthesis;
pub(crate) mod vacuity;

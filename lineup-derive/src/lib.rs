//! Procedural macros for lineup.
//!
//! This crate only generates code that calls into the public API of `lineup-core`; no checking
//! logic lives here. The invocation-description macros and `#[lineup_test]` arrive with the
//! user-facing API; until then the crate is intentionally empty.

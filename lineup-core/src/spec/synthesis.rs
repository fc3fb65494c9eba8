//! The result of phase 1: the synthesized specification.

use std::time::Duration;

use crate::model::replay_token::ReplayToken;
use crate::spec::determinism::Nondeterminism;
use crate::spec::observation::ObservationSet;

/// The result of phase 1.
#[derive(Clone, Debug)]
pub struct Synthesis {
    /// Every distinct full and stuck serial history, grouped. When `nondeterminism` is found,
    /// phase 1 stops at that proof (a failing check needs no more), and this holds the serial
    /// histories seen up to it.
    pub spec: ObservationSet,
    /// Two serial histories that prove nondeterminism, with the replay token of the second.
    pub nondeterminism: Option<(Nondeterminism, ReplayToken)>,
    /// Serial executions run (up to the proof of nondeterminism, if there is one).
    pub executions: u64,
    /// Of those, the ones the partial-order reduction ended early.
    pub redundant: u64,
    /// Time taken.
    pub elapsed: Duration,
}

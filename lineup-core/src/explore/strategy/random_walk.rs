//! `random`: at every scheduling point, a thread chosen uniformly among those that can run (after
//! a yield, among the others), for a number of executions. Seeded: execution `i` of seed `s`
//! always makes the same choices, and its replay token names them. Its executions may be split
//! among workers by index ([`sample_split`](crate::explore::sample_split)).

use std::sync::Arc;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::sample_split::{position_of, SampleIndices, SampleSequence};
use crate::explore::strategy::{Point, SchedulingStrategy};

/// Uniform random scheduling.
#[derive(Debug)]
pub(crate) struct RandomWalk {
    /// Which executions this worker runs.
    sequence: SampleSequence,
    rng: ChaCha8Rng,
}

impl RandomWalk {
    /// `executions` executions from `seed`.
    pub fn new(executions: u64, seed: u64) -> Self {
        let sequence = SampleSequence::new(executions, seed);
        let rng = sequence.rng();
        Self { sequence, rng }
    }

    /// The executions of `seed` one worker of a split exploration runs: `first`, then those it
    /// takes from `indices`.
    pub fn split(seed: u64, first: u64, indices: Arc<SampleIndices>) -> Self {
        let sequence = SampleSequence::split(seed, first, indices);
        let rng = sequence.rng();
        Self { sequence, rng }
    }
}

impl SchedulingStrategy for RandomWalk {
    fn begin_execution(&mut self) {
        self.rng = self.sequence.rng();
    }

    fn keeps_current(&self) -> bool {
        false
    }

    fn pick(&mut self, point: &Point<'_>, _tree: &mut DecisionTree) -> Result<usize, Divergence> {
        let members = point.members.len();
        match point.current {
            Some(current) if point.gives_way() && members > 1 => {
                let k = self.rng.random_range(0..members - 1);
                Ok(if k < current { k } else { k + 1 })
            }
            _ => Ok(self.rng.random_range(0..members)),
        }
    }

    fn pick_value(&mut self, options: usize, _tree: &mut DecisionTree) -> Result<usize, Divergence> {
        Ok(self.rng.random_range(0..options))
    }

    fn advance(&mut self, _tree: &mut DecisionTree) -> bool {
        self.sequence.advance()
    }

    fn position(&self, _tree: &DecisionTree) -> Vec<u32> {
        position_of(self.sequence.index())
    }
}

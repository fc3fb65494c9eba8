//! `random`: at every scheduling point, a thread chosen uniformly among those that can run (after
//! a yield, among the others), for a number of executions. Seeded: execution `i` of seed `s`
//! always makes the same choices, and its replay token names them.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::strategy::{execution_rng, Point, SchedulingStrategy};

/// Uniform random scheduling.
#[derive(Debug)]
pub(crate) struct RandomWalk {
    executions: u64,
    seed: u64,
    done: u64,
    rng: ChaCha8Rng,
}

impl RandomWalk {
    /// `executions` executions from `seed`.
    pub fn new(executions: u64, seed: u64) -> Self {
        Self {
            executions,
            seed,
            done: 0,
            rng: execution_rng(seed, 0),
        }
    }
}

impl SchedulingStrategy for RandomWalk {
    fn begin_execution(&mut self) {
        self.rng = execution_rng(self.seed, self.done);
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

    fn advance(&mut self, _tree: &mut DecisionTree) -> bool {
        self.done += 1;
        self.done < self.executions
    }
}

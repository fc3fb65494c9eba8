//! Replays one execution from a [`Phase::Scheduled`](crate::Phase::Scheduled) token: at every scheduling point with more
//! than one thread that can run, the token names the index of the one that ran, in task order.

use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::strategy::{Point, SchedulingStrategy};

/// The replay of a schedule given by thread indices.
#[derive(Debug)]
pub(crate) struct ScheduleReplay {
    tree: DecisionTree,
}

impl ScheduleReplay {
    /// Follows `choices` once.
    pub fn new(choices: &[u32]) -> Self {
        Self {
            tree: DecisionTree::replaying(choices),
        }
    }
}

impl SchedulingStrategy for ScheduleReplay {
    fn begin_execution(&mut self) {}

    fn keeps_current(&self) -> bool {
        false
    }

    fn pick(&mut self, point: &Point<'_>, _tree: &mut DecisionTree) -> Result<usize, Divergence> {
        if point.members.len() == 1 {
            return Ok(0);
        }
        self.tree.choose(point.members.len())
    }

    fn pick_value(&mut self, options: usize, _tree: &mut DecisionTree) -> Result<usize, Divergence> {
        self.tree.choose(options)
    }

    fn advance(&mut self, _tree: &mut DecisionTree) -> bool {
        false
    }

    fn unused_choices(&self) -> Option<Divergence> {
        self.tree.unused_replay_choices()
    }
}

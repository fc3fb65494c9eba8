//! `serial-dfs`: phase 1's choice, every serial execution depth-first.
//!
//! The scheduler lets only serial executions reach a choice (while an operation is pending, only
//! its threads and the object's are members; between operations, the workers at their gates), so
//! this strategy enumerates every order of operations, never bounded. A yield is a free switch to
//! the member that ran least recently; else the current member is option 0 (if it is one), then
//! every other member in task order, all free. Its executions are named by the tree's choices
//! ([`Phase::Serial`] tokens).

use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::strategy::{Point, SchedulingStrategy};
use crate::model::replay_token::Phase;

/// Phase 1's exhaustive depth-first search over serial executions.
#[derive(Debug, Default)]
pub(crate) struct SerialDfs;

impl SchedulingStrategy for SerialDfs {
    fn begin_execution(&mut self) {}

    fn keeps_current(&self) -> bool {
        false
    }

    fn pick(&mut self, point: &Point<'_>, tree: &mut DecisionTree) -> Result<usize, Divergence> {
        let members = point.members.len();
        if let (Some(i), true) = (point.current, point.gives_way()) {
            return Ok(point.least_recent.unwrap_or(i));
        }
        // Option k is the member at position `member(k)`.
        let member = |k: usize| match point.current {
            Some(i) if k == 0 => i,
            Some(i) if k - 1 < i => k - 1,
            Some(_) => k,
            None => k,
        };
        let asleep_options = (0..members.min(64))
            .filter(|&k| point.is_asleep(member(k)))
            .fold(0u64, |mask, k| mask | (1 << k));
        let chosen = if members == 1 {
            0
        } else {
            tree.choose_awake(members, asleep_options)?
        };
        Ok(member(chosen))
    }

    fn advance(&mut self, tree: &mut DecisionTree) -> bool {
        tree.advance()
    }

    fn token(&self, tree: &DecisionTree, _by_index: &[u32]) -> (Phase, Vec<u32>) {
        (Phase::Serial, tree.choices())
    }

    fn supports_reduction(&self) -> bool {
        true
    }
}

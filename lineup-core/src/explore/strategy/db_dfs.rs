//! `db-dfs`: exhaustive delay-bounded depth-first search (Emmi, Qadeer, Rakamaric, "Delay-bounded
//! scheduling", POPL 2011).
//!
//! The base schedule is deterministic round robin: the current thread runs until it blocks,
//! finishes or yields, then the next thread in task order (cyclically) that can run. A *delay*
//! skips the thread the base schedule would run, for the next one in round-robin order; every
//! schedule with at most `delays` delays is explored. Unlike a preemption bound, a delay bound
//! covers every thread count with the same budget: with `d` delays the search is polynomial in the
//! length of the execution for any number of threads.

use shuttle::current::TaskId;

use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::strategy::{Point, SchedulingStrategy};

/// Delay-bounded DFS over a round-robin base schedule.
#[derive(Debug)]
pub(crate) struct DbDfs {
    delays: u32,
    spent: u32,
}

impl DbDfs {
    /// Every schedule with at most `delays` delays.
    pub fn new(delays: u32) -> Self {
        Self { delays, spent: 0 }
    }
}

/// The position in `members` of the first thread after `last` in task order, cyclically.
fn next_after(members: &[TaskId], last: Option<TaskId>) -> usize {
    let Some(last) = last else { return 0 };
    members
        .iter()
        .position(|&t| usize::from(t) > usize::from(last))
        .unwrap_or(0)
}

impl SchedulingStrategy for DbDfs {
    fn begin_execution(&mut self) {
        self.spent = 0;
    }

    fn keeps_current(&self) -> bool {
        self.spent >= self.delays
    }

    fn pick(&mut self, point: &Point<'_>, tree: &mut DecisionTree) -> Result<usize, Divergence> {
        let members = point.members.len();
        // The base schedule's choice, then the others in round-robin order after it.
        let base = match point.current {
            Some(current) if !point.gives_way() => current,
            _ => next_after(point.members, point.last),
        };
        let count = members.min((self.delays - self.spent.min(self.delays)) as usize + 1);
        let chosen = if count == 1 { 0 } else { tree.choose(count)? };
        self.spent += chosen as u32;
        Ok((base + chosen) % members)
    }

    fn advance(&mut self, tree: &mut DecisionTree) -> bool {
        tree.advance()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_goes_to_the_next_task_cyclically() {
        let members: Vec<TaskId> = [1usize, 3, 4].into_iter().map(TaskId::from).collect();
        assert_eq!(next_after(&members, Some(TaskId::from(3))), 2);
        assert_eq!(next_after(&members, Some(TaskId::from(4))), 0);
        assert_eq!(next_after(&members, Some(TaskId::from(0))), 0);
        assert_eq!(next_after(&members, Some(TaskId::from(2))), 1);
    }
}

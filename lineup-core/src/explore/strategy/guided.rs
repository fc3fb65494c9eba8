//! `pb-dfs` guided towards one history: the executions of [`PbDfs`] whose call and return events
//! stay a prefix of a target history's, the others ended (unjudged) at the first choice point after
//! they leave it. Used by the search for a violation's shortest schedule
//! ([`shorten`](crate::explore::shorten)): ending an execution changes none of the choices of the
//! others, so a guided execution's token is a plain `pb-dfs` token and replays without the guide.

use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::strategy::pb_dfs::PbDfs;
use crate::explore::strategy::{Point, SchedulingStrategy};
use crate::model::history::Event;
use crate::model::replay_token::Phase;

/// [`PbDfs`] that ends every execution whose events leave `target`'s.
#[derive(Debug)]
pub(crate) struct Guided {
    inner: PbDfs,
    target: Vec<Event>,
    /// The events of the execution in progress found to be a prefix of `target`'s so far.
    matched: usize,
}

impl Guided {
    /// `inner`, guided towards the history whose events are `target`.
    pub fn new(inner: PbDfs, target: Vec<Event>) -> Self {
        Self {
            inner,
            target,
            matched: 0,
        }
    }
}

impl SchedulingStrategy for Guided {
    fn begin_execution(&mut self) {
        self.matched = 0;
        self.inner.begin_execution();
    }

    fn keeps_current(&self) -> bool {
        self.inner.keeps_current()
    }

    fn pick(&mut self, point: &Point<'_>, tree: &mut DecisionTree) -> Result<usize, Divergence> {
        self.inner.pick(point, tree)
    }

    fn pick_value(&mut self, options: usize, tree: &mut DecisionTree) -> Result<usize, Divergence> {
        self.inner.pick_value(options, tree)
    }

    fn advance(&mut self, tree: &mut DecisionTree) -> bool {
        self.inner.advance(tree)
    }

    fn token(&self, tree: &DecisionTree, by_index: &[u32]) -> (Phase, Vec<u32>) {
        self.inner.token(tree, by_index)
    }

    fn abandons(&mut self, events: &[Event]) -> bool {
        let fits =
            events.len() <= self.target.len() && events[self.matched..] == self.target[self.matched..events.len()];
        if fits {
            self.matched = events.len();
        }
        !fits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guided(target: Vec<Event>) -> Guided {
        Guided::new(PbDfs::new(2, 1, false), target)
    }

    #[test]
    fn an_execution_is_ended_once_its_events_leave_the_target() {
        let target = vec![Event::Call(1), Event::Call(2), Event::Return(1), Event::Return(2)];
        let mut g = guided(target.clone());
        g.begin_execution();
        assert!(!g.abandons(&[]));
        assert!(!g.abandons(&target[..1]));
        assert!(!g.abandons(&target[..3]));
        assert!(!g.abandons(&target));
        // One event more than the target has.
        assert!(g.abandons(&[target.clone(), vec![Event::Call(3)]].concat()));
        // A new execution starts matching from the beginning.
        g.begin_execution();
        assert!(!g.abandons(&target[..2]));
        assert!(g.abandons(&[Event::Call(1), Event::Call(2), Event::Return(2)]));
        g.begin_execution();
        assert!(g.abandons(&[Event::Call(2)]));
    }
}

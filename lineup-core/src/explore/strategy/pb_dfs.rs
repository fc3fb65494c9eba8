//! `pb-dfs`: exhaustive preemption-bounded depth-first search, as in CHESS and the Line-Up paper.
//!
//! A thread keeps running for free; switching away from it while it could go on (inside an
//! operation, or at the gate of its next one) is a *preemption*, allowed while fewer than the
//! bound have been spent. Switches away from blocked or finished threads are free.
//!
//! **Yields are choices.** When a thread yields (`yield_now`, `lineup::hint::spin_loop`), the
//! thread that ran least recently runs next, for free (so spin-waits stay fair); while the
//! execution has spent fewer than `yield_choices` of them, any other thread that could run is an
//! option too, which a race that needs one particular thread after a yield requires. A switch
//! forced by fairness (`fair_switch_steps`) is not a choice.

use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::strategy::{Point, SchedulingStrategy};
use crate::model::replay_token::Phase;

/// Preemption-bounded DFS with a budget of choices at yields.
#[derive(Debug)]
pub(crate) struct PbDfs {
    bound: u32,
    yield_choices: u32,
    preemptions: u32,
    yields_chosen: u32,
}

impl PbDfs {
    /// At most `bound` preemptions and `yield_choices` non-fair choices at yields per execution.
    pub fn new(bound: u32, yield_choices: u32) -> Self {
        Self {
            bound,
            yield_choices,
            preemptions: 0,
            yields_chosen: 0,
        }
    }
}

impl SchedulingStrategy for PbDfs {
    fn begin_execution(&mut self) {
        self.preemptions = 0;
        self.yields_chosen = 0;
    }

    fn keeps_current(&self) -> bool {
        self.preemptions >= self.bound
    }

    fn pick(&mut self, point: &Point<'_>, tree: &mut DecisionTree) -> Result<usize, Divergence> {
        let members = point.members.len();
        let Some(current) = point.current else {
            // The current thread blocked or finished: every switch is free.
            return if members == 1 {
                Ok(0)
            } else {
                tree.choose_awake(members, point.asleep)
            };
        };
        if point.gives_way() {
            // The fair choice first, free; then, for a program yield while the budget lasts,
            // every other thread but the yielding one.
            let fair = point.least_recent.unwrap_or(current);
            if !point.yielded || self.yields_chosen >= self.yield_choices || members <= 2 {
                return Ok(fair);
            }
            let chosen = tree.choose(members - 1)?;
            if chosen == 0 {
                return Ok(fair);
            }
            self.yields_chosen += 1;
            // The (chosen - 1)-th member other than the current and the fair one.
            let others = (0..members).filter(|&i| i != current && i != fair);
            return Ok(others.into_iter().nth(chosen - 1).expect("within the options"));
        }
        // The current thread first, then (while the bound allows) every other one.
        let count = if self.preemptions < self.bound { members } else { 1 };
        // Option k runs the member at position `member(k)`; the current thread is never asleep.
        let member = |k: usize| match k {
            0 => current,
            k if k - 1 < current => k - 1,
            k => k,
        };
        let chosen = if count == 1 {
            0
        } else {
            let asleep = (1..count.min(64))
                .filter(|&k| point.is_asleep(member(k)))
                .fold(0u64, |mask, k| mask | (1 << k));
            tree.choose_awake(count, asleep)?
        };
        if chosen == 0 {
            return Ok(current);
        }
        self.preemptions += 1;
        Ok(member(chosen))
    }

    fn supports_reduction(&self) -> bool {
        true
    }

    fn advance(&mut self, tree: &mut DecisionTree) -> bool {
        tree.advance()
    }

    fn token(&self, tree: &DecisionTree, _by_index: &[u32]) -> (Phase, Vec<u32>) {
        (
            Phase::Concurrent {
                preemption_bound: self.bound,
            },
            tree.choices(),
        )
    }
}

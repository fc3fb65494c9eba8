//! `pb-dfs`: exhaustive preemption-bounded depth-first search, as in CHESS and the Line-Up paper.
//!
//! A thread keeps running for free; switching away from it while it could go on (inside an
//! operation, or at the gate of its next one) is a *preemption*, allowed while fewer than the
//! bound have been spent. Switches away from blocked or finished threads are free.
//!
//! **Yields are choices.** When a thread yields (`yield_now`, `lineup::hint::spin_loop`), the
//! thread that ran least recently runs next, for free (so spin-waits stay fair); while the
//! execution has spent fewer than `yield_choices` of them, any other thread that could run is an
//! option too, which a race that needs one particular thread after a yield requires; with
//! `yield_to_self`, so is the yielding thread itself (a spinning core re-reads its flag at once).
//! A switch forced by fairness (`fair_switch_steps`) is not a choice.
//!
//! **A spin on an unchanged value is preempted once** (`spin_pruning`): where the scheduler marks
//! the point a repeated read ([`Point::repeats_read`]), the thread goes on without a choice.

use crate::config::DEFAULT_YIELD_CHOICES;
use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::strategy::{Point, SchedulingStrategy};
use crate::model::replay_token::Phase;

/// Preemption-bounded DFS with a budget of choices at yields.
#[derive(Debug)]
pub(crate) struct PbDfs {
    bound: u32,
    yield_choices: u32,
    /// The yielding thread is an option at a yield choice.
    yield_to_self: bool,
    preemptions: u32,
    yields_chosen: u32,
}

impl PbDfs {
    /// At most `bound` preemptions and `yield_choices` non-fair choices at yields per execution
    /// (the yielding thread among the options if `yield_to_self`).
    pub fn new(bound: u32, yield_choices: u32, yield_to_self: bool) -> Self {
        Self {
            bound,
            yield_choices,
            yield_to_self,
            preemptions: 0,
            yields_chosen: 0,
        }
    }

    /// At a program yield of the member at `current`, with `fair` the free choice: the fair one
    /// first, then, while the budget lasts, every other member but the yielding one, then (with
    /// `yield_to_self`) the yielding one.
    fn at_yield(&mut self, point: &Point<'_>, current: usize, tree: &mut DecisionTree) -> Result<usize, Divergence> {
        let members = point.members.len();
        let fair = point.least_recent.unwrap_or(current);
        let self_option = self.yield_to_self && fair != current;
        let others = members - 1 - usize::from(fair != current);
        let count = 1 + others + usize::from(self_option);
        if !point.yielded || self.yields_chosen >= self.yield_choices || count == 1 {
            return Ok(fair);
        }
        let chosen = tree.choose(count)?;
        if chosen == 0 {
            return Ok(fair);
        }
        self.yields_chosen += 1;
        if chosen > others {
            return Ok(current);
        }
        // The (chosen - 1)-th member other than the current and the fair one.
        let mut rest = (0..members).filter(|&i| i != current && i != fair);
        Ok(rest.nth(chosen - 1).expect("within the options"))
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
            // The fair choice first, free; then, for a program yield while the budget lasts, the
            // other threads (and the yielding one, with `yield_to_self`).
            return self.at_yield(point, current, tree);
        }
        // The current thread first, then (while the bound allows, and unless it re-reads an
        // unchanged value) every other one.
        let count = if self.preemptions < self.bound && !point.repeats_read {
            members
        } else {
            1
        };
        // Option k runs the member at position `member(k)`; the current thread is never asleep.
        let member = |k: usize| match k {
            0 => current,
            k if k - 1 < current => k - 1,
            k => k,
        };
        let chosen = if count == 1 {
            0
        } else {
            // Nothing asleep (the reduction off, or no sleeper here): no option to look at.
            let asleep = if point.asleep == 0 {
                0
            } else {
                (1..count.min(64))
                    .filter(|&k| point.is_asleep(member(k)))
                    .fold(0u64, |mask, k| mask | (1 << k))
            };
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
        let phase = if self.yield_choices == DEFAULT_YIELD_CHOICES && !self.yield_to_self {
            Phase::Concurrent {
                preemption_bound: self.bound,
            }
        } else {
            Phase::ConcurrentYields {
                preemption_bound: self.bound,
                yield_choices: self.yield_choices,
                yield_to_self: self.yield_to_self,
            }
        };
        (phase, tree.choices())
    }
}

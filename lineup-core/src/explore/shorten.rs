//! The shortest schedule: among the executions of a matrix that reach the same history as a
//! violating one (the same stuck history, stuck the same way, for a stuck one), one with the
//! fewest preemptions, then the fewest context switches ([`ScheduleCost`]).
//!
//! The search deepens pb-dfs's preemption bound: bound 0, 1, ... up to the preemptions of the
//! schedule phase 2 found, each bound's tree explored depth-first on one worker, without the
//! partial-order reduction, [guided](crate::explore::strategy::guided) towards the target: an
//! execution whose calls and returns leave the target history's is ended at its next choice
//! point, so only the schedules that keep to the target's events are explored. At the first bound
//! where an execution reaches the target, the rest of that bound's tree is explored too, and the
//! execution of least cost (the first in depth-first order among equals) is kept; no higher bound
//! is tried. A schedule is kept only if it costs less than the one found. The search is bounded by
//! a number of executions, never by time, so its answer depends on neither the machine, the number
//! of workers nor the load; when the budget runs out, the best schedule found so far (if any) is
//! kept. The schedule kept is replayed once more, and given up unless it reaches the target again:
//! a shortened schedule always reproduces the violation.

use std::cell::RefCell;
use std::rc::Rc;

use crate::config::{Config, Reduction, Strategy};
use crate::error::CheckError;
use crate::explore::decision_tree::DecisionTree;
use crate::explore::recording::history_of;
use crate::explore::replay::{replay_execution, ReplayedExecution};
use crate::explore::run::explore;
use crate::explore::scheduler::{Control, ExecutionResult};
use crate::explore::strategy::guided::Guided;
use crate::explore::strategy::pb_dfs::PbDfs;
use crate::model::history::{History, OpTable};
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::{ReplayToken, ScheduleCost};
use crate::model::stuck_kind::StuckKind;
use crate::model::subject::Subject;

/// What the search for a shorter schedule found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shortening {
    /// The history the found schedule reaches (the caller checks it is the violation's).
    pub history: History,
    /// The found schedule's cost.
    pub found: ScheduleCost,
    /// A schedule of lower cost that reaches the same history, and its cost, if one was found.
    pub shorter: Option<(ReplayToken, ScheduleCost)>,
    /// Executions the search ran (the replays of both schedules not counted).
    pub executions: u64,
}

/// The execution a schedule must reach: its history, and how it is stuck.
#[derive(Clone, Debug)]
struct Target {
    history: History,
    stuck: Option<StuckKind>,
}

impl Target {
    /// Whether `replayed` reaches it.
    fn reached_by(&self, replayed: &ReplayedExecution) -> bool {
        !replayed.inconclusive && replayed.stuck == self.stuck && replayed.history == self.history
    }
}

/// Replays `found` (a phase-2 shuttle token) on `matrix`, then searches, within `budget`
/// executions, for a schedule of lower [`ScheduleCost`] that reaches the same history. `None` when
/// `found` does not replay to a judged execution (its schedule does not fit, or it is
/// inconclusive).
pub(crate) fn shortest_schedule<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    found: &ReplayToken,
    config: &Config,
    budget: u64,
) -> Result<Option<Shortening>, CheckError> {
    let Some(replayed) = replay_execution(subject, matrix, found, config)? else {
        return Ok(None);
    };
    if replayed.inconclusive {
        return Ok(None);
    }
    let target = Target {
        history: replayed.history,
        stuck: replayed.stuck,
    };
    let search = Search {
        subject,
        matrix,
        ops: Rc::new(subject.op_table(matrix)),
        target,
        config,
    };
    let (candidate, executions) = search.deepen(replayed.cost, budget);
    let Search { target, .. } = search;
    let shorter = match candidate {
        Some((token, cost)) if reproduces(subject, matrix, &token, &target, config) => Some((token, cost)),
        _ => None,
    };
    Ok(Some(Shortening {
        history: target.history,
        found: replayed.cost,
        shorter,
        executions,
    }))
}

/// A schedule and its cost.
type Costed = (ReplayToken, ScheduleCost);

/// The search for a cheaper schedule of one matrix that reaches one target.
struct Search<'a, O> {
    subject: &'a Subject<O>,
    matrix: &'a TestMatrix,
    /// The matrix's operations, for the histories of the executions.
    ops: Rc<OpTable>,
    target: Target,
    /// The settings the violation was found under.
    config: &'a Config,
}

impl<O: Send + Sync + 'static> Search<'_, O> {
    /// Bound after bound, up to `found`'s preemptions and while `budget` lasts: the cheapest
    /// schedule below `found` that reaches the target at the first bound that has one, and the
    /// executions run. An exploration that fails (a divergence) ends the search with what it has.
    fn deepen(&self, found: ScheduleCost, budget: u64) -> (Option<Costed>, u64) {
        let mut spent = 0;
        for bound in 0..=found.preemptions {
            if spent >= budget {
                break;
            }
            let Ok((best, executions)) = self.at_bound(bound, found, budget - spent) else {
                break;
            };
            spent += executions;
            if best.is_some() {
                return (best, spent);
            }
        }
        (None, spent)
    }

    /// Bound `bound`'s tree, guided towards the target and explored depth-first for at most
    /// `budget` executions: the cheapest schedule of cost below `below` that reaches the target
    /// (the first in depth-first order among equals), and the executions run.
    fn at_bound(&self, bound: u32, below: ScheduleCost, budget: u64) -> Result<(Option<Costed>, u64), CheckError> {
        let config = Config {
            preemption_bound: bound,
            strategy: Strategy::PbDfs,
            max_executions: Some(budget),
            reduction: Reduction::Off,
            ..self.config.clone()
        };
        let best: Rc<RefCell<Option<Costed>>> = Rc::default();
        let sink = {
            let (best, ops, target) = (Rc::clone(&best), Rc::clone(&self.ops), self.target.clone());
            move |result: ExecutionResult<'_>| {
                let mut best = best.borrow_mut();
                let to_beat = best.as_ref().map_or(below, |(_, cost)| *cost);
                if result.cost < to_beat && reaches(&result, &target, &ops) {
                    let (phase, choices) = result.token();
                    *best = Some((ReplayToken { phase, choices }, result.cost));
                }
                Control::Continue
            }
        };
        let pb_dfs = PbDfs::new(bound, config.yield_choices, config.yield_to_self);
        let strategy = Box::new(Guided::new(pb_dfs, self.target.history.events().to_vec()));
        let tree = DecisionTree::new();
        let totals = explore(self.subject, self.matrix, tree, Some(strategy), None, &config, sink)?;
        let best = best.borrow_mut().take();
        Ok((best, totals.executions))
    }
}

/// Whether the execution that just ended reaches `target`.
fn reaches(result: &ExecutionResult<'_>, target: &Target, ops: &OpTable) -> bool {
    !result.inconclusive && result.stuck == target.stuck && history_of(result.trace, ops) == target.history
}

/// Whether `token`, replayed, reaches `target` (the last check before a schedule is shown).
fn reproduces<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    token: &ReplayToken,
    target: &Target,
    config: &Config,
) -> bool {
    matches!(replay_execution(subject, matrix, token, config), Ok(Some(replayed)) if target.reached_by(&replayed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::history::{op_table, Event};
    use crate::model::invocation::InvocationLabel;
    use crate::model::response::Response;

    /// `inc() | get()` with the events given, `get` returning `got`.
    fn history(events: Vec<Event>, got: u64) -> History {
        let matrix = TestMatrix::new(vec![vec![0], vec![1]]);
        let labels = vec![InvocationLabel::new("inc", vec![]), InvocationLabel::new("get", vec![])];
        let responses = vec![Some(Response::returned(&())), Some(Response::returned(&got))];
        History::new(op_table(&matrix, &labels), events, responses, false).unwrap()
    }

    fn replayed(history: History, stuck: Option<StuckKind>, inconclusive: bool) -> ReplayedExecution {
        ReplayedExecution {
            history,
            stuck,
            inconclusive,
            cost: ScheduleCost::default(),
        }
    }

    #[test]
    fn only_the_same_history_stuck_the_same_way_reaches_the_target() {
        let overlapping = vec![Event::Call(1), Event::Call(2), Event::Return(1), Event::Return(2)];
        let serial = vec![Event::Call(1), Event::Return(1), Event::Call(2), Event::Return(2)];
        let target = Target {
            history: history(overlapping.clone(), 0),
            stuck: None,
        };
        assert!(target.reached_by(&replayed(history(overlapping.clone(), 0), None, false)));
        // Another interleaving of the same results, another result, stuck, inconclusive: no.
        assert!(!target.reached_by(&replayed(history(serial, 0), None, false)));
        assert!(!target.reached_by(&replayed(history(overlapping.clone(), 1), None, false)));
        let stuck = Some(StuckKind::Deadlock);
        assert!(!target.reached_by(&replayed(history(overlapping.clone(), 0), stuck, false)));
        assert!(!target.reached_by(&replayed(history(overlapping, 0), None, true)));
    }
}

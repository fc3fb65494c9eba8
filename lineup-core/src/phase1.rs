//! Phase 1: enumerate every serial execution of a matrix and synthesize the specification.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use crate::decision_tree::DecisionTree;
use crate::explore::explore;
use crate::scheduler::{Control, Mode};
use crate::{
    find_nondeterminism, op_table, CheckError, Config, History, Nondeterminism, ObservationSet, Phase, ReplayToken,
    Subject, TestMatrix,
};

/// The result of phase 1.
#[derive(Clone, Debug)]
pub struct Synthesis {
    /// Every distinct full and stuck serial history, grouped.
    pub spec: ObservationSet,
    /// Two serial histories that prove nondeterminism, with the replay token of the second.
    pub nondeterminism: Option<(Nondeterminism, ReplayToken)>,
    /// Serial executions run.
    pub executions: u64,
    /// Time taken.
    pub elapsed: Duration,
}

/// Runs phase 1 of `Check(X, m)`: every serial execution of `matrix` (no preemption inside an
/// operation; every order of operations; never bounded), recording full and stuck serial
/// histories, then the determinism check of §2.3 over all of them.
pub fn synthesize_spec<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
) -> Result<Synthesis, CheckError> {
    subject.validate(matrix)?;
    let ops = op_table(matrix, &subject.labels());
    let found: Rc<RefCell<(ObservationSet, HashMap<History, Vec<u32>>)>> =
        Rc::new(RefCell::new((ObservationSet::new(ops.clone()), HashMap::new())));
    let sink_found = Rc::clone(&found);
    let explored = explore(
        subject,
        matrix,
        Mode::Serial,
        DecisionTree::new(),
        config,
        move |result| {
            let history = History::from_recording(ops.clone(), result.events, result.responses, result.stuck.is_some());
            let (spec, schedules) = &mut *sink_found.borrow_mut();
            if !schedules.contains_key(&history) {
                schedules.insert(history.clone(), result.schedule);
                spec.insert(history);
            }
            Control::Continue
        },
    )?;
    let (spec, schedules) = Rc::try_unwrap(found)
        .map_err(|_| ())
        .expect("exploration finished")
        .into_inner();
    let nondeterminism = find_nondeterminism(spec.histories()).map(|n| {
        let token = ReplayToken {
            phase: Phase::Serial,
            choices: schedules[&n.second].clone(),
        };
        (n, token)
    });
    Ok(Synthesis {
        spec,
        nondeterminism,
        executions: explored.executions,
        elapsed: explored.elapsed,
    })
}

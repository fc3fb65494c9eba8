//! Phase 1: enumerate every serial execution of a matrix and synthesize the specification.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap};

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
    // Schedules by history hash: only for the replay token of a nondeterminism report.
    let found: Rc<RefCell<(ObservationSet, FxHashMap<u64, Vec<u32>>)>> =
        Rc::new(RefCell::new((ObservationSet::new(ops.clone()), FxHashMap::default())));
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
            let hash = FxBuildHasher.hash_one(&history);
            if spec.insert_hashed(history, hash) {
                schedules.entry(hash).or_insert(result.schedule);
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
            choices: schedules[&FxBuildHasher.hash_one(&n.second)].clone(),
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

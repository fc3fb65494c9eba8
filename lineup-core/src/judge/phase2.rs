//! Phase 2: explore preemption-bounded concurrent schedules and check every history against
//! the specification synthesized in phase 1.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::error::CheckError;
use crate::explore::decision_tree::DecisionTree;
use crate::explore::recording;
use crate::explore::run::explore;
use crate::explore::scheduler::{Control, Mode, StuckKind};
use crate::explore::trace_set::TraceFingerprints;
use crate::judge::full_spec_index::FullSpecIndex;
use crate::judge::verdict::ViolationKind;
use crate::model::history::History;
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::Phase;
use crate::model::replay_token::ReplayToken;
use crate::model::subject::Subject;
use crate::spec::observation::ObservationSet;

/// The result of phase 2.
#[derive(Clone, Debug)]
pub(crate) struct Exploration2 {
    pub violation: Option<(ViolationKind, ReplayToken)>,
    pub executions: u64,
    pub distinct: usize,
    pub stuck: usize,
    /// Executions stopped at the step limit (or loom's branch limit) without a verdict.
    pub inconclusive: u64,
    /// Under loom: stuck executions after which the exploration resumed from a stored path.
    pub resumed: usize,
    pub elapsed: Duration,
    /// What the loom backend knows about the violating execution.
    pub loom: Option<crate::judge::verdict::LoomEvidence>,
}

/// Judges one history of the matrix against the specification: `None` if it is linearizable
/// (Def. 1 for a full history; Def. 2 for a stuck one when `check_stuck`, else Def. 1 on its
/// completed part).
pub(crate) fn judge(
    spec: &ObservationSet,
    history: &History,
    stuck: Option<StuckKind>,
    check_stuck: bool,
) -> Option<ViolationKind> {
    match stuck {
        None => spec
            .full_witness(history)
            .is_none()
            .then(|| ViolationKind::NotLinearizable {
                history: history.clone(),
                group: spec.group_of(history).cloned(),
            }),
        Some(kind) if check_stuck => spec.unjustified_pending_op(history).map(|e| {
            let h_e = history.restricted_to_pending(e);
            ViolationKind::StuckNotLinearizable {
                history: history.clone(),
                stuck: kind,
                pending_op: e,
                group: spec.group_of(&h_e).cloned(),
            }
        }),
        Some(_) => spec.witness(history).is_none().then(|| ViolationKind::NotLinearizable {
            history: history.clone(),
            group: None,
        }),
    }
}

/// Explores the concurrent schedules chosen by `tree` and judges every distinct history, until
/// the first violation.
pub(crate) fn check_concurrent<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: Arc<ObservationSet>,
    config: &Config,
    tree: DecisionTree,
) -> Result<Exploration2, CheckError> {
    #[cfg(loom)]
    return {
        let _ = tree;
        crate::loom_backend::check_concurrent(subject, matrix, spec, config)
    };
    #[cfg(not(loom))]
    check_concurrent_on_shuttle(subject, matrix, spec, config, tree)
}

#[cfg_attr(loom, allow(dead_code))]
fn check_concurrent_on_shuttle<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: Arc<ObservationSet>,
    config: &Config,
    tree: DecisionTree,
) -> Result<Exploration2, CheckError> {
    struct Found {
        seen: TraceFingerprints,
        full_index: Option<FullSpecIndex>,
        stuck: usize,
        inconclusive: u64,
        violation: Option<(ViolationKind, ReplayToken)>,
    }
    let found = Rc::new(RefCell::new(Found {
        seen: TraceFingerprints::default(),
        full_index: None,
        stuck: 0,
        inconclusive: 0,
        violation: None,
    }));
    let sink_found = Rc::clone(&found);
    let ops = spec.ops().clone();
    let check_stuck = config.check_stuck;
    let preemption_bound = config.preemption_bound;
    let mode = Mode::Preemptive {
        bound: preemption_bound,
    };
    let explored = explore(subject, matrix, mode, tree, config, move |result| {
        let found = &mut *sink_found.borrow_mut();
        if result.inconclusive {
            found.inconclusive += 1;
            return Control::Continue;
        }
        if found.seen.contains(result.trace) {
            return Control::Continue;
        }
        if result.stuck.is_none() {
            // Fast path: a full history with a witness is judged on its trace alone. (Built on
            // first use: responses are interned per exploration.)
            let index = found
                .full_index
                .get_or_insert_with(|| recording::with(|r| FullSpecIndex::new(&spec, &mut r.interner)));
            if index.has_witness(result.trace.events, result.trace.responses) {
                found.seen.insert(result.trace);
                return Control::Continue;
            }
        }
        let history = result.trace.history(&ops);
        let verdict = judge(&spec, &history, result.stuck, check_stuck);
        found.stuck += usize::from(history.is_stuck());
        let schedule = verdict.is_some().then(|| result.schedule());
        found.seen.insert(result.trace);
        match verdict {
            None => Control::Continue,
            Some(kind) => {
                found.violation = Some((
                    kind,
                    ReplayToken {
                        phase: Phase::Concurrent { preemption_bound },
                        choices: schedule.unwrap_or_default(),
                    },
                ));
                Control::Stop
            }
        }
    })?;
    let found = Rc::try_unwrap(found)
        .map_err(|_| ())
        .expect("exploration finished")
        .into_inner();
    Ok(Exploration2 {
        violation: found.violation,
        executions: explored.executions,
        distinct: found.seen.len(),
        stuck: found.stuck,
        inconclusive: found.inconclusive,
        resumed: 0,
        elapsed: explored.elapsed,
        loom: None,
    })
}

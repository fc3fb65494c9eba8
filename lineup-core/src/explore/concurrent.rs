//! Phase 2 on the shuttle backend: preemption-bounded concurrent executions, each distinct
//! history judged against the specification.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::config::Config;
use crate::error::CheckError;
use crate::explore::decision_tree::DecisionTree;
use crate::explore::recording;
use crate::explore::recording::history_of;
use crate::explore::run::explore;
use crate::explore::scheduler::{Control, Mode};
use crate::explore::trace_set::TraceFingerprints;
use crate::judge::full_spec_index::FullSpecIndex;
use crate::judge::history_judge::judge;
use crate::judge::phase2_outcome::Exploration2;
use crate::judge::verdict::ViolationKind;
use crate::memory_limit::{serial_history_bytes, MemoryBudget};
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::Phase;
use crate::model::replay_token::ReplayToken;
use crate::model::subject::Subject;
use crate::spec::observation::ObservationSet;

/// Phase 2 on shuttle: explores the concurrent schedules chosen by `tree` and judges every distinct history, until
/// the first violation.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn concurrent_executions<O: Send + Sync + 'static>(
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
        budget: MemoryBudget,
        /// The budget and what was held when the fingerprints went past it.
        memory: Option<(u64, u64)>,
    }
    let found = Rc::new(RefCell::new(Found {
        seen: TraceFingerprints::default(),
        full_index: None,
        stuck: 0,
        inconclusive: 0,
        violation: None,
        budget: MemoryBudget::new(config.max_memory),
        memory: None,
    }));
    let sink_found = Rc::clone(&found);
    let ops = spec.ops().clone();
    // The specification is held through phase 2, as phase 1 counted it.
    let spec_bytes: u64 = spec
        .histories()
        .map(|h| serial_history_bytes(h.events().len(), ops.len()))
        .sum();
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
        // A new distinct history: its fingerprint will be held until the end, with the spec.
        let held = spec_bytes + (found.seen.len() as u64 + 1) * FINGERPRINT_BYTES;
        if found.budget.exceeded(held) {
            found.memory = Some((found.budget.limit(), held));
            return Control::Stop;
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
        let history = history_of(result.trace, &ops);
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
    if let Some((limit, held)) = found.memory {
        return Err(CheckError::MemoryLimit {
            phase: "phase 2 (concurrent executions)",
            limit,
            held,
            executions: explored.executions,
        });
    }
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

/// About what one fingerprint holds in phase 2's set: 16 bytes in a hash table kept at most 7/8
/// full, which doubles as it grows (up to twice that while it does), with its control byte.
const FINGERPRINT_BYTES: u64 = 40;

//! Phase 1 on the shuttle backend: every serial execution of a matrix.

use std::cell::RefCell;
use std::rc::Rc;

use crate::config::Config;
use crate::error::CheckError;
use crate::explore::decision_tree::DecisionTree;
use crate::explore::recording::history_of;
use crate::explore::run::explore;
use crate::explore::scheduler::{Control, Mode};
use crate::explore::trace_set::TraceSet;
use crate::memory_limit::{serial_history_bytes, MemoryBudget};
use crate::model::history::op_table;
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::Phase;
use crate::model::replay_token::ReplayToken;
use crate::model::subject::Subject;
use crate::model::trace::Trace;
use crate::spec::determinism::DeterminismWatch;
use crate::spec::determinism::Nondeterminism;
use crate::spec::observation::ObservationSet;
use crate::spec::synthesis::Synthesis;

/// Phase 1 on shuttle: every serial execution of `matrix` (no preemption inside an operation;
/// every order of operations; never bounded), recording full and stuck serial histories, then the
/// determinism check of §2.3 over all of them.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn serial_executions<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
) -> Result<Synthesis, CheckError> {
    subject.validate(matrix)?;
    let ops = op_table(matrix, &subject.labels());
    // Every distinct execution with its schedule (for the replay token of a nondeterminism
    // report); executions are deduplicated on their interned traces, before histories are built.
    let found: Rc<RefCell<(ObservationSet, TraceSet<Vec<u32>>)>> =
        Rc::new(RefCell::new((ObservationSet::new(ops.clone()), TraceSet::default())));
    // The determinism check of §2.3 as traces arrive: phase 1 stops at its proof, the first pair
    // of distinct serial executions that agree up to a call and then differ (trace indices in
    // `found`'s set, and the operation).
    let mut watch = DeterminismWatch::new(subject.tolerated_ops(matrix));
    let proof: Rc<RefCell<Option<(usize, usize, usize)>>> = Rc::default();
    let sink_proof = Rc::clone(&proof);
    // What the distinct traces and their histories hold, against the memory budget.
    let mut budget = MemoryBudget::new(config.max_memory);
    let memory: Rc<RefCell<Option<(u64, u64)>>> = Rc::default();
    let sink_memory = Rc::clone(&memory);
    let mut held = 0u64;
    let sink_found = Rc::clone(&found);
    let sink_ops = ops.clone();
    let step_limit: Rc<RefCell<Option<Vec<u32>>>> = Rc::default();
    let sink_step_limit = Rc::clone(&step_limit);
    let explored = explore(
        subject,
        matrix,
        Mode::Serial,
        DecisionTree::new(),
        config,
        move |result| {
            if result.inconclusive {
                *sink_step_limit.borrow_mut() = Some(result.schedule());
                return Control::Stop;
            }
            let (spec, schedules) = &mut *sink_found.borrow_mut();
            if schedules.insert(result.trace, result.schedule()) {
                spec.insert_new(history_of(result.trace, &sink_ops));
                let index = schedules.len() - 1;
                held += serial_history_bytes(result.trace.events.len(), result.trace.responses.len());
                if budget.exceeded(held) {
                    *sink_memory.borrow_mut() = Some((budget.limit(), held));
                    return Control::Stop;
                }
                if let Some((first, op)) = watch.insert(index, result.trace) {
                    *sink_proof.borrow_mut() = Some((first, index, op));
                    return Control::Stop;
                }
            }
            Control::Continue
        },
    )?;
    if let Some(schedule) = step_limit.take() {
        return Err(CheckError::StepLimit {
            phase: "phase 1 (serial executions)",
            limit: format!("Config::max_steps = {}", config.max_steps),
            execution: format!("with schedule {schedule:?}"),
        });
    }
    let (spec, schedules) = Rc::try_unwrap(found)
        .map_err(|_| ())
        .expect("exploration finished")
        .into_inner();
    if let Some((limit, held)) = memory.take() {
        return Err(CheckError::MemoryLimit {
            phase: "phase 1 (serial executions)",
            limit,
            held,
            executions: explored.executions,
        });
    }
    let proof = proof.take();
    let nondeterminism = proof.map(|(first, second, op)| {
        let entries: Vec<&(Trace, Vec<u32>)> = schedules.iter().collect();
        // Resolved in this exploration's interner, which stays until the next exploration.
        let nondeterminism = Nondeterminism {
            op,
            first: history_of(entries[first].0.as_ref(), &ops),
            second: history_of(entries[second].0.as_ref(), &ops),
        };
        (
            nondeterminism,
            ReplayToken {
                phase: Phase::Serial,
                choices: entries[second].1.clone(),
            },
        )
    });
    Ok(Synthesis {
        spec,
        nondeterminism,
        executions: explored.executions,
        elapsed: explored.elapsed,
    })
}

//! Phase 1 on the shuttle backend: every serial execution of a matrix.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::config::Config;
use crate::error::CheckError;
use crate::explore::decision_tree::DecisionTree;
use crate::explore::recording;
use crate::explore::run::explore;
use crate::explore::scheduler::Control;
use crate::explore::split::{on_workers, worker_count};
use crate::explore::trace_set::TraceSet;
use crate::memory_limit::{serial_history_bytes, MemoryBudget};
use crate::model::history::{op_table, History};
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::Phase;
use crate::model::replay_token::ReplayToken;
use crate::model::subject::Subject;
use crate::model::trace::{ResponseInterner, Trace, TraceRef};
use crate::spec::determinism::DeterminismWatch;
use crate::spec::determinism::Nondeterminism;
use crate::spec::observation::ObservationSet;
use crate::spec::synthesis::Synthesis;

/// Phase 1 on shuttle: every serial execution of `matrix` (no preemption inside an operation;
/// every order of operations; never bounded), recording full and stuck serial histories, with the
/// determinism check of §2.3 as they arrive: phase 1 stops at its proof of nondeterminism, the
/// first pair in depth-first order. [`Config::workers`] OS threads share the tree by prefix
/// ([`split`](crate::explore::split)); the specification, and the proof reported, do not depend
/// on their number.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn serial_executions<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
) -> Result<Synthesis, CheckError> {
    subject.validate(matrix)?;
    let ops = op_table(matrix, &subject.labels());
    let tolerated = subject.tolerated_ops(matrix);
    let shared = Arc::new(Mutex::new(SerialTraces {
        interner: ResponseInterner::default(),
        traces: TraceSet::default(),
        watch: DeterminismWatch::new(tolerated.clone()),
        proof: false,
        budget: MemoryBudget::new(config.max_memory),
        held: 0,
        memory: None,
    }));
    let start = Instant::now();
    let results = on_workers(worker_count(config.workers), DecisionTree::new(), |tree, split| {
        let step_limit: Rc<RefCell<Option<Vec<u32>>>> = Rc::default();
        let sink_step_limit = Rc::clone(&step_limit);
        let queue = split.cloned();
        let shared = Arc::clone(&shared);
        // This worker's response numbers, in the shared interner.
        let mut numbers: Vec<Option<u32>> = Vec::new();
        let mut responses: Vec<Option<u32>> = Vec::new();
        let explored = explore(subject, matrix, tree, None, split, config, move |result| {
            let schedule = result.schedule();
            if result.inconclusive {
                *sink_step_limit.borrow_mut() = Some(schedule);
                if let Some(queue) = &queue {
                    queue.abort();
                }
                return Control::Stop;
            }
            let mut shared = shared.lock().unwrap_or_else(|e| e.into_inner());
            let shared = &mut *shared;
            responses.clear();
            recording::with(|r| {
                for response in result.trace.responses {
                    responses.push(response.map(|id| {
                        let id = id as usize;
                        if numbers.len() <= id {
                            numbers.resize(id + 1, None);
                        }
                        *numbers[id].get_or_insert_with(|| shared.interner.intern(r.interner.value(id as u32)))
                    }));
                }
            });
            let trace = TraceRef {
                events: result.trace.events,
                responses: &responses,
                stuck: result.trace.stuck,
            };
            // Every distinct execution with its first schedule in depth-first order: executions
            // are deduplicated on their interned traces, before histories are built.
            let Some(index) = shared.traces.insert_keeping_least(trace, schedule) else {
                return Control::Continue;
            };
            shared.held += serial_history_bytes(trace.events.len(), trace.responses.len());
            if shared.budget.exceeded(shared.held) {
                shared.memory = Some((shared.budget.limit(), shared.held));
                if let Some(queue) = &queue {
                    queue.abort();
                }
                return Control::Stop;
            }
            // The determinism check as traces arrive: a pair that proves nondeterminism ends the
            // exploration of every execution after the later of the two.
            if let Some((first, _)) = shared.watch.insert(index, trace) {
                shared.proof = true;
                if let Some(queue) = &queue {
                    let later = shared
                        .traces
                        .value(first)
                        .clone()
                        .max(shared.traces.value(index).clone());
                    queue.found(later);
                }
                return Control::Stop;
            }
            Control::Continue
        })?;
        let step_limit = step_limit.take();
        Ok((explored.executions, step_limit, explored.redundant))
    })?;
    let elapsed = start.elapsed();
    let executions = results.iter().map(|r| r.0).sum();
    let redundant = results.iter().map(|r| r.2).sum();
    if let Some(schedule) = results.into_iter().filter_map(|r| r.1).min() {
        return Err(CheckError::StepLimit {
            phase: "phase 1 (serial executions)",
            limit: format!("Config::max_steps = {}", config.max_steps),
            execution: format!("with schedule {schedule:?}"),
        });
    }
    let shared = Arc::try_unwrap(shared)
        .map_err(|_| ())
        .expect("the workers are done")
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((limit, held)) = shared.memory {
        return Err(CheckError::MemoryLimit {
            phase: "phase 1 (serial executions)",
            limit,
            held,
            executions,
        });
    }
    // The distinct serial histories in depth-first order of their first schedules: what one
    // worker alone meets, in the order it meets them (workers met them in another order).
    let mut entries = shared.traces.into_entries();
    entries.sort_by(|a, b| a.1.cmp(&b.1));
    let to_history = |trace: &Trace| {
        let responses = shared.interner.resolve(&trace.responses);
        History::from_recording(ops.clone(), trace.events.clone(), responses, trace.stuck)
    };
    let mut nondeterminism = None;
    let mut spec = ObservationSet::new(ops.clone());
    if shared.proof {
        // The first proof in depth-first order, and the specification up to it.
        let mut watch = DeterminismWatch::new(tolerated);
        for (index, (trace, schedule)) in entries.iter().enumerate() {
            spec.insert_new(to_history(trace));
            if let Some((first, op)) = watch.insert(index, trace.as_ref()) {
                let proof = Nondeterminism {
                    op,
                    first: to_history(&entries[first].0),
                    second: to_history(trace),
                };
                let token = ReplayToken {
                    phase: Phase::Serial,
                    choices: schedule.clone(),
                };
                nondeterminism = Some((proof, token));
                break;
            }
        }
        assert!(nondeterminism.is_some(), "a proof among the executions before it");
    } else {
        for (trace, _) in &entries {
            spec.insert_new(to_history(trace));
        }
    }
    Ok(Synthesis {
        spec,
        nondeterminism,
        executions,
        redundant,
        elapsed,
    })
}

/// Phase 1's distinct serial traces, shared by its workers: numbered by one interner, each with
/// its first schedule in depth-first order, checked for determinism as they arrive.
struct SerialTraces {
    interner: ResponseInterner,
    traces: TraceSet<Vec<u32>>,
    watch: DeterminismWatch,
    /// The watch found a pair that proves nondeterminism.
    proof: bool,
    budget: MemoryBudget,
    /// What the traces and their histories hold, by estimate.
    held: u64,
    /// The budget and what was held when the traces went past it.
    memory: Option<(u64, u64)>,
}

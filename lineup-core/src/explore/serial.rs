//! Phase 1 on the shuttle backend: every serial execution of a matrix.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::config::Config;
use crate::error::CheckError;
use crate::explore::decision_tree::DecisionTree;
use crate::explore::recording::history_of;
use crate::explore::run::explore;
use crate::explore::scheduler::{Control, Mode};
use crate::explore::split::{on_workers, worker_count};
use crate::explore::trace_set::TraceSet;
use crate::memory_limit::{serial_history_bytes, MemoryBudget};
use crate::model::history::{op_table, History};
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::Phase;
use crate::model::replay_token::ReplayToken;
use crate::model::subject::Subject;
use crate::model::trace::{ResponseInterner, TraceRef};
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
    // What the distinct traces of every worker hold, against the memory budget.
    let held = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let results = on_workers(worker_count(config.workers), DecisionTree::new(), |tree, split| {
        let found = Rc::new(RefCell::new(Found {
            // Every distinct execution with its schedule (the first in depth-first order):
            // executions are deduplicated on their interned traces, before histories are built.
            traces: TraceSet::default(),
            // The determinism check as this worker's traces arrive: the worker stops at a proof.
            watch: DeterminismWatch::new(tolerated.clone()),
            budget: MemoryBudget::new(config.max_memory),
            memory: None,
            step_limit: None,
        }));
        let sink_found = Rc::clone(&found);
        let queue = split.cloned();
        let held = Arc::clone(&held);
        let explored = explore(subject, matrix, Mode::Serial, tree, split, config, move |result| {
            let found = &mut *sink_found.borrow_mut();
            let schedule = result.schedule();
            if result.inconclusive {
                found.step_limit = Some(schedule);
                if let Some(queue) = &queue {
                    queue.abort();
                }
                return Control::Stop;
            }
            let Some(index) = found.traces.insert_keeping_least(result.trace, schedule) else {
                return Control::Continue;
            };
            let bytes = serial_history_bytes(result.trace.events.len(), result.trace.responses.len());
            let total = held.fetch_add(bytes, Ordering::Relaxed) + bytes;
            if found.budget.exceeded(total) {
                found.memory = Some((found.budget.limit(), total));
                if let Some(queue) = &queue {
                    queue.abort();
                }
                return Control::Stop;
            }
            if let Some((first, _)) = found.watch.insert(index, result.trace) {
                // Nondeterminism is proved by executions up to the later of the two: the first
                // proof in depth-first order comes no later.
                if let Some(queue) = &queue {
                    let later = found.traces.value(first).clone().max(found.traces.value(index).clone());
                    queue.found(later);
                }
                return Control::Stop;
            }
            Control::Continue
        })?;
        let found = Rc::try_unwrap(found)
            .map_err(|_| ())
            .expect("exploration finished")
            .into_inner();
        // Histories hold their responses' values, which this worker's interner numbers.
        let histories: Vec<(Vec<u32>, History)> = found
            .traces
            .into_entries()
            .into_iter()
            .map(|(trace, schedule)| (schedule, history_of(trace.as_ref(), &ops)))
            .collect();
        Ok(WorkerOutcome {
            histories,
            memory: found.memory,
            step_limit: found.step_limit,
            executions: explored.executions,
        })
    })?;
    let elapsed = start.elapsed();
    let executions = results.iter().map(|r| r.executions).sum();
    if let Some(schedule) = results.iter().filter_map(|r| r.step_limit.clone()).min() {
        return Err(CheckError::StepLimit {
            phase: "phase 1 (serial executions)",
            limit: format!("Config::max_steps = {}", config.max_steps),
            execution: format!("with schedule {schedule:?}"),
        });
    }
    if let Some((limit, held)) = results.iter().find_map(|r| r.memory) {
        return Err(CheckError::MemoryLimit {
            phase: "phase 1 (serial executions)",
            limit,
            held,
            executions,
        });
    }
    // Every distinct serial history once, at its first schedule in depth-first order, in that
    // order: what one worker alone would have met, in the order it would have met it.
    let mut merged: Vec<(Vec<u32>, History)> = results.into_iter().flat_map(|r| r.histories).collect();
    merged.sort_by(|a, b| a.0.cmp(&b.0));
    let mut interner = ResponseInterner::default();
    let mut distinct: TraceSet<usize> = TraceSet::default();
    let mut watch = DeterminismWatch::new(tolerated);
    let mut spec = ObservationSet::new(ops);
    let mut proof = None;
    for (position, (_, history)) in merged.iter().enumerate() {
        let responses: Vec<Option<u32>> = history
            .responses()
            .iter()
            .map(|r| r.as_ref().map(|r| interner.intern(r)))
            .collect();
        let trace = TraceRef {
            events: history.events(),
            responses: &responses,
            stuck: history.is_stuck(),
        };
        // Workers exploring different subtrees may have met the same history.
        let Some(index) = distinct.insert_keeping_least(trace, position) else {
            continue;
        };
        spec.insert_new(history.clone());
        if let Some((first, op)) = watch.insert(index, trace) {
            proof = Some((*distinct.value(first), position, op));
            break;
        }
    }
    let nondeterminism = proof.map(|(first, second, op)| {
        (
            Nondeterminism {
                op,
                first: merged[first].1.clone(),
                second: merged[second].1.clone(),
            },
            ReplayToken {
                phase: Phase::Serial,
                choices: merged[second].0.clone(),
            },
        )
    });
    Ok(Synthesis {
        spec,
        nondeterminism,
        executions,
        elapsed,
    })
}

/// What one worker of phase 1 holds while it explores.
struct Found {
    traces: TraceSet<Vec<u32>>,
    watch: DeterminismWatch,
    budget: MemoryBudget,
    memory: Option<(u64, u64)>,
    step_limit: Option<Vec<u32>>,
}

/// What one worker of phase 1 found: its distinct serial histories with their first schedules.
struct WorkerOutcome {
    histories: Vec<(Vec<u32>, History)>,
    memory: Option<(u64, u64)>,
    step_limit: Option<Vec<u32>>,
    executions: u64,
}

//! Phase 1 on the shuttle backend: every serial execution of a matrix.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::config::Config;
use crate::config::Reduction;
use crate::error::CheckError;
use crate::explore::decision_tree::DecisionTree;
use crate::explore::recording;
use crate::explore::run::{explore, has_threads_of_its_own};
use crate::explore::scheduler::Control;
use crate::explore::split::{abort_shared, on_workers, worker_count, SplitQueue};
use crate::explore::trace_set::TraceSet;
use crate::memory_limit::{serial_history_bytes, MemoryBudget};
use crate::model::history::{History, OpTable};
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
    let ops = subject.op_table(matrix);
    let tolerated = subject.tolerated_ops(matrix);
    let shared = Arc::new(Mutex::new(SerialTraces {
        interner: ResponseInterner::default(),
        traces: TraceSet::default(),
        watch: DeterminismWatch::new(tolerated.clone()),
        proof: false,
        budget: MemoryBudget::new(config.max_memory),
        held: 0,
        memory: None,
        unfinished: false,
    }));
    let start = Instant::now();
    let deadline = config.max_duration.map(|limit| start + limit);
    let results = on_workers(worker_count(config.workers), DecisionTree::new(), |tree, split| {
        explore_on_worker(subject, matrix, config, tree, split, &shared, deadline)
    })?;
    let elapsed = start.elapsed();
    let executions = results.iter().map(|r| r.executions).sum();
    let redundant = results.iter().map(|r| r.redundant).sum();
    if let Some(schedule) = results.into_iter().filter_map(|r| r.step_limit).min() {
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
    if shared.unfinished && !shared.proof {
        return Err(CheckError::Unfinished {
            limit: config.max_duration.unwrap_or_default(),
            executions,
            histories: shared.traces.count(),
            cause: unfinished_cause(subject, matrix, config),
        });
    }
    let (spec, nondeterminism) = shared.into_spec(ops, tolerated);
    Ok(Synthesis {
        spec,
        nondeterminism,
        executions,
        redundant,
        elapsed,
    })
}

/// What lineup can tell about a phase 1 that did not finish, and what to do about it.
fn unfinished_cause<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix, config: &Config) -> String {
    let advice = "Check a smaller matrix, or give the test more time (LINEUP_TIME_BUDGET, `time_budget`).";
    if !has_threads_of_its_own(subject, matrix, config) {
        return format!(
            "The object has no threads of its own, so its serial executions branch only between operations: \
             each execution is long, or its operations spawn threads that interleave. {advice}"
        );
    }
    let reduction = match config.reduction {
        Reduction::Off => "the partial-order reduction is off (`Config::reduction`); turn it on",
        _ => {
            "their steps are seen by the partial-order reduction through lineup::sync's primitives and, of \
             shuttle's own used directly (`lineup::shuttle::sync`), through its Mutex, Condvar, RwLock, Barrier \
             and Once only (a step of shuttle's atomics, channels, thread spawn and join, or of shuttle-tokio, \
             depends on every other step, so every interleaving of the threads around it is a serial execution \
             of its own): build the object on lineup::sync"
        }
    };
    format!(
        "The object runs threads of its own, which interleave with every operation in phase 1; {reduction}. {advice}"
    )
}

/// What one worker of phase 1 explored.
struct WorkerTotals {
    executions: u64,
    redundant: u64,
    /// The schedule of an execution that reached the step limit, if one did.
    step_limit: Option<Vec<u32>>,
}

/// One worker of phase 1: explores `tree` (shared through `split`, if any), handing every
/// execution to the traces shared by the workers.
fn explore_on_worker<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    tree: DecisionTree,
    split: Option<&Arc<SplitQueue>>,
    shared: &Arc<Mutex<SerialTraces>>,
    deadline: Option<Instant>,
) -> Result<WorkerTotals, CheckError> {
    let step_limit: Rc<RefCell<Option<Vec<u32>>>> = Rc::default();
    let sink_step_limit = Rc::clone(&step_limit);
    let queue = split.cloned();
    let shared = Arc::clone(shared);
    // This worker's response numbers, in the shared interner.
    let mut numbers: Vec<Option<u32>> = Vec::new();
    let mut responses: Vec<Option<u32>> = Vec::new();
    let explored = explore(subject, matrix, tree, None, split, config, move |result| {
        let schedule = result.schedule();
        if result.inconclusive {
            *sink_step_limit.borrow_mut() = Some(schedule);
            abort_shared(queue.as_ref());
            return Control::Stop;
        }
        let mut shared = shared.lock().unwrap_or_else(|e| e.into_inner());
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            shared.unfinished = true;
            abort_shared(queue.as_ref());
            return Control::Stop;
        }
        renumber(
            result.trace.responses,
            &mut numbers,
            &mut shared.interner,
            &mut responses,
        );
        let trace = TraceRef {
            events: result.trace.events,
            responses: &responses,
            stuck: result.trace.stuck,
        };
        shared.insert(trace, schedule, queue.as_ref())
    })?;
    let step_limit = step_limit.take();
    Ok(WorkerTotals {
        executions: explored.executions,
        redundant: explored.redundant,
        step_limit,
    })
}

/// The worker's interned `responses`, renumbered into the shared `interner` (`numbers`: the
/// worker's numbers met so far, in the shared interner), into `into`.
fn renumber(
    responses: &[Option<u32>],
    numbers: &mut Vec<Option<u32>>,
    interner: &mut ResponseInterner,
    into: &mut Vec<Option<u32>>,
) {
    into.clear();
    recording::with(|r| {
        for response in responses {
            into.push(response.map(|id| {
                let id = id as usize;
                if numbers.len() <= id {
                    numbers.resize(id + 1, None);
                }
                *numbers[id].get_or_insert_with(|| interner.intern(r.interner.value(id as u32)))
            }));
        }
    });
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
    /// The check's time ([`Config::max_duration`]) ran out before the tree did.
    unfinished: bool,
}

impl SerialTraces {
    /// Takes the serial `trace` of an execution with `schedule` (renumbered in the shared
    /// interner): every distinct execution is kept with its first schedule in depth-first order
    /// (executions are deduplicated on their interned traces, before histories are built), and
    /// checked for determinism as it arrives. Stops the worker (and, through `queue`, those after
    /// it) at the memory budget or at a proof of nondeterminism.
    fn insert(&mut self, trace: TraceRef<'_>, schedule: Vec<u32>, queue: Option<&Arc<SplitQueue>>) -> Control {
        let Some(index) = self.traces.insert_keeping_least(trace, schedule) else {
            return Control::Continue;
        };
        self.held += serial_history_bytes(trace.events.len(), trace.responses.len());
        if self.budget.exceeded(self.held) {
            self.memory = Some((self.budget.limit(), self.held));
            abort_shared(queue);
            return Control::Stop;
        }
        // The determinism check as traces arrive: a pair that proves nondeterminism ends the
        // exploration of every execution after the later of the two.
        if let Some((first, _)) = self.watch.insert(index, trace) {
            self.proof = true;
            if let Some(queue) = queue {
                let later = self.traces.value(first).clone().max(self.traces.value(index).clone());
                queue.found(later);
            }
            return Control::Stop;
        }
        Control::Continue
    }

    /// The specification the distinct serial histories make, in depth-first order of their first
    /// schedules (what one worker alone meets, in the order it meets them), and the first proof
    /// of nondeterminism in that order, if the watch found one (the specification then goes up to
    /// it).
    fn into_spec(self, ops: OpTable, tolerated: Vec<bool>) -> (ObservationSet, Option<(Nondeterminism, ReplayToken)>) {
        let mut entries = self.traces.into_entries();
        entries.sort_by(|a, b| a.1.cmp(&b.1));
        let interner = &self.interner;
        let to_history = |trace: &Trace| {
            let responses = interner.resolve(&trace.responses);
            History::from_recording(ops.clone(), trace.events.clone(), responses, trace.stuck)
        };
        let mut spec = ObservationSet::new(ops.clone());
        if !self.proof {
            for (trace, _) in &entries {
                spec.insert_new(to_history(trace));
            }
            return (spec, None);
        }
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
                return (spec, Some((proof, token)));
            }
        }
        unreachable!("a proof among the executions before it")
    }
}

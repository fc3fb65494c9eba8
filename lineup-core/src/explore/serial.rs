//! Phase 1 on the shuttle backend: every serial execution of a matrix.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::config::Config;
use crate::config::Reduction;
use crate::error::CheckError;
use crate::explore::decision_tree::DecisionTree;
use crate::explore::recording;
use crate::explore::run::{explore, has_threads_of_its_own};
use crate::explore::scheduler::Control;
use crate::explore::serial_spec::{build_spec, WorkerTraces};
use crate::explore::split::{abort_shared, on_workers, worker_count, SplitQueue};
use crate::explore::trace_set::TraceSet;
use crate::memory_limit::{serial_history_bytes, MemoryBudget};
use crate::model::matrix::TestMatrix;
use crate::model::subject::Subject;
use crate::model::trace::TraceRef;
use crate::profile::parallel_section;
use crate::spec::determinism::DeterminismWatch;
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
    let workers = worker_count(config.workers);
    let limits = Arc::new(SharedLimits::default());
    let start = Instant::now();
    let deadline = config.max_duration.map(|limit| start + limit);
    let results = parallel_section(|| {
        on_workers(workers, DecisionTree::new(), |tree, split| {
            explore_on_worker(subject, matrix, config, tree, split, &tolerated, &limits, deadline)
        })
    })?;
    let elapsed = start.elapsed();
    let executions = results.iter().map(|r| r.executions).sum();
    let redundant = results.iter().map(|r| r.redundant).sum();
    if let Some(schedule) = results.iter().filter_map(|r| r.step_limit.clone()).min() {
        return Err(CheckError::StepLimit {
            phase: "phase 1 (serial executions)",
            limit: format!("Config::max_steps = {}", config.max_steps),
            execution: format!("with schedule {schedule:?}"),
        });
    }
    if let Some((limit, held)) = *limits.memory.lock().unwrap_or_else(|e| e.into_inner()) {
        return Err(CheckError::MemoryLimit {
            phase: "phase 1 (serial executions)",
            limit,
            held,
            executions,
        });
    }
    let traces = results.into_iter().map(|r| r.traces).collect();
    let out_of_time = limits.unfinished.load(Ordering::Relaxed);
    let (spec, nondeterminism) =
        build_spec(traces, ops, &tolerated, workers, out_of_time).map_err(|histories| CheckError::Unfinished {
            limit: config.max_duration.unwrap_or_default(),
            executions,
            histories,
            cause: unfinished_cause(subject, matrix, config, limits.unnamed_shuttle.load(Ordering::Relaxed)),
        })?;
    Ok(Synthesis {
        spec,
        nondeterminism,
        executions,
        redundant,
        elapsed,
    })
}

/// What lineup can tell about a phase 1 that did not finish, and what to do about it
/// (`unnamed_shuttle`: a step touched a channel or an atomic of the published shuttle-std).
fn unfinished_cause<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    unnamed_shuttle: bool,
) -> String {
    let advice = "Check a smaller matrix, or give the test more time (LINEUP_TIME_BUDGET, `time_budget`).";
    if unnamed_shuttle && config.reduction != Reduction::Off {
        return unnamed_shuttle_cause(advice);
    }
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
             shuttle's own used directly (`lineup::shuttle::sync`), through its Mutex, Condvar, RwLock, Barrier, \
             Once and thread spawns, and its mpsc channels and atomics only with lineup's shuttle-std (a \
             `[patch.crates-io]` line: lineup's vendor/README.md), and tokio's mpsc, oneshot, Mutex, RwLock, Notify and Semaphore and the polls of \
             tokio::spawn's tasks only with lineup's shuttle-tokio-impl-inner (`shuttle-tokio-impl-inner = { path = \
             \"<path to lineup>/vendor/shuttle-tokio-impl-inner-0.1.6\" }` in the same section); a step of a join, \
             of any other future's poll, of tokio's other primitives, or of a channel or an atomic without those \
             lines depends on every other step, so every interleaving of the threads around it is a serial \
             execution of its own: build the object on lineup::sync"
        }
    };
    format!(
        "The object runs threads of its own, which interleave with every operation in phase 1; {reduction}. {advice}"
    )
}

/// The cause of a phase 1 that did not finish on shuttle's channels or atomics of the published
/// shuttle-std, which lineup cannot name: the line that names them.
fn unnamed_shuttle_cause(advice: &str) -> String {
    format!(
        "The object uses shuttle's own mpsc channels or atomics, and this build has the published \
         shuttle-std, whose channels and atomics lineup cannot name: every step on them depends on every other \
         step, so every interleaving of the object's threads around them is a serial execution of its own. \
         lineup's shuttle-std names them (the same API; the partial-order reduction then sees their steps): \
         add to your workspace's Cargo.toml\n\n{}\n\n(lineup's vendor/README.md), or build the object on \
         lineup::sync. {advice}",
        crate::explore::shuttle_events::PATCH_LINES
    )
}

/// What one worker of phase 1 explored, and the distinct traces it kept.
struct WorkerTotals {
    executions: u64,
    redundant: u64,
    /// The schedule of an execution that reached the step limit, if one did.
    step_limit: Option<Vec<u32>>,
    traces: WorkerTraces,
}

/// What phase 1's workers share: the memory their traces hold together, and why they stopped.
#[derive(Default)]
struct SharedLimits {
    /// What the workers' traces and their histories hold, by estimate (a trace that two workers
    /// met counts twice, as it is held twice until the end).
    held: AtomicU64,
    /// The budget and what was held when the traces went past it.
    memory: Mutex<Option<(u64, u64)>>,
    /// The check's time ([`Config::max_duration`]) ran out before the tree did.
    unfinished: AtomicBool,
    /// A step touched a channel or an atomic of the published shuttle-std, which lineup cannot
    /// name (see [`take_unnamed_seen`](crate::explore::shuttle_events::take_unnamed_seen)).
    unnamed_shuttle: AtomicBool,
}

/// One worker of phase 1: explores `tree` (shared through `split`, if any), keeping every
/// distinct trace it meets with its first schedule, and checking them for determinism as they
/// arrive (see [`WorkerSet::insert`]).
#[allow(clippy::too_many_arguments)]
fn explore_on_worker<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    tree: DecisionTree,
    split: Option<&Arc<SplitQueue>>,
    tolerated: &[bool],
    limits: &Arc<SharedLimits>,
    deadline: Option<Instant>,
) -> Result<WorkerTotals, CheckError> {
    // What this thread's earlier checks saw is theirs.
    crate::explore::shuttle_events::take_unnamed_seen();
    let step_limit: Rc<RefCell<Option<Vec<u32>>>> = Rc::default();
    let sink_step_limit = Rc::clone(&step_limit);
    let queue = split.cloned();
    let set = Rc::new(RefCell::new(WorkerSet {
        traces: TraceSet::default(),
        watch: DeterminismWatch::new(tolerated.to_vec()),
        proof: None,
        budget: MemoryBudget::new(config.max_memory),
    }));
    let sink_set = Rc::clone(&set);
    let sink_limits = Arc::clone(limits);
    let explored = explore(subject, matrix, tree, None, split, config, move |result| {
        let schedule = result.schedule();
        if result.inconclusive {
            *sink_step_limit.borrow_mut() = Some(schedule);
            abort_shared(queue.as_ref());
            return Control::Stop;
        }
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            sink_limits.unfinished.store(true, Ordering::Relaxed);
            abort_shared(queue.as_ref());
            return Control::Stop;
        }
        sink_set
            .borrow_mut()
            .insert(result.trace, schedule, &sink_limits, queue.as_ref())
    })?;
    let set = Rc::try_unwrap(set)
        .map_err(|_| ())
        .expect("exploration finished")
        .into_inner();
    let interner = recording::with(|r| std::mem::take(&mut r.interner));
    if crate::explore::shuttle_events::take_unnamed_seen() {
        limits.unnamed_shuttle.store(true, Ordering::Relaxed);
    }
    Ok(WorkerTotals {
        executions: explored.executions,
        redundant: explored.redundant,
        step_limit: step_limit.take(),
        traces: WorkerTraces {
            traces: set.traces.into_entries(),
            interner,
            proof: set.proof,
        },
    })
}

/// One worker's distinct serial traces (numbered by the worker's interner), each with its first
/// schedule in depth-first order, checked for determinism as they arrive.
struct WorkerSet {
    traces: TraceSet<Vec<u32>>,
    watch: DeterminismWatch,
    /// What the watch found: the positions of two traces and the operation (see
    /// [`WorkerTraces::proof`]).
    proof: Option<(usize, usize, usize)>,
    budget: MemoryBudget,
}

impl WorkerSet {
    /// Takes the serial `trace` of an execution with `schedule`: every distinct execution is kept
    /// with its first schedule (executions are deduplicated on their interned traces, before
    /// histories are built), and checked for determinism against this worker's. Stops the worker
    /// (and, through `queue`, those after it) at the memory budget or at a proof of
    /// nondeterminism; a proof between the traces of two workers is found at the end
    /// ([`build_spec`]).
    fn insert(
        &mut self,
        trace: TraceRef<'_>,
        schedule: Vec<u32>,
        limits: &SharedLimits,
        queue: Option<&Arc<SplitQueue>>,
    ) -> Control {
        let Some(index) = self.traces.insert_keeping_least(trace, schedule) else {
            return Control::Continue;
        };
        let bytes = serial_history_bytes(trace.events.len(), trace.responses.len());
        let held = limits.held.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if self.budget.exceeded(held) {
            let mut memory = limits.memory.lock().unwrap_or_else(|e| e.into_inner());
            memory.get_or_insert((self.budget.limit(), held));
            abort_shared(queue);
            return Control::Stop;
        }
        // The determinism check as traces arrive: a pair that proves nondeterminism ends the
        // exploration of every execution after the later of the two.
        if let Some((first, op)) = self.watch.insert(index, trace) {
            self.proof = Some((index, first, op));
            if let Some(queue) = queue {
                let later = self.traces.value(first).clone().max(self.traces.value(index).clone());
                queue.found(later);
            }
            return Control::Stop;
        }
        Control::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::invocation::Invocation;

    fn subject() -> Subject<()> {
        Subject::new("Unit", || ()).with(Invocation::new("noop", |_: &()| ()))
    }

    /// The report of a phase 1 that did not finish names the line that lets lineup see shuttle's
    /// channels and atomics when a step touched those of the published shuttle-std, and only then.
    #[test]
    fn an_unfinished_phase_1_on_the_published_shuttle_std_names_the_patch_line() {
        let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
        let config = Config::default();
        let named = unfinished_cause(&subject(), &matrix, &config, true);
        assert!(named.contains("[patch.crates-io]"), "{named}");
        assert!(
            named.contains("shuttle-std = { path = \"<path to lineup>/vendor/shuttle-std-0.1.5\" }"),
            "{named}"
        );
        assert!(named.contains("published shuttle-std"), "{named}");
        let plain = unfinished_cause(&subject(), &matrix, &config, false);
        assert!(!plain.contains("published shuttle-std"), "{plain}");
        // With the reduction off, turning it on comes first: the line would not help without it.
        let off = Config {
            reduction: Reduction::Off,
            ..Config::default()
        };
        assert!(!unfinished_cause(&subject(), &matrix, &off, true).contains("published shuttle-std"));
    }
}

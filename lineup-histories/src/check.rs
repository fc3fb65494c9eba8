//! Checking a whole history with the WGL search.

use std::fmt::Debug;
use std::time::Instant;

use crate::history::{History, OpId};
use crate::memory::MemoryMeter;
use crate::model::Model;
use crate::options::CheckOptions;
use crate::outcome::{CheckOutcome, CheckReport, CheckStats, LinearizedStep, Violation};
use crate::timeline::Timeline;
use crate::wgl::{search, Control, SearchResult, SearchVerdict};

/// Checks whether `history` is linearizable with respect to `model`, whole (without
/// partitioning; see [`crate::check_partitioned`] for P-compositional models).
///
/// The verdict is exact: [`CheckOutcome::Linearizable`] with one linearization, or
/// [`CheckOutcome::NotLinearizable`] with an explanation, or [`CheckOutcome::Unknown`] when a
/// limit of `options` was reached first (the memory budget, [`CheckOptions::max_memory`], is on
/// by default).
///
/// ```
/// use lineup_histories::{check, CheckOptions, Event, History};
/// use lineup_histories::models::{QueueInput as I, QueueModel, QueueOutput as O};
///
/// // Two enqueues overlap, so either order is fine; dequeues must then agree with it.
/// let h = History::from_events([
///     Event::call(0, I::Enqueue('x')),
///     Event::call(1, I::Enqueue('y')),
///     Event::ret(0, O::Ok),
///     Event::ret(1, O::Ok),
///     Event::call(0, I::Dequeue),
///     Event::ret(0, O::Dequeued('y')),
///     Event::call(1, I::Dequeue),
///     Event::ret(1, O::Dequeued('y')), // y twice: impossible
/// ])
/// .unwrap();
/// let report = check(&QueueModel::new(), &h, &CheckOptions::default());
/// let violation = report.outcome.violation().expect("not linearizable");
/// println!("{violation}"); // the longest prefix and a per-client timeline
/// ```
pub fn check<M: Model>(model: &M, history: &History<M::Input, M::Output>, options: &CheckOptions) -> CheckReport {
    let start = Instant::now();
    let memory = MemoryMeter::new(options.max_memory);
    let control = Control {
        deadline: options.time_limit.map(|limit| (start + limit, limit)),
        max_cache_entries: options.max_cache_entries,
        cancelled: None,
        memory: &memory,
        max_steps: None,
    };
    let result = search(model, history, &control);
    let stats = CheckStats {
        cache_entries: result.cache_entries,
        steps: result.steps,
        peak_memory: memory.peak(),
        partitions: 1,
        elapsed: start.elapsed(),
    };
    let outcome = outcome_of(history, result, |id| id, None);
    CheckReport { outcome, stats }
}

/// The outcome of a search on `history` (or on a sub-history whose ids `to_global` maps into
/// `history`).
pub(crate) fn outcome_of<I: Debug, O: Debug, S: Debug>(
    history: &History<I, O>,
    result: SearchResult<S>,
    to_global: impl Fn(OpId) -> OpId,
    partition: Option<String>,
) -> CheckOutcome {
    match result.verdict {
        SearchVerdict::Linearizable(order) => CheckOutcome::Linearizable {
            order: order.into_iter().map(&to_global).collect(),
        },
        SearchVerdict::Violation {
            prefix,
            unplaced,
            blocking,
            state,
            steps,
        } => {
            let prefix: Vec<OpId> = prefix.into_iter().map(&to_global).collect();
            let unplaced: Vec<OpId> = unplaced.into_iter().map(&to_global).collect();
            let blocking = blocking.map(&to_global);
            let timeline = Timeline::of_violation(history, &prefix, &unplaced, blocking);
            let first_kept = prefix.len() - steps.len();
            let steps = steps
                .into_iter()
                .enumerate()
                .map(|(i, (before, after))| {
                    let position = first_kept + i;
                    let op = prefix[position];
                    LinearizedStep {
                        position,
                        op,
                        before: format!("{before:?}"),
                        after: format!("{after:?}"),
                    }
                })
                .collect();
            CheckOutcome::NotLinearizable(Box::new(Violation {
                prefix,
                unplaced,
                blocking,
                state: format!("{state:?}"),
                partition,
                timeline,
                steps,
            }))
        }
        SearchVerdict::Unknown(reason) => CheckOutcome::Unknown { reason },
        SearchVerdict::Cancelled | SearchVerdict::OutOfSteps => {
            unreachable!("a search without a cancel flag or a step limit is never stopped")
        }
    }
}

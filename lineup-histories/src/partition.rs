//! P-compositional partitioning (Horn & Kroening, Algorithm 3): split a history by the model's
//! key and check the parts independently, in parallel.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::check::{check, outcome_of};
use crate::history::{History, OpId};
use crate::memory::MemoryMeter;
use crate::model::PartitionedModel;
use crate::options::CheckOptions;
use crate::outcome::{CheckOutcome, CheckReport, CheckStats};
use crate::wgl::{search, Control, SearchVerdict};

/// The history cannot be partitioned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PartitionError {
    /// An operation has no partition key: the model says it spans keys (or touches none), so
    /// checking per key would be unsound.
    #[error(
        "operation {op} ({input}) has no partition key: the model is not P-compositional for it; \
         check the history whole (partitioning off, or `check`)"
    )]
    MissingKey {
        /// The operation.
        op: OpId,
        /// Its input (`Debug`).
        input: String,
    },
}

/// The sub-histories of a history by key, in key order: each key with its operations' ids.
pub type Partitions<K> = Vec<(K, Vec<OpId>)>;

/// The sub-histories of `history` by partition key, in key order: each is the list of its
/// operations' ids. Fails if an operation has no key.
pub fn partition_history<M: PartitionedModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
) -> Result<Partitions<M::Key>, PartitionError> {
    let mut parts: BTreeMap<M::Key, Vec<OpId>> = BTreeMap::new();
    for (id, op) in history.iter() {
        let key = model
            .partition_key(&op.input)
            .ok_or_else(|| PartitionError::MissingKey {
                op: id,
                input: format!("{:?}", op.input),
            })?;
        parts.entry(key).or_default().push(id);
    }
    Ok(parts.into_iter().collect())
}

/// How many steps a partition's search may take in the first round of
/// [`check_partitioned`]; the partitions that need more are checked in full afterwards.
const FIRST_ROUND_STEPS: u64 = 1 << 16;

/// How long the first round runs on the calling thread alone before it starts the other
/// workers.
const SPAWN_AFTER: Duration = Duration::from_millis(1);

/// Checks a history against a P-compositional model: split by key, each part checked with the
/// model of its key ([`PartitionedModel::part_model`]) on a pool of worker threads
/// ([`CheckOptions::workers`]). The history is linearizable iff every part is.
///
/// The first partition found to fail stops all the others, whatever their key (as porcupine
/// does): a hard partition never delays a violation found elsewhere. So that a hard partition
/// cannot hold every worker either, the parts are checked in two rounds: first each with a
/// small step budget (about 65,000 steps), in key order, then, in full, those that needed more.
/// A linearizable verdict needs every part, and gives a linearization of the whole history,
/// merged from those of the parts.
///
/// A violation reports the failing partition first in key order among those whose search
/// ended (with one worker, and whenever the failing parts are small, the first failing one in
/// key order); its operation ids are those of `history`. With [`CheckOptions::partition`] off,
/// the history is checked whole with `model`.
///
/// Fails with [`PartitionError::MissingKey`] (without checking anything) if an operation has
/// no key.
///
/// ```
/// use lineup_histories::{check_partitioned, CheckOptions, Event, History};
/// use lineup_histories::models::{KvInput, KvModel, KvOutput};
///
/// let h = History::from_events([
///     Event::call(0, KvInput::put("a", "1")),
///     Event::call(1, KvInput::get("b")),
///     Event::ret(0, KvOutput::Ok),
///     Event::ret(1, KvOutput::Value("1".into())), // b was never written
/// ])
/// .unwrap();
/// let report = check_partitioned(&KvModel, &h, &CheckOptions::default()).unwrap();
/// assert_eq!(report.outcome.violation().unwrap().partition.as_deref(), Some("\"b\""));
/// ```
pub fn check_partitioned<M: PartitionedModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    options: &CheckOptions,
) -> Result<CheckReport, PartitionError> {
    if !options.partition {
        return Ok(check(model, history, options));
    }
    let start = Instant::now();
    let parts = partition_history(model, history)?;
    let failed = AtomicBool::new(false);
    let memory = MemoryMeter::new(options.max_memory);
    let cancelled = || failed.load(Ordering::Relaxed);
    let workers = options.worker_count();

    let run_part = |index: usize, max_steps: Option<u64>| -> PartRun {
        let (key, ids) = &parts[index];
        let sub = history.restrict(ids);
        let part_model = model.part_model(key);
        let control = Control {
            deadline: options.time_limit.map(|limit| (start + limit, limit)),
            max_cache_entries: options.max_cache_entries,
            cancelled: Some(&cancelled),
            memory: &memory,
            max_steps,
        };
        let result = search(&part_model, &sub, &control);
        let (cache_entries, steps) = (result.cache_entries, result.steps);
        let end = match result.verdict {
            SearchVerdict::Cancelled => PartEnd::Cancelled,
            SearchVerdict::OutOfSteps => PartEnd::Postponed,
            verdict => {
                if matches!(verdict, SearchVerdict::Violation { .. }) {
                    failed.store(true, Ordering::Relaxed);
                }
                let result = crate::wgl::SearchResult {
                    verdict,
                    cache_entries,
                    steps,
                };
                PartEnd::Done(outcome_of(
                    history,
                    result,
                    |local| ids[local.0],
                    Some(format!("{key:?}")),
                ))
            }
        };
        PartRun {
            end,
            cache_entries,
            steps,
        }
    };

    let mut stats = CheckStats {
        cache_entries: 0,
        steps: 0,
        peak_memory: 0,
        partitions: parts.len(),
        elapsed: Default::default(),
    };
    let mut results: Vec<Option<CheckOutcome>> = (0..parts.len()).map(|_| None).collect();
    // Round 1: every part with a step budget; round 2: those that needed more, in full.
    let mut todo: Vec<usize> = (0..parts.len()).collect();
    for max_steps in [Some(FIRST_ROUND_STEPS), None] {
        // Round 1 starts on the calling thread alone (small histories end before it would
        // start others); round 2 has the hard parts.
        let spawn_after = if max_steps.is_some() {
            SPAWN_AFTER
        } else {
            Duration::ZERO
        };
        let runs = run_round(&todo, workers, spawn_after, &failed, |index| run_part(index, max_steps));
        todo.clear();
        for (index, run) in runs {
            stats.cache_entries += run.cache_entries;
            stats.steps += run.steps;
            match run.end {
                PartEnd::Done(outcome) => results[index] = Some(outcome),
                PartEnd::Postponed => todo.push(index),
                PartEnd::Cancelled => {}
            }
        }
        if todo.is_empty() || failed.load(Ordering::Relaxed) {
            break;
        }
        todo.sort_unstable();
    }

    let mut violation = None;
    let mut unknown = None;
    let mut orders: Vec<Vec<OpId>> = Vec::with_capacity(parts.len());
    for outcome in results.into_iter().flatten() {
        match outcome {
            CheckOutcome::NotLinearizable(v) if violation.is_none() => violation = Some(v),
            CheckOutcome::Unknown { reason } if unknown.is_none() => unknown = Some(reason),
            CheckOutcome::Linearizable { order } => orders.push(order),
            _ => {}
        }
    }
    let outcome = if let Some(v) = violation {
        CheckOutcome::NotLinearizable(v)
    } else if let Some(reason) = unknown {
        CheckOutcome::Unknown { reason }
    } else {
        CheckOutcome::Linearizable {
            order: merge_orders(history, &orders),
        }
    };
    stats.elapsed = start.elapsed();
    stats.peak_memory = memory.peak();
    Ok(CheckReport { outcome, stats })
}

/// Runs `run` on each of `indices` (in this order) on up to `workers` threads: the calling
/// thread, and the others once the round has taken `spawn_after` (so that a round of small parts
/// does not pay for starting threads). Stops taking new ones once `stop` is set. Returns the
/// results with their indices, in no given order.
fn run_round<T: Send>(
    indices: &[usize],
    workers: usize,
    spawn_after: Duration,
    stop: &AtomicBool,
    run: impl Fn(usize) -> T + Sync,
) -> Vec<(usize, T)> {
    let next = AtomicUsize::new(0);
    let take = || {
        let k = next.fetch_add(1, Ordering::Relaxed);
        (k < indices.len() && !stop.load(Ordering::Relaxed)).then(|| indices[k])
    };
    let worker = || {
        let mut mine = Vec::new();
        while let Some(index) = take() {
            mine.push((index, run(index)));
        }
        mine
    };
    let workers = workers.min(indices.len());
    let start = Instant::now();
    std::thread::scope(|scope| {
        let mut helpers = Vec::new();
        let mut mine = Vec::new();
        loop {
            if helpers.is_empty() && workers > 1 && start.elapsed() >= spawn_after {
                helpers = (1..workers).map(|_| scope.spawn(worker)).collect();
            }
            let Some(index) = take() else { break };
            mine.push((index, run(index)));
        }
        for helper in helpers {
            mine.extend(helper.join().expect("a partition worker panicked"));
        }
        mine
    })
}

/// How the search of one part ended.
enum PartEnd {
    /// With a verdict (or unknown: a limit of the options).
    Done(CheckOutcome),
    /// Out of the first round's steps: to be checked in full.
    Postponed,
    /// Stopped: another part failed.
    Cancelled,
}

/// One search of one part, with its figures.
struct PartRun {
    end: PartEnd,
    cache_entries: usize,
    steps: u64,
}

/// Merges linearizations of disjoint parts into one of the whole history. Each operation gets
/// the point `max(call times of the operations up to it in its part's order)`, which lies in
/// its interval and grows along the part's order; sorting by point (ties: part, position)
/// keeps every part's order and the real-time order.
fn merge_orders<I, O>(history: &History<I, O>, orders: &[Vec<OpId>]) -> Vec<OpId> {
    let mut points: Vec<(u64, usize, usize, OpId)> = Vec::with_capacity(orders.iter().map(Vec::len).sum());
    for (part, order) in orders.iter().enumerate() {
        let mut point = 0u64;
        for (pos, &id) in order.iter().enumerate() {
            point = point.max(history[id].call);
            points.push((point, part, pos, id));
        }
    }
    points.sort_unstable();
    points.into_iter().map(|(_, _, _, id)| id).collect()
}

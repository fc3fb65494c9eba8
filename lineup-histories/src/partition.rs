//! P-compositional partitioning (Horn & Kroening, Algorithm 3): split a history by the model's
//! key and check the parts independently, in parallel.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::check::{check, outcome_of};
use crate::history::{History, OpId};
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

/// Checks a history against a P-compositional model: split by key, each part checked with the
/// model of its key ([`PartitionedModel::part_model`]) on a pool of worker threads
/// ([`CheckOptions::workers`]). The history is linearizable iff every part is.
///
/// A violation reports the first failing partition in key order (deterministic whatever the
/// number of workers); its operation ids are those of `history`. A linearizable verdict gives a
/// linearization of the whole history, merged from those of the parts. With
/// [`CheckOptions::partition`] off, the history is checked whole with `model`.
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
    let first_failure = AtomicUsize::new(usize::MAX);
    let next_part = AtomicUsize::new(0);
    let workers = options.worker_count().min(parts.len()).max(1);

    let run_part = |index: usize| -> PartOutcome {
        let (key, ids) = &parts[index];
        let sub = history.restrict(ids);
        let part_model = model.part_model(key);
        let cancelled = || first_failure.load(Ordering::Relaxed) < index;
        let control = Control {
            deadline: options.time_limit.map(|limit| (start + limit, limit)),
            max_cache_entries: options.max_cache_entries,
            cancelled: Some(&cancelled),
        };
        let result = search(&part_model, &sub, &control);
        let (cache_entries, steps) = (result.cache_entries, result.steps);
        let outcome = match result.verdict {
            SearchVerdict::Cancelled => None,
            verdict => {
                if matches!(verdict, SearchVerdict::Violation { .. }) {
                    first_failure.fetch_min(index, Ordering::Relaxed);
                }
                let result = crate::wgl::SearchResult {
                    verdict,
                    cache_entries,
                    steps,
                };
                Some(outcome_of(
                    history,
                    result,
                    |local| ids[local.0],
                    Some(format!("{key:?}")),
                ))
            }
        };
        PartOutcome {
            outcome,
            cache_entries,
            steps,
        }
    };

    let mut results: Vec<Option<PartOutcome>> = (0..parts.len()).map(|_| None).collect();
    if workers <= 1 {
        for (index, slot) in results.iter_mut().enumerate() {
            if first_failure.load(Ordering::Relaxed) < index {
                break;
            }
            *slot = Some(run_part(index));
        }
    } else {
        let collected: Vec<Vec<(usize, PartOutcome)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let index = next_part.fetch_add(1, Ordering::Relaxed);
                            if index >= parts.len() || first_failure.load(Ordering::Relaxed) < index {
                                break;
                            }
                            mine.push((index, run_part(index)));
                        }
                        mine
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a partition worker panicked"))
                .collect()
        });
        for (index, outcome) in collected.into_iter().flatten() {
            results[index] = Some(outcome);
        }
    }

    let mut stats = CheckStats {
        cache_entries: 0,
        steps: 0,
        partitions: parts.len(),
        elapsed: Default::default(),
    };
    let mut violation = None;
    let mut unknown = None;
    let mut orders: Vec<Vec<OpId>> = Vec::with_capacity(parts.len());
    for part in results.into_iter().flatten() {
        stats.cache_entries += part.cache_entries;
        stats.steps += part.steps;
        match part.outcome {
            Some(CheckOutcome::NotLinearizable(v)) if violation.is_none() => violation = Some(v),
            Some(CheckOutcome::Unknown { reason }) if unknown.is_none() => unknown = Some(reason),
            Some(CheckOutcome::Linearizable { order }) => orders.push(order),
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
    Ok(CheckReport { outcome, stats })
}

struct PartOutcome {
    /// `None` when cancelled (a partition earlier in key order failed).
    outcome: Option<CheckOutcome>,
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

//! Phase 2 on the shuttle backend: preemption-bounded concurrent executions, each distinct
//! history judged against the specification.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use crate::config::{Config, Interlude};
use crate::error::CheckError;
use crate::explore::decision_tree::DecisionTree;
use crate::explore::recording;
use crate::explore::recording::history_of;
use crate::explore::replay::{plan, ReplayPlan};
use crate::explore::run::explore_keeping_tree;
use crate::explore::scheduler::Control;
use crate::explore::split::{on_workers, worker_count};
use crate::explore::strategy;
use crate::explore::trace_set::{Fingerprint, TraceFingerprints};
use crate::judge::full_spec_index::FullSpecIndex;
use crate::judge::history_judge::judge;
use crate::judge::phase2_outcome::{Phase2Observer, Phase2Outcome};
use crate::judge::verdict::ViolationKind;
use crate::memory_limit::{serial_history_bytes, MemoryBudget};
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::ReplayToken;
use crate::model::subject::Subject;
use crate::spec::observation::ObservationSet;

/// Phase 2 on shuttle: explores the concurrent schedules [`Config::strategy`] chooses (or the one
/// schedule of `replay`) and judges every distinct history, until the first violation. The tree
/// of a DFS strategy is explored by [`Config::workers`] OS threads, which share it by prefix
/// ([`split`](crate::explore::split)); the violation reported is the first one in depth-first
/// order, whatever the number of workers.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn concurrent_executions<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: Arc<ObservationSet>,
    config: &Config,
    replay: Option<&ReplayToken>,
    survey: Option<&Arc<dyn Phase2Observer>>,
) -> Result<Phase2Outcome, CheckError> {
    let ops = spec.ops().clone();
    // The specification is held through phase 2, as phase 1 counted it.
    let spec_bytes: u64 = spec
        .histories()
        .map(|h| serial_history_bytes(h.events().len(), ops.len()))
        .sum();
    // A pb-dfs token is replayed by pb-dfs with its bound; any other by its thread indices.
    let ReplayPlan {
        config,
        tree,
        by_index: replayed,
    } = match replay {
        Some(token) => plan(token, config),
        None => ReplayPlan {
            config: config.clone(),
            tree: DecisionTree::new(),
            by_index: None,
        },
    };
    let config = &config;
    // A replayed schedule, a sampling strategy, or a bounded number of executions (which ones
    // depends on the order in which they are explored) is explored by one worker; the tree of an
    // exhaustive (DFS) strategy is split.
    let workers = if replay.is_some()
        || !config.strategy.is_exhaustive()
        || config.max_executions.is_some()
        || survey.is_some()
    {
        1
    } else {
        worker_count(config.workers)
    };
    let seen = Arc::new(TraceFingerprints::default());
    let start = Instant::now();
    // One stage of phase 2: `config`'s strategy from `tree` on `workers`, each worker giving back
    // what it found and its tree.
    let stage = |config: &Config, tree: DecisionTree, workers: usize, replayed: Option<&[u32]>| {
        on_workers(workers, tree, |tree, split| {
            let found = Rc::new(RefCell::new(Found {
                full_index: None,
                stuck: 0,
                inconclusive: 0,
                violation: None,
                budget: MemoryBudget::new(config.max_memory),
                memory: None,
            }));
            let sink_found = Rc::clone(&found);
            let spec = Arc::clone(&spec);
            let ops = ops.clone();
            let check_stuck = config.check_stuck;
            let queue = split.cloned();
            let seen = Arc::clone(&seen);
            let survey = survey.cloned();
            let strategy = strategy::for_phase2(config, replayed);
            let (explored, tree) =
                explore_keeping_tree(subject, matrix, tree, Some(strategy), split, config, move |result| {
                    let found = &mut *sink_found.borrow_mut();
                    if let Some(survey) = &survey {
                        survey.executions(1 + result.redundant_before);
                    }
                    if result.inconclusive {
                        found.inconclusive += 1;
                        return Control::Continue;
                    }
                    let fingerprint = recording::with(|r| Fingerprint::of(result.trace, &r.interner));
                    if seen.contains(fingerprint) {
                        return Control::Continue;
                    }
                    // A new distinct history: its fingerprint will be held until the end, with the spec.
                    let held = spec_bytes + (seen.len() as u64 + 1) * FINGERPRINT_BYTES;
                    if found.budget.exceeded(held) {
                        found.memory = Some((found.budget.limit(), held));
                        if let Some(queue) = &queue {
                            queue.abort();
                        }
                        return Control::Stop;
                    }
                    if result.stuck.is_none() {
                        // Fast path: a full history with a witness is judged on its trace alone. (Built on
                        // first use: responses are interned per exploration.)
                        let index = found
                            .full_index
                            .get_or_insert_with(|| recording::with(|r| FullSpecIndex::new(&spec, &mut r.interner)));
                        if index.has_witness(result.trace.events, result.trace.responses) {
                            seen.insert(fingerprint);
                            if let Some(survey) = &survey {
                                survey.history(fingerprint.value(), false, false);
                            }
                            return Control::Continue;
                        }
                    }
                    let history = history_of(result.trace, &ops);
                    let verdict = judge(&spec, &history, result.stuck, check_stuck);
                    match verdict {
                        None => {
                            // Counted once, by the worker that remembered it first.
                            if seen.insert(fingerprint) {
                                found.stuck += usize::from(history.is_stuck());
                                if let Some(survey) = &survey {
                                    survey.history(fingerprint.value(), false, history.is_stuck());
                                }
                            }
                            Control::Continue
                        }
                        Some(kind) => {
                            // A violating history is not remembered: a worker that meets it earlier in
                            // depth-first order reports it there.
                            // Workers compare executions by their place in the tree.
                            let position = result.position();
                            if let Some(queue) = &queue {
                                queue.found(position.clone());
                            }
                            if found.violation.as_ref().is_none_or(|(_, _, first)| position < *first) {
                                let (phase, choices) = result.token();
                                found.violation = Some((kind, ReplayToken { phase, choices }, position));
                            }
                            if let Some(survey) = &survey {
                                // A survey goes on past violations, counting each distinct one once.
                                if seen.insert(fingerprint) {
                                    survey.history(fingerprint.value(), true, history.is_stuck());
                                }
                                return Control::Continue;
                            }
                            Control::Stop
                        }
                    }
                })?;
            let found = Rc::try_unwrap(found)
                .map_err(|_| ())
                .expect("exploration finished")
                .into_inner();
            Ok((found, explored, tree))
        })
    };
    let mut results = Vec::new();
    let mut interlude_ran = None;
    // The interlude (see `Interlude`): the search's first `after` executions on one worker (so that
    // where it stops does not depend on the number of workers), the interlude's sample, and the
    // rest of the search from where it stopped.
    let interlude = config.interlude.filter(|interlude| {
        replay.is_none()
            && config.strategy.is_exhaustive()
            && config.max_executions.is_none_or(|max| max > interlude.after)
    });
    match interlude {
        None => results.extend(stage(config, tree, workers, replayed)?),
        Some(interlude) => {
            let first = Config {
                max_executions: Some(interlude.after),
                ..config.clone()
            };
            let (found, explored, mut tree) = stage(&first, tree, 1, None)?.pop().expect("one worker");
            let stopped = found.violation.is_some() || found.memory.is_some();
            let ran = explored.executions;
            results.push((found, explored, DecisionTree::new()));
            if !stopped && ran >= interlude.after && tree.advance() {
                let left = config.max_executions.map(|max| max - ran);
                let sample = interlude.strategy.with_at_most(left.unwrap_or(u64::MAX));
                let middle = Config {
                    strategy: sample,
                    max_executions: None,
                    ..config.clone()
                };
                let (found, explored, _) = stage(&middle, DecisionTree::new(), 1, None)?.pop().expect("one worker");
                let stopped = found.violation.is_some() || found.memory.is_some();
                interlude_ran = Some((
                    Interlude {
                        strategy: sample,
                        ..interlude
                    },
                    explored.executions,
                ));
                let left = left.map(|left| left - explored.executions);
                results.push((found, explored, DecisionTree::new()));
                if !stopped && left != Some(0) {
                    let rest = Config {
                        max_executions: left,
                        ..config.clone()
                    };
                    let workers = if left.is_some() { 1 } else { workers };
                    results.extend(stage(&rest, tree, workers, None)?);
                }
            }
        }
    }
    let mut outcome = Phase2Outcome {
        interlude: interlude_ran,
        redundant: 0,
        violation: None,
        executions: 0,
        distinct: seen.len(),
        stuck: 0,
        inconclusive: 0,
        resumed: 0,
        elapsed: start.elapsed(),
        loom: None,
    };
    let mut memory = None;
    let mut first = None;
    // Stages run one after the other, each only if the one before found nothing: the first
    // violation is the first stage's, and within it the first in depth-first order.
    for (found, explored, _) in results {
        outcome.executions += explored.executions;
        outcome.redundant += explored.redundant;
        outcome.stuck += found.stuck;
        outcome.inconclusive += found.inconclusive;
        memory = memory.or(found.memory);
        if let Some((kind, token, position)) = found.violation {
            if first.as_ref().is_none_or(|first| position < *first) {
                first = Some(position);
                outcome.violation = Some((kind, token));
            }
        }
    }
    // The violating history is one of the distinct histories judged (a survey remembered it).
    outcome.distinct += usize::from(outcome.violation.is_some() && survey.is_none());
    if let Some((limit, held)) = memory {
        return Err(CheckError::MemoryLimit {
            phase: "phase 2 (concurrent executions)",
            limit,
            held,
            executions: outcome.executions,
        });
    }
    Ok(outcome)
}

/// What one worker of phase 2 found.
struct Found {
    full_index: Option<FullSpecIndex>,
    stuck: usize,
    inconclusive: u64,
    /// The first violation this worker found, with its token and its place in the tree.
    violation: Option<(ViolationKind, ReplayToken, Vec<u32>)>,
    budget: MemoryBudget,
    /// The budget and what was held when the fingerprints went past it.
    memory: Option<(u64, u64)>,
}

/// About what one fingerprint holds in phase 2's set: 16 bytes in a hash table kept at most 7/8
/// full, which doubles as it grows (up to twice that while it does), with its control byte.
const FINGERPRINT_BYTES: u64 = 40;

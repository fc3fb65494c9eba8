//! The end of phase 1: the distinct serial traces its workers kept, each worker's numbered by its
//! own interner, made into the specification, on the check's workers.
//!
//! Phase 1's workers share nothing while they explore (a lock taken by every execution was what
//! stopped one matrix from scaling past a few cores): each keeps its own distinct traces with
//! their first schedules and its own determinism watch. Here, in steps that each run on every
//! worker:
//!
//! 1. the workers' response numbers are mapped into one interner, and their traces renumbered;
//! 2. the traces are put in depth-first order of their schedules (every execution ran on exactly
//!    one worker, so no two schedules are equal), and a trace that more than one worker met is
//!    kept once, at its first schedule;
//! 3. the determinism check of §2.3 runs over them in that order, one watch per first event (two
//!    serial histories whose common prefix ends in a call begin with the same call, so the watches
//!    share nothing), and the first proof in depth-first order is the one the earliest watch
//!    finds;
//! 4. the histories are built and grouped into the specification in that order
//!    ([`ObservationSet::from_distinct`]).
//!
//! The specification, and the proof, are what one worker alone builds: they do not depend on the
//! number of workers (`tests/one_matrix_workers.rs`).

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::model::history::{Event, History, OpTable};
use crate::model::replay_token::{Phase, ReplayToken};
use crate::model::trace::{ResponseInterner, Trace};
use crate::profile::parallel_section;
use crate::spec::determinism::{DeterminismWatch, Nondeterminism};
use crate::spec::observation::ObservationSet;

/// What one worker of phase 1 kept: its distinct traces with their first schedules, numbered by
/// its `interner`.
#[derive(Debug, Default)]
pub(crate) struct WorkerTraces {
    pub traces: Vec<(Trace, Vec<u32>)>,
    pub interner: ResponseInterner,
    /// The proof of nondeterminism the worker's watch found among its traces, if any, as
    /// `(second, first, op)` (see [`first_proof`]).
    pub proof: Option<(usize, usize, usize)>,
}

/// The specification the workers' traces make, and the first proof of nondeterminism in
/// depth-first order, if there is one (the specification then goes up to it), built on `threads`
/// threads ([`pool`](crate::pool)). For a phase 1 that ran `out_of_time`, only a proof of
/// nondeterminism can still be a verdict: without one, no specification is built, and `Err` says
/// how many distinct serial histories were found.
pub(crate) fn build_spec(
    workers: Vec<WorkerTraces>,
    ops: OpTable,
    tolerated: &[bool],
    threads: usize,
    out_of_time: bool,
) -> Result<(ObservationSet, Option<(Nondeterminism, ReplayToken)>), usize> {
    crate::pool::install(threads, || {
        let (interner, entries, proof) = parallel_section(|| ordered(workers, tolerated));
        let end = proof.map_or(entries.len(), |(second, _, _)| second + 1);
        let spec = if out_of_time && proof.is_none() {
            None
        } else {
            let histories: Vec<History> = parallel_section(|| {
                entries[..end]
                    .par_iter()
                    .map(|(trace, _)| trace.as_ref().history(&interner, &ops))
                    .collect()
            });
            let mut spec = parallel_section(|| ObservationSet::from_distinct(ops.clone(), histories));
            if proof.is_none() {
                // Every trace passed the determinism check with these marks (`ordered`).
                spec.certify_deterministic(tolerated);
            }
            Some(spec)
        };
        let proof = proof.map(|proof| proof_of(proof, &entries, &interner, &ops));
        // Freed on the pool too: hundreds of thousands of traces.
        parallel_section(|| entries.into_par_iter().for_each(drop));
        spec.map(|spec| (spec, proof)).ok_or(end)
    })
}

/// The workers' traces renumbered into one interner, in depth-first order, each once (with its
/// first schedule), and the first proof of nondeterminism among them in that order.
#[allow(clippy::type_complexity)]
fn ordered(
    workers: Vec<WorkerTraces>,
    tolerated: &[bool],
) -> (ResponseInterner, Vec<(Trace, Vec<u32>)>, Option<(usize, usize, usize)>) {
    // A worker alone explored in depth-first order: its traces are in that order already, and its
    // watch saw them in it.
    let alone = match workers.as_slice() {
        [worker] => Some(worker.proof),
        _ => None,
    };
    let (interner, mut entries) = renumbered(workers);
    let proof = match alone {
        Some(proof) => {
            debug_assert!(entries.is_sorted_by(|a, b| a.1 < b.1));
            proof
        }
        None => {
            entries.par_sort_unstable_by(|a, b| a.1.cmp(&b.1));
            entries = first_of_each(entries);
            first_proof(&entries, tolerated)
        }
    };
    (interner, entries, proof)
}

/// The proof `(second, first, op)` among `entries`, with the replay token of its second history.
fn proof_of(
    (second, first, op): (usize, usize, usize),
    entries: &[(Trace, Vec<u32>)],
    interner: &ResponseInterner,
    ops: &OpTable,
) -> (Nondeterminism, ReplayToken) {
    let to_history = |trace: &Trace| trace.as_ref().history(interner, ops);
    let proof = Nondeterminism {
        op,
        first: to_history(&entries[first].0),
        second: to_history(&entries[second].0),
    };
    let token = ReplayToken {
        phase: Phase::Serial,
        choices: entries[second].1.clone(),
    };
    (proof, token)
}

/// Step 1: one interner for every worker's responses, and every worker's traces renumbered into
/// it (a worker alone keeps its own).
fn renumbered(mut workers: Vec<WorkerTraces>) -> (ResponseInterner, Vec<(Trace, Vec<u32>)>) {
    if workers.len() == 1 {
        // A worker alone: its numbers are the ones.
        let worker = workers.pop().expect("one worker");
        return (worker.interner, worker.traces);
    }
    let mut interner = ResponseInterner::default();
    let maps: Vec<Vec<u32>> = workers
        .iter()
        .map(|w| {
            (0..w.interner.len() as u32)
                .map(|id| interner.intern(w.interner.value(id)))
                .collect()
        })
        .collect();
    let entries = workers
        .into_par_iter()
        .zip(maps)
        .flat_map_iter(|(worker, map)| {
            worker.traces.into_iter().map(move |(mut trace, schedule)| {
                for response in trace.responses.iter_mut().flatten() {
                    *response = map[*response as usize];
                }
                (trace, schedule)
            })
        })
        .collect();
    (interner, entries)
}

/// How many parts the traces are split into by hash, to find the ones met twice in parallel.
const SHARDS: u64 = 64;

/// Step 2: `entries` (in depth-first order of their schedules) without the traces met before in
/// that order.
fn first_of_each(entries: Vec<(Trace, Vec<u32>)>) -> Vec<(Trace, Vec<u32>)> {
    let hashes: Vec<u64> = entries.par_iter().map(|(trace, _)| trace.as_ref().fx_hash()).collect();
    let mut shards: Vec<Vec<usize>> = vec![Vec::new(); SHARDS as usize];
    for (i, hash) in hashes.iter().enumerate() {
        shards[(hash % SHARDS) as usize].push(i);
    }
    // Within a shard, in depth-first order: the first of equal traces is kept.
    let repeated: Vec<usize> = shards
        .par_iter()
        .flat_map_iter(|shard| {
            let mut seen: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
            let mut repeated = Vec::new();
            for &i in shard {
                let same = seen.entry(hashes[i]).or_default();
                if same.iter().any(|&j| entries[j].0 == entries[i].0) {
                    repeated.push(i);
                } else {
                    same.push(i);
                }
            }
            repeated
        })
        .collect();
    if repeated.is_empty() {
        return entries;
    }
    let mut keep = vec![true; entries.len()];
    for i in repeated {
        keep[i] = false;
    }
    entries
        .into_iter()
        .zip(keep)
        .filter_map(|(entry, keep)| keep.then_some(entry))
        .collect()
}

/// Step 3: the first proof of nondeterminism among `entries` in their order, as `(second, first,
/// op)`: the positions of the two traces and the operation whose outcome differs.
fn first_proof(entries: &[(Trace, Vec<u32>)], tolerated: &[bool]) -> Option<(usize, usize, usize)> {
    let mut by_first_event: FxHashMap<Option<Event>, Vec<usize>> = FxHashMap::default();
    for (i, (trace, _)) in entries.iter().enumerate() {
        by_first_event.entry(trace.events.first().copied()).or_default().push(i);
    }
    let groups: Vec<Vec<usize>> = by_first_event.into_values().collect();
    groups
        .par_iter()
        .filter_map(|group| {
            let mut watch = DeterminismWatch::new(tolerated.to_vec());
            group
                .iter()
                .find_map(|&i| watch.insert(i, entries[i].0.as_ref()).map(|(first, op)| (i, first, op)))
        })
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::history::op_table;
    use crate::model::invocation::InvocationLabel;
    use crate::model::matrix::TestMatrix;
    use crate::model::response::Response;

    /// `1[ ]1 2[ ]2` or `2[ ]2 1[ ]1` of a 2x1 matrix, op 1 returning `first`, op 2 `second`,
    /// numbered by `interner`.
    fn trace(op_first: usize, first: u64, second: u64, interner: &mut ResponseInterner) -> Trace {
        let other = 3 - op_first;
        let mut responses = vec![None; 2];
        responses[op_first - 1] = Some(interner.intern(&Response::returned(&first)));
        responses[other - 1] = Some(interner.intern(&Response::returned(&second)));
        Trace {
            events: vec![
                Event::Call(op_first),
                Event::Return(op_first),
                Event::Call(other),
                Event::Return(other),
            ],
            responses,
            stuck: false,
        }
    }

    fn ops() -> OpTable {
        op_table(
            &TestMatrix::new(vec![vec![0], vec![0]]),
            &[InvocationLabel::new("op", vec![])],
        )
    }

    /// Three serial traces in depth-first order of their schedules; the third and the second
    /// prove nondeterminism (op 1 first, then op 2 returns 7 or 8). Given to one worker, or
    /// spread over two so that the proof's traces lie on different workers, with the first met by
    /// both (kept once, at its first schedule): the same specification and proof.
    #[test]
    fn the_workers_traces_make_the_specification_one_worker_makes() {
        let schedules = [vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]];
        let alone_again = || {
            let mut interner = ResponseInterner::default();
            let traces = vec![
                (trace(2, 5, 6, &mut interner), schedules[0].clone()),
                (trace(1, 6, 7, &mut interner), schedules[1].clone()),
                (trace(1, 6, 8, &mut interner), schedules[3].clone()),
            ];
            WorkerTraces {
                traces,
                interner,
                proof: Some((2, 1, 2)),
            }
        };
        let (spec, proof) = build_spec(vec![alone_again()], ops(), &[false, false], 1, false).expect("built");
        let (proof, token) = proof.expect("nondeterministic");
        assert_eq!((proof.op, token.choices.clone()), (2, schedules[3].clone()));
        assert_eq!(spec.len(), 3);

        // Another numbering on each worker, and the first trace met by both.
        let two_workers = || {
            let mut a = ResponseInterner::default();
            a.intern(&Response::returned(&"unused"));
            let first_worker = WorkerTraces {
                traces: vec![
                    (trace(2, 5, 6, &mut a), schedules[2].clone()),
                    (trace(1, 6, 8, &mut a), schedules[3].clone()),
                ],
                interner: a,
                proof: None,
            };
            let mut b = ResponseInterner::default();
            let second_worker = WorkerTraces {
                traces: vec![
                    (trace(1, 6, 7, &mut b), schedules[1].clone()),
                    (trace(2, 5, 6, &mut b), schedules[0].clone()),
                ],
                interner: b,
                proof: None,
            };
            vec![first_worker, second_worker]
        };
        let (shared_spec, shared_proof) = build_spec(two_workers(), ops(), &[false, false], 2, false).expect("built");
        let (shared_proof, shared_token) = shared_proof.expect("a proof across the workers");
        assert_eq!(shared_spec, spec);
        assert_eq!(shared_proof, proof);
        assert_eq!(shared_token, token);
        // Op 2 marked nondeterministic: 7 or 8 is tolerated.
        let tolerant_worker = || {
            let mut c = ResponseInterner::default();
            let tolerant = WorkerTraces {
                traces: vec![
                    (trace(1, 6, 7, &mut c), schedules[1].clone()),
                    (trace(1, 6, 8, &mut c), schedules[3].clone()),
                ],
                interner: c,
                proof: None,
            };
            vec![tolerant, WorkerTraces::default()]
        };
        let (tolerant_spec, none) = build_spec(tolerant_worker(), ops(), &[false, true], 2, false).expect("built");
        assert!(none.is_none());
        // Certified deterministic under the marks it was checked with, and under those only; a
        // specification with a proof is not.
        assert!(tolerant_spec.is_certified_deterministic(&[false, true]));
        assert!(!tolerant_spec.is_certified_deterministic(&[false, false]));
        assert!(!spec.is_certified_deterministic(&[false, false]));
        // Out of time: a proof is still found and the specification built up to it; without a
        // proof, none is built, and the count of distinct histories is given.
        let (_, out_of_time) = build_spec(two_workers(), ops(), &[false, false], 2, true).expect("a proof");
        assert_eq!(out_of_time.map(|(proof, _)| proof), Some(proof.clone()));
        assert_eq!(
            build_spec(tolerant_worker(), ops(), &[false, true], 2, true).err(),
            Some(2)
        );
    }
}

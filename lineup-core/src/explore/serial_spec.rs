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
//! 3. the determinism check of §2.3 runs over them in that order, one watch per part of the
//!    traces that begin alike (their first four operations), in parallel, and one more over the
//!    parts' beginnings (a pair that differs earlier lies in two parts); the first proof in
//!    depth-first order is the one whose second trace comes first;
//! 4. the histories are built and grouped into the specification in that order
//!    ([`ObservationSet::from_distinct`]).
//!
//! The specification, and the proof, are what one worker alone builds: they do not depend on the
//! number of workers (`tests/one_matrix_workers.rs`).

use std::hash::{Hash, Hasher};

use rayon::prelude::*;

use crate::model::history::{Event, History, OpTable};
use crate::model::replay_token::{Phase, ReplayToken};
use crate::model::trace::{ResponseInterner, Trace, TraceRef};
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
        if entries.len() >= crate::pool::FREE_ELSEWHERE_FROM {
            crate::pool::free_elsewhere(entries);
        }
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

/// Step 2: `entries` (in depth-first order of their schedules) without the traces met before in
/// that order.
fn first_of_each(entries: Vec<(Trace, Vec<u32>)>) -> Vec<(Trace, Vec<u32>)> {
    let groups = crate::pool::equal_groups(
        entries.len(),
        |i| entries[i].0.as_ref().fx_hash(),
        |i, j| entries[i].0 == entries[j].0,
    );
    // Within a group, in depth-first order: the first of equal traces is kept.
    let repeated: Vec<usize> = groups.into_iter().flat_map(|group| group.into_iter().skip(1)).collect();
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

/// How many events of a trace (at least) its part of the determinism check is chosen by: the
/// serial traces that begin alike up to there are checked together, each part on a thread of its
/// own (four operations: a 4x3 queue matrix's 369,600 traces fall into 252 parts; the first
/// event alone made four).
const PART_PREFIX: usize = 8;

/// Step 3: the first proof of nondeterminism among `entries` in their order, as `(second, first,
/// op)`: the positions of the two traces and the operation whose outcome differs. The same as one
/// [`DeterminismWatch`] given every trace in order, in parallel:
///
/// - two traces prove nondeterminism at a call they both reach by the same path, with different
///   outcomes. A trace's *cut* is its first [`PART_PREFIX`] events, longer by the calls that end
///   it; traces longer than their cut that share it form a *part*, and a pair that differs at a
///   call past the cut lies within one part: each part is checked on its own, in order;
/// - a pair that differs at a call within the cut differs in their cuts: one watch is given, in
///   order, the cut of each part's first trace and every trace no longer than its cut (the first
///   trace with a cut is the first to prove anything with it).
///
/// A part's first trace has no earlier one in its part, so the two kinds of proof never name the
/// same second trace, and the first proof is the one whose second trace comes first.
fn first_proof(entries: &[(Trace, Vec<u32>)], tolerated: &[bool]) -> Option<(usize, usize, usize)> {
    first_proof_cut_at(entries, tolerated, PART_PREFIX)
}

/// [`first_proof`] with cuts of at least `prefix` events.
fn first_proof_cut_at(
    entries: &[(Trace, Vec<u32>)],
    tolerated: &[bool],
    prefix: usize,
) -> Option<(usize, usize, usize)> {
    let parts = parts_by_cut(entries, prefix);
    let within = parts
        .par_iter()
        // Traces are distinct: a part of two or more is of traces longer than their cut.
        .filter(|part| part.len() > 1)
        .filter_map(|part| {
            let mut watch = DeterminismWatch::new(tolerated.to_vec());
            part.iter()
                .find_map(|&i| watch.insert(i, entries[i].0.as_ref()).map(|(first, op)| (i, first, op)))
        })
        .min();
    let mut heads: Vec<usize> = parts.iter().map(|part| part[0]).collect();
    heads.sort_unstable();
    let mut watch = DeterminismWatch::new(tolerated.to_vec());
    let across = heads.into_iter().find_map(|i| {
        let trace = &entries[i].0;
        let cut = cut_len(trace, prefix);
        let head = TraceRef {
            events: &trace.events[..cut],
            responses: &trace.responses,
            stuck: trace.stuck && cut == trace.events.len(),
        };
        watch.insert(i, head).map(|(first, op)| (i, first, op))
    });
    across.into_iter().chain(within).min()
}

/// The length of a trace's cut (see [`first_proof`]): its first `prefix` events (at least one)
/// and the calls right after them, or the whole trace if it is no longer.
fn cut_len(trace: &Trace, prefix: usize) -> usize {
    let mut cut = prefix.max(1).min(trace.events.len());
    while cut < trace.events.len() && matches!(trace.events[cut - 1], Event::Call(_)) {
        cut += 1;
    }
    cut
}

/// The traces of `entries` by their cuts (see [`first_proof`]): each part the positions of the
/// traces whose cuts are equal (events and the responses of their returns, whether the trace ends
/// there, and if so whether it is stuck), in order.
fn parts_by_cut(entries: &[(Trace, Vec<u32>)], prefix: usize) -> Vec<Vec<usize>> {
    let cut_of = |i: usize| {
        let trace = &entries[i].0;
        let cut = cut_len(trace, prefix);
        let events = &trace.events[..cut];
        let returned = events.iter().filter_map(move |e| match *e {
            Event::Return(op) => Some(trace.responses[op - 1]),
            Event::Call(_) => None,
        });
        let whole = cut == trace.events.len();
        (events, returned, (whole, whole && trace.stuck))
    };
    let same_cut = |i: usize, j: usize| {
        let (a, b) = (cut_of(i), cut_of(j));
        a.0 == b.0 && a.2 == b.2 && a.1.eq(b.1)
    };
    let hash = |i: usize| {
        let (events, returned, end) = cut_of(i);
        let mut hasher = rustc_hash::FxHasher::default();
        events.hash(&mut hasher);
        returned.for_each(|response| response.hash(&mut hasher));
        end.hash(&mut hasher);
        hasher.finish()
    };
    crate::pool::equal_groups(entries.len(), hash, same_cut)
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

    /// Serial traces of up to six operations (twelve events), each operation's response a function
    /// of the events before it but for a few that differ, and a few stuck: the parts find the
    /// proof one watch given every trace in order finds, with cuts of every length (ending in a
    /// call or a return; the pair differing within the cut, at its end, past it), with and
    /// without tolerated operations.
    #[test]
    fn the_parts_find_the_proof_one_watch_finds() {
        use rand::{Rng, SeedableRng};
        use std::collections::HashSet;

        fn one_watch(entries: &[(Trace, Vec<u32>)], tolerated: &[bool]) -> Option<(usize, usize, usize)> {
            let mut watch = DeterminismWatch::new(tolerated.to_vec());
            entries
                .iter()
                .enumerate()
                .find_map(|(i, (trace, _))| watch.insert(i, trace.as_ref()).map(|(first, op)| (i, first, op)))
        }

        let (mut proofs, mut deep, mut within_cut) = (0, 0, 0);
        for seed in 0..400u64 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let odd = [0.0, 0.002, 0.01, 0.05][seed as usize % 4];
            let stuck_odds = [0.0, 0.0005, 0.005][seed as usize / 4 % 3];
            let mut seen = HashSet::new();
            let mut entries = Vec::new();
            for _ in 0..300 {
                let mut events = Vec::new();
                let mut responses = vec![None; 6];
                let mut stuck = false;
                let mut left: Vec<usize> = (1..=6).collect();
                let mut past = 0u64;
                while !left.is_empty() {
                    let op = left.swap_remove(rng.random_range(0..left.len()));
                    events.push(Event::Call(op));
                    past = past.wrapping_mul(31).wrapping_add(op as u64);
                    if rng.random_bool(stuck_odds) {
                        stuck = true;
                        break;
                    }
                    let usual = (past.wrapping_mul(0x9e37_79b9) >> 7) as u32 % 3;
                    let response = if rng.random_bool(odd) {
                        usual + 1 + rng.random_range(0..2)
                    } else {
                        usual
                    };
                    responses[op - 1] = Some(response);
                    events.push(Event::Return(op));
                    past = past.wrapping_mul(31).wrapping_add(u64::from(response) + 100);
                }
                let trace = Trace {
                    events,
                    responses,
                    stuck,
                };
                if seen.insert(trace.clone()) {
                    entries.push((trace, Vec::new()));
                }
            }
            for tolerated in [[false; 6], [true, false, false, true, false, false]] {
                let expected = one_watch(&entries, &tolerated);
                assert_eq!(first_proof(&entries, &tolerated), expected, "seed {seed}");
                for prefix in 1..=13 {
                    let cut_at = first_proof_cut_at(&entries, &tolerated, prefix);
                    assert_eq!(cut_at, expected, "seed {seed}, cut at {prefix}");
                }
                if let Some((second, first, op)) = expected {
                    proofs += 1;
                    // Where the pair differs: past the cut, or within it.
                    let (a, b) = (&entries[first].0, &entries[second].0);
                    let at = a
                        .events
                        .iter()
                        .zip(&b.events)
                        .position(|(x, y)| *x == Event::Call(op) && x == y);
                    let shared = a.events.iter().zip(&b.events).take_while(|(x, y)| x == y).count();
                    assert!(at.is_some());
                    if shared >= PART_PREFIX {
                        deep += 1;
                    } else {
                        within_cut += 1;
                    }
                }
            }
        }
        // Both kinds of proof were met, many times.
        assert!(
            proofs > 200 && deep > 20 && within_cut > 20,
            "{proofs} {deep} {within_cut}"
        );
    }
}

//! Checking many matrices on every core: one shuttle runner per OS thread. The first failure
//! reported (the failing matrix with the smallest index) is the same as with one worker. When
//! fewer matrices are left than twice the workers, the last checks split their trees among
//! workers of their own, so that those that would otherwise idle take part ([`Config::workers`]).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::check::check_without_report as check;
use crate::config::Config;
use crate::error::CheckError;
use crate::judge::verdict::Violation;
use crate::judge::verdict::{CheckStats, Verdict};
use crate::model::matrix::TestMatrix;
use crate::model::subject::Subject;
use crate::runner::progress::Progress;

/// The position of a failing matrix in a batch, with its violation or the error that stopped its
/// check.
pub type BatchFailure = (usize, Result<Box<Violation>, CheckError>);

/// Iterative deepening of a batch's small matrices as soon as each passes (a run with a time
/// budget does it on its sample): a matrix whose phase-2 tree at the batch's bound took at most
/// `small_tree` executions is explored again at bound + 1, + 2, ... (at most `max_extra` more),
/// then, at the batch's bound, with the yielding thread as an option at yields and one, two, ...
/// more non-default choices at yields per execution ([`Config::yield_to_self`],
/// [`Config::yield_choices`]), each of the two while the trees it explores stay within `factor`
/// times the matrix's first tree (and at least `small_tree`). A bug that needs one preemption
/// more than the bound, or a spinning thread that runs again right after its own yields, shows in
/// the first seconds on the 2x1 and 3x1 matrices of the sample, for a seventh of the sample's
/// executions at most on the example objects (docs/strategies.md says why 16 times).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmallMatrixDeepening {
    /// The largest first tree (executions) that is deepened.
    pub small_tree: u64,
    /// How many times its first tree the deeper trees of one matrix may take in all.
    pub factor: u64,
    /// Preemptions beyond the batch's bound tried at most, and choices at yields beyond the
    /// batch's.
    pub max_extra: u32,
}

/// How far one small matrix was deepened at once ([`SmallMatrixDeepening`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeepenedMatrix {
    /// The matrix's shape (threads, operations per thread).
    pub shape: (usize, usize),
    /// The preemption bound to which it was explored completely (the batch's if no deeper tree
    /// fit).
    pub bound: u32,
    /// The non-default choices at yields per execution, the yielding thread among the options, to
    /// which it was explored completely at the batch's bound (`None`: no such tree fit).
    pub yield_choices: Option<u32>,
    /// Executions of both phases the deeper trees took.
    pub executions: u64,
}

impl Default for SmallMatrixDeepening {
    fn default() -> Self {
        Self {
            small_tree: 500,
            factor: 16,
            max_extra: 8,
        }
    }
}

/// How a batch of matrices went.
#[derive(Debug)]
pub struct BatchOutcome {
    /// The first failing matrix (smallest index in the batch) and its violation, or the first
    /// error.
    pub first_failure: Option<BatchFailure>,
    /// Matrices checked.
    pub checked: usize,
    /// Executions of both phases over all checked matrices.
    pub executions: u64,
    /// Phase-2 executions over all passing matrices that ended at the step limit, unjudged
    /// ([`CheckStats::inconclusive_executions`](crate::CheckStats)).
    pub inconclusive_executions: u64,
    /// Passing matrices whose phase 2 ran the [interlude](crate::Interlude).
    pub interludes: usize,
    /// Passing matrices whose inconclusive executions outnumber their judged ones, and of
    /// those, the ones with no judged execution at all ([`Inconclusiveness`]).
    pub inconclusive: Inconclusiveness,
    /// With [`SmallMatrixDeepening`]: how far each deepened matrix went.
    pub deepened: Vec<DeepenedMatrix>,
}

/// What a run did not cover of its matrices: passing matrices that were mostly or wholly
/// inconclusive (phase-2 executions that reached the step limit outnumber the ones judged, or no
/// execution was judged at all), those cut or left unfinished when their time
/// ([`Config::max_duration`]) ran out, and those never reached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inconclusiveness {
    /// Matrices whose inconclusive executions outnumber their judged ones.
    pub mostly: usize,
    /// Of those, matrices none of whose phase-2 executions was judged: the PASS covers nothing
    /// of them.
    pub wholly: usize,
    /// Matrices whose phase 1 did not finish in their time ([`CheckError::Unfinished`]): neither
    /// passed nor failed, and not counted among the matrices checked.
    pub unfinished: usize,
    /// What the first of those saw, and what to do about it.
    pub unfinished_cause: Option<String>,
    /// Passing matrices whose phase 2 stopped when their time ran out
    /// ([`CheckStats::unfinished`](crate::CheckStats)): the PASS covers the executions that ran.
    pub cut: usize,
    /// Matrices not started because the time was over.
    pub not_reached: usize,
}

impl Inconclusiveness {
    /// Counts one passing matrix's check.
    pub fn add(&mut self, stats: &crate::judge::verdict::CheckStats) {
        let judged = stats
            .concurrent_executions
            .saturating_sub(stats.inconclusive_executions);
        self.mostly += usize::from(stats.inconclusive_executions > judged);
        self.wholly += usize::from(stats.inconclusive_executions > 0 && judged == 0);
    }

    /// Counts a matrix whose phase 1 did not finish (`error` is a [`CheckError::Unfinished`]).
    pub fn add_unfinished(&mut self, error: &CheckError) {
        self.unfinished += 1;
        self.unfinished_cause.get_or_insert_with(|| error.to_string());
    }

    /// Adds another count.
    pub fn merge(&mut self, other: Inconclusiveness) {
        self.mostly += other.mostly;
        self.wholly += other.wholly;
        self.unfinished += other.unfinished;
        self.unfinished_cause = self.unfinished_cause.take().or(other.unfinished_cause);
        self.cut += other.cut;
        self.not_reached += other.not_reached;
    }
}

/// Checks `matrices` with `workers` OS threads. Workers take matrices in index order and stop
/// taking any beyond the first failure found so far, so every matrix before the reported one
/// was checked: the outcome does not depend on the number of workers. With a `deadline`, each
/// check gets the time left until it ([`Config::max_duration`]), a matrix whose phase 1 does not
/// finish in it is counted as unfinished (not a failure), and the matrices not started by then are
/// counted as not reached.
pub fn check_matrices<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrices: &[TestMatrix],
    config: &Config,
    workers: usize,
    progress: &Progress,
    deadline: Option<Instant>,
    deepening: Option<SmallMatrixDeepening>,
) -> BatchOutcome {
    let deepened = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let checked = AtomicUsize::new(0);
    let executions = AtomicU64::new(0);
    let inconclusive = AtomicU64::new(0);
    let interludes = std::sync::atomic::AtomicUsize::new(0);
    let failure: Mutex<Option<BatchFailure>> = Mutex::new(None);
    let inconclusive_matrices = Mutex::new(Inconclusiveness::default());
    let failing_index = || {
        failure
            .lock()
            .expect("no worker panics")
            .as_ref()
            .map_or(usize::MAX, |(i, _)| *i)
    };
    // Workers carry the name of the calling thread (the test's name under libtest), which the loom
    // backend needs to re-run the test in a child process.
    let name = std::thread::current().name().unwrap_or("main").to_string();
    let workers = workers.max(1);
    crate::profile::parallel_section(|| {
        std::thread::scope(|scope| {
            for _ in 0..workers.min(matrices.len().max(1)) {
                let worker = std::thread::Builder::new().name(name.clone());
                let spawned = worker.spawn_scoped(scope, || loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= matrices.len() || i > failing_index() {
                        break;
                    }
                    let left_time = deadline.map(|d| d.saturating_duration_since(Instant::now()));
                    if left_time == Some(Duration::ZERO) {
                        inconclusive_matrices.lock().expect("no worker panics").not_reached += 1;
                        continue;
                    }
                    // Matrices are taken in order: once fewer are left than workers, the workers that
                    // find none left would idle; the last checks use them instead. From twice as
                    // many left, each check has two workers or more (more threads than cores for a
                    // while): a large matrix taken late, whose one worker would end the batch alone
                    // (a fifth of the batch's time at 16 workers), has the cores the others leave.
                    let left = matrices.len() - i;
                    let config = Config {
                        workers: tail_workers(workers, left),
                        max_duration: left_time.or(config.max_duration),
                        ..config.clone()
                    };
                    let result = check(subject, &matrices[i], &config);
                    let outcome = match result {
                        Ok(Verdict::Pass(stats)) => {
                            executions
                                .fetch_add(stats.serial_executions + stats.concurrent_executions, Ordering::Relaxed);
                            inconclusive.fetch_add(stats.inconclusive_executions, Ordering::Relaxed);
                            interludes.fetch_add(usize::from(stats.interlude.is_some()), Ordering::Relaxed);
                            let mut counts = inconclusive_matrices.lock().expect("no worker panics");
                            counts.add(&stats);
                            counts.cut += usize::from(stats.unfinished);
                            drop(counts);
                            // A small matrix goes deeper at once; a violation there is the matrix's.
                            let deeper =
                                deepening.and_then(|d| deepen_small(subject, &matrices[i], &config, &stats, d));
                            deeper.and_then(|(matrix, failure)| {
                                executions.fetch_add(matrix.executions, Ordering::Relaxed);
                                deepened.lock().expect("no worker panics").push(matrix);
                                failure
                            })
                        }
                        Ok(Verdict::Fail(v)) => {
                            let stats = &v.stats;
                            executions
                                .fetch_add(stats.serial_executions + stats.concurrent_executions, Ordering::Relaxed);
                            Some(Ok(v))
                        }
                        Err(e @ CheckError::Unfinished { .. }) => {
                            inconclusive_matrices
                                .lock()
                                .expect("no worker panics")
                                .add_unfinished(&e);
                            None
                        }
                        Err(e) => Some(Err(e)),
                    };
                    let done = checked.fetch_add(1, Ordering::SeqCst) + 1;
                    let mut first = failure.lock().expect("no worker panics");
                    if let Some(outcome) = outcome {
                        if first.as_ref().is_none_or(|(j, _)| i < *j) {
                            *first = Some((i, outcome));
                        }
                    }
                    progress.update(done, usize::from(first.is_some()), executions.load(Ordering::Relaxed));
                });
                spawned.expect("a worker thread can be spawned");
            }
        })
    });
    BatchOutcome {
        first_failure: failure.into_inner().expect("no worker panics"),
        checked: checked.into_inner(),
        executions: executions.into_inner(),
        inconclusive_executions: inconclusive.into_inner(),
        interludes: interludes.into_inner(),
        inconclusive: inconclusive_matrices.into_inner().expect("no worker panics"),
        deepened: deepened.into_inner().expect("no worker panics"),
    }
}

/// The workers of the check of a batch's matrix with `left` matrices left (its own included), of
/// a batch on `workers`: one while at least twice as many are left, then more, up to every
/// worker for the last (see [`check_matrices`]).
fn tail_workers(workers: usize, left: usize) -> usize {
    (2 * workers).div_ceil(left.max(1)).clamp(1, workers.max(1))
}

/// A violation (or error) a deeper tree found.
type DeeperFailure = Result<Box<Violation>, CheckError>;

/// [`SmallMatrixDeepening`] of one passing `matrix` whose check at `config`'s bound gave `stats`
/// (`None`: its tree is not small): how far it went, and the violation of a deeper tree.
fn deepen_small<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    stats: &CheckStats,
    deepening: SmallMatrixDeepening,
) -> Option<(DeepenedMatrix, Option<DeeperFailure>)> {
    let first = stats.concurrent_executions;
    if first > deepening.small_tree || stats.unfinished || !config.strategy.is_exhaustive() {
        return None;
    }
    let share = (first * deepening.factor).max(deepening.small_tree);
    let mut deepened = DeepenedMatrix {
        shape: matrix.dimensions(),
        bound: config.preemption_bound,
        yield_choices: None,
        executions: 0,
    };
    let base = Config {
        interlude: None,
        ..config.clone()
    };
    let bounds = (1..=deepening.max_extra).map(|extra| Config {
        preemption_bound: config.preemption_bound + extra,
        ..base.clone()
    });
    let chain = deepen_chain(subject, matrix, bounds, share);
    deepened.executions += chain.executions;
    if let Some(covered) = &chain.covered {
        deepened.bound = covered.preemption_bound;
    }
    if chain.failure.is_some() {
        return Some((deepened, chain.failure));
    }
    let yields = (1..=deepening.max_extra).map(|extra| Config {
        yield_to_self: true,
        yield_choices: config.yield_choices + extra,
        ..base.clone()
    });
    let chain = deepen_chain(subject, matrix, yields, share);
    deepened.executions += chain.executions;
    deepened.yield_choices = chain.covered.map(|c| c.yield_choices);
    Some((deepened, chain.failure))
}

/// How a chain of ever deeper checks of one matrix went.
struct Chain {
    /// The deepest configuration whose tree was explored completely.
    covered: Option<Config>,
    /// Executions of both phases.
    executions: u64,
    /// The violation (or error) of the first deeper tree that failed.
    failure: Option<DeeperFailure>,
}

/// Checks `matrix` at each of `deeper` (each tree containing the one before) while their trees
/// stay within `share` executions in all; stops at the first failure.
fn deepen_chain<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    deeper: impl Iterator<Item = Config>,
    share: u64,
) -> Chain {
    let mut chain = Chain {
        covered: None,
        executions: 0,
        failure: None,
    };
    let mut left = share;
    for config in deeper {
        let config = Config {
            max_executions: Some(left),
            ..config
        };
        let stats = match check(subject, matrix, &config) {
            Ok(Verdict::Pass(stats)) => stats,
            Ok(Verdict::Fail(v)) => {
                chain.executions += v.stats.serial_executions + v.stats.concurrent_executions;
                chain.failure = Some(Ok(v));
                break;
            }
            Err(CheckError::Unfinished { executions, .. }) => {
                chain.executions += executions;
                break;
            }
            Err(e) => {
                chain.failure = Some(Err(e));
                break;
            }
        };
        chain.executions += stats.serial_executions + stats.concurrent_executions;
        if stats.concurrent_executions >= left || stats.unfinished {
            break;
        }
        left -= stats.concurrent_executions;
        chain.covered = Some(config);
    }
    chain
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(concurrent: u64, inconclusive: u64) -> CheckStats {
        CheckStats {
            concurrent_executions: concurrent,
            inconclusive_executions: inconclusive,
            ..CheckStats::default()
        }
    }

    #[test]
    fn the_last_matrices_of_a_batch_get_the_workers_the_others_leave() {
        let by_left: Vec<usize> = [40, 32, 31, 20, 16, 11, 8, 4, 2, 1]
            .iter()
            .map(|&left| tail_workers(16, left))
            .collect();
        assert_eq!(by_left, [1, 1, 2, 2, 2, 3, 4, 8, 16, 16]);
        assert_eq!((tail_workers(1, 1), tail_workers(1, 7), tail_workers(2, 3)), (1, 1, 2));
    }

    #[test]
    fn a_matrix_is_mostly_inconclusive_when_unjudged_executions_outnumber_judged_ones() {
        let mut count = Inconclusiveness::default();
        count.add(&stats(10, 0)); // all judged
        count.add(&stats(10, 5)); // as many judged as not
        count.add(&stats(10, 6)); // mostly inconclusive
        count.add(&stats(4, 4)); // wholly inconclusive
        assert_eq!(
            count,
            Inconclusiveness {
                mostly: 2,
                wholly: 1,
                ..Inconclusiveness::default()
            }
        );
        let mut total = Inconclusiveness::default();
        total.merge(count.clone());
        total.merge(count);
        assert_eq!(
            total,
            Inconclusiveness {
                mostly: 4,
                wholly: 2,
                ..Inconclusiveness::default()
            }
        );
    }
}

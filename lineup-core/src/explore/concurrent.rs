//! Phase 2 on the shuttle backend: preemption-bounded concurrent executions, each distinct
//! history judged against the specification.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use crate::config::{Config, Interlude, Strategy};
use crate::error::CheckError;
use crate::explore::decision_tree::DecisionTree;
use crate::explore::recording;
use crate::explore::recording::history_of;
use crate::explore::replay::{plan, ReplayPlan};
use crate::explore::run::explore_keeping_tree;
use crate::explore::sample_split::{index_at, SampleIndices};
use crate::explore::scheduler::{Control, ExecutionResult};
use crate::explore::split::{abort_shared, on_each_worker, on_workers, on_workers_from, worker_count, SplitQueue};
use crate::explore::strategy;
use crate::explore::strategy::pct::Pct;
use crate::explore::strategy::random_walk::RandomWalk;
use crate::explore::strategy::SchedulingStrategy;
use crate::explore::trace_set::{Fingerprint, TraceFingerprints};
use crate::judge::full_spec_index::{FullSpecIndex, FullSpecProbe};
use crate::judge::history_judge::judge;
use crate::judge::phase2_outcome::{Phase2Observer, Phase2Outcome};
use crate::judge::verdict::ViolationKind;
use crate::memory_limit::{serial_history_bytes, MemoryBudget};
use crate::model::history::OpTable;
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::ReplayToken;
use crate::model::subject::Subject;
use crate::profile::parallel_section;
use crate::spec::observation::ObservationSet;
/// Phase 2 on shuttle: explores the concurrent schedules [`Config::strategy`] chooses (or the one
/// schedule of `replay`) and judges every distinct history, until the first violation (or, with an
/// `observer`, to the end, reporting every execution and distinct history to it). The tree of a
/// DFS strategy is explored by [`Config::workers`] OS threads, which share it by prefix
/// ([`split`](crate::explore::split)); the violation reported is the first one in depth-first
/// order, whatever the number of workers. The executions of `random` and `pct` are split among
/// them by index ([`sample_split`](crate::explore::sample_split)), the first failing index
/// reported.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn concurrent_executions<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: Arc<ObservationSet>,
    config: &Config,
    replay: Option<&ReplayToken>,
    observer: Option<&Arc<dyn Phase2Observer>>,
) -> Result<Phase2Outcome, CheckError> {
    let deadline = config.max_duration.map(|limit| Instant::now() + limit);
    let workers = workers_for(config, replay.is_some(), observer.is_some());
    let phase2 = Phase2::new(subject, matrix, spec, observer, deadline, workers);
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
    let split = splits(config, replay.is_some(), observer.is_some());
    let start = Instant::now();
    let (results, interlude_ran) = match interlude_for(config, replay.is_some()) {
        None => {
            let findings = || phase2.findings(config, tree, workers, replayed);
            (if split { parallel_section(findings) } else { findings() }?, None)
        }
        Some(interlude) => phase2.search_with_interlude(config, tree, workers, interlude)?,
    };
    let outcome = Phase2Outcome {
        interlude: interlude_ran,
        distinct: phase2.seen.len(),
        elapsed: start.elapsed(),
        ..Phase2Outcome::default()
    };
    sum_up(outcome, results, observer.is_some())
}

/// How many workers explore: a replayed schedule, a bounded number of executions (which ones
/// depends on the order in which they are explored), or an observed phase 2 (a survey meets its
/// histories in depth-first order) is explored by one; the tree of an exhaustive (DFS) strategy is
/// split, and so are the executions of the sampling strategies (by index).
fn workers_for(config: &Config, replaying: bool, observed: bool) -> usize {
    if splits(config, replaying, observed) {
        worker_count(config.workers)
    } else {
        1
    }
}

/// Whether the exploration is split among all the workers [`Config::workers`] allows (see
/// [`workers_for`]).
fn splits(config: &Config, replaying: bool, observed: bool) -> bool {
    !(replaying || config.max_executions.is_some() || observed)
}

/// The interlude that may run (see [`Interlude`]): only in an exhaustive search that is no replay
/// and may run past the interlude's start.
fn interlude_for(config: &Config, replaying: bool) -> Option<Interlude> {
    config.interlude.filter(|interlude| {
        !replaying && config.strategy.is_exhaustive() && config.max_executions.is_none_or(|max| max > interlude.after)
    })
}

/// What the stages of one phase 2 share: the matrix, the specification, and the fingerprints of
/// the distinct histories judged so far.
struct Phase2<'a, O> {
    subject: &'a Subject<O>,
    matrix: &'a TestMatrix,
    spec: Arc<ObservationSet>,
    ops: OpTable,
    /// What the specification holds: it is held through phase 2, as phase 1 counted it.
    spec_bytes: u64,
    seen: Arc<TraceFingerprints>,
    /// The full serial histories of the specification, for the fast path of the judgement.
    full_index: Arc<FullSpecIndex>,
    observer: Option<&'a Arc<dyn Phase2Observer>>,
    /// When the check's time ([`Config::max_duration`]) runs out.
    deadline: Option<Instant>,
}

impl<'a, O: Send + Sync + 'static> Phase2<'a, O> {
    fn new(
        subject: &'a Subject<O>,
        matrix: &'a TestMatrix,
        spec: Arc<ObservationSet>,
        observer: Option<&'a Arc<dyn Phase2Observer>>,
        deadline: Option<Instant>,
        workers: usize,
    ) -> Self {
        let ops = spec.ops().clone();
        let full_index = parallel_section(|| crate::pool::install(workers, || Arc::new(FullSpecIndex::new(&spec))));
        let spec_bytes: u64 = spec
            .histories()
            .map(|h| serial_history_bytes(h.events().len(), ops.len()))
            .sum();
        Self {
            subject,
            matrix,
            spec,
            ops,
            spec_bytes,
            seen: Arc::new(TraceFingerprints::default()),
            full_index,
            observer,
            deadline,
        }
    }

    /// One stage of phase 2: `config`'s strategy (or the replay of `replayed`) from `tree` on
    /// `workers`, each worker giving back what it found and its tree.
    fn stage(
        &self,
        config: &Config,
        tree: DecisionTree,
        workers: usize,
        replayed: Option<&[u32]>,
    ) -> Result<Vec<(Found, DecisionTree)>, CheckError> {
        match (config.strategy, replayed) {
            (Strategy::Random { executions, .. } | Strategy::Pct { executions, .. }, None) if workers > 1 => {
                self.sample_stage(config, executions, workers)
            }
            _ => on_workers(workers, tree, |tree, split| self.worker(config, tree, split, replayed)),
        }
    }

    /// A stage of a sampling strategy's `executions`, split among `workers` by index (see
    /// [`sample_split`](crate::explore::sample_split)): what they found (the violation placed by
    /// index), with an empty tree.
    fn sample_stage(
        &self,
        config: &Config,
        executions: u64,
        workers: usize,
    ) -> Result<Vec<(Found, DecisionTree)>, CheckError> {
        let indices = Arc::new(SampleIndices::new(executions, workers));
        let found = self.sample_round(config, config.strategy, &indices)?;
        Ok(vec![(found, DecisionTree::new())])
    }

    /// [`stage`](Self::stage), without the trees.
    fn findings(
        &self,
        config: &Config,
        tree: DecisionTree,
        workers: usize,
        replayed: Option<&[u32]>,
    ) -> Result<Vec<Found>, CheckError> {
        let found = self.stage(config, tree, workers, replayed)?;
        Ok(found.into_iter().map(|(found, _)| found).collect())
    }

    /// One worker of a stage: explores `tree` (with the workers of `split`, if any), judging each
    /// execution.
    fn worker(
        &self,
        config: &Config,
        tree: DecisionTree,
        split: Option<&Arc<SplitQueue>>,
        replayed: Option<&[u32]>,
    ) -> Result<(Found, DecisionTree), CheckError> {
        let judge = self.judge(config, split, None);
        self.explore(config, tree, split, strategy::for_phase2(config, replayed), judge)
    }

    /// The judge of one worker's executions, which shares its tree with `split`'s workers or its
    /// sample with `samples`' workers, if any.
    fn judge(
        &self,
        config: &Config,
        split: Option<&Arc<SplitQueue>>,
        samples: Option<&Arc<SampleIndices>>,
    ) -> ExecutionJudge {
        ExecutionJudge {
            full_index: RefCell::new(FullSpecProbe::new(Arc::clone(&self.full_index))),
            found: Rc::new(RefCell::new(Found::new(config))),
            spec: Arc::clone(&self.spec),
            ops: self.ops.clone(),
            spec_bytes: self.spec_bytes,
            check_stuck: config.check_stuck,
            queue: split.cloned(),
            samples: samples.cloned(),
            seen: Arc::clone(&self.seen),
            observer: self.observer.cloned(),
            deadline: self.deadline,
        }
    }

    /// One worker's exploration of `tree` with `strategy`, each execution handed to `judge`: what
    /// it found, and the tree as it left it.
    fn explore(
        &self,
        config: &Config,
        tree: DecisionTree,
        split: Option<&Arc<SplitQueue>>,
        strategy: Box<dyn SchedulingStrategy>,
        judge: ExecutionJudge,
    ) -> Result<(Found, DecisionTree), CheckError> {
        let found = Rc::clone(&judge.found);
        let (explored, tree) = explore_keeping_tree(
            self.subject,
            self.matrix,
            tree,
            Some(strategy),
            split,
            config,
            move |result| judge.execution(result),
        )?;
        let mut found = Rc::try_unwrap(found)
            .map_err(|_| ())
            .expect("exploration finished")
            .into_inner();
        found.executions = explored.executions;
        found.redundant = explored.redundant;
        found.cancellation_points = explored.cancellation_points;
        Ok((found, tree))
    }

    /// The exhaustive search with the interlude (see [`Interlude`]): the search's first `after`
    /// executions in depth-first order, the sample's first round, the search's next `after`, the
    /// sample's second round (twice as long), the search's next `2 × after`, and so on until the
    /// search's tree is explored. Gives what each stage found, and the interlude that ran with its
    /// executions.
    ///
    /// The search runs on every worker, on a queue that pauses once the first executions up to the
    /// round's count in depth-first order are explored (workers may have explored some later ones
    /// by then; they count for the next round) and resumes from the trees the workers handed back.
    /// A violation of the search is reported only once every sample's round before it found none,
    /// so what is reported does not depend on the number of workers.
    fn search_with_interlude(
        &self,
        config: &Config,
        tree: DecisionTree,
        workers: usize,
        interlude: Interlude,
    ) -> Result<(Vec<Found>, Option<InterludeRan>), CheckError> {
        if config.max_executions.is_some() {
            return self.search_with_interlude_bounded(config, tree, interlude);
        }
        let queue = Arc::new(SplitQueue::pausing(workers, interlude.pause_of_round(0)));
        let mut search = parallel_section(|| self.stage_on(config, &queue, Some(tree)))?;
        let mut sample = InterludeSample::new(interlude, workers);
        let mut sampled = Vec::new();
        for round in 0.. {
            if !sample_due(&search, &queue, interlude.pause_of_round(round)) {
                break;
            }
            let found = parallel_section(|| sample.round(self, config, round, u64::MAX))?;
            let stopped = found.stopped();
            if found.violation.is_some() {
                // The sample's round comes before the rest of the search: a violation the search
                // met early (past the round's pause) is not the first one.
                for earlier in &mut search {
                    earlier.violation = None;
                }
            }
            sampled.push(found);
            if stopped {
                break;
            }
            if queue.is_paused() {
                queue.resume(workers, interlude.pause_of_round(round + 1));
                search.extend(parallel_section(|| self.stage_on(config, &queue, None))?);
            }
        }
        search.append(&mut sampled);
        Ok((search, sample.ran()))
    }

    /// A round of the sample's executions, the ones `indices` holds, split among its workers by
    /// index (one worker runs them in order): what it found.
    fn sample_round(
        &self,
        config: &Config,
        strategy: Strategy,
        indices: &Arc<SampleIndices>,
    ) -> Result<Found, CheckError> {
        let config = Config {
            strategy,
            max_executions: None,
            ..config.clone()
        };
        let found = on_each_worker(indices.workers(), |w| {
            let first = indices.first(w);
            if first >= indices.end() {
                return Ok(Found::new(&config));
            }
            let strategy: Box<dyn SchedulingStrategy> = match strategy {
                Strategy::Pct { depth, seed, .. } => match Pct::split(depth, seed, first, Arc::clone(indices)) {
                    Some(pct) => Box::new(pct),
                    None => return Ok(Found::new(&config)),
                },
                Strategy::Random { seed, .. } => Box::new(RandomWalk::split(seed, first, Arc::clone(indices))),
                exhaustive => unreachable!("{exhaustive} is not split by index"),
            };
            let judge = self.judge(&config, None, Some(indices));
            let found = self.explore(&config, DecisionTree::new(), None, strategy, judge);
            if found.is_err() {
                indices.abort();
            }
            found.map(|(found, _)| found)
        });
        let found: Vec<Found> = found.into_iter().collect::<Result<_, _>>()?;
        Ok(Found::merged(found).expect("a round has a worker"))
    }

    /// A stage on the workers of `queue`, the first of which starts with `first`, if any (the
    /// others take their work from the queue).
    fn stage_on(
        &self,
        config: &Config,
        queue: &Arc<SplitQueue>,
        first: Option<DecisionTree>,
    ) -> Result<Vec<Found>, CheckError> {
        let found = on_workers_from(queue, first, |tree, split| self.worker(config, tree, split, None))?;
        Ok(found.into_iter().map(|(found, _)| found).collect())
    }

    /// [`search_with_interlude`](Self::search_with_interlude) within [`Config::max_executions`]:
    /// on one worker (which executions a bound leaves out depends on the order they are explored
    /// in), the search and the sample's rounds in turn, each until the bound is spent.
    fn search_with_interlude_bounded(
        &self,
        config: &Config,
        mut tree: DecisionTree,
        interlude: Interlude,
    ) -> Result<(Vec<Found>, Option<InterludeRan>), CheckError> {
        let mut left = config.max_executions.unwrap_or(u64::MAX);
        let mut searched = 0;
        let mut results = Vec::new();
        let mut sample = InterludeSample::new(interlude, 1);
        for round in 0.. {
            let up_to = (interlude.pause_of_round(round) - searched).min(left);
            let part = Config {
                max_executions: Some(up_to),
                ..config.clone()
            };
            let (found, at) = self.stage(&part, tree, 1, None)?.pop().expect("one worker");
            tree = at;
            let (stopped, ran) = (found.stopped(), found.executions);
            results.push(found);
            searched += ran;
            left -= ran.min(left);
            if stopped || ran < up_to || left == 0 || !tree.advance() {
                break;
            }
            let found = sample.round(self, config, round, left)?;
            let stopped = found.stopped();
            left -= found.executions.min(left);
            results.push(found);
            if stopped || left == 0 {
                break;
            }
        }
        Ok((results, sample.ran()))
    }
}

/// Whether the sample's round that comes after the search's first `pause` executions runs: the
/// search did not stop at a limit, met no violation among those executions, and its tree has more
/// (it paused there, or its workers explored past it before they stopped).
fn sample_due(search: &[Found], queue: &SplitQueue, pause: u64) -> bool {
    if search.iter().any(|found| found.memory.is_some() || found.unfinished) {
        return false;
    }
    let first_violation = search
        .iter()
        .filter_map(|found| found.violation.as_ref())
        .map(|v| &v.2)
        .min();
    if first_violation.is_some_and(|position| queue.executions_up_to(position) <= pause) {
        return false;
    }
    let explored: u64 = search.iter().map(|found| found.executions).sum();
    explored > pause || queue.has_work_left()
}

/// The interlude's sample as it goes on, round after round (see [`Interlude`]).
struct InterludeSample {
    interlude: Interlude,
    workers: usize,
    /// The indices of the last round run (`None` before the first).
    last: Option<Arc<SampleIndices>>,
    /// The executions run in every round so far.
    ran: u64,
}

impl InterludeSample {
    fn new(interlude: Interlude, workers: usize) -> Self {
        Self {
            interlude,
            workers,
            last: None,
            ran: 0,
        }
    }

    /// Runs round `round` (of at most `at_most` executions) on `phase2`: what it found.
    fn round<O: Send + Sync + 'static>(
        &mut self,
        phase2: &Phase2<'_, O>,
        config: &Config,
        round: u32,
        at_most: u64,
    ) -> Result<Found, CheckError> {
        let end = self
            .interlude
            .sample_through(round)
            .min(self.ran.saturating_add(at_most));
        let indices = Arc::new(match &self.last {
            None => SampleIndices::new(end, self.workers),
            Some(last) => last.continuing(end, self.workers),
        });
        let found = phase2.sample_round(config, self.interlude.strategy, &indices)?;
        self.ran += found.executions;
        self.last = Some(indices);
        Ok(found)
    }

    /// The interlude, with the executions of all its rounds, if any ran.
    fn ran(&self) -> Option<InterludeRan> {
        self.last.as_ref().map(|_| (self.interlude, self.ran))
    }
}

/// Adds up what the stages and their workers found into `outcome`. Stages run one after the other,
/// each only if the one before found nothing: the first violation is the first stage's, and within
/// it the first in depth-first order.
fn sum_up(mut outcome: Phase2Outcome, results: Vec<Found>, observed: bool) -> Result<Phase2Outcome, CheckError> {
    let Some(all) = Found::merged(results) else {
        return Ok(outcome);
    };
    outcome.executions += all.executions;
    outcome.redundant += all.redundant;
    outcome.cancellation_points += all.cancellation_points;
    outcome.stuck += all.stuck;
    outcome.inconclusive += all.inconclusive;
    outcome.unfinished |= all.unfinished;
    if let Some((kind, token, _)) = all.violation {
        outcome.violation = Some((kind, token));
    }
    // The violating history is one of the distinct histories judged (an observer was told of it).
    outcome.distinct += usize::from(outcome.violation.is_some() && !observed);
    if let Some((limit, held)) = all.memory {
        return Err(CheckError::MemoryLimit {
            phase: "phase 2 (concurrent executions)",
            limit,
            held,
            executions: outcome.executions,
        });
    }
    Ok(outcome)
}

/// The interlude that ran, with its executions.
type InterludeRan = (Interlude, u64);

/// What one worker of phase 2 found.
struct Found {
    executions: u64,
    /// Of those, the ones the partial-order reduction ended early.
    redundant: u64,
    /// Cancellation points offered in them.
    cancellation_points: u64,
    stuck: usize,
    inconclusive: u64,
    /// The first violation this worker found, with its token and its place in the tree.
    violation: Option<(ViolationKind, ReplayToken, Vec<u32>)>,
    budget: MemoryBudget,
    /// The budget and what was held when the fingerprints went past it.
    memory: Option<(u64, u64)>,
    /// The check's time ran out: the executions after this one were not explored.
    unfinished: bool,
}

impl Found {
    fn new(config: &Config) -> Self {
        Self {
            executions: 0,
            redundant: 0,
            cancellation_points: 0,
            stuck: 0,
            inconclusive: 0,
            violation: None,
            budget: MemoryBudget::new(config.max_memory),
            memory: None,
            unfinished: false,
        }
    }

    /// What `workers` found (of one stage, or of stages each run only if the one before found
    /// nothing), as one worker's: their counts added up, the first violation (by place), the first
    /// memory overrun; none without workers.
    fn merged(workers: impl IntoIterator<Item = Found>) -> Option<Found> {
        let mut workers = workers.into_iter();
        let mut all = workers.next()?;
        for found in workers {
            all.executions += found.executions;
            all.redundant += found.redundant;
            all.cancellation_points += found.cancellation_points;
            all.stuck += found.stuck;
            all.inconclusive += found.inconclusive;
            all.unfinished |= found.unfinished;
            all.memory = all.memory.or(found.memory);
            if let Some(violation) = found.violation {
                if all.violation.as_ref().is_none_or(|first| violation.2 < first.2) {
                    all.violation = Some(violation);
                }
            }
        }
        Some(all)
    }

    /// The worker stopped early: at a violation, or past the memory budget.
    fn stopped(&self) -> bool {
        self.violation.is_some() || self.memory.is_some() || self.unfinished
    }
}

/// Judges the executions one worker explores, as they end.
struct ExecutionJudge {
    /// This worker's way into the specification's index of full histories.
    full_index: RefCell<FullSpecProbe>,
    found: Rc<RefCell<Found>>,
    spec: Arc<ObservationSet>,
    ops: OpTable,
    spec_bytes: u64,
    check_stuck: bool,
    /// The workers this one shares its tree with, if any.
    queue: Option<Arc<SplitQueue>>,
    /// The workers this one shares its sample's indices with, if any.
    samples: Option<Arc<SampleIndices>>,
    seen: Arc<TraceFingerprints>,
    observer: Option<Arc<dyn Phase2Observer>>,
    deadline: Option<Instant>,
}

impl ExecutionJudge {
    /// One execution ended: a history already seen goes by, a new one is judged (its full
    /// witness on its trace alone if it has one, else by the judge).
    fn execution(&self, result: ExecutionResult<'_>) -> Control {
        let found = &mut *self.found.borrow_mut();
        if let Some(observer) = &self.observer {
            observer.executions(1 + result.redundant_before);
        }
        if self.deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            found.unfinished = true;
            abort_shared(self.queue.as_ref());
            return Control::Stop;
        }
        if result.inconclusive {
            found.inconclusive += 1;
            return Control::Continue;
        }
        let fingerprint = recording::with(|r| Fingerprint::of(result.trace, &r.interner));
        if self.seen.contains(fingerprint) {
            return Control::Continue;
        }
        if self.over_budget(found) {
            return Control::Stop;
        }
        if result.stuck.is_none() && self.has_full_witness(&result) {
            self.seen.insert(fingerprint);
            if let Some(observer) = &self.observer {
                observer.history(fingerprint.value(), false, false);
            }
            return Control::Continue;
        }
        let history = history_of(result.trace, &self.ops);
        match judge(&self.spec, &history, result.stuck, self.check_stuck) {
            None => {
                // Counted once, by the worker that remembered it first.
                if self.seen.insert(fingerprint) {
                    found.stuck += usize::from(history.is_stuck());
                    if let Some(observer) = &self.observer {
                        observer.history(fingerprint.value(), false, history.is_stuck());
                    }
                }
                Control::Continue
            }
            Some(kind) => self.violation(found, &result, kind, fingerprint, history.is_stuck()),
        }
    }

    /// A new distinct history: its fingerprint will be held until the end, with the spec. Past the
    /// budget, the worker (and those it shares its tree with) stop.
    fn over_budget(&self, found: &mut Found) -> bool {
        let held = self.spec_bytes + (self.seen.len() as u64 + 1) * FINGERPRINT_BYTES;
        if !found.budget.exceeded(held) {
            return false;
        }
        found.memory = Some((found.budget.limit(), held));
        abort_shared(self.queue.as_ref());
        true
    }

    /// Fast path: a full history with a witness is judged on its trace alone.
    fn has_full_witness(&self, result: &ExecutionResult<'_>) -> bool {
        let mut index = self.full_index.borrow_mut();
        recording::with(|r| index.has_witness(result.trace.events, result.trace.responses, &r.interner))
    }

    /// A violating history: remembered as this worker's first if it comes before the one it has in
    /// depth-first order. The exploration stops there, unless an observer wants every history.
    fn violation(
        &self,
        found: &mut Found,
        result: &ExecutionResult<'_>,
        kind: ViolationKind,
        fingerprint: Fingerprint,
        stuck: bool,
    ) -> Control {
        // A violating history is not remembered: a worker that meets it earlier in depth-first
        // order reports it there. Workers compare executions by their place in the tree.
        let position = result.position();
        if let Some(queue) = &self.queue {
            queue.found(position.clone());
        }
        if let (Some(samples), Some(index)) = (&self.samples, index_at(&position)) {
            samples.found(index);
        }
        if found.violation.as_ref().is_none_or(|(_, _, first)| position < *first) {
            let (phase, choices) = result.token();
            found.violation = Some((kind, ReplayToken { phase, choices }, position));
        }
        let Some(observer) = &self.observer else {
            return Control::Stop;
        };
        // An observer is told of every distinct violation once, and the exploration goes on.
        if self.seen.insert(fingerprint) {
            observer.history(fingerprint.value(), true, stuck);
        }
        Control::Continue
    }
}

/// About what one fingerprint holds in phase 2's set: 16 bytes in a hash table kept at most 7/8
/// full, which doubles as it grows (up to twice that while it does), with its control byte.
const FINGERPRINT_BYTES: u64 = 40;

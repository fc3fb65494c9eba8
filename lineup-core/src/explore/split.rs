//! One exploration on several workers: the decision tree of a matrix is split among OS threads
//! by prefix, with work stealing.
//!
//! The first worker starts with the whole tree; the others wait for work. After each execution a
//! worker that sees an idle one hands the untried options of its shallowest branch point to a
//! shared queue, as subtrees ([`DecisionTree::donate`]); a worker whose tree is exhausted takes
//! the first queued subtree in depth-first order. Every leaf is explored exactly once, by one
//! worker.
//!
//! A worker that finds what ends the exploration (a violation, a proof of nondeterminism) reports
//! its schedule with [`SplitQueue::found`]; the result of the exploration is the first such
//! schedule in depth-first order, as one worker alone would report it: executions after the best
//! schedule found so far are skipped, executions before it are all explored. An error stops every
//! worker ([`SplitQueue::abort`]).
//!
//! A *pausing* exploration ([`SplitQueue::pausing`], the interlude's search) stops once its first
//! `after` executions in depth-first order are explored, whatever the workers explored past them:
//! the tree is counted in pieces (the whole tree and every subtree handed out, each a run of
//! consecutive executions), the worker of the first piece not done counts its own executions
//! against what the pieces before it hold, and at the pause every worker hands its tree back to
//! the queue, which [`SplitQueue::resume`] gives to the next stage, with the count of the pause
//! after it. The pieces and their counts last through every stage.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use rustc_hash::FxHashMap;

use crate::error::CheckError;
use crate::explore::context::ExecutionContext;
use crate::explore::decision_tree::{Completion, DecisionTree, Subtree};

/// The subtrees waiting for a worker, and what the workers found, shared by the workers of one
/// exploration.
#[derive(Debug)]
pub(crate) struct SplitQueue {
    state: Mutex<SplitState>,
    wake: Condvar,
    /// Workers waiting for a subtree (a copy of `SplitState::idle`, read without the lock).
    idle: AtomicUsize,
    /// A schedule was found: executions after it are not needed.
    found: AtomicBool,
    /// An error ended the exploration.
    aborted: AtomicBool,
    /// A pausing exploration: the piece whose worker watches the count ([`Pieces`]) and how many
    /// executions of its own make the first `after` of the tree (read without the lock; written
    /// under it, only when the piece before changes).
    lead: AtomicU64,
    lead_target: AtomicU64,
    /// The first `after` executions of a pausing exploration are explored: every worker hands its
    /// tree back and stops.
    paused: AtomicBool,
    /// The options of shared branch points whose subtrees are complete, by the choices before the
    /// branch point (see [`Completion`]): what a single tree would know of them when it moved on
    /// to their later siblings, which other workers explore.
    completions: Mutex<FxHashMap<Vec<u32>, Vec<Completion>>>,
    /// How many completions were published (read without the lock).
    published: AtomicU64,
}

/// What the workers of one exploration share under the queue's lock.
#[derive(Debug)]
struct SplitState {
    /// The subtrees handed out and not taken yet, in depth-first order.
    queue: BTreeSet<Subtree>,
    /// The trees handed back at a pause, by the position of their next execution, each with the
    /// start of its piece: each goes on where it stopped, on whichever worker takes it.
    resumable: BTreeMap<Vec<u32>, (Vec<u32>, DecisionTree)>,
    /// The workers of the exploration.
    workers: usize,
    /// Workers waiting for a subtree.
    idle: usize,
    /// The first schedule found so far in depth-first order, if any (see [`SplitQueue::found`]).
    best: Option<Vec<u32>>,
    /// Every worker waits for a subtree and nothing is queued: the exploration is over.
    done: bool,
    /// Of a pausing exploration: the pieces of the tree its workers explore.
    pieces: Option<Pieces>,
}

/// The tree of a pausing exploration as pieces: the whole tree, and every subtree handed out, is
/// a piece from its prefix on, up to the first subtree it hands out later. The pieces cover every
/// execution once, each a run of consecutive executions in depth-first order, so that the place of
/// an execution in that order is the executions of the pieces before its own plus its place in
/// its piece. The worker of the first piece not finished (the lead) counts: when the executions
/// before its piece and its own make `after`, the exploration pauses.
///
/// A piece is handed out only by a worker that explores a piece not done, and only past what that
/// worker has left: the pieces before the lead are done and stay as they are, so the lead only
/// moves on (`lead_start`, `before`).
#[derive(Debug)]
struct Pieces {
    /// Where the exploration pauses (next): after this many executions in depth-first order.
    after: u64,
    /// By prefix, in depth-first order.
    by_start: BTreeMap<Vec<u32>, Piece>,
    next_id: u64,
    /// The start of the lead's piece, the first not done (`None`: every piece is done).
    lead_start: Option<Vec<u32>>,
    /// The executions of the pieces before the lead's.
    before: u64,
}

/// One piece of a pausing exploration.
#[derive(Debug)]
struct Piece {
    id: u64,
    /// Its executions explored so far (counted by its worker; here once it stops).
    executions: u64,
    /// Its worker explored all of it (or stopped at a violation, after which nothing is needed).
    done: bool,
}

/// No piece leads (`SplitQueue::lead`).
const NO_LEAD: u64 = u64::MAX;

impl SplitQueue {
    /// A queue for `workers` workers, the first of which explores the whole tree.
    pub fn new(workers: usize) -> Self {
        Self::with_pieces(workers, None)
    }

    /// A queue for `workers` workers that pauses once the first `after` executions of the tree in
    /// depth-first order are explored: every worker hands its tree back and stops, and
    /// [`resume`](Self::resume) lets the workers of a next stage go on with them.
    pub fn pausing(workers: usize, after: u64) -> Self {
        let mut by_start = BTreeMap::new();
        by_start.insert(
            Vec::new(),
            Piece {
                id: 0,
                executions: 0,
                done: false,
            },
        );
        let queue = Self::with_pieces(
            workers,
            Some(Pieces {
                after,
                by_start,
                next_id: 1,
                lead_start: Some(Vec::new()),
                before: 0,
            }),
        );
        queue.lead.store(0, Ordering::Relaxed);
        queue.lead_target.store(after.max(1), Ordering::Relaxed);
        queue
    }

    fn with_pieces(workers: usize, pieces: Option<Pieces>) -> Self {
        Self {
            state: Mutex::new(SplitState {
                queue: BTreeSet::new(),
                resumable: BTreeMap::new(),
                workers,
                idle: 0,
                best: None,
                done: false,
                pieces,
            }),
            wake: Condvar::new(),
            idle: AtomicUsize::new(0),
            found: AtomicBool::new(false),
            aborted: AtomicBool::new(false),
            lead: AtomicU64::new(NO_LEAD),
            lead_target: AtomicU64::new(u64::MAX),
            paused: AtomicBool::new(false),
            completions: Mutex::new(FxHashMap::default()),
            published: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SplitState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the exploration paused (see [`pausing`](Self::pausing)).
    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Relaxed)
    }

    /// Whether work is left after a pause: trees handed back or subtrees not taken.
    pub fn has_work_left(&self) -> bool {
        let state = self.lock();
        !state.queue.is_empty() || !state.resumable.is_empty()
    }

    /// How many executions of a pausing exploration come at or before `position` in depth-first
    /// order, once every execution before it is explored: `position` is the place of an execution
    /// that ended its worker's piece.
    pub fn executions_up_to(&self, position: &[u32]) -> u64 {
        let state = self.lock();
        state.pieces.as_ref().map_or(0, |pieces| {
            pieces
                .by_start
                .range::<[u32], _>((std::ops::Bound::Unbounded, std::ops::Bound::Included(position)))
                .map(|(_, piece)| piece.executions)
                .sum()
        })
    }

    /// After a pause: the next stage's workers (all from the queue, [`on_workers_from`]) go on with
    /// the trees handed back and the subtrees left, each piece counted on from where it stopped,
    /// and pause again once the first `after` executions in depth-first order are explored (at
    /// once if they already are).
    pub fn resume(&self, workers: usize, after: u64) {
        let mut state = self.lock();
        state.workers = workers;
        state.idle = 0;
        state.done = false;
        self.idle.store(0, Ordering::Relaxed);
        self.paused.store(false, Ordering::Relaxed);
        let Some(pieces) = &mut state.pieces else {
            return;
        };
        pieces.after = after;
        let (lead, before) = match &pieces.lead_start {
            Some(start) => (pieces.by_start[start].id, pieces.before),
            None => (NO_LEAD, pieces.before),
        };
        self.lead.store(lead, Ordering::Relaxed);
        self.lead_target
            .store(after.saturating_sub(before).max(1), Ordering::Relaxed);
        if lead != NO_LEAD && before >= after {
            self.paused.store(true, Ordering::Relaxed);
        }
    }

    /// Called between two executions of `tree` (after [`DecisionTree::advance`]): whether the
    /// worker goes on with its tree. Hands work to idle workers on the way.
    fn keep_going(&self, worker: &mut PieceCursor, tree: &mut DecisionTree) -> bool {
        if self.aborted.load(Ordering::Relaxed) {
            return false;
        }
        let found = self.found.load(Ordering::Relaxed);
        if found {
            let state = self.lock();
            // Every execution left in this tree comes after the best one found.
            if state.best.as_ref().is_some_and(|best| tree.position() > *best) {
                return false;
            }
        }
        if worker.id != NO_LEAD
            && self.lead.load(Ordering::Relaxed) == worker.id
            && worker.executions >= self.lead_target.load(Ordering::Relaxed)
        {
            self.pause();
        }
        if self.paused.load(Ordering::Relaxed) {
            self.hand_back(worker, tree);
            return false;
        }
        if self.idle.load(Ordering::Relaxed) == 0 {
            return true;
        }
        let mut state = self.lock();
        if state.idle > state.queue.len() + state.resumable.len() {
            let donated = tree.donate();
            if !donated.is_empty() {
                if let Some(pieces) = &mut state.pieces {
                    pieces.add(&donated);
                }
                state.queue.extend(donated);
                self.wake.notify_all();
            }
        }
        true
    }

    /// The first `after` executions are explored: every worker stops after its execution.
    fn pause(&self) {
        let _state = self.lock();
        self.paused.store(true, Ordering::Relaxed);
        self.wake.notify_all();
    }

    /// A worker stops at a pause: its tree (at its next execution) waits for the next stage, and
    /// its piece keeps the executions it had.
    fn hand_back(&self, worker: &mut PieceCursor, tree: &mut DecisionTree) {
        let mut state = self.lock();
        if let Some(piece) = state.pieces.as_mut().and_then(|p| p.by_start.get_mut(&worker.start)) {
            piece.executions = worker.executions;
        }
        state
            .resumable
            .insert(tree.position(), (worker.start.clone(), std::mem::take(tree)));
        worker.handed_back = true;
    }

    /// The next subtree for a worker whose tree is exhausted (`worker`'s piece is done): the first
    /// queued one in depth-first order that may still hold an execution before the best one found.
    /// `None` when the exploration is over (every worker waits and nothing is queued, it was
    /// aborted, or it paused).
    fn next_subtree(&self, worker: &mut PieceCursor) -> Option<DecisionTree> {
        let mut state = self.lock();
        if !std::mem::take(&mut worker.handed_back) {
            self.piece_done(&mut state, worker);
        }
        state.idle += 1;
        self.idle.store(state.idle, Ordering::Relaxed);
        loop {
            if state.done || self.aborted.load(Ordering::Relaxed) || self.paused.load(Ordering::Relaxed) {
                return None;
            }
            if let Some((start, tree)) = Self::first_work(&mut state) {
                state.idle -= 1;
                self.idle.store(state.idle, Ordering::Relaxed);
                // A tree handed back goes on counting its piece's executions.
                let (id, executions) = state
                    .pieces
                    .as_ref()
                    .and_then(|p| p.by_start.get(&start))
                    .map_or((NO_LEAD, 0), |p| (p.id, p.executions));
                *worker = PieceCursor {
                    start,
                    id,
                    executions,
                    handed_back: false,
                };
                return Some(tree);
            }
            if state.idle == state.workers {
                state.done = true;
                self.wake.notify_all();
                return None;
            }
            state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Takes the first work queued in depth-first order, a subtree or a tree handed back, with the
    /// start of its piece; drops everything queued when that comes after the best schedule found.
    fn first_work(state: &mut SplitState) -> Option<(Vec<u32>, DecisionTree)> {
        let subtree = state.queue.first().map(|s| s.choices.clone());
        let resumable = state.resumable.keys().next().cloned();
        let first = match (&subtree, &resumable) {
            (Some(s), Some(r)) => s.min(r),
            (Some(s), None) => s,
            (None, Some(r)) => r,
            (None, None) => return None,
        };
        if state.best.as_ref().is_some_and(|best| first > best) {
            // Every execution below it, and below everything queued after it, comes after the best
            // one: none is needed.
            state.queue.clear();
            state.resumable.clear();
            return None;
        }
        if resumable.as_ref() == Some(first) && subtree.as_ref().is_none_or(|s| s > first) {
            let (_, piece) = state.resumable.pop_first().expect("a tree handed back");
            return Some(piece);
        }
        let subtree = state.queue.pop_first().expect("a subtree");
        let tree = DecisionTree::subtree(&subtree);
        Some((subtree.choices, tree))
    }

    /// The first work of a worker that starts without a tree of its own (see
    /// [`next_subtree`](Self::next_subtree)).
    fn first_subtree(&self) -> Option<DecisionTree> {
        let mut none = PieceCursor {
            start: Vec::new(),
            id: NO_LEAD,
            executions: 0,
            handed_back: true,
        };
        self.next_subtree(&mut none)
    }

    /// `worker`'s piece is explored (or stopped at a violation): if it led, the next piece not done
    /// leads, and when the pieces done before it make `after`, the exploration pauses.
    fn piece_done(&self, state: &mut SplitState, worker: &PieceCursor) {
        let Some(pieces) = &mut state.pieces else {
            return;
        };
        if let Some(piece) = pieces.by_start.get_mut(&worker.start) {
            piece.executions = worker.executions;
            piece.done = true;
        }
        if self.lead.load(Ordering::Relaxed) != worker.id {
            return;
        }
        let lead = pieces.move_lead();
        self.lead.store(lead, Ordering::Relaxed);
        self.lead_target
            .store(pieces.after.saturating_sub(pieces.before).max(1), Ordering::Relaxed);
        if lead != NO_LEAD && pieces.before >= pieces.after {
            self.paused.store(true, Ordering::Relaxed);
            self.wake.notify_all();
        }
    }

    /// A worker found an execution that ends the exploration, with this schedule: executions after
    /// it in depth-first order are not explored any more.
    pub fn found(&self, schedule: Vec<u32>) {
        let mut state = self.lock();
        if state.best.as_ref().is_none_or(|best| schedule < *best) {
            state.best = Some(schedule);
        }
        self.found.store(true, Ordering::Relaxed);
    }

    /// Ends the exploration for every worker (an error).
    pub fn abort(&self) {
        self.aborted.store(true, Ordering::Relaxed);
        let _state = self.lock();
        self.wake.notify_all();
    }
}

impl Pieces {
    /// Subtrees handed out become pieces of their own.
    fn add(&mut self, subtrees: &[Subtree]) {
        for subtree in subtrees {
            self.by_start.insert(
                subtree.choices.clone(),
                Piece {
                    id: self.next_id,
                    executions: 0,
                    done: false,
                },
            );
            self.next_id += 1;
        }
    }

    /// The lead's piece is done: the lead moves to the first piece not done after it (adding the
    /// executions of those done on the way to `before`). Its id, or [`NO_LEAD`] when every piece
    /// is done.
    fn move_lead(&mut self) -> u64 {
        let Some(start) = self.lead_start.take() else {
            return NO_LEAD;
        };
        for (start, piece) in self.by_start.range(start..) {
            if !piece.done {
                self.lead_start = Some(start.clone());
                return piece.id;
            }
            self.before += piece.executions;
        }
        NO_LEAD
    }
}

/// The piece a worker explores now (see [`Pieces`]), and its executions so far.
#[derive(Debug)]
struct PieceCursor {
    start: Vec<u32>,
    id: u64,
    executions: u64,
    /// Its tree was handed back at a pause: the piece is not done.
    handed_back: bool,
}

/// One worker's end of a [`SplitQueue`]: what the scheduler calls between executions.
#[derive(Debug)]
pub(crate) struct SplitWorker {
    queue: Arc<SplitQueue>,
    piece: PieceCursor,
    /// How many completions were published when this worker's tree last learned them
    /// ([`NOT_LEARNED`]: its tree has learned none yet).
    learned: u64,
}

/// A worker's tree has not learned the completions published so far (`SplitWorker::learned`).
const NOT_LEARNED: u64 = u64::MAX;

impl SplitWorker {
    /// The worker of `queue` that starts with `tree`: the whole tree (the first piece), a subtree
    /// the queue handed it, or a tree handed back at a pause (whose piece it goes on counting).
    pub fn new(queue: Arc<SplitQueue>, tree: &DecisionTree) -> Self {
        let start = tree.prefix();
        let (id, executions) = {
            let state = queue.lock();
            state
                .pieces
                .as_ref()
                .and_then(|p| p.by_start.get(&start))
                .map_or((NO_LEAD, 0), |p| (p.id, p.executions))
        };
        Self {
            queue,
            piece: PieceCursor {
                start,
                id,
                executions,
                handed_back: false,
            },
            learned: NOT_LEARNED,
        }
    }

    /// After an execution of `tree`: publishes the options of shared branch points it completed
    /// (see [`Completion`]). With `fault`
    /// ([`ReductionFault::SplitCompletionsCover`](crate::config::ReductionFault)), every
    /// completion published is taken to cover its later siblings.
    pub fn publish(&self, tree: &mut DecisionTree, fault: bool) {
        let mine = tree.take_completions();
        if mine.is_empty() {
            return;
        }
        let n = mine.len() as u64;
        let mut map = self.queue.completions.lock().unwrap_or_else(|e| e.into_inner());
        for mut completion in mine {
            completion.covered |= fault;
            map.entry(completion.key.clone()).or_default().push(completion);
        }
        self.queue.published.fetch_add(n, Ordering::Relaxed);
    }

    /// Lets `tree` learn the completions the workers published since it last did (see
    /// [`DecisionTree::learn`]): `false` when they cover every execution left in it.
    pub fn learn(&mut self, tree: &mut DecisionTree) -> bool {
        let now = self.queue.published.load(Ordering::Relaxed);
        if now == self.learned {
            return true;
        }
        let map = self.queue.completions.lock().unwrap_or_else(|e| e.into_inner());
        // Read under the lock: every completion counted is in the map.
        self.learned = self.queue.published.load(Ordering::Relaxed);
        tree.learn(|key| map.get(key).map(Vec::as_slice))
    }

    /// An execution of the worker's tree ended.
    pub fn execution_ended(&mut self) {
        self.piece.executions += 1;
    }

    /// See [`SplitQueue::keep_going`].
    pub fn keep_going(&mut self, tree: &mut DecisionTree) -> bool {
        self.queue.keep_going(&mut self.piece, tree)
    }

    /// See [`SplitQueue::next_subtree`]. A subtree that the completions published so far cover
    /// is passed over, as explored.
    pub fn next_subtree(&mut self) -> Option<DecisionTree> {
        loop {
            let mut tree = self.queue.next_subtree(&mut self.piece)?;
            self.learned = NOT_LEARNED;
            if self.learn(&mut tree) {
                return Some(tree);
            }
        }
    }

    /// See [`SplitQueue::abort`].
    pub fn abort(&self) {
        self.queue.abort();
    }
}

/// Ends the exploration of every worker that shares this one's tree (`queue`), if any: what a
/// worker does before it stops its own at a limit (time, memory, the step limit in phase 1).
pub fn abort_shared(queue: Option<&Arc<SplitQueue>>) {
    if let Some(queue) = queue {
        queue.abort();
    }
}

/// Runs `work` on `workers` OS threads over one decision tree: the first worker starts with
/// `tree`, the others with subtrees the workers hand out. With one worker, `work` runs once, on
/// a thread of its own, without a queue. Returns each worker's result (in worker order; a worker
/// that never got a subtree has none), or the first worker's error. The executions the workers'
/// schedulers stopped count for this thread (see
/// [`stopped_executions`](crate::explore::abandonment::stopped_executions)).
pub(crate) fn on_workers<R: Send>(
    workers: usize,
    tree: DecisionTree,
    work: impl Fn(DecisionTree, Option<&Arc<SplitQueue>>) -> Result<R, CheckError> + Sync,
) -> Result<Vec<R>, CheckError> {
    if workers <= 1 {
        // On a fresh thread too: phase 2 run on the thread that had just run phase 1 was 2.5
        // times slower on a 4x3 queue matrix (370,000 serial executions before it; measured with
        // `lineup-bench workers`, the cause not pinned down: likely what phase 1 leaves in the
        // thread's heap).
        let (result, stopped) = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .spawn_scoped(scope, || with_stopped_executions(|| work(tree, None).map(|r| vec![r])))
                .expect("a worker thread can be spawned")
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
        });
        ExecutionContext::with(|cx| cx.add_stopped_executions(stopped));
        return result;
    }
    on_workers_from(&Arc::new(SplitQueue::new(workers)), Some(tree), work)
}

/// Runs `work` on the workers of `queue` (as many as it was made for): the first starts with
/// `first`, if any, the others (all of them, without it) with the work `queue` holds or the
/// workers hand out. See [`on_workers`].
pub(crate) fn on_workers_from<R: Send>(
    queue: &Arc<SplitQueue>,
    first: Option<DecisionTree>,
    work: impl Fn(DecisionTree, Option<&Arc<SplitQueue>>) -> Result<R, CheckError> + Sync,
) -> Result<Vec<R>, CheckError> {
    let workers = queue.lock().workers;
    let first = std::sync::Mutex::new(first);
    let results = on_each_worker(workers, |w| {
        let first = if w == 0 {
            first.lock().expect("taken once").take()
        } else {
            None
        };
        let tree = match first {
            Some(tree) => Some(tree),
            None => queue.first_subtree(),
        };
        let result = tree.map(|tree| work(tree, Some(queue)));
        if matches!(result, Some(Err(_))) {
            queue.abort();
        }
        result
    });
    results.into_iter().flatten().collect()
}

/// Runs `work(w)` for each worker `w` below `workers`, each on an OS thread of its own named after
/// the calling thread (the test's name under libtest): the results in worker order. The executions
/// the workers' schedulers stopped count for this thread (see
/// [`stopped_executions`](crate::explore::abandonment::stopped_executions)).
pub(crate) fn on_each_worker<R: Send>(workers: usize, work: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let name = std::thread::current().name().unwrap_or("main").to_string();
    let results: Vec<(R, u64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let work = &work;
                std::thread::Builder::new()
                    .name(name.clone())
                    .spawn_scoped(scope, move || with_stopped_executions(|| work(w)))
                    .expect("a worker thread can be spawned")
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|payload| std::panic::resume_unwind(payload)))
            .collect()
    });
    let stopped = results.iter().map(|(_, stopped)| stopped).sum();
    ExecutionContext::with(|cx| cx.add_stopped_executions(stopped));
    results.into_iter().map(|(result, _)| result).collect()
}

/// Runs `work` on a worker thread, and the executions its schedulers stopped there.
fn with_stopped_executions<T>(work: impl FnOnce() -> T) -> (T, u64) {
    let before = ExecutionContext::with(ExecutionContext::stopped_executions);
    let result = work();
    (
        result,
        ExecutionContext::with(ExecutionContext::stopped_executions) - before,
    )
}

/// How many workers one exploration uses: `configured`, or one per core when it is 0.
pub(crate) fn worker_count(configured: usize) -> usize {
    match configured {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

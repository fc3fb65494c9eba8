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

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::error::CheckError;
use crate::explore::context::ExecutionContext;
use crate::explore::decision_tree::{DecisionTree, Subtree};

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
}

/// What the workers of one exploration share under the queue's lock.
#[derive(Debug)]
struct SplitState {
    /// The subtrees handed out and not taken yet, in depth-first order.
    queue: BTreeSet<Subtree>,
    /// The workers of the exploration.
    workers: usize,
    /// Workers waiting for a subtree.
    idle: usize,
    /// The first schedule found so far in depth-first order, if any (see [`SplitQueue::found`]).
    best: Option<Vec<u32>>,
    /// Every worker waits for a subtree and nothing is queued: the exploration is over.
    done: bool,
}

impl SplitQueue {
    /// A queue for `workers` workers, the first of which explores the whole tree.
    pub fn new(workers: usize) -> Self {
        Self {
            state: Mutex::new(SplitState {
                queue: BTreeSet::new(),
                workers,
                idle: 0,
                best: None,
                done: false,
            }),
            wake: Condvar::new(),
            idle: AtomicUsize::new(0),
            found: AtomicBool::new(false),
            aborted: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SplitState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called between two executions of `tree` (after [`DecisionTree::advance`]): whether the
    /// worker goes on with its tree. Hands work to idle workers on the way.
    pub fn keep_going(&self, tree: &mut DecisionTree) -> bool {
        if self.aborted.load(Ordering::Relaxed) {
            return false;
        }
        let found = self.found.load(Ordering::Relaxed);
        if !found && self.idle.load(Ordering::Relaxed) == 0 {
            return true;
        }
        let mut state = self.lock();
        if let Some(best) = &state.best {
            // Every execution left in this tree comes after the best one found.
            if tree.position() > *best {
                return false;
            }
        }
        if state.idle > state.queue.len() {
            let donated = tree.donate();
            if !donated.is_empty() {
                state.queue.extend(donated);
                self.wake.notify_all();
            }
        }
        true
    }

    /// The next subtree for a worker whose tree is exhausted: the first queued one in depth-first
    /// order that may still hold an execution before the best one found. `None` when the
    /// exploration is over (every worker waits and nothing is queued, or it was aborted).
    pub fn next_subtree(&self) -> Option<DecisionTree> {
        let mut state = self.lock();
        state.idle += 1;
        self.idle.store(state.idle, Ordering::Relaxed);
        loop {
            if state.done || self.aborted.load(Ordering::Relaxed) {
                return None;
            }
            if let Some(subtree) = state.queue.pop_first() {
                if state.best.as_ref().is_some_and(|best| subtree.choices > *best) {
                    // Every execution below it, and below every subtree queued after it, comes
                    // after the best one: none is needed.
                    state.queue.clear();
                } else {
                    state.idle -= 1;
                    self.idle.store(state.idle, Ordering::Relaxed);
                    return Some(DecisionTree::subtree(&subtree));
                }
            }
            if state.idle == state.workers {
                state.done = true;
                self.wake.notify_all();
                return None;
            }
            state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
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
    let queue = Arc::new(SplitQueue::new(workers));
    // Workers carry the name of the calling thread (the test's name under libtest).
    let name = std::thread::current().name().unwrap_or("main").to_string();
    let mut first = Some(tree);
    let results: Vec<(Option<Result<R, CheckError>>, u64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|k| {
                let (queue, work) = (&queue, &work);
                let first = first.take();
                std::thread::Builder::new()
                    .name(name.clone())
                    .spawn_scoped(scope, move || {
                        with_stopped_executions(|| {
                            let tree = if k == 0 { first } else { queue.next_subtree() };
                            let result = tree.map(|tree| work(tree, Some(queue)));
                            if matches!(result, Some(Err(_))) {
                                queue.abort();
                            }
                            result
                        })
                    })
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
    results.into_iter().filter_map(|(result, _)| result).collect()
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

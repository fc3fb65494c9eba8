//! The executions of a sampling strategy split among workers by their index.
//!
//! Execution `i` of a seeded `random` exploration depends on its seed and on `i` alone
//! ([`execution_rng`](crate::explore::strategy::execution_rng)), so any worker can run it. Workers
//! take indices from one counter ([`SampleIndices::take`]): each runs its own in increasing order,
//! and stops at its first violation. A violation at index `i` is reported to the counter
//! ([`SampleIndices::found`]), after which no worker takes an index past `i`; the indices before
//! it are all run. So the first failing index is found whatever the number of workers, and it is
//! the one a single worker finds: the violation and its token do not depend on the workers. (A
//! violating history is never remembered as seen, so the worker that meets it at its first index
//! judges it there.)
//!
//! PCT's execution `i` depends on the ones before it: its change points are drawn from the length
//! of the longest execution before it. So that any worker can run it, "before" is counted in
//! *rounds* of doubling size (`{0}`, `{1}`, `{2, 3}`, `{4..7}`, ...: [`round_of`]): execution `i`
//! draws from the longest execution of the rounds before its own, the same on one worker and on
//! many. A worker that takes the first index of a round waits until the rounds before it are done
//! ([`SampleIndices::longest_before`]); as each round is as long as all the rounds before it, a
//! worker waits at most once per round, for at most the executions the others are running.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use rand_chacha::ChaCha8Rng;

use crate::explore::strategy::execution_rng;

/// The indices of a sampling exploration's executions, shared by its workers: all of them, or
/// one round of a sample that goes on after the rounds before it (the interlude's,
/// [`continuing`](Self::continuing)).
#[derive(Debug)]
pub(crate) struct SampleIndices {
    /// The next index not taken yet. Starts at `start` plus the number of workers: worker `w`
    /// starts at `start + w`.
    next: AtomicU64,
    /// The first index of this round.
    start: u64,
    /// Where the executions end: indices run from `start` to `end - 1`.
    end: u64,
    /// How many workers run them: at most one per index ([`workers_for`](Self::workers_for)).
    workers: usize,
    /// The smallest index at which a violation was found (`u64::MAX`: none yet). No index past it
    /// is taken.
    first_failure: AtomicU64,
    /// The executions done and the longest of them, by round (PCT's; see the module).
    rounds: Mutex<Rounds>,
    /// Signalled when an execution is recorded, a violation found, or the workers stop.
    changed: Condvar,
}

/// The executions done in each round, and the longest of them.
#[derive(Debug, Default)]
struct Rounds {
    /// By round: how many of its executions are done.
    done: Vec<u64>,
    /// By round: the longest of its executions, in steps.
    longest: Vec<u64>,
    /// A worker ended in an error: nobody waits any more.
    aborted: bool,
}

/// The round of execution `index` (see the module): 0 for 0, then `k + 1` for `2^k ..= 2^(k+1) - 1`.
pub(crate) fn round_of(index: u64) -> usize {
    (u64::BITS - index.leading_zeros()) as usize
}

/// How many executions round `round` has.
fn round_size(round: usize) -> u64 {
    match round {
        0 => 1,
        r => 1 << (r - 1),
    }
}

/// The longest of the rounds' longest executions, at least PCT's initial range of 64 steps.
fn longest_of(rounds: &[u64]) -> u64 {
    rounds.iter().copied().fold(64, u64::max)
}

impl SampleIndices {
    /// The `end` executions of one exploration, for at most `workers` workers (each of which
    /// starts at its own number: see [`first`](Self::first)).
    pub fn new(end: u64, workers: usize) -> Self {
        Self::from(0, end, workers, Rounds::default())
    }

    fn from(start: u64, end: u64, workers: usize, rounds: Rounds) -> Self {
        let workers = Self::workers_for(end - start, workers);
        Self {
            next: AtomicU64::new(start + workers as u64),
            start,
            end,
            workers,
            first_failure: AtomicU64::new(u64::MAX),
            rounds: Mutex::new(rounds),
            changed: Condvar::new(),
        }
    }

    /// The same sample going on, once every execution of this one is done and none failed: its
    /// executions from this one's end up to `end`, for at most `workers` workers. What PCT draws its change
    /// points from is carried over, so that each execution is the one a single run of the whole
    /// sample has at its index.
    pub fn continuing(&self, end: u64, workers: usize) -> Self {
        let rounds = self.lock();
        let carried = Rounds {
            done: rounds.done.clone(),
            longest: rounds.longest.clone(),
            aborted: false,
        };
        Self::from(self.end, end.max(self.end), workers, carried)
    }

    /// Where the executions end: the index after the last.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// How many workers run the executions.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// How many workers have an execution to run: at most one per index.
    fn workers_for(executions: u64, workers: usize) -> usize {
        workers.min(usize::try_from(executions).unwrap_or(usize::MAX)).max(1)
    }

    /// The first index of worker `w` (given, not taken, so that it does not depend on which worker
    /// starts first).
    pub fn first(&self, w: usize) -> u64 {
        self.start + w as u64
    }

    /// The next index for a worker that has run its last one, if any is left: none past the end
    /// or past the first violation found.
    pub fn take(&self) -> Option<u64> {
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        (index < self.end && index < self.first_failure.load(Ordering::Acquire)).then_some(index)
    }

    /// A violation at `index`: no index past it is taken from now on.
    pub fn found(&self, index: u64) {
        self.first_failure.fetch_min(index, Ordering::AcqRel);
        let _rounds = self.lock();
        self.changed.notify_all();
    }

    /// Execution `index` ended after `steps` steps.
    pub fn record(&self, index: u64, steps: u64) {
        let round = round_of(index);
        let mut rounds = self.lock();
        if rounds.done.len() <= round {
            rounds.done.resize(round + 1, 0);
            rounds.longest.resize(round + 1, 0);
        }
        rounds.done[round] += 1;
        rounds.longest[round] = rounds.longest[round].max(steps);
        if rounds.done[round] == round_size(round) {
            self.changed.notify_all();
        }
    }

    /// The longest execution of the rounds before `index`'s, once they are done; `None` if the
    /// worker is to stop instead (a violation was found before `index`, or a worker failed).
    pub fn longest_before(&self, index: u64) -> Option<u64> {
        let round = round_of(index);
        let mut rounds = self.lock();
        loop {
            if rounds.aborted || self.first_failure.load(Ordering::Acquire) < index {
                return None;
            }
            let done = (0..round).all(|r| rounds.done.get(r).copied().unwrap_or(0) == round_size(r));
            if done {
                return Some(longest_of(&rounds.longest[..round]));
            }
            rounds = self.changed.wait(rounds).expect("no worker panics holding the rounds");
        }
    }

    /// A worker ended in an error: the others stop waiting.
    pub fn abort(&self) {
        self.lock().aborted = true;
        self.changed.notify_all();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Rounds> {
        self.rounds.lock().expect("no worker panics holding the rounds")
    }
}

/// Which executions of a sampling strategy one worker runs, and what PCT draws its change points
/// from: all of them in order, or its share of a split exploration (see the module).
#[derive(Debug)]
pub(crate) struct SampleSequence {
    seed: u64,
    /// How many executions (when not split).
    executions: u64,
    /// The index of the execution running (or about to run).
    index: u64,
    /// Where the next index comes from when split (else it is the one after `index`).
    shared: Option<Arc<SampleIndices>>,
    /// When not split: the longest execution of each round so far.
    longest: Vec<u64>,
}

impl SampleSequence {
    /// Executions `0..executions` of `seed`, in order.
    pub fn new(executions: u64, seed: u64) -> Self {
        Self {
            seed,
            executions,
            index: 0,
            shared: None,
            longest: Vec::new(),
        }
    }

    /// One worker's share of a split exploration of `seed`: `first`, then the indices it takes
    /// from `indices`.
    pub fn split(seed: u64, first: u64, indices: Arc<SampleIndices>) -> Self {
        Self {
            seed,
            executions: u64::MAX,
            index: first,
            shared: Some(indices),
            longest: Vec::new(),
        }
    }

    /// The random numbers of the execution about to run.
    pub fn rng(&self) -> ChaCha8Rng {
        execution_rng(self.seed, self.index)
    }

    /// The index of the execution running.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Moves to the next execution; `false` when this worker has none left.
    pub fn advance(&mut self) -> bool {
        match &self.shared {
            Some(indices) => match indices.take() {
                Some(index) => {
                    self.index = index;
                    true
                }
                None => false,
            },
            None => {
                self.index += 1;
                self.index < self.executions
            }
        }
    }

    /// The execution running ended after `steps` steps (PCT's length record).
    pub fn ended(&mut self, steps: u64) {
        match &self.shared {
            Some(indices) => indices.record(self.index, steps),
            None => {
                let round = round_of(self.index);
                if self.longest.len() <= round {
                    self.longest.resize(round + 1, 0);
                }
                self.longest[round] = self.longest[round].max(steps);
            }
        }
    }

    /// The longest execution of the rounds before the running one's (waiting for them when split);
    /// `None` if this worker is to stop instead.
    pub fn longest_before(&self) -> Option<u64> {
        match &self.shared {
            Some(indices) => indices.longest_before(self.index),
            None => {
                let round = round_of(self.index).min(self.longest.len());
                Some(longest_of(&self.longest[..round]))
            }
        }
    }
}

/// An execution's index as a place in depth-first order (two halves, so that places compare as
/// indices do).
pub(crate) fn position_of(index: u64) -> Vec<u32> {
    vec![(index >> 32) as u32, index as u32]
}

/// The index a place made by [`position_of`] names.
pub(crate) fn index_at(position: &[u32]) -> Option<u64> {
    match position {
        [high, low] => Some(u64::from(*high) << 32 | u64::from(*low)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_is_taken_once_and_none_past_a_violation() {
        let indices = SampleIndices::new(10, 3);
        let mut taken: Vec<u64> = (0..3).map(|w| indices.first(w)).collect();
        taken.extend(std::iter::from_fn(|| indices.take()).take(3));
        assert_eq!(taken, [0, 1, 2, 3, 4, 5]);
        indices.found(7);
        indices.found(8);
        assert_eq!(indices.take(), Some(6));
        // 7 is the failing index itself: a worker already ran it.
        assert_eq!(indices.take(), None);
        assert_eq!(indices.take(), None);
    }

    #[test]
    fn positions_compare_as_indices() {
        let a = position_of(u64::from(u32::MAX));
        let b = position_of(u64::from(u32::MAX) + 1);
        assert!(a < b);
        assert_eq!(index_at(&b), Some(u64::from(u32::MAX) + 1));
        assert_eq!(SampleIndices::workers_for(3, 16), 3);
        assert_eq!(SampleIndices::workers_for(0, 16), 1);
    }

    #[test]
    fn rounds_double() {
        let rounds: Vec<usize> = (0..9).map(round_of).collect();
        assert_eq!(rounds, [0, 1, 2, 2, 3, 3, 3, 3, 4]);
        assert_eq!((0..5).map(round_size).collect::<Vec<_>>(), [1, 1, 2, 4, 8]);
    }

    #[test]
    fn the_longest_before_a_round_is_the_same_in_order_and_split() {
        let steps = |i: u64| 50 + (i * 37) % 41;
        let mut alone = SampleSequence::new(12, 1);
        let mut in_order = Vec::new();
        loop {
            in_order.push(alone.longest_before().expect("never stops"));
            alone.ended(steps(alone.index()));
            if !alone.advance() {
                break;
            }
        }
        // Two workers, the second running ahead within what the rounds allow.
        let indices = Arc::new(SampleIndices::new(12, 2));
        let mut split = vec![0; 12];
        indices.record(0, steps(0));
        split[0] = 64;
        for i in 1..12 {
            split[i as usize] = indices.longest_before(i).expect("rounds before are done");
            indices.record(i, steps(i));
        }
        assert_eq!(in_order, split);
        assert!(in_order.windows(2).all(|w| w[0] <= w[1]));
        // The same sample in two rounds (the interlude's): the second starts where the first
        // ended, and draws from the same rounds.
        let first = SampleIndices::new(5, 2);
        let mut rounds = vec![0; 12];
        for i in 0..5 {
            rounds[i as usize] = first.longest_before(i).expect("rounds before are done");
            first.record(i, steps(i));
        }
        let second = first.continuing(12, 3);
        assert_eq!((second.first(0), second.first(2), second.end()), (5, 7, 12));
        assert_eq!(
            (first.workers(), second.workers(), SampleIndices::new(1, 4).workers()),
            (2, 3, 1)
        );
        assert_eq!(second.take(), Some(8));
        for i in 5..12 {
            rounds[i as usize] = second.longest_before(i).expect("rounds before are done");
            second.record(i, steps(i));
        }
        assert_eq!(in_order, rounds);
        // A violation before an index ends the wait.
        let indices = SampleIndices::new(12, 2);
        indices.found(3);
        assert_eq!(indices.longest_before(5), None);
        assert_eq!(indices.longest_before(0), Some(64));
    }
}

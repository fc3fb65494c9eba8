//! `pct`: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte, "A
//! randomized scheduler with probabilistic guarantees of finding bugs", ASPLOS 2010).
//!
//! Every thread gets a random priority when it first appears, at or above `depth`; the thread
//! with the highest priority among those that can run always runs. At `depth - 1` random steps
//! (the change points, drawn from the length of the longest execution so far, counted in rounds so
//! that the executions can be split among workers: see
//! [`sample_split`](crate::explore::sample_split)) the running thread's priority drops to below
//! every initial one. A bug of depth `d` among `n` threads and `k` steps
//! is found by one execution with probability at least `1 / (n k^(d-1))`.
//!
//! Yields (which the published algorithm does not have): a thread's first yield in an execution
//! drops it below every initial priority but above the change points' (so that a thread lowered
//! at a change point still lets a yielding one run, as a bug between the two needs); its later
//! yields drop it below every thread, so that a spin-wait lets the thread it waits for run.

use std::sync::Arc;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use shuttle::current::TaskId;

use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::explore::sample_split::{position_of, SampleIndices, SampleSequence};
use crate::explore::strategy::{Point, SchedulingStrategy};

/// PCT with priority change points.
#[derive(Debug)]
pub(crate) struct Pct {
    depth: u32,
    /// Which executions this worker runs, and the lengths the change points are drawn from.
    sequence: SampleSequence,
    rng: ChaCha8Rng,
    /// Priorities by task number (`None`: not seen yet in this execution).
    priorities: Vec<Option<i64>>,
    /// The steps at which the running thread's priority drops, ascending.
    change_points: Vec<u64>,
    step: u64,
    /// The range of the change points of the execution running: the longest execution of the
    /// rounds before its own, in steps.
    longest: u64,
    /// The lowest priority given so far (repeated yields go below it).
    lowest: i64,
    /// Yields so far in this execution, by task number.
    yields: Vec<u32>,
    /// First yields so far in this execution (later first yields go lower in their band).
    first_yields: i64,
}

/// The width of a band of priorities: change point `i` is in band `depth - 1 - i`, first yields in
/// band `depth - 1` above it, initial priorities from band `depth` up.
const BAND: i64 = 1 << 40;

impl Pct {
    /// `executions` executions of depth `depth` from `seed`.
    pub fn new(depth: u32, executions: u64, seed: u64) -> Self {
        Self::of(depth, SampleSequence::new(executions, seed), 64)
    }

    /// The executions of depth `depth` from `seed` one worker of a split exploration runs: `first`,
    /// then those it takes from `indices`; `None` if it is to run none (a violation was found
    /// before `first` while it waited for the rounds before it).
    pub fn split(depth: u32, seed: u64, first: u64, indices: Arc<SampleIndices>) -> Option<Self> {
        let sequence = SampleSequence::split(seed, first, indices);
        let longest = sequence.longest_before()?;
        Some(Self::of(depth, sequence, longest))
    }

    fn of(depth: u32, sequence: SampleSequence, longest: u64) -> Self {
        Self {
            depth: depth.max(1),
            rng: sequence.rng(),
            sequence,
            priorities: Vec::new(),
            change_points: Vec::new(),
            step: 0,
            longest,
            lowest: 0,
            yields: Vec::new(),
            first_yields: 0,
        }
    }

    fn priority(&mut self, task: TaskId) -> i64 {
        let i = usize::from(task);
        if self.priorities.len() <= i {
            self.priorities.resize(i + 1, None);
        }
        let depth = i64::from(self.depth);
        *self.priorities[i].get_or_insert_with(|| depth * BAND + self.rng.random_range(0..BAND))
    }
}

impl SchedulingStrategy for Pct {
    fn begin_execution(&mut self) {
        self.rng = self.sequence.rng();
        self.priorities.clear();
        self.step = 0;
        self.lowest = 0;
        self.yields.clear();
        self.first_yields = 0;
        let range = self.longest.max(1);
        self.change_points = (1..self.depth).map(|_| self.rng.random_range(1..=range)).collect();
        self.change_points.sort_unstable();
    }

    fn keeps_current(&self) -> bool {
        false
    }

    fn pick(&mut self, point: &Point<'_>, _tree: &mut DecisionTree) -> Result<usize, Divergence> {
        self.step += 1;
        if let Some(last) = point.last {
            // A change point: the thread that ran last drops below every initial priority (the
            // i-th change point to priority depth - 1 - i).
            let hits = self.change_points.iter().filter(|&&s| s == self.step).count();
            if hits > 0 {
                self.priority(last);
                let passed = self.change_points.iter().filter(|&&s| s < self.step).count();
                let i = usize::from(last);
                let band = i64::from(self.depth) - 1 - (passed + hits - 1) as i64;
                self.priorities[i] = Some(band * BAND - BAND / 2);
                self.lowest = self.lowest.min(self.priorities[i].expect("set"));
            }
        }
        if let (Some(current), true) = (point.current, point.gives_way()) {
            let task = point.members[current];
            let i = usize::from(task);
            self.priority(task);
            if self.yields.len() <= i {
                self.yields.resize(i + 1, 0);
            }
            self.yields[i] += 1;
            let priority = if self.yields[i] == 1 {
                // Below every initial priority, above every change point's.
                self.first_yields += 1;
                (i64::from(self.depth) - 1) * BAND + BAND / 2 - self.first_yields
            } else {
                // Below every thread.
                self.lowest -= 1;
                self.lowest
            };
            self.priorities[i] = Some(priority);
        }
        let mut best = 0;
        let mut best_priority = i64::MIN;
        for (k, &task) in point.members.iter().enumerate() {
            let p = self.priority(task);
            if p > best_priority {
                (best, best_priority) = (k, p);
            }
        }
        Ok(best)
    }

    fn execution_ended(&mut self) {
        self.sequence.ended(self.step);
    }

    fn pick_value(&mut self, options: usize, _tree: &mut DecisionTree) -> Result<usize, Divergence> {
        Ok(self.rng.random_range(0..options))
    }

    fn advance(&mut self, _tree: &mut DecisionTree) -> bool {
        if !self.sequence.advance() {
            return false;
        }
        match self.sequence.longest_before() {
            Some(longest) => {
                self.longest = longest;
                true
            }
            None => false,
        }
    }

    fn position(&self, _tree: &DecisionTree) -> Vec<u32> {
        position_of(self.sequence.index())
    }
}

//! How each phase picks the thread that runs at each scheduling point: one small trait,
//! [`SchedulingStrategy`], and one file per strategy.
//!
//! The scheduler ([`scheduler`](crate::explore::scheduler)) decides everything that is not a
//! choice (harness code, gates of a serial execution, stuck and inconclusive executions) and hands
//! each real choice to the strategy as a [`Point`]: the threads that may run, the one that ran last
//! if it may go on, and whether it yielded. Phase 1 explores with [`serial_dfs`] (every serial
//! execution, depth-first, never bounded); phase 2 with one of:
//!
//! * [`pb_dfs`]: exhaustive preemption-bounded depth-first search (CHESS), with yields as
//!   choices from a budget of their own;
//! * [`db_dfs`]: exhaustive delay-bounded depth-first search over a round-robin base schedule
//!   (Emmi, Qadeer, Rakamaric, POPL 2011);
//! * [`random_walk`]: a uniform random choice at every point, for a number of executions;
//! * [`pct`]: probabilistic concurrency testing with priority change points (Burckhardt,
//!   Kothari, Musuvathi, Nagarakatte, ASPLOS 2010);
//! * [`schedule_replay`]: one execution, replayed from a token of any strategy but `pb-dfs`;
//! * [`guided`]: `pb-dfs` that ends the executions leaving one target history (the search for a
//!   violation's shortest schedule).
//!
//! The DFS strategies enumerate their options through the [`DecisionTree`] (so they can be split
//! among workers); every phase 2 strategy but `pb-dfs` names its executions by the index of the chosen
//! thread among the threads that could run, in task order, at every point with more than one
//! ([`Phase::Scheduled`] tokens), which [`schedule_replay`] follows.

pub(crate) mod db_dfs;
pub(crate) mod guided;
pub(crate) mod pb_dfs;
pub(crate) mod pct;
pub(crate) mod random_walk;
pub(crate) mod schedule_replay;
pub(crate) mod serial_dfs;

use shuttle::current::TaskId;

use crate::config::{Config, Strategy};
use crate::explore::decision_tree::{DecisionTree, Divergence};
use crate::model::history::Event;
use crate::model::replay_token::Phase;

/// One scheduling point at which more than one thing could happen.
#[derive(Debug)]
pub(crate) struct Point<'a> {
    /// The threads that may run, in task order (never empty).
    pub members: &'a [TaskId],
    /// The position in `members` of the thread that ran last, if it may go on.
    pub current: Option<usize>,
    /// The thread that ran last yielded (`yield_now`, a spin hint).
    pub yielded: bool,
    /// It ran `fair_switch_steps` steps in a row: it must let another thread run.
    pub fair_switch: bool,
    /// The position in `members` of the thread, other than the current one, that ran least
    /// recently (the fair choice after a yield; computed only when the current thread gives way).
    pub least_recent: Option<usize>,
    /// The thread that ran last, whether or not it may go on.
    pub last: Option<TaskId>,
    /// The members asleep (a bit set over their positions, below 64) under the partial-order
    /// reduction (see [`sleep`](crate::explore::sleep)): strategies that support it never choose
    /// them. At least one member is awake.
    pub asleep: u64,
    /// The current thread spins on an unchanged value (see
    /// [`Config::spin_pruning`](crate::Config::spin_pruning)): its last step read one atomic,
    /// its next step reads it again, and it ran the step before too, with no other thread, yield
    /// or fair switch in between. A preemption here reaches what one a step earlier reached.
    pub repeats_read: bool,
}

impl Point<'_> {
    /// Whether the member at position `k` is asleep.
    pub fn is_asleep(&self, k: usize) -> bool {
        k < 64 && self.asleep & (1 << k) != 0
    }
}

impl Point<'_> {
    /// Whether the current thread must give way (it yielded, or fairness demands it).
    pub fn gives_way(&self) -> bool {
        self.yielded || self.fair_switch
    }
}

/// How a phase explores: which executions, and which thread runs at each point of one.
pub(crate) trait SchedulingStrategy: std::fmt::Debug {
    /// A new execution begins.
    fn begin_execution(&mut self);

    /// Whether the current thread goes on at every point where it can and does not give way, with
    /// no choice (lets the scheduler skip building the point).
    fn keeps_current(&self) -> bool;

    /// The position in `point.members` of the thread that runs.
    fn pick(&mut self, point: &Point<'_>, tree: &mut DecisionTree) -> Result<usize, Divergence>;

    /// A choice among `options` values that is no thread's (whether to drop a cancellable
    /// future): by default the next branch point of the tree, explored depth-first like the
    /// threads' choices and replayed from it.
    fn pick_value(&mut self, options: usize, tree: &mut DecisionTree) -> Result<usize, Divergence> {
        tree.choose(options)
    }

    /// The execution running ended (before it is judged, whatever the judgement says next).
    fn execution_ended(&mut self) {}

    /// After an execution: moves to the next one; `false` when the exploration is complete.
    fn advance(&mut self, tree: &mut DecisionTree) -> bool;

    /// The replay token of the execution that just ended: its phase and choices, from the
    /// strategy's tree or (by default) from the index of the chosen thread at every point
    /// (`by_index`, a [`Phase::Scheduled`] token).
    fn token(&self, _tree: &DecisionTree, by_index: &[u32]) -> (Phase, Vec<u32>) {
        (Phase::Scheduled, by_index.to_vec())
    }

    /// The place of the execution that just ended in the exploration's order, by which the
    /// violations of its workers compare: its path in the strategy's tree (depth-first order), or
    /// for a sampling strategy its index.
    fn position(&self, tree: &DecisionTree) -> Vec<u32> {
        tree.choices()
    }

    /// Whether it follows [`Point::asleep`] (the partial-order reduction applies).
    fn supports_reduction(&self) -> bool {
        false
    }

    /// Whether the execution in progress ends now, unjudged, given the call and return events it
    /// has recorded (asked at every choice point): a [guided](guided) search's, for an execution
    /// that has left its target history. No by default.
    fn abandons(&mut self, _events: &[Event]) -> bool {
        false
    }

    /// After a replayed execution: the token's choices it did not use, if any (a token of another
    /// schedule or matrix).
    fn unused_choices(&self) -> Option<Divergence> {
        None
    }
}

/// The strategy `config` selects for phase 2, or the replay of `token`'s choices.
pub(crate) fn for_phase2(config: &Config, replay: Option<&[u32]>) -> Box<dyn SchedulingStrategy> {
    if let Some(choices) = replay {
        return Box::new(schedule_replay::ScheduleReplay::new(choices));
    }
    match config.strategy {
        Strategy::PbDfs => Box::new(pb_dfs::PbDfs::new(
            config.preemption_bound,
            config.yield_choices,
            config.yield_to_self,
        )),
        Strategy::DbDfs { delays } => Box::new(db_dfs::DbDfs::new(delays)),
        Strategy::Random { executions, seed } => Box::new(random_walk::RandomWalk::new(executions, seed)),
        Strategy::Pct {
            depth,
            executions,
            seed,
        } => Box::new(pct::Pct::new(depth, executions, seed)),
    }
}

/// A random number generator for execution number `execution` of a seeded strategy: each
/// execution has its own stream, so that any one of them can be run again on its own.
pub(crate) fn execution_rng(seed: u64, execution: u64) -> rand_chacha::ChaCha8Rng {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(execution);
    rng
}

//! `lineup::sync::Barrier` on shuttle: shuttle's barrier step for step (the same scheduling
//! points: none before a wait that blocks, one before the wait that releases the others; the same
//! choice of leader: the first of a batch to run again), which announces the barrier before each
//! wait (see [`footprint`](crate::explore::footprint)) and whose waits lineup can *abandon* when it
//! finds an execution stuck (see [`abandonment`](crate::explore::abandonment)).

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use shuttle_engine::runtime::execution::ExecutionState;
use shuttle_engine::runtime::task::clock::VectorClock;
use shuttle_engine::runtime::task::TaskId;
use shuttle_engine::runtime::thread;
use shuttle_engine::sync_types::{ResourceSignature, ResourceType};

use crate::explore::abandonment;
use crate::explore::footprint::{announce_sync, ObjectIdentity};

/// What a [`Barrier::wait`] returns, the same as [`std::sync::BarrierWaitResult`].
#[derive(Clone, Copy, Debug)]
pub struct BarrierWaitResult {
    is_leader: bool,
}

impl BarrierWaitResult {
    /// Whether this thread is the leader of its batch (exactly one of each batch is).
    pub fn is_leader(&self) -> bool {
        self.is_leader
    }
}

/// The state of a barrier (as shuttle's): the waiters of the batch filling now, and the epochs
/// whose leader has not run yet.
struct State {
    bound: usize,
    epoch: u64,
    waiters: HashSet<TaskId>,
    leader_tokens: HashSet<u64>,
    clock: VectorClock,
}

/// A barrier, the same as [`std::sync::Barrier`]: shuttle's (the same scheduling points), whose
/// waits lineup's partial-order reduction sees and lineup can abandon when an execution is stuck.
pub struct Barrier {
    identity: ObjectIdentity,
    state: RefCell<State>,
    #[allow(dead_code)]
    signature: ResourceSignature,
}

// SAFETY: as shuttle's `Barrier`: it is never shared across OS threads, only across the tasks of
// one execution, which run one at a time and switch only at scheduling points, never in the middle
// of a borrow of the state.
unsafe impl Send for Barrier {}
// SAFETY: as above.
unsafe impl Sync for Barrier {}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.borrow();
        f.debug_struct("Barrier")
            .field("bound", &state.bound)
            .field("epoch", &state.epoch)
            .field("waiting", &state.waiters.len())
            .finish()
    }
}

impl Barrier {
    /// Creates a barrier that blocks `n - 1` threads and releases them all when the `n`th thread
    /// waits.
    #[track_caller]
    pub fn new(n: usize) -> Self {
        Self {
            identity: ObjectIdentity::at(std::panic::Location::caller()),
            state: RefCell::new(State {
                bound: n,
                epoch: 0,
                waiters: HashSet::new(),
                leader_tokens: HashSet::new(),
                clock: VectorClock::new(),
            }),
            signature: ExecutionState::new_resource_signature(ResourceType::Barrier),
        }
    }

    /// Blocks the current thread until all threads have rendezvoused here.
    #[track_caller]
    pub fn wait(&self) -> BarrierWaitResult {
        // A wait that blocks registers itself before its switch: it also counts in the step
        // running now.
        let seen = announce_sync(&self.identity, true);
        let step =
            crate::explore::trace::begin(Some((&self.identity, "Barrier")), Some(std::panic::Location::caller()));
        let will_block = {
            let state = self.state.borrow();
            state.waiters.len() + 1 < state.bound
        };
        // As shuttle's: blocking waits commute (the waiters are a set), so only the wait that
        // releases the batch has a scheduling point before it.
        if !will_block {
            thread::switch();
        }
        let me = ExecutionState::me();
        let epoch = self.join(me);
        let is_leader = self.state.borrow_mut().leader_tokens.remove(&epoch);
        drop(seen);
        step.done(|| crate::explore::trace::Action::Wait { kind: "wait" });
        abandonment::abandon_here();
        BarrierWaitResult { is_leader }
    }

    /// Adds `me` to the batch filling now, and blocks until it is full (or releases it): the
    /// batch's epoch.
    fn join(&self, me: TaskId) -> u64 {
        let mut state = self.state.borrow_mut();
        let epoch = state.epoch;
        ExecutionState::with(|s| state.clock.update(s.increment_clock()));
        assert!(state.waiters.insert(me));
        if state.waiters.len() < state.bound {
            drop(state);
            self.block(me);
        } else {
            assert!(state.leader_tokens.insert(epoch));
            let waiters: Vec<TaskId> = state.waiters.drain().collect();
            state.epoch += 1;
            let clock = state.clock.clone();
            ExecutionState::with(|s| {
                for task in waiters {
                    let t = s.get_mut(task);
                    t.clock.increment(task);
                    t.clock.update(&clock);
                    t.unblock();
                }
            });
        }
        epoch
    }

    /// Blocks until the batch is released; unwinds if the driver of a stuck execution wakes it.
    fn block(&self, me: TaskId) {
        // A wait that a destructor starts while its thread unwinds cannot be abandoned (a second
        // unwind would abort): it is not registered, and its execution is stopped if stuck.
        if !std::thread::panicking() {
            abandonment::begin_wait(me);
        }
        // If execution teardown unwinds the task from the switch below, it no longer waits.
        struct StopWaitingOnUnwind<'a>(&'a Barrier, TaskId);
        impl Drop for StopWaitingOnUnwind<'_> {
            fn drop(&mut self) {
                self.0.state.borrow_mut().waiters.remove(&self.1);
                abandonment::end_wait(self.1);
            }
        }
        let stop_waiting_on_unwind = StopWaitingOnUnwind(self, me);
        ExecutionState::with(|s| s.current_mut().block(false));
        thread::switch();
        std::mem::forget(stop_waiting_on_unwind);
        if abandonment::end_wait(me) {
            // Woken to unwind: the execution is stuck and being abandoned.
            self.state.borrow_mut().waiters.remove(&me);
            abandonment::unwind();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::check::check;
    use crate::config::{Config, Reduction};
    use crate::explore::abandonment::stopped_executions;
    use crate::judge::verdict::CheckStats;
    use crate::model::invocation::Invocation;
    use crate::model::matrix::TestMatrix;
    use crate::model::subject::Subject;

    /// `meet() | meet()` on a barrier of three: both wait for good in every execution.
    fn run<B: Send + Sync + 'static>(new: fn() -> B, meet: fn(&B) -> bool) -> (CheckStats, u64) {
        let subject = Subject::new("Meet", new).with(Invocation::new("meet", meet));
        let config = Config {
            reduction: Reduction::Off,
            workers: 1,
            ..Config::default()
        };
        let before = stopped_executions();
        let verdict = check(&subject, &TestMatrix::new(vec![vec![0], vec![0]]), &config).unwrap();
        assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
        (verdict.stats().clone(), stopped_executions() - before)
    }

    #[test]
    fn a_stuck_execution_blocked_in_the_barrier_ends_cleanly_and_explores_as_shuttle_s() {
        let (ours, ours_stopped) = run(|| crate::sync::Barrier::new(3), |b| b.wait().is_leader());
        let (theirs, theirs_stopped) = run(|| shuttle::sync::Barrier::new(3), |b| b.wait().is_leader());
        assert!(ours.stuck_histories > 0 && ours.serial_stuck > 0);
        // Every execution is stuck, and none is stopped: shuttle's `Barrier` is lineup's
        // `vendor/shuttle-std`'s in this workspace (with the published crate, each would be).
        assert_eq!((ours_stopped, theirs_stopped), (0, 0));
        assert_eq!(
            (
                ours.serial_executions,
                ours.concurrent_executions,
                ours.distinct_histories
            ),
            (
                theirs.serial_executions,
                theirs.concurrent_executions,
                theirs.distinct_histories
            )
        );
    }
}

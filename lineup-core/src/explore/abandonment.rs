//! Ending a stuck shuttle execution cleanly, so that shuttle reuses its tasks' stacks.
//!
//! When the scheduler finds an execution stuck (every pending operation blocks or spins for
//! good), it records the stuck history as always, and then, instead of stopping the execution,
//! *abandons* it: the execution goes on without any branch choice (this module's
//! [`Abandonment`] picks every task), and
//!
//! * the abandonable waits of the tasks that run an operation are woken by the harness's driver
//!   (its main thread waiting for the workers, or the watchdog: [`wake_waiters`]) and unwind with
//!   the payload [`Abandoned`](lineup_signals::abandonment::Abandoned): the waits of
//!   [`lineup::sync`](crate::sync)'s `Condvar`, `RwLock`, `Barrier` and park (see
//!   [`abandonable`](crate::primitives::abandonable)) and receives, and those of shuttle's own
//!   `Mutex`, `RwLock`, `Condvar`, `Barrier`, `Once`, `mpsc` and `future::block_on` when they are
//!   lineup's `vendor/shuttle-std` (the crate's `[patch]`: vendor/README.md), which register
//!   themselves in [`lineup_signals::abandonment`] the same way;
//! * a task running an operation that reaches any other abandonment point (`Mutex::lock`, a wait,
//!   `lineup::thread::yield_now`, `lineup::hint::spin_loop`) unwinds the same way
//!   ([`abandon_here`]);
//! * the harness's `run_op` catches that unwind and records nothing (the stuck history was taken
//!   already), the remaining operations are skipped, and the workers, watchdog and main thread
//!   finish, so that shuttle's teardown finds every task finished.
//!
//! A task the harness cannot abandon (one blocked in the published shuttle-std's primitives, in a
//! `join`, a thread an operation spawned, a loop on `std::hint::spin_loop`) keeps the execution
//! from ending: after a few steps in which only the driver could run, or after
//! [`MAX_ABANDONMENT_STEPS`], the scheduler stops the execution as before (shuttle leaks the
//! stacks of its unfinished tasks). [`stopped_executions`] counts the executions that the
//! scheduler stopped, per calling thread.
//!
//! The waits it wakes and its flag are [`lineup_signals::abandonment`]'s thread local (not a
//! sub-store of the [execution context](crate::explore::context), so that lineup's
//! `vendor/shuttle-std` can reach them); the context resets them with its own.

use shuttle::current::TaskId;
use shuttle::scheduler::Task;
use shuttle_engine::runtime::execution::ExecutionState;

use crate::explore::context::ExecutionContext;
use crate::explore::recording;
use crate::explore::role::Role;

/// Steps an abandonment may take before the scheduler gives up and stops the execution.
pub(crate) const MAX_ABANDONMENT_STEPS: u32 = 2_000;

/// Runs of the driver alone after which nothing it can wake is left: the execution is stopped.
const MAX_IDLE_DRIVER_RUNS: u32 = 2;

/// Forgets the abandonment of the execution that just ended, if any, and its quiet end
/// (`lineup_signals::quiet_end`, see `quiet_end::begin_for_shuttle_threads`).
pub(crate) fn end() {
    ExecutionContext::with(ExecutionContext::end_abandonment);
    lineup_signals::quiet_end::end();
}

/// Whether the execution in progress is being abandoned.
#[inline]
pub(crate) fn is_abandoning() -> bool {
    lineup_signals::abandonment::is_abandoning()
}

/// Whether the current task must unwind here: the execution is being abandoned, the task runs
/// one of its operations (under `run_op`'s `catch_unwind`), and it is not unwinding already.
#[inline]
pub(crate) fn should_abandon() -> bool {
    is_abandoning()
        && !std::thread::panicking()
        && shuttle::current::try_get_current_task().is_some_and(|me| recording::with(|r| r.runs_operation(me)))
}

/// Unwinds the current task with the [`Abandoned`](lineup_signals::abandonment::Abandoned) payload.
pub(crate) fn unwind() -> ! {
    lineup_signals::abandonment::unwind()
}

/// An abandonment point: unwinds if [`should_abandon`].
#[inline]
pub(crate) fn abandon_here() {
    if should_abandon() {
        unwind();
    }
}

/// The current task blocks in an abandonable wait of `lineup::sync` (a wait of lineup's
/// `vendor/shuttle-std` registers itself the same way).
pub(crate) fn begin_wait(me: TaskId) {
    lineup_signals::abandonment::begin_wait(usize::from(me));
}

/// The current task returned from (or unwound out of) its wait: whether the driver woke it to
/// unwind.
pub(crate) fn end_wait(me: TaskId) -> bool {
    lineup_signals::abandonment::end_wait(usize::from(me))
}

/// Whether `task` blocks in an abandonable wait (of `lineup::sync` or of lineup's
/// `vendor/shuttle-std`).
fn is_waiting(task: TaskId) -> bool {
    lineup_signals::abandonment::is_waiting(usize::from(task))
}

/// The harness's driver (its main thread waiting for the workers, or the watchdog) wakes every
/// task that runs an operation and blocks in an abandonable wait, so that it unwinds. No
/// scheduling point.
pub(crate) fn wake_waiters() {
    let runs_operation = |t: TaskId| recording::with(|r| r.runs_operation(t));
    let to_wake = lineup_signals::abandonment::wake_where(|t| runs_operation(TaskId::from(t)));
    // And every task running an operation that waits in a receive of `lineup::sync::mpsc`: it
    // unwinds. (The object's own threads are woken by the quiet end.)
    let to_wake: Vec<TaskId> = to_wake
        .into_iter()
        .map(TaskId::from)
        .chain(crate::explore::quiet_end::take_receiving_where(runs_operation))
        .collect();
    if !to_wake.is_empty() {
        ExecutionState::with(|state| {
            for task in to_wake {
                state.get_mut(task).unblock();
            }
        });
    }
}

/// The scheduler stopped an execution (returned no task): its unfinished tasks are leaked.
pub(crate) fn note_stopped() {
    ExecutionContext::with(|cx| cx.add_stopped_executions(1));
}

/// Executions that lineup's scheduler stopped so far (instead of letting every task finish, so
/// that shuttle leaked their unfinished tasks' stacks) on this OS thread and on the workers it
/// ran (see [`on_workers`](crate::explore::split::on_workers)): a check's, for the thread that
/// called it.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn stopped_executions() -> u64 {
    ExecutionContext::with(ExecutionContext::stopped_executions)
}

/// The scheduling of an execution being abandoned: no branch choice, every task gets to run.
#[derive(Debug, Default)]
pub(crate) struct Abandonment {
    step: u32,
    idle_driver_runs: u32,
    last_run: Vec<u32>,
}

impl Abandonment {
    /// Whether the stuck execution in progress can be abandoned safely: its only threads are the
    /// harness's and the object's own threads of lineup's or of lineup's `vendor/shuttle-std`
    /// (which the quiet end lets finish; any other thread the object or an operation spawned
    /// cannot be abandoned, and a destructor that the abandonment's unwind runs may wait for it),
    /// and every pending
    /// operation either can still run (it spins), or blocks in an abandonable wait (of
    /// `lineup::sync` or of lineup's `vendor/shuttle-std`: see [`lineup_signals::abandonment`]) or
    /// in a receive of `lineup::sync::mpsc`. Otherwise
    /// the execution is stopped as before: stopping it once an unwind has blocked in a destructor
    /// would fail the test in shuttle's teardown.
    pub fn can_begin(runnable: &[&Task]) -> bool {
        recording::with(|r| {
            // Threads the constructor spawned are let finish by the quiet end, if lineup's or
            // lineup's `vendor/shuttle-std`'s (labelled `Guarded`: the quiet end of shuttle's
            // threads); a thread an operation spawned still stops the execution (a destructor that
            // the abandonment's unwind runs may wait for it).
            let guarded =
                |i: usize| shuttle::current::get_label_for_task::<lineup_signals::Guarded>(TaskId::from(i)).is_some();
            let only_harness_threads = r.roles.iter().enumerate().all(|(i, role)| match role {
                Some(Role::Background) => r.own_threads.contains(i) || guarded(i),
                Some(Role::InOp(op)) => r.owners[op - 1] == Some(TaskId::from(i)),
                _ => true,
            });
            only_harness_threads
                && r.pending
                    .iter()
                    .zip(&r.owners)
                    .all(|(&pending, owner)| match (pending, owner) {
                        (true, Some(task)) => {
                            runnable.iter().any(|t| t.id() == *task)
                                || is_waiting(*task)
                                || crate::explore::quiet_end::is_receiving(*task)
                        }
                        _ => true,
                    })
        })
    }

    /// Starts abandoning the execution in progress (its stuck history has been recorded). The
    /// object's own threads, if any (lineup's or its `vendor/shuttle-std`'s: see
    /// [`can_begin`](Self::can_begin)), get the quiet end once the operations have unwound and the
    /// harness is done (see [`quiet_end`](crate::explore::quiet_end)); a panic of any thread from
    /// here on is no finding (see `harness::drop_after_the_history`).
    pub fn begin() -> Self {
        // From here on a panic of any thread is no finding (the history was taken; the
        // operations unwinding may drop what a thread then finds gone: the receiver of its
        // reply): lineup's `vendor/shuttle-std` finishes a thread that panics while the flag is
        // set, as `lineup::thread`'s threads end quietly then.
        lineup_signals::abandonment::begin();
        Self::default()
    }

    /// The next task to run, or `None` to stop the execution (the fallback).
    pub fn next_task(&mut self, runnable: &[&Task]) -> Option<TaskId> {
        self.step += 1;
        if self.step > MAX_ABANDONMENT_STEPS {
            return None;
        }
        let chosen = recording::with(|r| {
            let mut roles = Vec::with_capacity(runnable.len());
            for t in runnable {
                roles.push((t.id(), r.role(t.id(), t.parent_task_id())));
            }
            if r.done && r.own_threads.shuttle_quiet_end {
                // The main thread has finished its work and lets the object's threads, those of
                // lineup's `vendor/shuttle-std`, finish (the quiet end of shuttle's threads): they
                // run first, then the harness, which ends the quiet end when they have finished
                // (or asks for a stop when none can run).
                if r.own_threads.quiet_end_stuck {
                    return None;
                }
                return roles
                    .iter()
                    .map(|&(t, _)| t)
                    .filter(|&t| r.is_thread_of_its_own(t))
                    .min()
                    .or_else(|| {
                        roles
                            .iter()
                            .find(|(_, role)| matches!(role, Role::Watchdog | Role::Harness))
                            .map(|&(t, _)| t)
                    });
            }
            if r.done {
                // The main thread has finished its work: let it and the watchdog end, once the
                // object's own threads (lineup's: the quiet end) have finished; a thread of the
                // object, or one an operation spawned, that is not lineup's may never end (unless
                // the harness found the object's threads, lineup's `vendor/shuttle-std`'s, all
                // finished).
                let finished =
                    |i: usize| r.own_threads.shuttle_threads_finished && r.is_thread_of_its_own(TaskId::from(i));
                let others = r.roles.iter().enumerate().skip(1).any(|(i, role)| {
                    matches!(role, Some(Role::InOp(_) | Role::Background | Role::Gate(_)))
                        && !r.own_threads.contains(i)
                        && !finished(i)
                });
                if others {
                    return None;
                }
                if r.own_threads_running() {
                    return roles
                        .iter()
                        .map(|&(t, _)| t)
                        .filter(|&t| r.is_own_thread_running(t))
                        .min();
                }
                return roles
                    .iter()
                    .find(|(_, role)| matches!(role, Role::Watchdog | Role::Harness))
                    .map(|&(t, _)| t);
            }
            let driver = |role: Role| match role {
                Role::Watchdog => true,
                Role::Waiting => r.workers_unfinished > 0,
                _ => false,
            };
            let last_run = |t: TaskId| self.last_run.get(usize::from(t)).copied().unwrap_or(0);
            if let Some(t) = roles
                .iter()
                .filter(|(_, role)| !driver(*role))
                .map(|&(t, _)| t)
                .min_by_key(|&t| (last_run(t), t))
            {
                self.idle_driver_runs = 0;
                return Some(t);
            }
            // Only the driver can run: it wakes the waiters it can, if any are left.
            if self.idle_driver_runs >= MAX_IDLE_DRIVER_RUNS {
                return None;
            }
            self.idle_driver_runs += 1;
            roles
                .iter()
                .find(|(_, role)| *role == Role::Waiting)
                .or_else(|| roles.first())
                .map(|&(t, _)| t)
        })?;
        let i = usize::from(chosen);
        if self.last_run.len() <= i {
            self.last_run.resize(i + 1, 0);
        }
        self.last_run[i] = self.step;
        Some(chosen)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::check::check;
    use crate::config::Config;
    use crate::judge::verdict::CheckStats;
    use crate::model::invocation::Invocation;
    use crate::model::matrix::TestMatrix;
    use crate::model::subject::Subject;
    use crate::sync::atomic::{AtomicU32, Ordering};
    use std::collections::VecDeque;

    /// A blocking queue generic over its primitives: `lineup::sync`'s or shuttle's own.
    macro_rules! blocking_queue {
        ($name:ident, $sync:path) => {
            mod $name {
                use std::collections::VecDeque;
                use $sync as sync;

                #[derive(Default)]
                pub struct Queue {
                    items: sync::Mutex<VecDeque<u32>>,
                    not_empty: sync::Condvar,
                }

                impl Queue {
                    pub fn add(&self, value: u32) {
                        self.items.lock().unwrap().push_back(value);
                        self.not_empty.notify_one();
                    }

                    pub fn take(&self) -> u32 {
                        let mut items = self.items.lock().unwrap();
                        loop {
                            if let Some(value) = items.pop_front() {
                                return value;
                            }
                            items = self.not_empty.wait(items).unwrap();
                        }
                    }
                }
            }
        };
    }
    blocking_queue!(lineup_queue, crate::sync);
    blocking_queue!(shuttle_queue, shuttle::sync);

    /// `take() | take() | add(1)`: one `take` blocks for good in every execution.
    fn matrix() -> TestMatrix {
        TestMatrix::new(vec![vec![0], vec![0], vec![1]])
    }

    /// Checks `subject` and returns its statistics and the executions the scheduler stopped.
    fn run<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix) -> (CheckStats, u64) {
        // Without the reduction: it sees lineup::sync's steps and not shuttle's, and the two
        // explorations are compared execution for execution. One worker, said outright: no probe execution (see `explore::run::workers_for`) adds to
        // the stopped executions counted.
        let config = Config {
            reduction: crate::config::Reduction::Off,
            workers: 1,
            ..Config::default()
        };
        let before = stopped_executions();
        let verdict = check(subject, matrix, &config).unwrap();
        assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
        (verdict.stats().clone(), stopped_executions() - before)
    }

    fn same_exploration(a: &CheckStats, b: &CheckStats) {
        assert_eq!(
            (a.serial_executions, a.serial_full, a.serial_stuck),
            (b.serial_executions, b.serial_full, b.serial_stuck)
        );
        assert_eq!(
            (a.concurrent_executions, a.distinct_histories, a.stuck_histories),
            (b.concurrent_executions, b.distinct_histories, b.stuck_histories)
        );
    }

    /// The same blocking queue (invocations `take()`, `add(1)`) on lineup::sync and on shuttle's
    /// primitives.
    fn queues() -> (Subject<lineup_queue::Queue>, Subject<shuttle_queue::Queue>) {
        let ours = Subject::new("Queue", lineup_queue::Queue::default)
            .with(Invocation::new("take", lineup_queue::Queue::take))
            .with(Invocation::new("add", |q: &lineup_queue::Queue| q.add(1)).arg(1));
        let theirs = Subject::new("Queue", shuttle_queue::Queue::default)
            .with(Invocation::new("take", shuttle_queue::Queue::take))
            .with(Invocation::new("add", |q: &shuttle_queue::Queue| q.add(1)).arg(1));
        (ours, theirs)
    }

    #[test]
    fn a_stuck_execution_ends_cleanly_on_lineup_sync_and_on_lineup_s_shuttle_std() {
        let (ours, theirs) = queues();
        let (ours, ours_stopped) = run(&ours, &matrix());
        let (theirs, theirs_stopped) = run(&theirs, &matrix());
        assert!(ours.stuck_histories > 0 && ours.serial_stuck > 0);
        // Every execution is stuck, and none is stopped (its stacks leaked): the waits of
        // lineup::sync's primitives and of shuttle's (lineup's vendor/shuttle-std, patched in this
        // workspace) are abandoned. With the published shuttle-std each would be stopped.
        assert_eq!(ours_stopped, 0);
        assert_eq!(theirs_stopped, 0);
        // The same executions, histories and verdict.
        same_exploration(&ours, &theirs);
    }

    #[test]
    fn a_stuck_initial_or_final_operation_of_the_main_thread_ends_cleanly() {
        let (ours, theirs) = queues();
        // The main thread's initial `take` blocks (the workers never start their operations);
        // or one of its final `take`s does.
        for matrix in [
            TestMatrix::new(vec![vec![1], vec![0]]).with_initial(vec![0]),
            TestMatrix::new(vec![vec![1], vec![1, 0]]).with_final(vec![0, 0]),
        ] {
            let (ours, ours_stopped) = run(&ours, &matrix);
            let (theirs, theirs_stopped) = run(&theirs, &matrix);
            assert!(ours.stuck_histories > 0, "{matrix:?}");
            assert_eq!((ours_stopped, theirs_stopped), (0, 0), "{matrix:?}");
            same_exploration(&ours, &theirs);
        }
    }

    /// Objects that get stuck in each other wait, generic over their primitives: `lineup::sync`'s
    /// or shuttle's own (lineup's `vendor/shuttle-std` in this workspace).
    macro_rules! stuck_objects {
        ($name:ident, $sync:path, $thread:path) => {
            mod $name {
                use sync::mpsc;
                use sync::Mutex;
                use $sync as sync;
                use $thread as thread;

                /// A mailbox: `take` blocks in a receive (holding the receiver's mutex, so a
                /// second `take` blocks in the lock).
                pub struct Mailbox {
                    tx: Mutex<mpsc::Sender<u32>>,
                    rx: Mutex<mpsc::Receiver<u32>>,
                }

                impl Mailbox {
                    pub fn new() -> Self {
                        let (tx, rx) = mpsc::channel();
                        Self {
                            tx: Mutex::new(tx),
                            rx: Mutex::new(rx),
                        }
                    }
                    pub fn add(&self, value: u32) {
                        self.tx.lock().unwrap().send(value).unwrap();
                    }
                    pub fn take(&self) -> u32 {
                        self.rx.lock().unwrap().recv().unwrap()
                    }
                }

                /// A bounded mailbox of one slot: a second `put` blocks in the send.
                pub struct Slot {
                    tx: mpsc::SyncSender<u32>,
                    rx: Mutex<mpsc::Receiver<u32>>,
                }

                impl Slot {
                    pub fn new() -> Self {
                        let (tx, rx) = mpsc::sync_channel(1);
                        Self {
                            tx,
                            rx: Mutex::new(rx),
                        }
                    }
                    pub fn put(&self, value: u32) {
                        self.tx.send(value).unwrap();
                    }
                    pub fn take(&self) -> u32 {
                        self.rx.lock().unwrap().recv().unwrap()
                    }
                }

                /// `tick` locks the count and write-locks the tally, asks the object's own thread
                /// to add to them and to reply (the thread then blocks in the lock), and waits for
                /// good while it holds both. The thread takes both, unwraps a token of the asker's
                /// and its reply: when the abandoned `tick` unwinds through its guards, dropping
                /// the token and the reply's receiver, it must neither find a lock poisoned nor
                /// fail the execution when it finds the token or the asker gone (a panic in the
                /// step it resumes in, before the harness is done, and one after its send's
                /// switch).
                ///
                /// The thread counts the times it found a lock poisoned in [`POISONED`]. With
                /// [`Ticker::joining`], the object keeps the thread's handle, and its drop closes
                /// the mailbox and unwraps the thread's `join` (in a complete execution the thread
                /// ends well).
                pub struct Ticker {
                    count: sync::Arc<Mutex<u32>>,
                    tally: sync::Arc<sync::RwLock<u32>>,
                    ticks: Mutex<Option<mpsc::Sender<(sync::Weak<()>, mpsc::Sender<u32>)>>>,
                    never: Mutex<mpsc::Receiver<()>>,
                    _keep: Mutex<mpsc::Sender<()>>,
                    worker: Option<thread::JoinHandle<()>>,
                }

                /// The times the object's thread found the count's lock or the tally's
                /// `RwLock` poisoned.
                pub static POISONED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

                impl Ticker {
                    pub fn new() -> Self {
                        let mut ticker = Self::joining();
                        ticker.worker = None;
                        ticker
                    }
                    pub fn joining() -> Self {
                        let count = sync::Arc::new(Mutex::new(0));
                        let tally = sync::Arc::new(sync::RwLock::new(0));
                        let (ticks, inbox) = mpsc::channel::<(sync::Weak<()>, mpsc::Sender<u32>)>();
                        let (counter, tallier) = (sync::Arc::clone(&count), sync::Arc::clone(&tally));
                        let poisoned = || POISONED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let worker = thread::spawn(move || {
                            while let Ok((asker, reply)) = inbox.recv() {
                                let mut count = counter.lock().unwrap_or_else(|p| {
                                    poisoned();
                                    p.into_inner()
                                });
                                *tallier.write().unwrap_or_else(|p| {
                                    poisoned();
                                    p.into_inner()
                                }) += 1;
                                asker.upgrade().expect("the asker waits");
                                *count += 1;
                                reply.send(*count).unwrap();
                            }
                        });
                        let (keep, never) = mpsc::channel();
                        Self {
                            count,
                            tally,
                            ticks: Mutex::new(Some(ticks)),
                            never: Mutex::new(never),
                            _keep: Mutex::new(keep),
                            worker: Some(worker),
                        }
                    }
                    pub fn tick(&self) -> u32 {
                        // Unwound in reverse: the reply's receiver goes, the count is released
                        // (the thread may go on), and the release of `ticks` is a scheduling point
                        // at which the thread may run while the operation still unwinds.
                        let ticks = self.ticks.lock().unwrap();
                        let count = self.count.lock().unwrap();
                        let tally = self.tally.write().unwrap();
                        let (reply, replied) = mpsc::channel();
                        let token = sync::Arc::new(());
                        let ticks = ticks.as_ref().expect("the mailbox is open");
                        ticks.send((sync::Arc::downgrade(&token), reply)).unwrap();
                        let _ = self.never.lock().unwrap().recv();
                        drop(tally);
                        drop(count);
                        replied.recv().unwrap()
                    }
                }

                impl Drop for Ticker {
                    fn drop(&mut self) {
                        let Some(worker) = self.worker.take() else {
                            return;
                        };
                        match self.ticks.get_mut() {
                            Ok(ticks) => drop(ticks.take()),
                            Err(poisoned) => drop(poisoned.into_inner().take()),
                        }
                        worker.join().unwrap();
                    }
                }
            }
        };
    }
    stuck_objects!(lineup_objects, crate::sync, crate::thread);
    stuck_objects!(shuttle_objects, shuttle::sync, shuttle::thread);

    /// Checks `matrix` of the object that `subject` makes from `lineup_objects` and from
    /// `shuttle_objects`: both pass with stuck histories and the same distinct histories, and no
    /// execution is stopped (shuttle's channels switch once more than lineup's: their executions
    /// differ).
    macro_rules! ends_cleanly_both_ways {
        ($subject:ident, $matrix:expr) => {{
            let matrix = $matrix;
            let (ours, ours_stopped) = run(&$subject!(lineup_objects), &matrix);
            let (theirs, theirs_stopped) = run(&$subject!(shuttle_objects), &matrix);
            assert!(ours.stuck_histories > 0 && theirs.stuck_histories > 0, "{matrix:?}");
            assert_eq!(
                (ours.distinct_histories, ours.stuck_histories),
                (theirs.distinct_histories, theirs.stuck_histories),
                "{matrix:?}"
            );
            assert_eq!((ours_stopped, theirs_stopped), (0, 0), "{matrix:?}");
        }};
    }

    #[test]
    fn stuck_receives_and_sends_of_shuttle_s_channels_end_cleanly() {
        macro_rules! mailbox {
            ($m:ident) => {
                Subject::new("Mailbox", $m::Mailbox::new)
                    .with(Invocation::new("take", $m::Mailbox::take))
                    .with(Invocation::new("add", |o: &$m::Mailbox| o.add(1)).arg(1))
            };
        }
        macro_rules! slot {
            ($m:ident) => {
                Subject::new("Slot", $m::Slot::new)
                    .with(Invocation::new("take", $m::Slot::take))
                    .with(Invocation::new("put", |o: &$m::Slot| o.put(1)).arg(1))
            };
        }
        // A receive (and a lock behind it), a bounded send. (The barrier's and the `RwLock`'s
        // waits: their modules' tests.)
        ends_cleanly_both_ways!(mailbox, TestMatrix::new(vec![vec![0], vec![0], vec![1]]));
        ends_cleanly_both_ways!(slot, TestMatrix::new(vec![vec![1], vec![1, 1]]));
    }

    #[test]
    fn the_object_s_thread_goes_on_quietly_after_an_abandoned_operation_unwinds() {
        macro_rules! ticker {
            ($m:ident) => {
                Subject::new("Ticker", $m::Ticker::new).with(Invocation::new("tick", $m::Ticker::tick))
            };
        }
        // The object's thread takes the lock and the `RwLock`'s write lock after `tick` unwinds
        // through their guards: it must find neither poisoned (it counts the times it does). Then it unwraps its reply to the
        // receiver that `tick`'s unwind dropped: a panic after the stuck history was taken, no
        // finding of the execution's, which must end quietly.
        let before = (
            lineup_objects::POISONED.load(Ordering::Relaxed),
            shuttle_objects::POISONED.load(Ordering::Relaxed),
        );
        ends_cleanly_both_ways!(ticker, TestMatrix::new(vec![vec![0]]));
        let after = (
            lineup_objects::POISONED.load(Ordering::Relaxed),
            shuttle_objects::POISONED.load(Ordering::Relaxed),
        );
        assert_eq!(after, before, "the object's thread found the lock poisoned");
    }

    #[test]
    fn the_object_s_drop_after_an_abandoned_operation_is_no_finding() {
        macro_rules! joining_ticker {
            ($m:ident) => {
                Subject::new("JoiningTicker", $m::Ticker::joining).with(Invocation::new("tick", $m::Ticker::tick))
            };
        }
        // The object's drop joins its thread, which ended with a panic when it found `tick`'s
        // reply gone (quietly: `tick` was abandoned), and unwraps the join: a panic after the
        // stuck history was taken, no error of the check's.
        ends_cleanly_both_ways!(joining_ticker, TestMatrix::new(vec![vec![0]]));
    }

    /// An asynchronous wait on a future that is never woken, through shuttle's `block_on` (what
    /// `lineup::future::block_on` runs on shuttle, and what an `async fn` invocation runs on).
    struct Never;

    impl Never {
        fn wait(&self) {
            crate::future::block_on(std::future::pending::<()>());
        }
    }

    #[test]
    fn a_stuck_block_on_ends_cleanly() {
        let subject = Subject::new("Never", || Never).with(Invocation::new("wait", Never::wait));
        let (stats, stopped) = run(&subject, &TestMatrix::new(vec![vec![0], vec![0]]));
        assert!(stats.stuck_histories > 0 && stats.serial_stuck > 0);
        // The wait of lineup's `vendor/shuttle-std` `block_on` is abandoned: with the published
        // crate every execution would be stopped.
        assert_eq!(stopped, 0);
    }

    /// A queue whose `take` spins on its length until an element is there, yielding with
    /// `yield_hint` (and taking no lock while the queue stays empty).
    struct SpinQueue {
        items: crate::sync::Mutex<VecDeque<u32>>,
        len: AtomicU32,
        yield_hint: fn(),
    }

    impl SpinQueue {
        fn new(yield_hint: fn()) -> Self {
            Self {
                items: crate::sync::Mutex::new(VecDeque::new()),
                len: AtomicU32::new(0),
                yield_hint,
            }
        }

        fn add(&self, value: u32) {
            self.items.lock().unwrap().push_back(value);
            self.len.fetch_add(1, Ordering::SeqCst);
        }

        fn take(&self) -> u32 {
            loop {
                if self.len.load(Ordering::SeqCst) > 0 {
                    if let Some(value) = self.items.lock().unwrap().pop_front() {
                        self.len.fetch_sub(1, Ordering::SeqCst);
                        return value;
                    }
                }
                (self.yield_hint)();
            }
        }
    }

    fn spin_subject(yield_hint: fn()) -> Subject<SpinQueue> {
        Subject::new("SpinQueue", move || SpinQueue::new(yield_hint))
            .with(Invocation::new("take", SpinQueue::take))
            .with(Invocation::new("add", |q: &SpinQueue| q.add(1)).arg(1))
    }

    #[test]
    fn a_livelock_spinning_through_lineup_s_yields_ends_cleanly() {
        let (ours, ours_stopped) = run(&spin_subject(crate::hint::spin_loop), &matrix());
        assert!(ours.stuck_histories > 0);
        assert_eq!(ours_stopped, 0);
        let (theirs, theirs_stopped) = run(&spin_subject(shuttle::hint::spin_loop), &matrix());
        assert!(theirs_stopped > 0);
        same_exploration(&ours, &theirs);
        let (yields, stopped) = run(&spin_subject(crate::thread::yield_now), &matrix());
        assert_eq!(stopped, 0);
        same_exploration(&ours, &yields);
    }
}

//! The *quiet end* of an execution whose object has threads of its own: once the last operation
//! has returned (the history is complete), the threads that `lineup::thread::spawn` started are
//! let finish instead of being left waiting, so that shuttle reuses their stacks rather than
//! freeing them (a `munmap` per thread and execution, which, on two OS threads at once, made two
//! workers slower than one).
//!
//! The harness begins it after the last operation when every thread of the object's own was
//! spawned by `lineup::thread::spawn` ([`Recording::every_thread_of_its_own_is_lineup_s`]): it
//! wakes every such thread waiting in a receive of `lineup::sync::mpsc`, and a receive in such a
//! thread then reports the channel disconnected, once per channel ([`told_to_end`]), so that an
//! actor's `while let Ok(message) = mailbox.recv()` ends, even one that was waiting for an answer
//! on another channel. A second receive from the same channel waits for good. The scheduler
//! runs those threads, one at a time and without branching, and stops the execution as before when
//! none of them can run while some have not finished (or after [`MAX_QUIET_END_STEPS`]). Nothing
//! of this changes the history, which was complete when it began.
//!
//! **shuttle's threads** (issue 24). When some thread of the object's own is shuttle's, the quiet
//! end above does not begin; if every such thread was spawned by lineup's `vendor/shuttle-std`
//! (which labels each one [`lineup_signals::Guarded`]), the *quiet end of shuttle's threads* does
//! ([`begin_for_shuttle_threads`]): no thread is told anything, but the object has been dropped, so
//! an actor whose mailbox's last sender went with it receives `Err` and ends its loop. The
//! scheduler runs the object's threads, one at a time and without branching, until every one has
//! finished or none can run (the execution is then stopped as before: an actor that keeps a sender
//! of its own mailbox). Each thread has the label [`lineup_signals::QuietEnd`] meanwhile: a panic
//! of its function (an `unwrap` of that `Err`) finishes it quietly, in `vendor/shuttle-std`'s
//! `lineup_thread_fn`, instead of failing the execution (the panic is what its `join` returns). A quiet end that takes more than
//! [`MAX_SHUTTLE_QUIET_END_STEPS`] (a thread that loops forever) is stopped, and the exploration's
//! later executions stop at their end as before. On the replicated register over shuttle's
//! channels (three actor threads), this took the 9,008 phase-2 executions of
//! `write(1) read() | write(2) read()` at bound 0 from 0.51 s to 0.30 s (0.16 s on lineup's
//! channels): shuttle no longer makes and unwinds three stacks per execution.
//!
//! **Future tasks** (`shuttle::future::spawn`, and so `tokio::spawn` through shuttle-tokio) are
//! labelled `Guarded` by lineup's `vendor/shuttle-std` too, and a panic of a task's future in the
//! quiet end finishes it as cancelled, so the same quiet end lets them finish: an actor task whose
//! mailbox's last sender went with the object ends its loop. On the tokio replicated register
//! (`lineup_zoo::native::tokio_register`, three tasks), phase 2 of `write(1) read() | write(2)
//! read()` at bound 1 (83,145 executions, one worker) went from 6.3 s to 2.6 s. The tests are in
//! `lineup-zoo/tests/tokio_quiet_end.rs`.
//!
//! [`Recording::every_thread_of_its_own_is_lineup_s`]: crate::explore::recording::Recording::every_thread_of_its_own_is_lineup_s

use std::sync::atomic::{AtomicU64, Ordering};

use shuttle::current::TaskId;
use shuttle_engine::runtime::execution::ExecutionState;

use crate::explore::context::ExecutionContext;
use crate::explore::recording;

/// Steps the quiet end may take before the scheduler stops the execution.
pub(crate) const MAX_QUIET_END_STEPS: u64 = 10_000;

/// Steps the quiet end of shuttle's threads may take before the scheduler stops the execution,
/// and that exploration's later executions stop at their end without one (the threads are not
/// told to end, so one that loops forever would take them all, in every execution).
pub(crate) const MAX_SHUTTLE_QUIET_END_STEPS: u64 = 1_000;

/// Quiet ends of shuttle's threads cut at [`MAX_SHUTTLE_QUIET_END_STEPS`] in this process so far.
static QUIET_ENDS_CUT: AtomicU64 = AtomicU64::new(0);

/// A quiet end of shuttle's threads reached [`MAX_SHUTTLE_QUIET_END_STEPS`]: the scheduler stops
/// it, and its exploration's later executions have none.
pub(crate) fn note_cut() {
    QUIET_ENDS_CUT.fetch_add(1, Ordering::Relaxed);
}

/// Quiet ends of shuttle's threads cut so far, in the whole process (every check's, every
/// worker's).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn quiet_ends_cut() -> u64 {
    QUIET_ENDS_CUT.load(Ordering::Relaxed)
}

/// The quiet end's sub-store of the [execution context](crate::explore::context).
#[derive(Debug)]
pub(crate) struct QuietEndReceives {
    /// Tasks waiting in a receive of `lineup::sync::mpsc`.
    receiving: Vec<TaskId>,
    /// Threads told, during the quiet end, that a channel is disconnected, with the channel (its
    /// address, which stays put while the execution lasts).
    told: Vec<(TaskId, usize)>,
}

impl QuietEndReceives {
    /// No task receives (the thread local's first value).
    pub(crate) const EMPTY: QuietEndReceives = QuietEndReceives {
        receiving: Vec::new(),
        told: Vec::new(),
    };

    /// Forgets the previous execution's.
    pub(crate) fn clear(&mut self) {
        self.receiving.clear();
        self.told.clear();
    }
}

/// Runs `f` on the quiet end's sub-store of this OS thread's execution context.
fn with<R>(f: impl FnOnce(&mut QuietEndReceives) -> R) -> R {
    ExecutionContext::with(|cx| f(&mut cx.quiet_end()))
}

/// The current task begins to wait in a receive.
pub(crate) fn begin_receive(me: TaskId) {
    with(|s| s.receiving.push(me));
}

/// Whether `task` waits in a receive.
pub(crate) fn is_receiving(task: TaskId) -> bool {
    with(|s| s.receiving.contains(&task))
}

/// The tasks waiting in a receive, to be woken (they no longer count as waiting).
pub(crate) fn take_receiving() -> Vec<TaskId> {
    with(|s| std::mem::take(&mut s.receiving))
}

/// [`take_receiving`], of the tasks for which `wanted` holds.
pub(crate) fn take_receiving_where(wanted: impl Fn(TaskId) -> bool) -> Vec<TaskId> {
    let receiving = with(|s| std::mem::take(&mut s.receiving));
    let (taken, kept): (Vec<TaskId>, Vec<TaskId>) = receiving.into_iter().partition(|&t| wanted(t));
    with(|s| s.receiving.extend(kept));
    taken
}

/// The current task stopped waiting in a receive.
pub(crate) fn end_receive(me: TaskId) {
    with(|s| s.receiving.retain(|&t| t != me));
}

/// In a receive from the channel at address `channel`: `None` outside the quiet end (or in a
/// thread that is not lineup's); during it, `Some(true)` the first time the current thread asks
/// about that channel (it is told the channel is disconnected), `Some(false)` after that (it waits
/// for good). Once per channel, not per thread: an actor told while it waited for an answer on a
/// channel of its own (a primary waiting for its backups' acknowledgements) is told again by its
/// mailbox and ends its loop; a loop that receives again from a channel after its error waits
/// there for good, as before, and does not spin.
pub(crate) fn told_to_end(channel: usize) -> Option<bool> {
    let me = shuttle::current::try_get_current_task()?;
    ExecutionContext::with(|cx| {
        if !cx.recording().is_told_to_end(me) {
            return None;
        }
        let mut s = cx.quiet_end();
        let first = !s.told.contains(&(me, channel));
        if first {
            s.told.push((me, channel));
        }
        Some(first)
    })
}

/// The harness, after the last operation returned: begins the quiet end if every thread of the
/// object's own is lineup's and some still runs, and wakes those that wait in a receive.
/// Returns whether it began.
pub(crate) fn begin() -> bool {
    let begun = recording::with(|r| {
        r.own_threads.quiet_end = r.own_threads_running() && r.every_thread_of_its_own_is_lineup_s();
        r.own_threads.quiet_end
    });
    if begun {
        let waiting = take_receiving();
        ExecutionState::with(|state| {
            for task in waiting {
                state.get_mut(task).unblock();
            }
        });
    }
    begun
}

/// The harness, after the last operation returned, when [`begin`] did not begin: begins the quiet
/// end of shuttle's threads if some thread of the object's own has not finished. Those threads are
/// not told anything: they run, one at a time and without branching, until they have finished
/// (an actor whose mailbox's last sender went with the object ends its loop) or none can run.
/// Returns whether it began.
pub(crate) fn begin_for_shuttle_threads() -> bool {
    let own: Vec<TaskId> = recording::with(|r| r.threads_of_its_own().collect());
    // A thread of the published shuttle-std that panicked now would fail the execution.
    let guarded = |t: TaskId| shuttle::current::get_label_for_task::<lineup_signals::Guarded>(t).is_some();
    if !own.iter().all(|&t| guarded(t)) {
        return false;
    }
    let unfinished: Vec<TaskId> =
        ExecutionState::with(|state| own.iter().copied().filter(|&t| !state.get(t).finished()).collect());
    if unfinished.is_empty() {
        // They have ended already (an abandoned execution's: see `Abandonment::next_task`).
        recording::with(|r| r.own_threads.shuttle_threads_finished = !own.is_empty());
        return false;
    }
    for &task in &unfinished {
        shuttle::current::set_label_for_task(task, lineup_signals::QuietEnd);
    }
    recording::with(|r| r.own_threads.shuttle_quiet_end = true);
    lineup_signals::quiet_end::begin();
    wake_sleeping(&unfinished);
    true
}

/// Wakes those of `tasks` that sleep (future tasks between two polls, a `block_on` waiting on its
/// future), so that they are polled again in the quiet end: a receive of lineup's
/// `vendor/shuttle-tokio-impl-inner` that would wait is then told its channel is closed, once (an
/// actor task's loop ends although other actors hold senders of its mailbox). A poll without news
/// is a spurious wake-up, which a future allows; blocked threads are left as they are.
fn wake_sleeping(tasks: &[TaskId]) {
    let wakers: Vec<std::task::Waker> = ExecutionState::with(|state| {
        tasks
            .iter()
            .filter(|&&t| state.get(t).sleeping())
            .map(|&t| state.get(t).waker())
            .collect()
    });
    for waker in wakers {
        waker.wake();
    }
}

/// During the quiet end of shuttle's threads, in the harness: whether it waits for them still.
/// `false` once every one has finished; if none can run while some have not, it asks the scheduler
/// to stop the execution (and waits for that).
pub(crate) fn shuttle_threads_may_finish() -> bool {
    let own: Vec<TaskId> = recording::with(|r| r.threads_of_its_own().collect());
    let (unfinished, runnable) = ExecutionState::with(|state| {
        let unfinished = own.iter().any(|&t| !state.get(t).finished());
        let runnable = own.iter().any(|&t| state.get(t).runnable());
        (unfinished, runnable)
    });
    if unfinished && !runnable {
        recording::with(|r| r.own_threads.quiet_end_stuck = true);
    }
    unfinished
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::check::check;
    use crate::config::{Config, Reduction};
    use crate::explore::abandonment::stopped_executions;
    use crate::explore::quiet_end::quiet_ends_cut;
    use crate::model::invocation::Invocation;
    use crate::model::matrix::TestMatrix;
    use crate::model::subject::Subject;

    /// How the counter actor treats its mailbox.
    #[derive(Clone, Copy)]
    enum Mailbox {
        /// `while let Ok(request) = mailbox.recv()`.
        EndsOnError,
        /// `mailbox.recv().unwrap()`: panics when told the channel is disconnected.
        Unwraps,
        /// Receives again after an error.
        Ignores,
    }

    /// lineup's channels and threads, and shuttle's own, for [`counter_actor`].
    mod on_lineup {
        pub use crate::sync::mpsc;
        pub use crate::thread;
    }
    mod on_shuttle {
        pub use shuttle::sync::mpsc;
        pub use shuttle::thread;
    }

    /// A counter owned by an actor thread, on the channels and threads of module `$on` (one of
    /// the two above): `inc()` returns the count before it. With `keeps_sender`, the actor keeps a
    /// sender of its own mailbox, so dropping the handle does not disconnect the mailbox. An actor
    /// that receives again after an error runs `$spin` after each receive.
    macro_rules! counter_actor {
        ($name:ident, $on:ident, $spin:expr) => {
            struct $name {
                actor: $on::mpsc::Sender<$on::mpsc::Sender<u32>>,
            }

            impl $name {
                fn new(mailbox: Mailbox, keeps_sender: bool) -> Self {
                    let (actor, requests) = $on::mpsc::channel::<$on::mpsc::Sender<u32>>();
                    let keep = keeps_sender.then(|| actor.clone());
                    $on::thread::spawn(move || {
                        let _keep = keep;
                        let mut count = 0;
                        let mut answer = |reply: $on::mpsc::Sender<u32>| {
                            let _ = reply.send(count);
                            count += 1;
                        };
                        match mailbox {
                            Mailbox::EndsOnError => {
                                while let Ok(reply) = requests.recv() {
                                    answer(reply);
                                }
                            }
                            Mailbox::Unwraps => loop {
                                answer(requests.recv().unwrap());
                            },
                            Mailbox::Ignores => loop {
                                if let Ok(reply) = requests.recv() {
                                    answer(reply);
                                }
                                $spin();
                            },
                        }
                    });
                    $name { actor }
                }

                fn inc(&self) -> u32 {
                    let (reply, answer) = $on::mpsc::channel();
                    self.actor.send(reply).unwrap();
                    answer.recv().unwrap()
                }
            }
        };
    }

    counter_actor!(Counter, on_lineup, || {});
    counter_actor!(ShuttleCounter, on_shuttle, shuttle::thread::yield_now);

    fn run(mailbox: Mailbox) -> (crate::judge::verdict::CheckStats, u64) {
        run_subject(
            Subject::new("Counter", move || Counter::new(mailbox, true)).with(Invocation::new("inc", Counter::inc)),
        )
    }

    /// Checks `inc() inc() | inc()` of `subject`, which must pass: its statistics, and the
    /// executions the scheduler stopped.
    fn run_subject<O: Send + Sync + 'static>(subject: Subject<O>) -> (crate::judge::verdict::CheckStats, u64) {
        run_on(subject, vec![vec![0, 0], vec![0]])
    }

    /// [`run_subject`] on the matrix whose threads' invocations are `threads`.
    fn run_on<O: Send + Sync + 'static>(
        subject: Subject<O>,
        threads: Vec<Vec<usize>>,
    ) -> (crate::judge::verdict::CheckStats, u64) {
        // Without the reduction: no redundant executions, which end the old way.
        let config = Config {
            reduction: Reduction::Off,
            workers: 1,
            ..Config::default()
        };
        let before = stopped_executions();
        let verdict = check(&subject, &TestMatrix::new(threads), &config).unwrap();
        assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
        (verdict.stats().clone(), stopped_executions() - before)
    }

    fn run_shuttle(mailbox: Mailbox, keeps_sender: bool) -> (crate::judge::verdict::CheckStats, u64) {
        run_subject(
            Subject::new("ShuttleCounter", move || ShuttleCounter::new(mailbox, keeps_sender))
                .with(Invocation::new("inc", ShuttleCounter::inc)),
        )
    }

    #[test]
    fn a_shuttle_actor_whose_mailbox_goes_with_the_object_finishes_at_the_end_of_every_execution() {
        let (stats, stopped) = run_shuttle(Mailbox::EndsOnError, false);
        assert!(stats.concurrent_executions > 0);
        assert_eq!(stopped, 0);
    }

    #[test]
    fn a_shuttle_actor_that_keeps_its_own_mailbox_is_stopped_as_before() {
        let (stats, stopped) = run_shuttle(Mailbox::EndsOnError, true);
        assert_eq!(stopped, stats.serial_executions + stats.concurrent_executions);
    }

    #[test]
    fn a_shuttle_actor_that_unwraps_its_receive_is_ended_silently() {
        let (stats, stopped) = run_shuttle(Mailbox::Unwraps, false);
        assert!(stats.concurrent_executions > 0);
        // The panic finishes the thread (lineup's `vendor/shuttle-std`): no execution is stopped.
        assert_eq!(stopped, 0);
    }

    #[test]
    fn a_shuttle_actor_that_spins_after_the_object_is_gone_passes() {
        let cut_before = quiet_ends_cut();
        let (stats, stopped) = run_shuttle(Mailbox::Ignores, false);
        let cut = quiet_ends_cut() - cut_before;
        let executions = stats.serial_executions + stats.concurrent_executions;
        assert_eq!(stopped, executions);
        // Cut once per exploration (phase 1, phase 2), then off: not once per execution. (No
        // other test in this binary has a thread that never finishes.)
        assert!(executions > 20, "{executions}");
        assert!(
            (1..=4).contains(&cut),
            "{cut} quiet ends cut in {executions} executions"
        );
    }

    #[test]
    fn an_actor_that_ends_on_a_disconnected_mailbox_finishes_at_the_end_of_every_execution() {
        let (stats, stopped) = run(Mailbox::EndsOnError);
        assert!(stats.concurrent_executions > 0);
        assert_eq!(stopped, 0);
    }

    #[test]
    fn an_actor_that_unwraps_its_receive_is_ended_silently() {
        let (_, stopped) = run(Mailbox::Unwraps);
        assert_eq!(stopped, 0);
    }

    /// A counter whose actor answers first and then waits for a second actor's acknowledgement
    /// on a channel of its own (as a primary that replies before its backups have the update):
    /// at the end of a history it may still wait for that acknowledgement.
    struct Relay {
        actor: crate::sync::mpsc::Sender<crate::sync::mpsc::Sender<u32>>,
    }

    impl Relay {
        fn new() -> Self {
            use crate::sync::mpsc::{channel, Sender};
            let (actor, requests) = channel::<Sender<u32>>();
            let (to_backup, backup) = channel::<Sender<()>>();
            crate::thread::spawn(move || {
                while let Ok(ack) = backup.recv() {
                    let _ = ack.send(());
                }
            });
            crate::thread::spawn(move || {
                let mut count = 0;
                while let Ok(reply) = requests.recv() {
                    let _ = reply.send(count);
                    count += 1;
                    let (ack, acked) = channel();
                    let _ = to_backup.send(ack);
                    let _ = acked.recv();
                }
            });
            Self { actor }
        }

        fn inc(&self) -> u32 {
            let (reply, answer) = crate::sync::mpsc::channel();
            self.actor.send(reply).unwrap();
            answer.recv().unwrap()
        }
    }

    /// Told once per channel: the actor told that its acknowledgement's channel is disconnected is
    /// told so again by its mailbox, and ends its loop, instead of waiting there for good and
    /// being stopped with its stack (which shuttle then frees and makes anew).
    #[test]
    fn an_actor_that_waits_on_another_channel_at_the_end_finishes_at_the_end_of_every_execution() {
        let relay = Subject::new("Relay", Relay::new).with(Invocation::new("inc", Relay::inc));
        let (stats, stopped) = run_on(relay, vec![vec![0], vec![0]]);
        assert!(stats.concurrent_executions > 0);
        assert_eq!(stopped, 0);
    }

    #[test]
    fn an_actor_that_receives_again_after_the_error_is_stopped_as_before() {
        let (stats, stopped) = run(Mailbox::Ignores);
        assert_eq!(stopped, stats.serial_executions + stats.concurrent_executions);
    }
}

//! Sleep sets: the partial-order reduction of lineup's depth-first strategies (phase 1, and
//! `pb-dfs` in phase 2).
//!
//! At a branch point the options are explored one after the other. Once option `t` has been
//! explored, a later sibling `u` need not explore the executions that run `t`'s step next while
//! only steps independent of it ran since (they are equivalent to executions explored under `t`:
//! the same steps of each thread, in an order that differs only in independent steps, with the
//! same history, since every step that records a call or a return writes one shared history
//! object, see [`footprint`](crate::explore::footprint)). So `t` goes *to sleep* in `u`'s subtree
//! and wakes when a step that conflicts with its own runs. A point where every thread that may run
//! sleeps ends its execution as *redundant*: every history it could reach has been reached.
//!
//! **Under a preemption bound** (Coons, Musuvathi, McKinley, "Bounded partial-order reduction",
//! OOPSLA 2013) the equivalent execution may cost more preemptions than the pruned one, and lie
//! outside the bound. An explored option may therefore sleep in later siblings only when it was
//! the current thread going on for free, or when its step left its thread unable to go on
//! (blocked, finished, or between its operations in harness code): in both cases moving its step
//! to the front costs no more preemptions (the proof is in `docs/partial-order-reduction.md`,
//! section 3.4). Phase 1 has no bound: every option may sleep.
//!
//! **Yields and fair switches** choose the thread that ran least recently, which is not a function
//! of the state: equivalent executions may choose differently after one. So a decision that gives
//! way wakes every sleeper, and an option whose subtree contained a give-way with a real choice of
//! fair thread, or a fair switch, never sleeps in later siblings (its subtree is *tainted*).

use shuttle::current::TaskId;

use crate::explore::footprint::{Footprint, Kind};
use crate::explore::shuttle_events::receivers_of;

/// An option explored at a branch point, kept so that later siblings can put it to sleep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SleepRecord {
    /// The option's number at its branch point.
    pub option: u32,
    pub task: TaskId,
    /// What the option's step touched, but for the accesses it began with (those are in flight for
    /// its thread at the branch point, in every execution through it).
    pub footprint: Footprint,
    /// How many objects had numbers when the step began (see [`Footprint::conflicts`]).
    pub young_from: u32,
    /// Whether it may sleep in later siblings (the preemption-bound and fairness rules above).
    pub eligible: bool,
    /// Whether, once its subtree is explored (and it is still `eligible`), it covers every later
    /// sibling (see [`covers_siblings`]).
    pub covers: bool,
}

/// Whether a step with footprint `step` (all its accesses, those it began with included) may
/// cover the later options of its branch point, once its subtree is explored: `{its thread}` is
/// then a persistent set there, so the executions that begin with another option are equivalent
/// to executions that begin with it, which its own subtree explores.
///
/// It may if it recorded no call or return and was not opaque. It does if, besides, in every
/// execution of its subtree, no step of another thread conflicted with it before the history was
/// complete (the scheduler watches), no decision gave way, and no second thread received from a
/// channel. Then every execution from the branch point in which other threads run first (and this
/// step later, or never) is equivalent to one that runs this step first, up to its last return: a
/// step of another thread that conflicted with it before the history was complete would, with the
/// steps of its thread before it (independent of this one), have conflicted with it in this
/// step's subtree too. A receive ([`Kind::Consume`]) conflicts only with another receive, and
/// receivers are `Sync` in shuttle and in lineup, so a second receiver is watched apart
/// ([`FootprintLog::note_receive`](crate::explore::footprint::FootprintLog::note_receive)): a
/// receive behind a waiting one writes the channel, which a receive does not conflict with.
/// Under the preemption bound, moving the step to the front costs no more preemptions when it is
/// `eligible` (section 3.4's proof); a fair choice after a give-way depends on the order in which
/// threads ran, so a subtree that gave way covers nothing. The argument is in
/// `docs/partial-order-reduction.md`, section 3.11.
pub(crate) fn covers_siblings(step: &Footprint) -> bool {
    !step.opaque && !step.history
}

/// Whether a step that [may cover](covers_siblings) its siblings commutes with every step of every
/// other thread, whatever that step touched (an opaque one included), so that no conflict need be
/// watched for: it touched nothing, or only one channel, as receives ([`Kind::Consume`], with
/// shuttle's name of the channel's receivers), which only another receive of that channel
/// conflicts with (watched apart).
pub(crate) fn commutes_with_all(step: &Footprint) -> bool {
    let channel = step.accesses.iter().find(|a| a.kind == Kind::Consume).map(|a| a.object);
    covers_siblings(step)
        && step.accesses.iter().all(|a| {
            // A receive of shuttle's also writes its channel's receivers, which only another
            // receive of that channel touches.
            Some(a.object) == channel && a.kind == Kind::Consume
                || channel.is_some_and(|c| a.object == receivers_of(c) && a.kind == Kind::Write)
        })
}

/// A sleeping thread.
#[derive(Clone, Debug)]
pub(crate) struct Sleeper {
    pub task: TaskId,
    pub footprint: Footprint,
    pub young_from: u32,
}

/// The threads asleep in the execution in progress.
#[derive(Debug, Default)]
pub(crate) struct SleepSet {
    sleepers: Vec<Sleeper>,
}

impl SleepSet {
    /// Empties the set (a new execution, or a decision that gives way).
    pub fn clear(&mut self) {
        self.sleepers.clear();
    }

    /// Puts the thread of `record` to sleep.
    pub fn add(&mut self, record: &SleepRecord) {
        if !self.contains(record.task) {
            self.sleepers.push(Sleeper {
                task: record.task,
                footprint: record.footprint.clone(),
                young_from: record.young_from,
            });
        }
    }

    /// Whether `task` sleeps.
    pub fn contains(&self, task: TaskId) -> bool {
        self.sleepers.iter().any(|s| s.task == task)
    }

    /// A step of `task` with footprint `step` ran: its own thread and every sleeper whose step
    /// conflicts with it wake. A sleeper's step begins with the accesses in flight for its thread
    /// now (`in_flight_conflicts`, numbered in this execution); the record holds the rest.
    pub fn step(&mut self, task: TaskId, step: &Footprint, in_flight_conflicts: impl Fn(TaskId, &Footprint) -> bool) {
        self.sleepers.retain(|s| {
            s.task != task && !s.footprint.conflicts(step, s.young_from) && !in_flight_conflicts(s.task, step)
        });
    }

    /// Whether nothing sleeps.
    pub fn is_empty(&self) -> bool {
        self.sleepers.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::footprint::{Access, Kind};

    fn record(task: usize, object: u64, write: bool) -> SleepRecord {
        SleepRecord {
            option: 0,
            task: TaskId::from(task),
            footprint: Footprint {
                accesses: vec![Access {
                    object,
                    kind: if write { Kind::Write } else { Kind::Read },
                }],
                history: false,
                opaque: false,
                resumed: 0,
            },
            young_from: 100,
            eligible: true,
            covers: false,
        }
    }

    #[test]
    fn a_sleeper_wakes_at_a_conflicting_step_only() {
        let mut sleep = SleepSet::default();
        sleep.add(&record(1, 3, true));
        let independent = record(2, 4, true).footprint;
        sleep.step(TaskId::from(2), &independent, |_, _| false);
        assert!(sleep.contains(TaskId::from(1)));
        let reader = record(2, 3, false).footprint;
        sleep.step(TaskId::from(2), &reader, |_, _| false);
        assert!(!sleep.contains(TaskId::from(1)));
    }

    #[test]
    fn a_step_may_cover_its_siblings_unless_it_recorded_history_or_was_opaque() {
        let step = |history: bool, opaque: bool| Footprint {
            accesses: record(1, 7, true).footprint.accesses,
            history,
            opaque,
            resumed: 0,
        };
        assert!(covers_siblings(&step(false, false)));
        assert!(!covers_siblings(&step(true, false)), "it recorded a call or a return");
        assert!(!covers_siblings(&step(false, true)), "opaque");
    }

    #[test]
    fn a_step_commutes_with_all_if_it_touched_nothing_or_only_receives_of_one_channel() {
        let consume = |object| Access {
            object,
            kind: Kind::Consume,
        };
        let step = |accesses: Vec<Access>| Footprint {
            accesses,
            ..Footprint::default()
        };
        assert!(commutes_with_all(&step(vec![])));
        assert!(commutes_with_all(&step(vec![consume(7), consume(7)])));
        assert!(!commutes_with_all(&step(vec![consume(7), consume(8)])), "two channels");
        let receivers = Access {
            object: receivers_of(7),
            kind: Kind::Write,
        };
        assert!(
            commutes_with_all(&step(vec![consume(7), receivers])),
            "a receive of shuttle's"
        );
        let send = record(1, 7, true).footprint.accesses[0];
        assert!(!commutes_with_all(&step(vec![consume(7), send])), "and a send");
        let history = Footprint {
            history: true,
            ..step(vec![])
        };
        assert!(!commutes_with_all(&history), "it recorded a call or a return");
    }

    #[test]
    fn a_thread_that_runs_is_awake() {
        let mut sleep = SleepSet::default();
        sleep.add(&record(1, 3, true));
        sleep.step(TaskId::from(1), &record(1, 9, false).footprint, |_, _| false);
        assert!(sleep.is_empty());
    }
}

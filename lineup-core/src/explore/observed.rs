//! lineup's side of `lineup_signals::footprint`: the steps of code outside lineup that tells the
//! reduction what it touches (the channels of lineup's `vendor/shuttle-tokio-impl-inner`), and the
//! steps of futures polled through `lineup_signals::footprint::Observed` (the tasks of
//! `tokio::spawn` there, and the asynchronous operations of lineup's harness). See
//! `docs/partial-order-reduction.md` §2.7.
//!
//! * A channel is named by its creation, as lineup's own are; each of its operations puts it in
//!   flight for its task while it runs (a write: the operations of one channel never commute), so
//!   that the scheduling points inside it (the batch semaphore's, a `oneshot`'s switch) are seen,
//!   as those of lineup's own primitives.
//! * A poll of an observed future that returns `Pending` stops at a scheduling point lineup sees,
//!   and the step that resumes the task there reads the task's *wake*, which every wake of its
//!   observed waker writes.
//! * A clone of an observed waker outside an operation in flight is the registration of a future
//!   lineup does not see (or of a waker of another future's own that hides such futures): the
//!   step that clones is opaque, and so is every later step of the waker's task in the execution
//!   (the task is *tainted*), unless [`ReductionFault::ObservedClonesIgnored`].

use lineup_signals::footprint::{Name, Record, Touch};

use crate::config::ReductionFault;

use crate::explore::context::ExecutionContext;
use crate::explore::footprint::{Access, FootprintLog, Kind, WAKE};

/// The observed futures' part of the [`FootprintLog`].
#[derive(Debug)]
pub(crate) struct FutureSteps {
    /// An exploration of lineup's runs on this OS thread (with the reduction on or off): its
    /// observed futures are polled as lineup's executor polls (see [`LineupRecord::poll_pending`]),
    /// so that the tree of executions, and a replay token, is the same with the reduction and
    /// without.
    pub(crate) exploring: bool,
    /// Tasks whose observed waker was cloned outside a named operation in this execution: every
    /// step of theirs is opaque.
    tainted: Vec<usize>,
    /// The step running now cloned an observed waker outside a named operation: it is opaque.
    step_tainted: bool,
    /// The step running now ended its observed future's poll with `Pending`.
    pending: bool,
    /// Tasks whose next step resumes their observed future between two polls.
    repolls: Vec<usize>,
}

impl FutureSteps {
    /// Nothing recorded (the thread local's first value).
    pub(crate) const EMPTY: FutureSteps = FutureSteps {
        exploring: false,
        tainted: Vec::new(),
        step_tainted: false,
        pending: false,
        repolls: Vec::new(),
    };

    /// A new execution.
    pub(crate) fn begin_execution(&mut self) {
        self.exploring = true;
        self.tainted.clear();
        self.step_tainted = false;
        self.pending = false;
        self.repolls.clear();
    }

    /// A step of task `i` begins: it reads the task's wake if it resumes the task's future
    /// between polls (into `step`).
    pub(crate) fn begin_step(&mut self, i: usize, step: &mut Vec<Access>) {
        self.step_tainted = self.tainted.contains(&i);
        self.pending = false;
        if let Some(k) = self.repolls.iter().position(|&t| t == i) {
            self.repolls.swap_remove(k);
            step.push(Access {
                object: WAKE | i as u64,
                kind: Kind::Write,
            });
        }
    }

    /// The step of task `i` ends: whether it stopped at the `Pending` of its observed future (a
    /// scheduling point lineup sees), and whether it is opaque (see the module).
    pub(crate) fn end_step(&mut self, i: usize) -> (bool, bool) {
        let pending = std::mem::take(&mut self.pending);
        if pending && !self.repolls.contains(&i) {
            self.repolls.push(i);
        }
        (pending, std::mem::take(&mut self.step_tainted))
    }
}

/// lineup's [`Record`]: installed once per process, it records into the footprints of the OS
/// thread it is called on, while they are on.
struct LineupRecord;

static RECORD: LineupRecord = LineupRecord;

/// Installs lineup's record (once per process; every exploration calls it before it runs).
pub(crate) fn install() {
    lineup_signals::footprint::install(&RECORD);
}

/// Runs `f` on the footprints if they are on and not borrowed (a call from inside lineup's own
/// bookkeeping is not a step's).
fn with_on<R>(f: impl FnOnce(&mut FootprintLog) -> Option<R>) -> Option<R> {
    ExecutionContext::try_with(|cx| {
        let mut s = cx.footprints_try()?;
        if !s.is_on() {
            return None;
        }
        f(&mut s)
    })
    .flatten()
}

/// Whether an exploration of lineup's runs on this OS thread (see [`FutureSteps::exploring`]).
fn exploring() -> bool {
    ExecutionContext::try_with(|cx| cx.footprints_try().is_some_and(|s| s.futures.exploring)).unwrap_or(false)
}

fn running_index(s: &FootprintLog) -> Option<usize> {
    s.running_task().map(usize::from)
}

impl Record for LineupRecord {
    fn created(&self, name: &Name) {
        with_on(|s| {
            let task = shuttle::current::try_get_current_task()?;
            let id = s.creation_name(usize::from(task));
            s.set_name(name.stamp(), name.id(), id);
            Some(())
        });
    }

    fn begin_touching(&self, name: &Name, how: Touch, after_switch: bool) -> Option<usize> {
        with_on(|s| {
            let me = shuttle::current::try_get_current_task()?;
            let i = usize::from(me);
            let object = s.number_of(name.stamp(), name.id());
            if s.in_flight_of(i).iter().any(|a| a.object == object) {
                // Nested in an operation on the same object, which says how it is touched.
                return None;
            }
            let kind = match how {
                Touch::Lock if s.fault == Some(ReductionFault::TokioLocksCommute) => Kind::Read,
                Touch::Notify if s.fault == Some(ReductionFault::TokioNotifyCommutes) => Kind::Read,
                Touch::Write | Touch::Lock | Touch::Notify => Kind::Write,
                Touch::Consume => Kind::Consume,
            };
            let after_switch = after_switch || s.fault == Some(ReductionFault::TouchesAfterTheirSwitch);
            Some(s.push_in_flight(me, Access { object, kind }, !after_switch))
        })
    }

    fn end_touching(&self, task: usize) {
        with_on(|s| {
            s.pop_in_flight(task);
            Some(())
        });
    }

    fn current_task(&self) -> Option<usize> {
        exploring()
            .then(shuttle::current::try_get_current_task)
            .flatten()
            .map(usize::from)
    }

    fn waker_cloned(&self, task: usize) {
        with_on(|s| {
            let running = running_index(s)?;
            if !s.in_flight_of(running).is_empty() || s.fault == Some(ReductionFault::ObservedClonesIgnored) {
                return None;
            }
            let f = &mut s.futures;
            f.step_tainted = true;
            if !f.tainted.contains(&task) {
                f.tainted.push(task);
            }
            Some(())
        });
    }

    fn woken(&self, task: usize) {
        with_on(|s| {
            let running = running_index(s)?;
            if !s.in_flight_of(running).is_empty() {
                // A wake inside a named operation wakes a registration of a named operation on
                // the same object (made while that task's step named it): their accesses of the
                // object order them.
                return None;
            }
            s.push_step_access(Access {
                object: WAKE | task as u64,
                kind: Kind::Write,
            });
            Some(())
        });
    }

    fn poll_pending(&self, task: usize, woken: bool) {
        with_on(|s| {
            if running_index(s) == Some(task) {
                s.futures.pending = true;
            }
            Some(())
        });
        if !woken && exploring() {
            // The wake that led to this poll (shuttle keeps it until the task next sleeps) is
            // consumed: the task sleeps until it is woken again, as in tokio's executor, instead
            // of being polled once more for nothing (a step of its own, where the other tasks
            // could be scheduled around it: see docs/partial-order-reduction.md §2.7).
            shuttle_engine::runtime::execution::ExecutionState::with(|state| {
                state.current_mut().sleep_unless_woken();
            });
        }
    }
}

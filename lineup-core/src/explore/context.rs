//! The execution context: everything the execution in progress on this OS thread keeps outside
//! the scheduler's own state, in one thread local with one sub-store per concern:
//!
//! * the [`Recording`]: call and return events, task roles, what the harness tells the scheduler;
//! * the [`FootprintLog`]: what each step touches, for the partial-order reduction;
//! * the abandonment of a stuck execution (its flag and its waits: ending a stuck execution
//!   cleanly) is not here but in [`lineup_signals::abandonment`], a thread local of the crate that
//!   lineup's `vendor/shuttle-std` names too (its waits take part); reset here all the same;
//! * the [`QuietEndReceives`]: letting the object's own threads finish at the end;
//! * the [`StepLog`] and its flag: every step of the execution, recorded only while a violating
//!   schedule is replayed for its report (see [`trace`](crate::explore::trace)).
//!
//! A shuttle execution runs every task and the scheduler on one OS thread, so the context is a
//! thread local; checks on different OS threads have contexts of their own. The scheduler resets
//! it once, at the start of each execution ([`ExecutionContext::begin_execution`]), and reaches
//! every sub-store it needs at a scheduling point through one access to the thread local
//! ([`ExecutionContext::with`]); each module reaches its own sub-store through its accessor
//! (`recording::with`, and the functions of `footprint`, `abandonment` and `quiet_end`).

use std::cell::{Cell, RefCell, RefMut};

use crate::config::ReductionFault;
use crate::explore::footprint::FootprintLog;
use crate::explore::quiet_end::QuietEndReceives;
use crate::explore::recording::Recording;
use crate::explore::trace::StepLog;

/// The state of the execution in progress on this OS thread, one sub-store per concern. Each
/// sub-store is borrowed on its own, so that one may be used while another is held.
#[derive(Debug)]
pub(crate) struct ExecutionContext {
    recording: RefCell<Recording>,
    footprints: RefCell<FootprintLog>,
    quiet_end: RefCell<QuietEndReceives>,
    /// Steps are recorded (a replay for a report): read by every primitive, a plain flag.
    tracing: Cell<bool>,
    steps: RefCell<StepLog>,
    /// Executions the scheduler stopped on this OS thread, and on the workers it ran (never
    /// reset: see [`abandonment::stopped_executions`](crate::explore::abandonment::stopped_executions)).
    stopped_executions: Cell<u64>,
}

thread_local! {
    // `const`-initialized: the scheduler, the harness and the primitives reach it hundreds of
    // times per execution.
    static CONTEXT: ExecutionContext = const { ExecutionContext::new() };
}

impl ExecutionContext {
    /// The context of no execution (the thread local's first value).
    const fn new() -> Self {
        ExecutionContext {
            recording: RefCell::new(Recording::EMPTY),
            footprints: RefCell::new(FootprintLog::EMPTY),
            quiet_end: RefCell::new(QuietEndReceives::EMPTY),
            tracing: Cell::new(false),
            steps: RefCell::new(StepLog::EMPTY),
            stopped_executions: Cell::new(0),
        }
    }

    /// Runs `f` on this OS thread's context.
    #[inline]
    pub fn with<R>(f: impl FnOnce(&ExecutionContext) -> R) -> R {
        CONTEXT.with(f)
    }

    /// [`with`](Self::with), or `None` while the thread local is torn down.
    pub fn try_with<R>(f: impl FnOnce(&ExecutionContext) -> R) -> Option<R> {
        CONTEXT.try_with(f).ok()
    }

    /// The record of the execution in progress.
    #[inline]
    pub fn recording(&self) -> RefMut<'_, Recording> {
        self.recording.borrow_mut()
    }

    /// The footprints of the execution's steps.
    #[inline]
    pub fn footprints(&self) -> RefMut<'_, FootprintLog> {
        self.footprints.borrow_mut()
    }

    /// [`footprints`](Self::footprints), or `None` while they are borrowed.
    pub fn footprints_try(&self) -> Option<RefMut<'_, FootprintLog>> {
        self.footprints.try_borrow_mut().ok()
    }

    /// Whether the execution in progress is being abandoned (this OS thread's, as the context:
    /// see [`lineup_signals::abandonment`]).
    #[inline]
    pub fn is_abandoning(&self) -> bool {
        lineup_signals::abandonment::is_abandoning()
    }

    /// The receives the quiet end wakes.
    pub fn quiet_end(&self) -> RefMut<'_, QuietEndReceives> {
        self.quiet_end.borrow_mut()
    }

    /// Whether steps are recorded now.
    #[inline]
    pub fn is_tracing(&self) -> bool {
        self.tracing.get()
    }

    /// Turns step recording on or off.
    pub fn set_tracing(&self, on: bool) {
        self.tracing.set(on);
    }

    /// The record of the steps (see [`trace`](crate::explore::trace)).
    pub fn steps(&self) -> RefMut<'_, StepLog> {
        self.steps.borrow_mut()
    }

    /// Executions stopped on this OS thread so far, and on the workers it ran.
    pub fn stopped_executions(&self) -> u64 {
        self.stopped_executions.get()
    }

    /// Counts `n` more stopped executions (on this thread, or on a worker it ran).
    pub fn add_stopped_executions(&self, n: u64) {
        self.stopped_executions.set(self.stopped_executions.get() + n);
    }

    /// The one reset: a fresh context for an execution of a matrix with `ops` operations (`reduction`:
    /// the partial-order reduction is on for it; `fault`: a deliberately broken reduction, see
    /// [`ReductionFault`]). Buffers keep their
    /// capacity; the responses interned so far are kept (they are the exploration's).
    pub fn begin_execution(ops: usize, reduction: bool, fault: Option<ReductionFault>) {
        Self::with(|cx| {
            cx.recording().begin_execution(ops);
            let tracing = cx.is_tracing();
            cx.footprints().begin_execution(reduction, fault, tracing);
            if tracing {
                cx.steps().begin_execution();
            }
            cx.end_abandonment();
            cx.quiet_end().clear();
        });
    }

    /// Forgets the abandonment of the execution that just ended, if any (also when no execution
    /// follows: the flag must not outlive the exploration).
    pub fn end_abandonment(&self) {
        lineup_signals::abandonment::end();
    }
}

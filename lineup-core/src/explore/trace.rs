//! Step recording: every step of one execution, for the report of a violation (see
//! [`Interleaving`]).
//!
//! Recording is off during every exploration: each primitive of lineup's asks [`begin`] whether
//! it is on, one read of a flag of the [execution context](crate::explore::context), and does
//! nothing more when it is not. When a check fails, the violating schedule is replayed once with
//! recording on ([`Recorder`]): each primitive then records what it did after its call into
//! shuttle returned (its effect, with the values it read and wrote, comes after its scheduling
//! point, so the steps are recorded in the order they took effect), the object it touched and the
//! place in the user's code that called it (`#[track_caller]` on every public method down to
//! [`begin`]); the scheduler records why it switched threads at each switch
//! ([`note_decision`]), and a scheduling point of a thread that is in none of lineup's primitives
//! (shuttle's own, used directly) as [`Action::Unseen`].
//!
//! The record is a sub-store of the execution context, [`StepLog`].

use std::collections::BTreeMap;
use std::panic::Location;

use shuttle::current::TaskId;

use crate::explore::context::ExecutionContext;
use crate::explore::footprint::ObjectIdentity;
use crate::explore::recording::Recording;
use crate::explore::role::Role;
use crate::model::interleaving::{
    not_the_users, Interleaving, ObjectName, SourceLocation, StateAfter, Step, SwitchReason,
};

/// What a step did: the primitives name it from here (they use `explore::trace`, not `model`).
pub(crate) use crate::model::interleaving::Action;

/// The steps' sub-store of the [execution context](crate::explore::context): what the execution
/// in progress did, while recording is on.
#[derive(Debug, Default)]
pub(crate) struct StepLog {
    /// The record so far.
    record: Interleaving,
    /// Per task: how deep it is inside lineup's primitives now (a scheduling point there is one
    /// lineup sees).
    inside: Vec<u32>,
    /// Per task: it is about to finish (its last scheduling point ends it).
    finishing: Vec<bool>,
    /// The trace's number of each object, by its footprint name in this execution.
    numbers: BTreeMap<u64, u64>,
    /// The number of each pointer an `AtomicPtr` held, by first sight.
    pointers: BTreeMap<usize, usize>,
}

impl StepLog {
    /// No record (the thread local's first value).
    pub(crate) const EMPTY: StepLog = StepLog {
        record: Interleaving {
            steps: Vec::new(),
            states: Vec::new(),
            preemptions: 0,
            full: false,
        },
        inside: Vec::new(),
        finishing: Vec::new(),
        numbers: BTreeMap::new(),
        pointers: BTreeMap::new(),
    };

    /// Starts the record of a new execution.
    pub(crate) fn begin_execution(&mut self) {
        self.record = Interleaving::default();
        self.inside.clear();
        self.finishing.clear();
        self.numbers.clear();
        self.pointers.clear();
    }

    fn slot<T: Default + Clone>(v: &mut Vec<T>, task: usize) -> &mut T {
        if v.len() <= task {
            v.resize(task + 1, T::default());
        }
        &mut v[task]
    }

    fn is_inside(&self, task: usize) -> bool {
        self.inside.get(task).is_some_and(|&d| d > 0)
    }

    fn is_finishing(&self, task: usize) -> bool {
        self.finishing.get(task).copied().unwrap_or(false)
    }

    fn push(
        &mut self,
        r: &Recording,
        task: usize,
        action: Action,
        object: Option<ObjectName>,
        location: Option<SourceLocation>,
    ) {
        self.record.steps.push(Step {
            task,
            op: op_of(r, task),
            action,
            object,
            location,
            events_before: r.events.len(),
        });
    }
}

/// The operation `task` runs now, if any.
fn op_of(r: &Recording, task: usize) -> Option<usize> {
    match r.roles.get(task).copied().flatten() {
        Some(Role::InOp(op) | Role::Gate(op)) => Some(op),
        _ => None,
    }
}

/// Whether a task in `role` runs the object's code (an operation, or a thread of the object's
/// own), as opposed to lineup's harness.
fn runs_object_code(role: Option<Role>) -> bool {
    matches!(role, Some(Role::InOp(_) | Role::Gate(_) | Role::Background))
}

/// A step of a primitive in progress: recorded by [`Pending::done`] once the primitive's call
/// into shuttle returned; nothing at all while recording is off.
#[must_use]
pub(crate) struct Pending(Option<Begun>);

struct Begun {
    task: usize,
    object: Option<ObjectName>,
    location: Option<SourceLocation>,
}

/// The current task begins a step of a primitive on `object` (a `kind` such as `Mutex`), called by
/// the user's code at `site`. While recording is off, one read of a flag.
#[inline]
pub(crate) fn begin(
    object: Option<(&ObjectIdentity, &'static str)>,
    site: Option<&'static Location<'static>>,
) -> Pending {
    let on = ExecutionContext::with(|cx| cx.is_tracing());
    if !on {
        return Pending(None);
    }
    Pending(begin_recorded(object, site))
}

#[cold]
fn begin_recorded(
    object: Option<(&ObjectIdentity, &'static str)>,
    site: Option<&'static Location<'static>>,
) -> Option<Begun> {
    let task = usize::from(shuttle::current::try_get_current_task()?);
    ExecutionContext::with(|cx| {
        let object = object.map(|(identity, kind)| {
            let raw = cx.footprints().name_for_trace(identity);
            let mut log = cx.steps();
            let next = log.numbers.len() as u64;
            let number = *log.numbers.entry(raw).or_insert(next);
            ObjectName {
                kind,
                number,
                created_at: identity
                    .site()
                    .filter(|site| !not_the_users(site))
                    .map(SourceLocation::from_caller),
            }
        });
        *StepLog::slot(&mut cx.steps().inside, task) += 1;
        Some(Begun {
            task,
            object,
            location: site
                .filter(|site| !not_the_users(site))
                .map(SourceLocation::from_caller),
        })
    })
}

impl Pending {
    /// The primitive's call returned: the step did `action` (evaluated only while recording).
    #[inline]
    pub(crate) fn done(mut self, action: impl FnOnce() -> Action) {
        if let Some(begun) = self.0.take() {
            finish(begun, Some(action()));
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // A primitive that unwound (an abandoned wait): no step, but no longer inside it.
        if let Some(begun) = self.0.take() {
            finish(begun, None);
        }
    }
}

#[cold]
fn finish(begun: Begun, action: Option<Action>) {
    let _ = ExecutionContext::try_with(|cx| {
        let mut log = cx.steps();
        let depth = StepLog::slot(&mut log.inside, begun.task);
        *depth = depth.saturating_sub(1);
        if cx.is_abandoning() {
            return;
        }
        if let Some(action) = action {
            let r = cx.recording();
            log.push(&r, begun.task, action, begun.object, begun.location);
        }
    });
}

/// A pointer as the record shows it: `null`, or `ptr#n`, numbered by first sight in the execution
/// (an address differs from run to run; the same address is the same number, as the hardware sees
/// it).
pub(crate) fn pointer_name(address: usize) -> String {
    if address == 0 {
        return "null".to_string();
    }
    ExecutionContext::with(|cx| {
        let mut log = cx.steps();
        let next = log.pointers.len() + 1;
        format!("ptr#{}", *log.pointers.entry(address).or_insert(next))
    })
}

/// The current task is about to finish: its next scheduling point ends it.
pub(crate) fn note_finishing() {
    ExecutionContext::with(|cx| {
        if !cx.is_tracing() {
            return;
        }
        if let Some(task) = shuttle::current::try_get_current_task() {
            *StepLog::slot(&mut cx.steps().finishing, usize::from(task)) = true;
        }
    });
}

/// What the scheduler decided at one scheduling point, for the record.
pub(crate) struct Decided<'a> {
    /// The task that ran last.
    pub current: Option<TaskId>,
    /// It can run on.
    pub current_runnable: bool,
    /// It yielded.
    pub yielded: bool,
    /// It was switched away from for fairness.
    pub fair_switch: bool,
    /// The task that runs next, if one does.
    pub next: Option<TaskId>,
    /// The execution is stuck here.
    pub stuck: bool,
    /// The record of calls and returns.
    pub recording: &'a Recording,
}

/// The scheduler decided at a scheduling point (recording on): an unseen scheduling point of the
/// task that ran last is recorded, and so is a switch away from it, with its reason.
pub(crate) fn note_decision(cx: &ExecutionContext, decided: &Decided<'_>) {
    let Some(current) = decided.current.map(usize::from) else {
        return;
    };
    let r = decided.recording;
    let role = r.roles.get(current).copied().flatten();
    let mut log = cx.steps();
    if !runs_object_code(role) && !log.is_finishing(current) {
        return;
    }
    if cx.is_abandoning() {
        return;
    }
    let finishing = log.is_finishing(current);
    if !log.is_inside(current) && !finishing && runs_object_code(role) {
        // Not in a primitive of lineup's: a yield is known as one, anything else is not known.
        let action = if decided.yielded { Action::Yield } else { Action::Unseen };
        log.push(r, current, action, None, None);
    }
    let next = decided.next.map(usize::from);
    if next == Some(current) || (next.is_none() && !decided.stuck) {
        return;
    }
    let reason = if !decided.current_runnable {
        if finishing {
            SwitchReason::Finished
        } else {
            SwitchReason::Blocked
        }
    } else if decided.yielded {
        SwitchReason::Yield
    } else if decided.fair_switch {
        SwitchReason::FairSwitch
    } else {
        log.record.preemptions += 1;
        SwitchReason::Preemption
    };
    log.push(r, current, Action::Switch { to: next, reason }, None, None);
}

/// The object's state after operation `op` returned (recording on).
pub(crate) fn note_state(op: usize, state: String) {
    ExecutionContext::with(|cx| cx.steps().record.states.push(StateAfter { op, state }));
}

/// Whether recording is on (on this OS thread).
pub(crate) fn is_on() -> bool {
    ExecutionContext::with(|cx| cx.is_tracing())
}

/// Recording on for as long as it lives, on this OS thread: the replay of one schedule.
pub(crate) struct Recorder(());

impl Recorder {
    /// Turns recording on.
    pub(crate) fn start() -> Self {
        ExecutionContext::with(|cx| cx.set_tracing(true));
        Recorder(())
    }

    /// Turns recording off, and takes the record of the last execution.
    pub(crate) fn finish(self) -> Interleaving {
        ExecutionContext::with(|cx| std::mem::take(&mut cx.steps().record))
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let _ = ExecutionContext::try_with(|cx| cx.set_tracing(false));
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering as StdOrdering};

    use super::*;
    use crate::config::Config;
    use crate::model::invocation::Invocation;
    use crate::model::matrix::TestMatrix;
    use crate::model::subject::Subject;
    use crate::primitives::atomic::{AtomicU64, Ordering};

    /// Set by an operation that ran while steps were recorded.
    static SEEN_RECORDING: AtomicBool = AtomicBool::new(false);

    fn counter(inc: fn(&AtomicU64)) -> Subject<AtomicU64> {
        Subject::new("counter", || AtomicU64::new(0))
            .with(Invocation::new("inc", move |c: &AtomicU64| {
                if is_on() {
                    SEEN_RECORDING.store(true, StdOrdering::Relaxed);
                }
                inc(c);
            }))
            .with(Invocation::new("get", |c: &AtomicU64| c.load(Ordering::SeqCst)))
    }

    #[test]
    fn nothing_is_recorded_while_a_check_explores() {
        let subject = counter(|c| {
            c.fetch_add(1, Ordering::SeqCst);
        });
        let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
        let verdict = crate::check::check(&subject, &matrix, &Config::default()).unwrap();
        assert!(verdict.is_pass());
        assert!(
            !SEEN_RECORDING.load(StdOrdering::Relaxed),
            "recording was on during the exploration"
        );
        assert!(!is_on(), "recording is off after the check");
    }

    #[test]
    fn a_failing_check_records_its_steps_once_and_turns_recording_off() {
        let subject = Subject::new("lossy counter", || AtomicU64::new(0))
            .with(Invocation::new("inc", |c: &AtomicU64| {
                let v = c.load(Ordering::SeqCst);
                c.store(v + 1, Ordering::SeqCst);
            }))
            .with(Invocation::new("get", |c: &AtomicU64| c.load(Ordering::SeqCst)));
        let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
        let verdict = crate::check::check(&subject, &matrix, &Config::default()).unwrap();
        let violation = verdict.violation().expect("a lost update");
        let interleaving = violation.interleaving.as_ref().expect("recorded");
        assert!(interleaving.actions().count() >= 6, "{violation}");
        assert!(!is_on());
        ExecutionContext::with(|cx| assert!(cx.steps().record.steps.is_empty(), "taken by the report"));
    }
}

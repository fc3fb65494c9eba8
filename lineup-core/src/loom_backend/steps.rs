//! Step recording under loom: every step of the violating execution, for the report's
//! "interleaving" section (see [`Interleaving`]), as on shuttle (`explore::trace`).
//!
//! Recording is off in every exploration: each of lineup's loom primitives asks [`begin`]
//! whether it is on, one read of a thread local, and does nothing more when it is not. When a
//! check fails, the parent runs one more child process that replays loom's stored path of the
//! violating execution with recording on ([`start`]); that child's record travels back in
//! its last record ([`Record::Steps`](super::wire::Record::Steps)).
//!
//! What is recorded, and from where:
//!
//! * **lineup's own loom primitives** (the tracked atomics of `lineup::sync::atomic`, the mutex
//!   and the condition variable of `lineup::sync`): each records what it did once its call into
//!   loom returned, with the values it read and wrote, the object (its kind and number) and the
//!   user's source line (`#[track_caller]`), as on shuttle.
//! * **loom's own primitives used directly** (a crate's `loom::sync::atomic::AtomicPtr`, loom's
//!   mutex, ...): loom's runtime emits a `tracing` event at each of its scheduling points
//!   (`Object::branch_action` and its kin, with the object's reference and the kind of access).
//!   The recording child installs [`StepWatch`], which turns each into an [`Action::Backend`]
//!   step: the thread, the object (`loom atomic#3`: loom's own number), what loom calls the
//!   access. No values (loom's events carry none) and no source location.
//! * **switches**: loom enters a thread's `tracing` span when it makes that thread the active
//!   one; the watch records a switch there, with its reason read from loom's last event on the
//!   thread that ran before (`park`: blocked; `yield_now`: yielded; `thread_done`: finished; a
//!   `branch` that switched: preempted).
//!
//! loom runs every thread of a model as a coroutine on one OS thread: the record is a thread
//! local of that thread. The watch's callbacks come while loom's execution is borrowed: they call
//! no loom API.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::{Debug, Write as _};
use std::panic::Location;

use tracing::dispatcher::{self, DefaultGuard, Dispatch};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};
use tracing_core::span::Current;

use super::harness;
use super::loom_yields::thread_number;
pub(crate) use crate::model::interleaving::Action;
use crate::model::interleaving::{not_the_users, Interleaving, ObjectName, SourceLocation, Step, SwitchReason};

/// The record of the execution in progress, while recording is on.
#[derive(Default)]
struct StepLog {
    /// The steps so far.
    record: Interleaving,
    /// Per loom thread: how deep it is inside lineup's primitives now (loom's own events there
    /// are the primitive's, recorded once by it).
    inside: HashMap<usize, u32>,
    /// The loom thread running now (the last whose span loom entered; the main thread at first).
    running: Option<usize>,
    /// Why the running thread gives way if loom switches away from it next (loom's last event on
    /// it); `None`: a preemption.
    leaving: Option<SwitchReason>,
    /// The last switch recorded: its place in the steps, and the thread it switched away from
    /// (loom's event after the decision may correct its reason).
    last_switch: Option<(usize, usize)>,
    /// A step of loom's own primitives at a scheduling point that switched away before it took
    /// effect, by thread: recorded when its thread runs again.
    deferred: HashMap<usize, Step>,
    /// The record's number of each object, by (kind, key), in order of first touch.
    numbers: HashMap<(&'static str, usize), u64>,
    /// loom's thread spans: the watch's span id, and the loom thread it stands for.
    thread_spans: HashMap<u64, usize>,
    /// The watch's last span id.
    last_span: u64,
}

thread_local! {
    static LOG: RefCell<Option<StepLog>> = const { RefCell::new(None) };
}

/// Runs `f` on the record, if recording is on (and the record is not borrowed: a callback that
/// comes in the middle of a step's own recording is dropped).
fn with_log<R>(f: impl FnOnce(&mut StepLog) -> R) -> Option<R> {
    LOG.with(|l| l.try_borrow_mut().ok()?.as_mut().map(f))
}

/// Whether recording is on (on this OS thread).
#[inline]
pub(crate) fn is_on() -> bool {
    LOG.with(|l| l.try_borrow().map(|l| l.is_some()).unwrap_or(false))
}

/// Turns recording on for the rest of this (child) process, and makes the watch of loom's
/// events the default subscriber of this thread until the guard drops (see [`StepWatch`]).
pub(crate) fn start() -> DefaultGuard {
    LOG.with(|l| *l.borrow_mut() = Some(StepLog::default()));
    let inner = dispatcher::get_default(Dispatch::clone);
    dispatcher::set_default(&Dispatch::new(StepWatch { inner }))
}

/// A new execution begins: its record starts empty (loom's thread spans, made before, stay).
pub(crate) fn begin_execution() {
    with_log(|log| {
        log.record = Interleaving::default();
        log.inside.clear();
        log.running = Some(0);
        log.leaving = None;
        log.last_switch = None;
        log.deferred.clear();
        log.numbers.clear();
    });
}

/// The record of the execution so far (recording on).
pub(crate) fn take() -> Option<Interleaving> {
    with_log(|log| std::mem::take(&mut log.record))
}

/// Where `site` is in the user's code, if it is.
fn users(site: Option<&'static Location<'static>>) -> Option<SourceLocation> {
    site.filter(|site| !not_the_users(site))
        .map(SourceLocation::from_caller)
}

impl StepLog {
    /// The object of kind `kind` known by `key`, named by its number in the record.
    fn name(&mut self, kind: &'static str, key: usize, created: Option<&'static Location<'static>>) -> ObjectName {
        let next = self.numbers.len() as u64;
        let number = *self.numbers.entry((kind, key)).or_insert(next);
        ObjectName {
            kind,
            number,
            created_at: users(created),
        }
    }

    fn is_inside(&self, thread: usize) -> bool {
        self.inside.get(&thread).is_some_and(|&d| d > 0)
    }

    fn push(&mut self, thread: usize, action: Action, object: Option<ObjectName>, location: Option<SourceLocation>) {
        self.record.steps.push(step(thread, action, object, location));
    }

    /// loom makes `next` the running thread: the switch from the one that ran, with its reason.
    fn switch_to(&mut self, next: usize) {
        let previous = self.running.replace(next);
        let reason = self.leaving.take().unwrap_or(SwitchReason::Preemption);
        if let Some(previous) = previous.filter(|&p| p != next) {
            // Only the event right after this decision may correct its reason.
            self.last_switch = None;
            if harness::op_of_thread(previous).is_some() {
                if reason == SwitchReason::Preemption {
                    self.record.preemptions += 1;
                }
                self.last_switch = Some((self.record.steps.len(), previous));
                self.push(previous, Action::Switch { to: Some(next), reason }, None, None);
            }
        }
        self.take_effect(next);
    }
}

impl StepLog {
    /// `thread` runs on past its scheduling point: the step of loom's own primitive deferred
    /// there, if any, takes effect now (after the calls and returns recorded since).
    fn take_effect(&mut self, thread: usize) {
        if let Some(mut deferred) = self.deferred.remove(&thread) {
            deferred.events_before = harness::events_so_far();
            self.record.steps.push(deferred);
        }
    }

    /// loom's event after a scheduling point of `thread` says why it gave way: the switch just
    /// recorded away from it (if loom switched: `running` is another thread now) gets `reason`.
    fn correct_last_switch(&mut self, thread: usize, running: usize, reason: SwitchReason) {
        let Some((at, from)) = self.last_switch else { return };
        if from != thread || thread == running {
            return;
        }
        if let Some(Step {
            action: Action::Switch { reason: was, .. },
            ..
        }) = self.record.steps.get_mut(at)
        {
            if *was == SwitchReason::Preemption && reason != SwitchReason::Preemption {
                self.record.preemptions = self.record.preemptions.saturating_sub(1);
            }
            *was = reason;
        }
    }
}

/// A step of `thread`, in the operation it runs now, after the history's events so far.
fn step(thread: usize, action: Action, object: Option<ObjectName>, location: Option<SourceLocation>) -> Step {
    Step {
        task: thread,
        op: harness::op_of_thread(thread),
        action,
        object,
        location,
        events_before: harness::events_so_far(),
    }
}

/// A step of one of lineup's loom primitives in progress: recorded by [`Pending::done`] once the
/// primitive's call into loom returned; nothing at all while recording is off.
#[must_use]
pub(crate) struct Pending(Option<Begun>);

struct Begun {
    thread: usize,
    object: Option<ObjectName>,
    location: Option<SourceLocation>,
}

/// The object a primitive touches: its kind (`AtomicUsize`, `Mutex`), a key that tells it from
/// the others of its kind in this execution, and where the user's code created it, if known.
pub(crate) type Touched = (&'static str, usize, Option<&'static Location<'static>>);

/// The current loom thread begins a step of a primitive on `object`, called by the user's code
/// at `site`. While recording is off, one read of a thread local.
#[inline]
pub(crate) fn begin(object: Option<Touched>, site: Option<&'static Location<'static>>) -> Pending {
    if !is_on() {
        return Pending(None);
    }
    Pending(begin_recorded(object, site))
}

#[cold]
fn begin_recorded(object: Option<Touched>, site: Option<&'static Location<'static>>) -> Option<Begun> {
    let thread = harness::current_thread();
    with_log(|log| {
        *log.inside.entry(thread).or_default() += 1;
        Begun {
            thread,
            object: object.map(|(kind, key, created)| log.name(kind, key, created)),
            location: users(site),
        }
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
    with_log(|log| {
        if let Some(depth) = log.inside.get_mut(&begun.thread) {
            *depth = depth.saturating_sub(1);
        }
        if let Some(action) = action {
            log.push(begun.thread, action, begun.object, begun.location);
        }
    });
}

/// The harness's own loom operations (the real-time clock's ticks) while it lives: their
/// scheduling points may switch threads, but they are no step of the object's.
pub(crate) fn harness_steps() -> Pending {
    begin(None, None)
}

/// The subscriber of the recording child: loom's scheduling events become steps and switches
/// (see the module); every event also goes on to the subscriber that was the default before
/// (the harness's watch of loom's yields, and a user's own). Spans are the watch's own: it
/// numbers them itself and passes none on (the recording child's output is not shown).
struct StepWatch {
    inner: Dispatch,
}

/// Whether `meta` comes from loom's runtime (its events and its thread spans).
fn from_loom(meta: &Metadata<'_>) -> bool {
    meta.target().starts_with("loom::rt")
}

/// The fields of one of loom's events (or of a thread span).
#[derive(Default)]
struct LoomFields {
    message: String,
    obj: Option<String>,
    action: Option<String>,
    switch: Option<bool>,
    /// `is_locked` or `disable`: the thread cannot go on past this scheduling point now.
    blocks: bool,
    thread: Option<usize>,
    id: Option<u64>,
}

impl Visit for LoomFields {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        let text = format!("{value:?}");
        match field.name() {
            "message" => {
                let _ = write!(self.message, "{value:?}");
            }
            "obj" => self.obj = Some(text),
            "action" => self.action = Some(text),
            "switch" => self.switch = text.parse().ok(),
            "is_locked" | "disable" => self.blocks |= text == "true",
            "thread" => self.thread = thread_number(&text),
            "id" => self.id = text.parse().ok(),
            _ => {}
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        match field.name() {
            "switch" => self.switch = Some(value),
            "is_locked" | "disable" => self.blocks |= value,
            _ => self.record_debug(field, &value),
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "id" => self.id = Some(value),
            _ => self.record_debug(field, &value),
        }
    }
}

/// loom's object reference as a step's object: `Ref<loom::rt::atomic::State>(3)` is loom's
/// atomic number 3.
fn loom_object(reference: &str) -> Option<(&'static str, usize)> {
    let kind = if reference.contains("::atomic::") {
        "loom atomic"
    } else if reference.contains("::mutex::") {
        "loom Mutex"
    } else if reference.contains("::rwlock::") {
        "loom RwLock"
    } else if reference.contains("::condvar::") {
        "loom Condvar"
    } else if reference.contains("::notify::") {
        "loom Notify"
    } else if reference.contains("::mpsc::") {
        "loom channel"
    } else if reference.contains("::arc::") {
        "loom Arc"
    } else {
        "loom object"
    };
    let open = reference.rfind('(')?;
    let index = reference.get(open + 1..reference.len().checked_sub(1)?)?.parse().ok()?;
    Some((kind, index))
}

/// One of loom's events, on the thread that runs now. loom's scheduling points make their
/// decision (and enter the next thread's span, [`StepLog::switch_to`]) between the event that
/// says what the point is (`Object::branch_*`, `park`: before) and the one that says what came of
/// it (`branch`, `yield_now`, `thread_done`: after); the latter correct the switch's reason.
fn on_loom_event(fields: &LoomFields) {
    with_log(|log| {
        let Some(running) = log.running else { return };
        match fields.message.as_str() {
            "Object::branch_action" | "Object::branch_acquire" | "Object::branch_disable" => {
                // Locked (a mutex held, a channel empty, ...): the thread blocks here.
                log.leaving = fields.blocks.then_some(SwitchReason::Blocked);
                if log.is_inside(running) || harness::op_of_thread(running).is_none() {
                    return;
                }
                let object = fields
                    .obj
                    .as_deref()
                    .and_then(loom_object)
                    .map(|(kind, key)| log.name(kind, key, None));
                let event = fields.action.clone().unwrap_or_else(|| "acquire".to_string());
                let step = step(running, Action::Backend { event }, object, None);
                // Its effect comes when the thread runs on: at once, unless this scheduling
                // point switches away (then when the thread runs again; see `switch_to`).
                log.deferred.insert(running, step);
            }
            "branch" if fields.switch == Some(false) => {
                log.take_effect(running);
            }
            "park" => log.leaving = Some(SwitchReason::Blocked),
            "yield_now" => {
                let thread = fields.thread.unwrap_or(running);
                if harness::op_of_thread(thread).is_some() && !log.is_inside(thread) {
                    let yielded = step(thread, Action::Yield, None, None);
                    match log.last_switch.filter(|&(_, from)| from == thread && thread != running) {
                        // It switched away: the yield comes before the switch, which it explains.
                        Some((at, _)) => {
                            log.record.steps.insert(at, yielded);
                            log.last_switch = Some((at + 1, thread));
                        }
                        None => log.record.steps.push(yielded),
                    }
                }
                log.correct_last_switch(thread, running, SwitchReason::Yield);
            }
            "thread_done: terminate" => {
                let thread = fields.thread.unwrap_or(running);
                log.correct_last_switch(thread, running, SwitchReason::Finished);
            }
            _ => {}
        }
    });
}

impl Subscriber for StepWatch {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if from_loom(meta) {
            Interest::always()
        } else {
            self.inner.register_callsite(meta)
        }
    }

    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        from_loom(meta) || self.inner.enabled(meta)
    }

    fn event(&self, event: &Event<'_>) {
        let meta = event.metadata();
        if from_loom(meta) {
            let mut fields = LoomFields::default();
            event.record(&mut fields);
            on_loom_event(&fields);
        }
        if self.inner.enabled(meta) {
            self.inner.event(event);
        }
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut fields = LoomFields::default();
        span.record(&mut fields);
        let thread = (span.metadata().name() == "thread" && from_loom(span.metadata()))
            .then_some(fields.id)
            .flatten();
        let id = with_log(|log| {
            log.last_span += 1;
            if let Some(thread) = thread {
                log.thread_spans.insert(log.last_span, thread as usize);
            }
            log.last_span
        });
        Id::from_u64(id.unwrap_or(u64::MAX))
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn enter(&self, span: &Id) {
        with_log(|log| {
            if let Some(&thread) = log.thread_spans.get(&span.into_u64()) {
                log.switch_to(thread);
            }
        });
    }

    fn exit(&self, _: &Id) {}

    fn current_span(&self) -> Current {
        Current::none()
    }
}

#[cfg(test)]
mod tests {
    use super::loom_object;

    #[test]
    fn loom_s_object_references_name_their_kind_and_number() {
        assert_eq!(loom_object("Ref<loom::rt::atomic::State>(3)"), Some(("loom atomic", 3)));
        assert_eq!(loom_object("Ref<loom::rt::mutex::State>(0)"), Some(("loom Mutex", 0)));
        assert_eq!(loom_object("Ref<something::Else>(12)"), Some(("loom object", 12)));
        assert_eq!(loom_object("Ref<x>()"), None);
    }
}

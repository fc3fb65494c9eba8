//! What each step of an execution touches, for the partial-order reduction (see
//! [`sleep`](crate::explore::sleep)).
//!
//! shuttle tells a scheduler nothing about what a step touches, so lineup's own primitives
//! (`lineup::sync`'s `Mutex`, `Condvar`, atomics and channels, `lineup::thread::spawn`)
//! *announce* the object they are about to touch before they call into shuttle ([`announce`]):
//! the announcement stays *in flight* until the call returns. A *step* is what a task runs between
//! two scheduling points; it begins with the effect of the primitive its task stopped in (the
//! objects in flight when the scheduler granted it) and runs the task's code up to its next
//! scheduling point. A primitive that may act before its own switch (a lock, a wait or a receive
//! that blocks registers itself first: [`announce_blocking`]) counts in that step too.
//!
//! A step is *opaque*, dependent with every step, when it resumed from or stopped at a scheduling
//! point with nothing in flight: a primitive of shuttle's used directly (`lineup::shuttle::sync`,
//! a channel of shuttle-tokio), which lineup cannot see. That keeps the reduction sound for any
//! object; it only reduces what lineup can see.
//!
//! An object created by a task during an execution (a channel: [`ObjectIdentity::created`]) is
//! named by its *creation*: the task and how many objects that task created before it. A task
//! runs the same code on the same values in equivalent executions, so the name is the same in all
//! of them. Other objects (those whose constructors are `const`, as `Mutex::new` and the atomics')
//! are numbered by *first touch* in each execution: executions that share a schedule prefix touch
//! the same objects in the same order there, so the numbers of objects first touched in the prefix
//! agree between them (see [`Footprint::conflicts`] for the others). The name lives in the object
//! ([`ObjectIdentity`]), stamped with the execution, so neither addresses nor their reuse matter.
//!
//! The record of footprints is a sub-store of the [execution context](crate::explore::context),
//! [`FootprintLog`].

use std::sync::atomic::{AtomicU64, Ordering};

use shuttle::current::TaskId;

use crate::config::ReductionFault;
use crate::explore::context::ExecutionContext;
use crate::explore::observed::FutureSteps;
use crate::explore::shuttle_events::{self, ShuttleSteps};

/// The number an object gets in each execution at its first touch. Embedded in every primitive
/// that announces itself.
#[derive(Default)]
pub(crate) struct ObjectIdentity {
    /// The execution in which `id` was given (0: never).
    stamp: AtomicU64,
    id: AtomicU64,
    /// Where the user's code created the object, if known (for the report's steps).
    site: Option<&'static std::panic::Location<'static>>,
}

impl std::fmt::Debug for ObjectIdentity {
    /// Nothing that differs from execution to execution (an object's `Debug` is its state in a
    /// report, which must be the same every run).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ObjectIdentity")
    }
}

/// The names of objects named by their creation have this bit set (see the module).
const CREATED: u64 = 1 << 63;

impl ObjectIdentity {
    /// [`new`](Self::new), for an object the user's code created at `site`.
    pub const fn at(site: &'static std::panic::Location<'static>) -> Self {
        Self {
            stamp: AtomicU64::new(0),
            id: AtomicU64::new(0),
            site: Some(site),
        }
    }

    /// Where the user's code created the object, if known.
    pub fn site(&self) -> Option<&'static std::panic::Location<'static>> {
        self.site
    }

    /// An object named by its creation, if a task of an execution under the reduction creates it
    /// (otherwise as [`new`](Self::new)).
    #[track_caller]
    pub fn created() -> Self {
        let identity = Self::at(std::panic::Location::caller());
        with(|s| {
            if !s.on {
                return;
            }
            let Some(task) = s.current_task() else {
                return;
            };
            let i = usize::from(task);
            if s.created.len() <= i {
                s.created.resize(i + 1, 0);
            }
            let count = s.created[i];
            s.created[i] += 1;
            identity.stamp.store(s.stamp, Ordering::Relaxed);
            identity
                .id
                .store(CREATED | (i as u64) << 32 | u64::from(count), Ordering::Relaxed);
        });
        identity
    }
}

/// How a step touches an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Looks without changing anything: reads commute with reads.
    Read,
    /// A write, a read-modify-write, a lock, a send, a `try_recv`.
    Write,
    /// The receive of the one consumer of a FIFO channel: it takes the oldest message whenever it
    /// runs, and it can run only once there is one, so it commutes with sends (which append) and
    /// conflicts only with another receive on the same channel.
    Consume,
}

impl Kind {
    /// Whether two accesses of these kinds to one object may not commute.
    pub fn conflicts(self, other: Kind) -> bool {
        match (self, other) {
            (Kind::Read, Kind::Read) => false,
            (Kind::Consume, Kind::Consume) => true,
            (Kind::Consume, _) | (_, Kind::Consume) => false,
            _ => true,
        }
    }
}

/// One access of a step to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    /// The object's name in the execution: its creation, or its first-touch number.
    pub object: u64,
    pub kind: Kind,
}

/// What one step touched.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Footprint {
    pub accesses: Vec<Access>,
    /// The step recorded a call or a return: it writes the one shared *history* object, so that
    /// call and return events keep their order in every equivalent execution.
    pub history: bool,
    /// Dependent with every step (see the module).
    pub opaque: bool,
    /// The first `resumed` accesses are those the step began with (in flight when it was granted).
    pub resumed: usize,
}

impl Footprint {
    /// The step's own part: its accesses but those it began with, its call or return, whether it
    /// was opaque (what a branch point keeps of the option explored there).
    pub(crate) fn own_part(&self) -> Footprint {
        Footprint {
            accesses: self.accesses[self.resumed..].to_vec(),
            history: self.history,
            opaque: self.opaque,
            resumed: 0,
        }
    }

    /// Whether a step with this footprint and one with `other` may not commute. Objects numbered
    /// by first touch `young_from` or higher were first touched after the point where this
    /// footprint was recorded, in an execution other than `other`'s, so their numbers do not
    /// compare: two such *young* objects are taken to be the same. (Names by creation always
    /// compare.)
    pub fn conflicts(&self, other: &Footprint, young_from: u32) -> bool {
        if self.opaque || other.opaque || (self.history && other.history) {
            return true;
        }
        let young =
            |object: u64| (u64::from(young_from)..CREATED).contains(&object) && !shuttle_events::is_addressed(object);
        self.accesses.iter().any(|a| {
            other.accesses.iter().any(|b| {
                let same = a.object == b.object
                    || (young(a.object) && young(b.object))
                    || shuttle_events::may_be_same(a.object, b.object);
                same && a.kind.conflicts(b.kind)
            })
        })
    }
}

/// The receivers of the execution's channels (see [`FootprintLog::note_receive`]).
#[derive(Debug)]
struct Receivers {
    /// Each channel received from, by name, with the first thread that received from it.
    first: Vec<(u64, usize)>,
    /// A second thread received from one of them since the scheduler last asked.
    second: bool,
}

/// How a task's last step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StepEnd {
    /// It has not run yet.
    New,
    /// In a primitive lineup sees (its objects are in flight), or at a yield.
    Seen,
    /// At a scheduling point of a primitive lineup does not see.
    Unseen,
}

/// The footprints' sub-store of the [execution context](crate::explore::context): what the steps
/// of the execution in progress touch.
#[derive(Debug)]
pub(crate) struct FootprintLog {
    /// Footprints are recorded for the exploration in progress on this thread (the reduction, or
    /// the spin pruning, is on).
    on: bool,
    /// A deliberately broken reduction, for the tests (see
    /// [`ReductionFault`](crate::config::ReductionFault)).
    pub(crate) fault: Option<ReductionFault>,
    /// This execution's stamp (see [`STAMPS`]; 0 while the reduction is off).
    stamp: u64,
    /// The number the next object first touched gets.
    next_id: u32,
    /// How many objects each task created in this execution (see [`ObjectIdentity::created`]).
    created: Vec<u32>,
    /// The accesses in flight, per task.
    in_flight: Vec<Vec<Access>>,
    /// How each task's last step ended, per task.
    stops: Vec<Option<StepEnd>>,
    /// The task of the step running now.
    running: Option<TaskId>,
    /// The accesses of the step running now: those it began with, then those announced since.
    step: Vec<Access>,
    /// How many of `step`'s accesses were in flight when it began.
    resumed: usize,
    /// The step running now resumed from a scheduling point with nothing in flight.
    begun_unseen: bool,
    /// The running task is about to finish (its last step ends with no scheduling point).
    finishing: bool,
    /// Where in the source the loads in flight and the last closed step's load were called.
    sites: LoadSites,
    /// What shuttle's own primitives touch, from their events.
    pub(crate) shuttle: ShuttleSteps,
    /// What the steps of observed futures touch (see [`observed`](crate::explore::observed)).
    pub(crate) futures: FutureSteps,
    /// Which thread received from each channel first in this execution, and whether another one
    /// received from it since (see [`FootprintLog::note_receive`]).
    receivers: Receivers,
}

/// A place in the source (of a call of an atomic's `load`).
pub(crate) type Site = &'static std::panic::Location<'static>;

/// Where the loads were called, for the spin pruning: a thread that reads one atomic at the same
/// call site again is back at the same place in its code (see
/// [`Config::spin_pruning`](crate::Config::spin_pruning)).
#[derive(Debug)]
struct LoadSites {
    /// Per task: the call site of the load in flight, if its one access in flight is a load.
    in_flight: Vec<Option<Site>>,
    /// The call site of the load the step running now resumed into.
    step: Option<Site>,
    /// The same for the step closed last.
    closed: Option<Site>,
}

/// Execution stamps, process-wide, so that an object never keeps a number from another thread's
/// execution.
static STAMPS: AtomicU64 = AtomicU64::new(1);

/// Runs `f` on the footprints' sub-store of this OS thread's execution context.
fn with<R>(f: impl FnOnce(&mut FootprintLog) -> R) -> R {
    ExecutionContext::with(|cx| f(&mut cx.footprints()))
}

impl FootprintLog {
    /// No footprint, the reduction off (the thread local's first value).
    pub(crate) const EMPTY: FootprintLog = FootprintLog {
        on: false,
        fault: None,
        stamp: 0,
        next_id: 0,
        created: Vec::new(),
        in_flight: Vec::new(),
        stops: Vec::new(),
        running: None,
        step: Vec::new(),
        resumed: 0,
        begun_unseen: false,
        finishing: false,
        sites: LoadSites {
            in_flight: Vec::new(),
            step: None,
            closed: None,
        },
        shuttle: ShuttleSteps::EMPTY,
        futures: FutureSteps::EMPTY,
        receivers: Receivers {
            first: Vec::new(),
            second: false,
        },
    };

    /// Starts the record of a new execution (`on`: the reduction is on for it; `fault`: a
    /// deliberately broken reduction).
    /// `tracing`: steps are recorded, which name objects by their numbers here, so they are
    /// numbered even with the reduction off.
    pub(crate) fn begin_execution(&mut self, on: bool, fault: Option<ReductionFault>, tracing: bool) {
        self.on = on;
        self.fault = fault;
        self.stamp = if on || tracing {
            STAMPS.fetch_add(1, Ordering::Relaxed)
        } else {
            0
        };
        self.next_id = 0;
        self.created.clear();
        for f in &mut self.in_flight {
            f.clear();
        }
        self.stops.clear();
        self.running = None;
        self.step.clear();
        self.begun_unseen = false;
        self.finishing = false;
        self.sites.in_flight.clear();
        self.sites.step = None;
        self.sites.closed = None;
        self.shuttle.begin_execution();
        self.futures.begin_execution();
        self.receivers.first.clear();
        self.receivers.second = false;
    }

    /// Task `task` receives from the channel named `object`. A receive covers its branch point's
    /// later options only if no other thread can receive from its channel (see
    /// [`covers_siblings`](crate::explore::sleep::covers_siblings)); channels' receivers are
    /// `Sync` in shuttle and in lineup, so a receiver may be shared: a second thread that receives
    /// from one channel is noted here, for the scheduler.
    pub(crate) fn note_receive(&mut self, object: u64, task: usize) {
        match self.receivers.first.iter().find(|&&(o, _)| o == object) {
            Some(&(_, first)) => self.receivers.second |= first != task,
            None => self.receivers.first.push((object, task)),
        }
    }

    /// Whether a second thread received from some channel since the last call.
    pub(crate) fn take_second_receiver(&mut self) -> bool {
        std::mem::take(&mut self.receivers.second) && self.fault != Some(ReductionFault::SharedReceiversUnseen)
    }

    /// Whether `task` stopped at the switch of a receive before its look: of shuttle's `mpsc` (see
    /// [`ShuttleSteps::stopped_before_look`]), or inside a receive that takes the oldest message
    /// ([`Kind::Consume`] in flight: tokio's unbounded `mpsc` and `oneshot`, whose receive stops at
    /// the batch semaphore's first-poll switch, `batch_semaphore.rs:1302`, before it looks). The
    /// scheduler joins the step after to it only where that step commutes with every step and
    /// leaves the task unable to go on (docs/partial-order-reduction.md §3.12).
    pub(crate) fn stopped_before_look(&self, task: TaskId) -> bool {
        let i = usize::from(task);
        self.shuttle.stopped_before_look(i) || self.in_flight_of(i).iter().any(|a| a.kind == Kind::Consume)
    }

    /// The current task: the task of the step running now (no code runs between a decision and
    /// the step it grants, so it is the one shuttle runs), or shuttle's answer outside a step. A
    /// debug assertion checks that the two agree.
    #[inline]
    pub(crate) fn current_task(&self) -> Option<TaskId> {
        let me = self.running.or_else(shuttle::current::try_get_current_task);
        debug_assert_eq!(me, shuttle::current::try_get_current_task());
        me
    }

    /// A write, but a read under `fault` (a reduction broken on purpose, whose steps of one kind
    /// are taken to commute).
    pub(crate) fn write_unless(&self, fault: ReductionFault) -> Kind {
        if self.fault == Some(fault) {
            Kind::Read
        } else {
            Kind::Write
        }
    }

    /// Whether footprints are recorded now.
    pub(crate) fn is_on(&self) -> bool {
        self.on
    }

    /// The task of the step running now.
    pub(crate) fn running_task(&self) -> Option<TaskId> {
        self.running
    }

    /// The step running now touches an object.
    pub(crate) fn push_step_access(&mut self, access: Access) {
        self.step.push(access);
    }

    /// The name of an object task `i` creates now, by its creation (as
    /// [`ObjectIdentity::created`] names lineup's): a channel of shuttle's, whose creation
    /// lineup reads from an event (see [`shuttle_events`]).
    pub(crate) fn creation_name(&mut self, i: usize) -> u64 {
        if self.created.len() <= i {
            self.created.resize(i + 1, 0);
        }
        let count = self.created[i];
        self.created[i] += 1;
        CREATED | (i as u64) << 32 | u64::from(count)
    }

    /// How many objects have numbers so far in this execution.
    pub(crate) fn objects_numbered(&self) -> u32 {
        self.next_id
    }

    /// The name of `object` in this execution, for the steps' record (which is on only while this
    /// execution has a stamp: see [`begin_execution`](Self::begin_execution)).
    pub(crate) fn name_for_trace(&mut self, object: &ObjectIdentity) -> u64 {
        self.number(object)
    }

    /// The number of `object` in this execution, given at its first touch.
    fn number(&mut self, object: &ObjectIdentity) -> u64 {
        self.number_of(&object.stamp, &object.id)
    }

    /// [`number`](Self::number) of an object whose name is kept in `stamp` and `id` (one of
    /// `lineup_signals::footprint`'s names).
    pub(crate) fn number_of(&mut self, stamp: &AtomicU64, id: &AtomicU64) -> u64 {
        if stamp.load(Ordering::Relaxed) == self.stamp {
            id.load(Ordering::Relaxed)
        } else {
            let number = u64::from(self.next_id);
            self.next_id += 1;
            self.set_name(stamp, id, number);
            number
        }
    }

    /// Gives the object whose name is kept in `stamp` and `id` the name `name` in this execution.
    pub(crate) fn set_name(&self, stamp: &AtomicU64, id: &AtomicU64, name: u64) {
        stamp.store(self.stamp, Ordering::Relaxed);
        id.store(name, Ordering::Relaxed);
    }

    /// The accesses in flight for task `i`.
    pub(crate) fn in_flight_of(&self, i: usize) -> &[Access] {
        self.in_flight.get(i).map_or(&[], Vec::as_slice)
    }

    /// The access task `i` put in flight last ends.
    pub(crate) fn pop_in_flight(&mut self, i: usize) {
        if let Some(f) = self.in_flight.get_mut(i) {
            f.pop();
        }
    }

    /// Whether a step with footprint `step` conflicts with the accesses in flight for `task` now
    /// (the primitive a waiting task resumes into: the beginning of its next step, numbered in
    /// this execution).
    pub(crate) fn in_flight_conflicts(&self, task: TaskId, step: &Footprint) -> bool {
        self.in_flight.get(usize::from(task)).is_some_and(|mine| {
            mine.iter().any(|a| {
                step.accesses
                    .iter()
                    .any(|b| a.object == b.object && a.kind.conflicts(b.kind))
            })
        }) || self.shuttle.in_flight_conflicts(usize::from(task), &step.accesses)
    }

    /// The accesses in flight for `task` now: the primitive it stopped in, if lineup sees it.
    pub(crate) fn in_flight(&self, task: TaskId) -> &[Access] {
        self.in_flight_of(usize::from(task))
    }

    /// Where the step closed last resumed into a load, if it did: its call site.
    pub(crate) fn closed_site(&self) -> Option<Site> {
        self.sites.closed
    }

    /// The call site of the load in flight for `task`, if its one access in flight is a load.
    pub(crate) fn site_in_flight(&self, task: TaskId) -> Option<Site> {
        let i = usize::from(task);
        if self.in_flight(task).len() != 1 {
            return None;
        }
        self.sites.in_flight.get(i).copied().flatten()
    }

    /// The scheduler grants a step to `task`.
    pub(crate) fn begin_step(&mut self, task: TaskId) {
        let i = usize::from(task);
        let stop = self.stops.get(i).copied().flatten().unwrap_or(StepEnd::New);
        self.running = Some(task);
        self.step.clear();
        if let Some(f) = self.in_flight.get(i) {
            self.step.extend_from_slice(f);
        }
        self.shuttle.begin_step(i, &mut self.step);
        self.futures.begin_step(i, &mut self.step);
        self.resumed = self.step.len();
        self.sites.step = if self.resumed == 1 {
            self.sites.in_flight.get(i).copied().flatten()
        } else {
            None
        };
        self.begun_unseen = stop == StepEnd::Unseen;
        self.finishing = false;
    }

    /// The step of the running task ended at a scheduling point (`yielded`: a yield; `history`:
    /// it recorded a call or a return): its footprint, written into `into`. `None` when no step
    /// was running.
    pub(crate) fn end_step(&mut self, yielded: bool, history: bool, into: &mut Footprint) -> Option<TaskId> {
        let task = self.running.take()?;
        let i = usize::from(task);
        let in_flight = self.in_flight.get(i).is_some_and(|f| !f.is_empty()) || self.shuttle.stop_seen(i);
        let (pending, tainted) = self.futures.end_step(i);
        let stop = if in_flight || yielded || self.finishing || pending {
            StepEnd::Seen
        } else {
            StepEnd::Unseen
        };
        if self.stops.len() <= i {
            self.stops.resize(i + 1, None);
        }
        self.stops[i] = Some(stop);
        // Handed over, not copied: the next `begin_step` refills the buffer it gets back.
        std::mem::swap(&mut into.accesses, &mut self.step);
        self.step.clear();
        into.resumed = self.resumed;
        into.history = history;
        // Always asked (not after a short circuit): it takes what the step left in the record.
        let unseen_by_shuttle_events = self.shuttle.step_unseen();
        into.opaque = self.begun_unseen || stop == StepEnd::Unseen || unseen_by_shuttle_events || tainted;
        self.sites.closed = self.sites.step.take();
        Some(task)
    }
}

/// Turns the record off (the exploration on this thread ended).
pub(crate) fn end_exploration() {
    with(|s| {
        s.on = false;
        s.futures.exploring = false;
    });
}

/// Keeps an access in flight until dropped.
#[must_use]
pub(crate) struct InFlight {
    task: Option<usize>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(task) = self.task {
            // `try_with`: the guard may drop while the thread local is torn down.
            let _ = ExecutionContext::try_with(|cx| cx.footprints().pop_in_flight(task));
        }
    }
}

/// The current task is about to touch `object` (a write if `write`) in a primitive whose effect
/// comes after its scheduling point (shuttle's atomics, notifications, releases, `try_` calls):
/// until the returned guard drops, the access counts in the step that its next scheduling point
/// grants. A no-op while the reduction is off.
pub(crate) fn announce(object: &ObjectIdentity, write: bool) -> InFlight {
    announce_access(object, kind_of(write), false)
}

/// [`announce`] for an atomic's load called at `site` (a read, whose call site the spin pruning
/// compares).
pub(crate) fn announce_load(object: &ObjectIdentity, site: Site) -> InFlight {
    let guard = announce_access(object, Kind::Read, false);
    if let Some(i) = guard.task {
        with(|s| s.sites.in_flight[i] = Some(site));
    }
    guard
}

/// [`announce`] for a primitive that may act before its scheduling point (a lock, a wait or a
/// receive that blocks registers itself first): the access also counts in the step running now.
pub(crate) fn announce_blocking(object: &ObjectIdentity, write: bool) -> InFlight {
    announce_access(object, kind_of(write), true)
}

/// [`announce`] for the send of a channel: a write (two sends to one channel do not commute).
pub(crate) fn announce_send(object: &ObjectIdentity) -> InFlight {
    let broken = with(|s| s.fault == Some(ReductionFault::SendsCommute));
    announce_access(object, if broken { Kind::Read } else { Kind::Write }, false)
}

/// [`announce_blocking`] for the receive of a FIFO channel's one consumer (see [`Kind::Consume`]):
/// it counts in the step that calls it (which takes the oldest message, or blocks) and in the step
/// that resumes it.
pub(crate) fn announce_consume(object: &ObjectIdentity) -> InFlight {
    announce_access(object, Kind::Consume, true)
}

/// The running step touches `object` (a write if `write`) without a scheduling point of its own
/// (a receiver that goes away, which makes later sends fail). A no-op while the reduction is off
/// or outside a task.
pub(crate) fn touch(object: &ObjectIdentity, write: bool) {
    with(|s| {
        if !s.on || s.current_task().is_none() {
            return;
        }
        let object = s.number(object);
        s.step.push(Access {
            object,
            kind: kind_of(write),
        });
    });
}

fn kind_of(write: bool) -> Kind {
    if write {
        Kind::Write
    } else {
        Kind::Read
    }
}

fn announce_access(object: &ObjectIdentity, kind: Kind, acts_before: bool) -> InFlight {
    let task = with(|s| {
        if !s.on {
            return None;
        }
        let me = s.current_task()?;
        let access = Access {
            object: s.number(object),
            kind,
        };
        // A load sets its site after this; anything else in flight has none.
        Some(s.push_in_flight(me, access, acts_before))
    });
    InFlight { task }
}

/// The kind of a step of `lineup::sync`'s `RwLock`, `Barrier` and `Once` and of
/// `lineup::thread`'s park and unpark: a write, every one of them (a read lock included:
/// conservative, see `docs/partial-order-reduction.md` §2.5), or a read under
/// [`ReductionFault::SyncStepsCommute`].
fn sync_kind(s: &FootprintLog) -> Kind {
    s.write_unless(ReductionFault::SyncStepsCommute)
}

/// [`announce`] (`acts_before`: [`announce_blocking`]) for a step of `lineup::sync`'s `RwLock`,
/// `Barrier` or `Once`: a write of `object` (see [`sync_kind`]).
pub(crate) fn announce_sync(object: &ObjectIdentity, acts_before: bool) -> InFlight {
    let kind = with(|s| sync_kind(s));
    announce_access(object, kind, acts_before)
}

/// [`touch`] for `lineup::sync`'s `Once`: the running step writes `object` (see [`sync_kind`]),
/// without a scheduling point of its own (a look at whether it completed, its completion).
pub(crate) fn touch_sync(object: &ObjectIdentity) {
    with(|s| {
        if !s.on || s.current_task().is_none() {
            return;
        }
        let access = Access {
            object: s.number(object),
            kind: sync_kind(s),
        };
        s.step.push(access);
    });
}

/// The names of the park tokens of tasks (see [`announce_token`]): both high bits, never a name by
/// creation (whose task index stays far below bit 62) nor by address (bit 63 clear), never young.
const TOKEN: u64 = CREATED | 1 << 62;

/// The name of the order in which tasks are spawned (task ids are handed out in that order): a
/// spawn writes it, so two spawns never commute and a spawn commutes with every other step.
/// `TOKEN` with bit 61 (above every task index): never young, never a name by address.
pub(crate) const SPAWN_ORDER: u64 = TOKEN | 1 << 61;

/// The names of the *wakes* of tasks, with the task's index in the low bits (see
/// [`observed`](crate::explore::observed)): `TOKEN` with bit 60, apart from the park tokens and
/// [`SPAWN_ORDER`].
pub(crate) const WAKE: u64 = TOKEN | 1 << 60;

/// The names of the *ends* of threads, with the task's index in the low bits: `TOKEN` with bit
/// 58, apart from the other names by task. A thread's last step writes its own (the step that
/// finishes it, sets what `join` returns and wakes its joiner); a `join` of shuttle's, with
/// lineup's `vendor/shuttle-std`, writes the joined thread's in the step that looks whether it
/// finished and, if not, registers as its joiner (see `explore::shuttle_events`).
const FINISHED: u64 = TOKEN | 1 << 58;

/// The name of the park token of the thread of task `task` (see [`TOKEN`]): what `park` takes
/// and `unpark` makes available, `lineup::thread`'s and shuttle's alike.
pub(crate) fn token_of(task: usize) -> u64 {
    TOKEN | task as u64
}

/// The name of the end of the thread of task `task` (see [`FINISHED`]).
pub(crate) fn finished_of(task: usize) -> u64 {
    FINISHED | task as u64
}

/// [`announce_blocking`] for `lineup::thread::spawn`: a write of [`SPAWN_ORDER`], in the step
/// running now and in the one that resumes from the spawn's scheduling point.
pub(crate) fn announce_spawn() -> InFlight {
    let task = with(|s| {
        if !s.on {
            return None;
        }
        let me = s.current_task()?;
        let access = Access {
            object: SPAWN_ORDER,
            kind: Kind::Write,
        };
        Some(s.push_in_flight(me, access, true))
    });
    InFlight { task }
}

/// The names of the gates of the harness's workers (see [`announce_gate`]): `TOKEN` with bit 59,
/// with the task's index in the low bits.
const GATE: u64 = TOKEN | 1 << 59;

/// The harness's own scheduling point before an operation of `task` (a phase-1 gate): a
/// write of the worker's gate, which nothing else touches, in the step that stops there and the
/// step that resumes there. The harness touches nothing of the object there; the steps on either
/// side record the operation's return and the next one's call, and the history rule orders them
/// (docs/partial-order-reduction.md §3.2).
pub(crate) fn announce_gate(task: TaskId) -> InFlight {
    let task = with(|s| {
        if !s.on {
            return None;
        }
        let access = Access {
            object: GATE | usize::from(task) as u64,
            kind: Kind::Write,
        };
        Some(s.push_in_flight(task, access, true))
    });
    InFlight { task }
}

/// [`announce`] (`acts_before`: [`announce_blocking`]) for `lineup::thread`'s park (of the
/// current task) and unpark (of `task`): a write of `task`'s park token, named by the task (the
/// same in every equivalent execution: tasks are named by their spawn order, and spawns depend
/// on each other).
pub(crate) fn announce_token(task: TaskId, acts_before: bool) -> InFlight {
    let task = with(|s| {
        if !s.on {
            return None;
        }
        let me = s.current_task()?;
        let access = Access {
            object: token_of(usize::from(task)),
            kind: sync_kind(s),
        };
        Some(s.push_in_flight(me, access, acts_before))
    });
    InFlight { task }
}

impl FootprintLog {
    /// Puts `access` in flight for `me` (and in the step running now if `acts_before`), noting a
    /// receive ([`Kind::Consume`]) with [`note_receive`](Self::note_receive): its task index.
    pub(crate) fn push_in_flight(&mut self, me: TaskId, access: Access, acts_before: bool) -> usize {
        if acts_before {
            self.step.push(access);
        }
        let i = usize::from(me);
        if self.in_flight.len() <= i {
            self.in_flight.resize_with(i + 1, Vec::new);
        }
        if self.sites.in_flight.len() <= i {
            self.sites.in_flight.resize(i + 1, None);
        }
        self.in_flight[i].push(access);
        self.sites.in_flight[i] = None;
        if access.kind == Kind::Consume {
            self.note_receive(access.object, i);
        }
        i
    }
}

impl FootprintLog {
    /// A thread of shuttle's `spawn` is about to finish (its function returned): its last step
    /// ends without a scheduling point (see [`note_finishing`]), and touches (`kind`: a write, but
    /// under a fault) the end of the thread that a `join` looks at ([`finished_of`]).
    pub(crate) fn note_thread_finished(&mut self, kind: Kind) {
        self.finishing = true;
        if let Some(task) = self.running {
            self.step.push(Access {
                object: finished_of(usize::from(task)),
                kind,
            });
        }
    }
}

/// The running task is about to finish: its last step ends without a scheduling point.
pub(crate) fn note_finishing() {
    crate::explore::trace::note_finishing();
    with(|s| {
        if s.on {
            s.finishing = true;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(accesses: &[(u64, bool)], history: bool) -> Footprint {
        Footprint {
            accesses: accesses
                .iter()
                .map(|&(object, write)| Access {
                    object,
                    kind: kind_of(write),
                })
                .collect(),
            history,
            opaque: false,
            resumed: 0,
        }
    }

    #[test]
    fn reads_commute_and_writes_do_not() {
        let young = 100;
        assert!(!fp(&[(1, false)], false).conflicts(&fp(&[(1, false)], false), young));
        assert!(fp(&[(1, true)], false).conflicts(&fp(&[(1, false)], false), young));
        assert!(fp(&[(1, false)], false).conflicts(&fp(&[(1, true)], false), young));
        assert!(!fp(&[(1, true)], false).conflicts(&fp(&[(2, true)], false), young));
    }

    #[test]
    fn history_steps_conflict_with_each_other_only() {
        let young = 100;
        assert!(fp(&[], true).conflicts(&fp(&[], true), young));
        assert!(!fp(&[], true).conflicts(&fp(&[(1, true)], false), young));
    }

    #[test]
    fn a_receive_commutes_with_sends_but_not_with_another_receive() {
        let young = 100;
        let receive = |object| Footprint {
            accesses: vec![Access {
                object,
                kind: Kind::Consume,
            }],
            ..Footprint::default()
        };
        assert!(!receive(1).conflicts(&fp(&[(1, true)], false), young));
        assert!(!fp(&[(1, false)], false).conflicts(&receive(1), young));
        assert!(receive(1).conflicts(&receive(1), young));
        assert!(!receive(1).conflicts(&receive(2), young));
    }

    #[test]
    fn names_by_creation_are_never_young() {
        let created = CREATED | 3 << 32;
        assert!(!fp(&[(created, true)], false).conflicts(&fp(&[(created + 1, true)], false), 0));
        assert!(fp(&[(created, true)], false).conflicts(&fp(&[(created, false)], false), 0));
    }

    #[test]
    fn young_objects_are_taken_to_be_the_same() {
        assert!(fp(&[(5, true)], false).conflicts(&fp(&[(7, false)], false), 5));
        assert!(!fp(&[(5, true)], false).conflicts(&fp(&[(4, false)], false), 5));
        assert!(!fp(&[(5, false)], false).conflicts(&fp(&[(7, false)], false), 5));
    }

    #[test]
    fn park_tokens_are_neither_created_nor_addressed_nor_young() {
        let token = |task: u64| TOKEN | task;
        assert!(!shuttle_events::is_addressed(token(1)));
        assert!(!shuttle_events::may_be_same(token(1), token(2)));
        // Never young (`young_from` 0 makes every first-touch number young), always compared.
        assert!(!fp(&[(token(1), true)], false).conflicts(&fp(&[(token(2), true)], false), 0));
        assert!(fp(&[(token(1), true)], false).conflicts(&fp(&[(token(1), true)], false), 0));
        assert!(!fp(&[(token(1), true)], false).conflicts(&fp(&[(5, true)], false), 0));
    }

    #[test]
    fn opaque_conflicts_with_everything() {
        let mut opaque = fp(&[], false);
        opaque.opaque = true;
        assert!(opaque.conflicts(&fp(&[], false), 0));
        assert!(fp(&[], false).conflicts(&opaque, 0));
    }
}

//! What shuttle's own primitives touch, read from the `tracing` events shuttle emits, for the
//! partial-order reduction (see [`footprint`](crate::explore::footprint)): a step of an object
//! written on `shuttle::sync::{Mutex, Condvar, RwLock, Barrier, Once}` directly is no longer
//! opaque. Every access read here is a *write* of its object (two steps on one object never
//! commute; a read lock of an `RwLock` too: see docs/partial-order-reduction.md, §2.5).
//!
//! While an exploration that records footprints runs (the reduction or the spin pruning on: see
//! `explore/run.rs`), lineup installs [`ShuttleEvents`] as the default `tracing`
//! subscriber of its OS thread ([`install`]; shuttle runs every task as a coroutine on that
//! thread), forwarding everything to the subscriber that was the default before. shuttle names
//! the object of each operation with its address (`"waiting to acquire mutex 0x…"`) and every
//! scheduling point with its place in shuttle's source (`"switch from …/batch_semaphore.rs:876:9"`).
//! Only the `message` field is formatted (into a reused buffer), and only for the callsites below.
//!
//! **Timing.** A scheduling point is *seen* when its cause is known before the step that performs
//! its effect runs, as for lineup's own primitives:
//!
//! * an operation that names its object before its switch (a mutex's or an `RwLock`'s lock and
//!   `try_` lock, a condvar wait, a barrier wait that blocks) puts the object *in flight* for its
//!   task (it also counts in the step running now, as
//!   [`announce_blocking`](crate::explore::footprint::announce_blocking) does) until the event
//!   that ends it (`"acquired mutex"`, `"acquired Read lock on rwlock"`, `"failed to acquire …"`,
//!   `"woken from condvar"`, `"returning from barrier"`) or until the task reaches a scheduling
//!   point that is not one of that operation's (a mutex's `try_lock` that fails says nothing);
//! * an operation that names its object only after its switch (a release of the batch semaphore,
//!   which the guards of shuttle's `Mutex` and `RwLock` call on drop; a condvar notification; the
//!   barrier wait of the last thread to arrive) is known by the place of the switch ([`SITES`]):
//!   the step that resumes there must name the object before its own next scheduling point, and
//!   is opaque if it does not. The barrier's wait reads how many threads wait *before* that switch
//!   (barrier.rs:104-117), so the step that stops there counts as a write of every barrier
//!   ([`ANY`]);
//! * an operation without a scheduling point of its own names its object in the step running now
//!   (`Once::call_once`: `"call_once on cell"`, in every call, before it reads the `Once`).
//!
//! `Once::is_completed` reads a `Once` with neither an event nor a scheduling point, so the step
//! that marks a `Once` complete must depend on every step: the initializer's steps that stop at a
//! release of the batch semaphore are opaque, from `"won the call_once race"` until the `Once`'s own
//! mutex is released ([`ShuttleEvent::Initialize`]).
//!
//! Every other scheduling point (shuttle's atomics and channels, thread spawn and join, `yield_now`,
//! `RwLock::into_inner`'s `try_acquire`, the polls of future tasks, and any place not in the
//! tables: another shuttle version) stays unseen, its steps opaque. shuttle's `mpsc` channels name their object, but the drop and the
//! clone of a `Sender` or `Receiver` (which decide whether a later send or receive fails) emit no
//! event and have no scheduling point: their steps cannot be told, so channels stay unseen.
//!
//! **Names.** An address names an object only while it lives, and an allocator may give it to
//! another object within an execution, in one execution and not in another: first-touch numbers
//! of addresses would then differ between executions that share a prefix. So an object named by
//! its address is numbered by first touch within the execution, apart from the objects lineup
//! names (two objects that share an address there count as one: more dependent, never less), and
//! two such objects of one *family* (mutex, condvar, semaphore, `RwLock`, barrier, `Once`) are
//! taken to be the same when accesses of different executions are compared ([`may_be_same`]).
//! Objects of different families never are: an address names one object at a time, and one
//! object belongs to one family. (A mutex's or an `RwLock`'s batch semaphore is a family of its
//! own: its release also names the lock, which is what orders the lock's steps.)

use std::cell::{Cell, RefCell};
use std::fmt::{self, Write as _};

use rustc_hash::FxHashMap;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Metadata, Subscriber};

use crate::config::ReductionFault;
use crate::explore::context::ExecutionContext;
use crate::explore::footprint::{Access, FootprintLog, Kind};

/// The names of objects named by their address have this bit set, their family in the bits below
/// it (see the module).
const ADDRESSED: u64 = 1 << 62;
const FAMILY_SHIFT: u32 = 56;
/// The name of *every* object of its family (a step that touched a barrier lineup cannot name:
/// see [`Reveal::Barrier`]): with this bit set, it is the same as any object of its family.
const ANY: u64 = 1 << 55;

/// The kind of shuttle object an address names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Mutex = 1,
    Condvar = 2,
    Semaphore = 3,
    RwLock = 4,
    Barrier = 5,
    Once = 6,
}

/// The name of the object numbered `n` in `family` (see the module).
fn named(family: Family, n: u64) -> u64 {
    ADDRESSED | (family as u64) << FAMILY_SHIFT | n
}

/// Whether `object` is named by its address (see the module).
pub(crate) fn is_addressed(object: u64) -> bool {
    object & ADDRESSED != 0 && object & (1 << 63) == 0
}

/// Whether the objects named `a` and `b` in two different executions may be the same object
/// (see the module): objects named by their address are compared by family only.
pub(crate) fn may_be_same(a: u64, b: u64) -> bool {
    is_addressed(a) && is_addressed(b) && a >> FAMILY_SHIFT == b >> FAMILY_SHIFT
}

/// Whether the objects named `a` and `b` in one execution may be the same object: the same name,
/// or one of them is [`ANY`] object of the other's family.
fn same_in_execution(a: u64, b: u64) -> bool {
    a == b || ((a | b) & ANY != 0 && may_be_same(a, b))
}

/// The scheduling points of the operations that name their object before their switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Covers {
    /// A mutex's `lock`, an `RwLock`'s `read` and `write`: the first poll of the semaphore's
    /// acquire, and `block_on`'s waits.
    Acquire,
    /// A mutex's `try_lock`, an `RwLock`'s `try_read` and `try_write`: the batch semaphore's
    /// `try_acquire`.
    TryAcquire,
    /// A condvar's `wait`: its block.
    CondvarWait,
    /// A barrier's `wait` that blocks: its block.
    BarrierWait,
}

/// What the step resuming at a scheduling point must name (see [`SITES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reveal {
    /// `"released {} permits for semaphore {:p}"`.
    Release,
    /// `"notifying one/all on condvar {:p}"`.
    Notify,
    /// `"waiting on barrier {:p}"`: the barrier's `wait` of the last thread to arrive switches
    /// (barrier.rs:117) *after* it read how many threads wait, and names the barrier only after
    /// the switch. The step that stops there counts as a write of every barrier ([`ANY`]).
    Barrier,
}

/// The places of shuttle's scheduling points that lineup knows (file, line), and what is known
/// about each. The files are named with their crate's version, so that another version of
/// shuttle leaves them unseen.
const SITES: &[(&str, u32, Site)] = &[
    (
        "shuttle-engine-0.1.7/src/future/batch_semaphore.rs",
        1302,
        Site::Covered(Covers::Acquire),
    ),
    (
        "shuttle-engine-0.1.7/src/future/mod.rs",
        20,
        Site::Covered(Covers::Acquire),
    ),
    (
        "shuttle-engine-0.1.7/src/future/batch_semaphore.rs",
        654,
        Site::Covered(Covers::TryAcquire),
    ),
    (
        "shuttle-std-0.1.5/src/sync/condvar.rs",
        166,
        Site::Covered(Covers::CondvarWait),
    ),
    (
        "shuttle-engine-0.1.7/src/future/batch_semaphore.rs",
        876,
        Site::Revealed(Reveal::Release),
    ),
    (
        "shuttle-std-0.1.5/src/sync/condvar.rs",
        256,
        Site::Revealed(Reveal::Notify),
    ),
    (
        "shuttle-std-0.1.5/src/sync/condvar.rs",
        293,
        Site::Revealed(Reveal::Notify),
    ),
    (
        "shuttle-std-0.1.5/src/sync/barrier.rs",
        117,
        Site::Revealed(Reveal::Barrier),
    ),
    (
        "shuttle-std-0.1.5/src/sync/barrier.rs",
        150,
        Site::Covered(Covers::BarrierWait),
    ),
];

/// What lineup knows about a scheduling point of shuttle's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Site {
    /// One of the scheduling points of an operation in flight.
    Covered(Covers),
    /// The step that resumes here names its object.
    Revealed(Reveal),
}

/// An operation of a shuttle primitive in flight for a task.
#[derive(Clone, Copy, Debug)]
struct Pending {
    access: Access,
    covers: Covers,
}

/// The shuttle events' part of the [`FootprintLog`]: operations in flight per task, and what the
/// step running now must name.
#[derive(Debug)]
pub(crate) struct ShuttleSteps {
    /// Per task: the operations in flight.
    in_flight: Vec<Vec<Pending>>,
    /// Per task: it stopped at a scheduling point of [`SITES`]'s kind.
    revealed_after: Vec<Option<Reveal>>,
    /// What the step running now must still name.
    expected: Option<Reveal>,
    /// The step running now had an event lineup could not record: it is opaque.
    missed: bool,
    /// Addresses (with their family) to their numbers in this execution.
    numbers: FxHashMap<(usize, u8), u64>,
    /// The address of the last mutex the step running now acquired (`"acquired mutex"`).
    acquired: Option<usize>,
    /// Per task: it runs the initializer of a `Once`, which ends with the release of the `Once`'s
    /// own mutex at this address (0: not known, it never ends). See [`ShuttleEvent::Initialize`].
    initializing: Vec<Option<usize>>,
    /// The step running now may mark a `Once` complete: it is opaque.
    completes: bool,
}

thread_local! {
    /// An event came while the footprints were borrowed (see [`ShuttleSteps::missed`]).
    static MISSED: Cell<bool> = const { Cell::new(false) };
    /// The buffer the messages are formatted into.
    static MESSAGE: RefCell<String> = const { RefCell::new(String::new()) };
}

impl ShuttleSteps {
    /// Nothing recorded (the thread local's first value).
    pub(crate) const EMPTY: ShuttleSteps = ShuttleSteps {
        in_flight: Vec::new(),
        revealed_after: Vec::new(),
        expected: None,
        missed: false,
        numbers: FxHashMap::with_hasher(rustc_hash::FxBuildHasher),
        acquired: None,
        initializing: Vec::new(),
        completes: false,
    };

    /// A new execution.
    pub(crate) fn begin_execution(&mut self) {
        for f in &mut self.in_flight {
            f.clear();
        }
        self.revealed_after.clear();
        self.expected = None;
        self.missed = false;
        self.numbers.clear();
        self.acquired = None;
        self.initializing.clear();
        self.completes = false;
        MISSED.with(|m| m.set(false));
    }

    /// A step of task `i` begins: the accesses of its operations in flight go into `step`.
    pub(crate) fn begin_step(&mut self, i: usize, step: &mut Vec<Access>) {
        if let Some(f) = self.in_flight.get(i) {
            step.extend(f.iter().map(|p| p.access));
        }
        self.expected = self.revealed_after.get_mut(i).and_then(Option::take);
        self.missed = MISSED.with(|m| m.replace(false));
        self.acquired = None;
        self.completes = false;
    }

    /// Whether task `i` stopped at a scheduling point lineup sees through shuttle's events.
    pub(crate) fn stop_seen(&self, i: usize) -> bool {
        self.in_flight.get(i).is_some_and(|f| !f.is_empty()) || self.revealed_after.get(i).is_some_and(Option::is_some)
    }

    /// Whether the step ending now must be opaque: it did not name what it resumed into, an event
    /// was missed, or it may have marked a `Once` complete (see [`ShuttleEvent::Initialize`]).
    pub(crate) fn step_unseen(&mut self) -> bool {
        let completes = std::mem::take(&mut self.completes);
        self.expected.take().is_some() || self.missed || MISSED.with(|m| m.replace(false)) || completes
    }

    /// Whether one of task `i`'s operations in flight conflicts with an access of `step`.
    pub(crate) fn in_flight_conflicts(&self, i: usize, step: &[Access]) -> bool {
        self.in_flight.get(i).is_some_and(|mine| {
            mine.iter().any(|p| {
                step.iter()
                    .any(|b| same_in_execution(p.access.object, b.object) && p.access.kind.conflicts(b.kind))
            })
        })
    }
}

/// A parsed event of shuttle's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ShuttleEvent {
    /// A scheduling point at a known place, or at one lineup does not know (`None`).
    Switch(Option<Site>),
    /// An operation that names its object before its switch begins.
    Begin(Family, usize, Covers),
    /// The operation in flight on the object ends (its effect is in the step running now).
    End(Family, usize),
    /// The step running now touches the object (`reveals`: it names what it resumed into).
    Touch(Family, usize, Option<Reveal>),
    /// The operations in flight on objects of the family end (`"returning from barrier {:?}"`
    /// names no address; a task waits at one barrier at a time).
    EndAll(Family),
    /// The step running now won the race to run the initializer of the `Once` at the address: it
    /// writes the `Once`. The initializer marks the `Once` complete in the step that stops at the
    /// release of the `Once`'s own mutex (acquired just before), and `Once::is_completed`, which
    /// reads that, emits no event: so until that mutex is released, every step of the task that
    /// stops at a release (batch_semaphore.rs:876) is opaque.
    Initialize(usize),
}

/// The address at the end of a message (`0x…`).
fn address(message: &str) -> Option<usize> {
    let hex = message.rsplit(' ').next()?.strip_prefix("0x")?;
    usize::from_str_radix(hex, 16).ok()
}

/// The place of a scheduling point, from `"switch from FILE:LINE:COLUMN"`.
fn site(location: &str) -> Option<Site> {
    let mut parts = location.rsplitn(3, ':');
    let _column = parts.next()?;
    let line: u32 = parts.next()?.parse().ok()?;
    let file = parts.next()?;
    SITES
        .iter()
        .find(|(f, l, _)| *l == line && file.ends_with(f))
        .map(|&(_, _, site)| site)
}

/// Parses the message of one of the callsites [`wanted`] lets through.
fn parse(message: &str) -> Option<ShuttleEvent> {
    if let Some(location) = message.strip_prefix("switch from ") {
        return Some(ShuttleEvent::Switch(site(location)));
    }
    if message == "switch between polls" {
        return Some(ShuttleEvent::Switch(None));
    }
    let a = address(message);
    if let Some(event) = parse_rwlock(message, a) {
        return event;
    }
    if let Some(event) = parse_barrier_once(message, a) {
        return event;
    }
    let event = if message.starts_with("waiting to acquire mutex ") {
        ShuttleEvent::Begin(Family::Mutex, a?, Covers::Acquire)
    } else if message.starts_with("trying to acquire mutex ") {
        ShuttleEvent::Begin(Family::Mutex, a?, Covers::TryAcquire)
    } else if message.starts_with("acquired mutex ") {
        ShuttleEvent::End(Family::Mutex, a?)
    } else if message.starts_with("releasing mutex ") {
        ShuttleEvent::Touch(Family::Mutex, a?, None)
    } else if message.starts_with("released ") && message.contains(" permits for semaphore ") {
        ShuttleEvent::Touch(Family::Semaphore, a?, Some(Reveal::Release))
    } else if message.starts_with("waiting on condvar ") {
        ShuttleEvent::Begin(Family::Condvar, a?, Covers::CondvarWait)
    } else if message.starts_with("woken from condvar ") {
        ShuttleEvent::End(Family::Condvar, a?)
    } else if message.starts_with("notifying one on condvar ") || message.starts_with("notifying all on condvar ") {
        ShuttleEvent::Touch(Family::Condvar, a?, Some(Reveal::Notify))
    } else {
        return None;
    };
    Some(event)
}

/// Parses the messages of shuttle's `RwLock` (`Some(None)`: one of them without its address).
fn parse_rwlock(message: &str, a: Option<usize>) -> Option<Option<ShuttleEvent>> {
    // "{verb} Read lock on rwlock 0x…" / "{verb} Write lock on rwlock 0x…"
    let verb = message
        .strip_suffix(message.rsplit(' ').next()?)?
        .strip_suffix(" lock on rwlock ")?
        .rsplit_once(' ')
        .filter(|(_, typ)| *typ == "Read" || *typ == "Write")?
        .0;
    let event = match verb {
        "acquiring" => ShuttleEvent::Begin(Family::RwLock, a?, Covers::Acquire),
        "trying to acquire" => ShuttleEvent::Begin(Family::RwLock, a?, Covers::TryAcquire),
        "acquired" | "failed to acquire" => ShuttleEvent::End(Family::RwLock, a?),
        "releasing" => ShuttleEvent::Touch(Family::RwLock, a?, None),
        _ => return None,
    };
    Some(Some(event))
}

/// Parses the messages of shuttle's `Barrier` and `Once` (`Some(None)`: one of them without its
/// address).
fn parse_barrier_once(message: &str, a: Option<usize>) -> Option<Option<ShuttleEvent>> {
    let event = if message.starts_with("waiting on barrier ") {
        a.map(|a| ShuttleEvent::Begin(Family::Barrier, a, Covers::BarrierWait))
    } else if message.starts_with("returning from barrier ") {
        Some(ShuttleEvent::EndAll(Family::Barrier))
    } else if message.starts_with("call_once on cell ") {
        a.map(|a| ShuttleEvent::Touch(Family::Once, a, None))
    } else if message.starts_with("won the call_once race for cell ") {
        a.map(ShuttleEvent::Initialize)
    } else {
        return None;
    };
    Some(event)
}

/// The callsites of shuttle's that lineup reads: their module and line (the message is checked
/// when parsed).
const CALLSITES: &[(&str, u32)] = &[
    ("shuttle_engine::runtime::thread::continuation", 423),
    ("shuttle_engine::runtime::thread::continuation", 438),
    ("shuttle_engine::future::batch_semaphore", 922),
    ("shuttle_std::sync::mutex", 54),
    ("shuttle_std::sync::mutex", 79),
    ("shuttle_std::sync::mutex", 105),
    ("shuttle_std::sync::mutex", 117),
    ("shuttle_std::sync::mutex", 216),
    ("shuttle_std::sync::condvar", 147),
    ("shuttle_std::sync::condvar", 171),
    ("shuttle_std::sync::condvar", 262),
    ("shuttle_std::sync::condvar", 299),
    ("shuttle_std::sync::rwlock", 195),
    ("shuttle_std::sync::rwlock", 242),
    ("shuttle_std::sync::rwlock", 258),
    ("shuttle_std::sync::rwlock", 290),
    ("shuttle_std::sync::rwlock", 371),
    ("shuttle_std::sync::rwlock", 444),
    ("shuttle_std::sync::barrier", 122),
    ("shuttle_std::sync::barrier", 190),
    ("shuttle_std::sync::once", 134),
    ("shuttle_std::sync::once", 159),
];

/// Whether lineup reads the events of this callsite.
fn wanted(meta: &Metadata<'_>) -> bool {
    meta.line()
        .is_some_and(|line| CALLSITES.iter().any(|&(t, l)| l == line && meta.target() == t))
        && meta.is_event()
}

/// Whether the callsite is one of a scheduling point's (the first two of [`CALLSITES`]).
fn is_switch(meta: &Metadata<'_>) -> bool {
    CALLSITES[..2]
        .iter()
        .any(|&(t, l)| meta.line() == Some(l) && meta.target() == t)
}

impl FootprintLog {
    /// Records a parsed event of the running task's (see the module).
    fn shuttle_event(&mut self, event: ShuttleEvent) {
        let Some(task) = self.running_task() else {
            return;
        };
        let i = usize::from(task);
        // Inside a primitive of lineup's (its `Mutex` is shuttle's, wrapped), which announced what
        // it touches: its scheduling points are seen, nothing else is recorded.
        let in_lineups = !self.in_flight(task).is_empty();
        match event {
            ShuttleEvent::Switch(_) if in_lineups => self.shuttle_switch(i, None),
            _ if in_lineups => {}
            ShuttleEvent::Switch(site) => self.shuttle_switch(i, site),
            ShuttleEvent::Begin(family, address, covers) => {
                let access = self.shuttle_touch(family, address);
                let s = &mut self.shuttle;
                if s.in_flight.len() <= i {
                    s.in_flight.resize_with(i + 1, Vec::new);
                }
                s.in_flight[i].push(Pending { access, covers });
                if family == Family::Barrier && s.expected == Some(Reveal::Barrier) {
                    s.expected = None;
                }
            }
            ShuttleEvent::End(family, address) => {
                let access = self.shuttle_touch(family, address);
                if let Some(f) = self.shuttle.in_flight.get_mut(i) {
                    f.retain(|p| p.access.object != access.object);
                }
                if family == Family::Mutex {
                    self.shuttle.acquired = Some(address);
                }
            }
            ShuttleEvent::EndAll(family) => {
                if let Some(f) = self.shuttle.in_flight.get_mut(i) {
                    f.retain(|p| !may_be_same(p.access.object, named(family, 0)));
                }
            }
            ShuttleEvent::Touch(family, address, reveals) => {
                self.shuttle_touch(family, address);
                let s = &mut self.shuttle;
                if reveals.is_some() && s.expected == reveals {
                    s.expected = None;
                }
                if family == Family::Mutex && s.initializing.get(i) == Some(&Some(address)) {
                    // The `Once`'s own mutex is released: its initializer has ended.
                    s.initializing[i] = None;
                }
            }
            ShuttleEvent::Initialize(address) => self.shuttle_initialize(i, address),
        }
    }

    /// Task `i` runs the initializer of the `Once` at `address` (see [`ShuttleEvent::Initialize`]).
    fn shuttle_initialize(&mut self, i: usize, address: usize) {
        self.shuttle_touch(Family::Once, address);
        if self.fault == Some(ReductionFault::ShuttleSyncStepsCommute) {
            return;
        }
        let s = &mut self.shuttle;
        if s.initializing.len() <= i {
            s.initializing.resize(i + 1, None);
        }
        // The mutex the `Once` acquired just before, in this step; 0 if none was seen (no mutex
        // has that address: the task's steps stay opaque to the end of the execution).
        s.initializing[i] = Some(s.acquired.unwrap_or(0));
    }

    /// Task `i` reaches a scheduling point at `site`.
    fn shuttle_switch(&mut self, i: usize, site: Option<Site>) {
        if site == Some(Site::Revealed(Reveal::Barrier)) {
            // The barrier's `wait` read how many threads wait before this switch, and names the
            // barrier only after it: the step ending here touches every barrier.
            let kind = self.sync_kind(Family::Barrier);
            self.push_step_access(Access {
                object: named(Family::Barrier, ANY),
                kind,
            });
        }
        let s = &mut self.shuttle;
        if let Some(f) = s.in_flight.get_mut(i) {
            f.retain(|p| site == Some(Site::Covered(p.covers)));
        }
        if site == Some(Site::Revealed(Reveal::Release)) && s.initializing.get(i).is_some_and(Option::is_some) {
            s.completes = true;
        }
        if s.revealed_after.len() <= i {
            s.revealed_after.resize(i + 1, None);
        }
        s.revealed_after[i] = match site {
            Some(Site::Revealed(reveal)) => Some(reveal),
            _ => None,
        };
    }

    /// The running step writes the object at `address` of `family`: its access.
    fn shuttle_touch(&mut self, family: Family, address: usize) -> Access {
        let key = (address, family as u8);
        let number = match self.shuttle.numbers.get(&key) {
            Some(&number) => number,
            None => {
                // Numbered apart from the objects lineup names: whether two addresses coincide may
                // differ between executions, and must not shift the numbers of lineup's objects.
                let number = named(family, self.shuttle.numbers.len() as u64);
                self.shuttle.numbers.insert(key, number);
                number
            }
        };
        let access = Access {
            object: number,
            kind: self.sync_kind(family),
        };
        self.push_step_access(access);
        access
    }

    /// How a step touches an object of `family`: a write, unless the reduction is broken on
    /// purpose ([`ReductionFault::ShuttleLocksCommute`], [`ReductionFault::ShuttleSyncStepsCommute`]).
    fn sync_kind(&self, family: Family) -> Kind {
        let fault = match family {
            Family::Mutex => ReductionFault::ShuttleLocksCommute,
            Family::RwLock | Family::Barrier | Family::Once => ReductionFault::ShuttleSyncStepsCommute,
            Family::Condvar | Family::Semaphore => return Kind::Write,
        };
        if self.fault == Some(fault) {
            Kind::Read
        } else {
            Kind::Write
        }
    }
}

/// The subscriber lineup installs on the thread of an exploration (see the module): it reads
/// shuttle's events and forwards everything to `inner`, the default it replaced.
pub(crate) struct ShuttleEvents {
    inner: Dispatch,
}

/// Makes [`ShuttleEvents`] the default subscriber of this OS thread until the guard drops.
pub(crate) fn install() -> tracing::subscriber::DefaultGuard {
    let inner = tracing::dispatcher::get_default(Dispatch::clone);
    tracing::subscriber::set_default(ShuttleEvents { inner })
}

/// Formats the `message` field only.
struct MessageOnly<'a>(&'a mut String);

impl Visit for MessageOnly<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        }
    }
}

/// Reads one event of a wanted callsite into the execution's footprints.
fn read(event: &Event<'_>) {
    let _ = ExecutionContext::try_with(|cx| {
        let Some(mut footprints) = cx.footprints_try() else {
            MISSED.with(|m| m.set(true));
            return;
        };
        if !footprints.is_on() {
            return;
        }
        let Some(task) = footprints.running_task() else {
            return;
        };
        if !footprints.in_flight(task).is_empty() {
            // Inside a primitive of lineup's: no message to read (see `shuttle_event`).
            if is_switch(event.metadata()) {
                footprints.shuttle_event(ShuttleEvent::Switch(None));
            }
            return;
        }
        let parsed = MESSAGE.with(|buffer| {
            let mut buffer = buffer.borrow_mut();
            buffer.clear();
            event.record(&mut MessageOnly(&mut buffer));
            parse(&buffer)
        });
        if let Some(parsed) = parsed {
            footprints.shuttle_event(parsed);
        }
    });
}

impl Subscriber for ShuttleEvents {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if wanted(meta) {
            Interest::always()
        } else {
            self.inner.register_callsite(meta)
        }
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }

    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        wanted(meta) || self.inner.enabled(meta)
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        self.inner.new_span(span)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        self.inner.record(span, values)
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        self.inner.record_follows_from(span, follows)
    }

    fn event(&self, event: &Event<'_>) {
        let meta = event.metadata();
        if wanted(meta) {
            read(event);
        }
        if self.inner.enabled(meta) {
            self.inner.event(event);
        }
    }

    fn enter(&self, span: &Id) {
        self.inner.enter(span)
    }

    fn exit(&self, span: &Id) {
        self.inner.exit(span)
    }

    fn clone_span(&self, id: &Id) -> Id {
        self.inner.clone_span(id)
    }

    fn try_close(&self, id: Id) -> bool {
        self.inner.try_close(id)
    }

    fn current_span(&self) -> tracing_core::span::Current {
        self.inner.current_span()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::footprint::Footprint;
    use shuttle::current::TaskId;

    #[test]
    fn messages_parse_into_events() {
        assert_eq!(
            parse("waiting to acquire mutex 0x7ffe10"),
            Some(ShuttleEvent::Begin(Family::Mutex, 0x7ffe10, Covers::Acquire))
        );
        assert_eq!(
            parse("released 1 permits for semaphore 0x10"),
            Some(ShuttleEvent::Touch(Family::Semaphore, 0x10, Some(Reveal::Release)))
        );
        assert_eq!(
            parse("switch from /r/shuttle-engine-0.1.7/src/future/batch_semaphore.rs:876:9"),
            Some(ShuttleEvent::Switch(Some(Site::Revealed(Reveal::Release))))
        );
        assert_eq!(
            parse("switch from /r/shuttle-engine-0.1.8/src/future/batch_semaphore.rs:876:9"),
            Some(ShuttleEvent::Switch(None))
        );
        assert_eq!(
            parse("switch from /r/shuttle-std-0.1.5/src/sync/atomic/mod.rs:165:9"),
            Some(ShuttleEvent::Switch(None))
        );
        assert_eq!(parse("Acquire::poll for x"), None);
    }

    #[test]
    fn rwlock_barrier_and_once_messages_parse_into_events() {
        let rw = |c| Some(ShuttleEvent::Begin(Family::RwLock, 0x20, c));
        assert_eq!(parse("acquiring Read lock on rwlock 0x20"), rw(Covers::Acquire));
        assert_eq!(parse("acquiring Write lock on rwlock 0x20"), rw(Covers::Acquire));
        assert_eq!(
            parse("trying to acquire Write lock on rwlock 0x20"),
            rw(Covers::TryAcquire)
        );
        let end = Some(ShuttleEvent::End(Family::RwLock, 0x20));
        assert_eq!(parse("acquired Read lock on rwlock 0x20"), end);
        assert_eq!(parse("failed to acquire Write lock on rwlock 0x20"), end);
        assert_eq!(
            parse("releasing Write lock on rwlock 0x20"),
            Some(ShuttleEvent::Touch(Family::RwLock, 0x20, None))
        );
        assert_eq!(parse("acquiring Other lock on rwlock 0x20"), None);
        assert_eq!(parse("acquired Read lock on rwlock"), None);
        assert_eq!(
            parse("waiting on barrier 0x30"),
            Some(ShuttleEvent::Begin(Family::Barrier, 0x30, Covers::BarrierWait))
        );
        assert_eq!(
            parse("returning from barrier Barrier { state: RefCell { .. } }"),
            Some(ShuttleEvent::EndAll(Family::Barrier))
        );
        assert_eq!(parse("blocked on barrier Barrier { state: RefCell { .. } }"), None);
        assert_eq!(
            parse("call_once on cell 0x40"),
            Some(ShuttleEvent::Touch(Family::Once, 0x40, None))
        );
        assert_eq!(
            parse("won the call_once race for cell 0x40"),
            Some(ShuttleEvent::Initialize(0x40))
        );
        assert_eq!(parse("waiting on barrier"), None);
        assert_eq!(
            parse("switch from /r/shuttle-std-0.1.5/src/sync/barrier.rs:117:13"),
            Some(ShuttleEvent::Switch(Some(Site::Revealed(Reveal::Barrier))))
        );
        assert_eq!(
            parse("switch from /r/shuttle-std-0.1.5/src/sync/barrier.rs:150:13"),
            Some(ShuttleEvent::Switch(Some(Site::Covered(Covers::BarrierWait))))
        );
    }

    #[test]
    fn any_barrier_is_every_barrier_and_nothing_else() {
        let any = named(Family::Barrier, ANY);
        assert!(same_in_execution(any, named(Family::Barrier, 3)));
        assert!(same_in_execution(named(Family::Barrier, 3), any));
        assert!(!same_in_execution(any, named(Family::Once, 3)));
        assert!(!same_in_execution(named(Family::Barrier, 2), named(Family::Barrier, 3)));
        assert!(may_be_same(any, named(Family::Barrier, 0)));
    }

    /// A log with the reduction on, running task `task`'s step.
    fn log_running(task: usize) -> FootprintLog {
        let mut log = FootprintLog::EMPTY;
        log.begin_execution(true, None, false);
        log.begin_step(TaskId::from(task));
        log
    }

    fn end(log: &mut FootprintLog) -> Footprint {
        let mut f = Footprint::default();
        log.end_step(false, false, &mut f);
        f
    }

    #[test]
    fn a_once_initializer_s_releases_are_opaque_until_the_once_s_mutex_is_released() {
        let mut log = log_running(1);
        // Resumed from the acquire of the `Once`'s mutex: it wins the race.
        log.shuttle_event(ShuttleEvent::Begin(Family::Mutex, 0x50, Covers::Acquire));
        log.shuttle_event(ShuttleEvent::End(Family::Mutex, 0x50));
        log.shuttle_event(ShuttleEvent::Initialize(0x40));
        // The initializer locks another mutex, then the `Once` releases its own.
        log.shuttle_event(ShuttleEvent::Begin(Family::Mutex, 0x60, Covers::Acquire));
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Covered(Covers::Acquire))));
        let won = end(&mut log);
        assert!(!won.opaque, "the step that won the race stops at no release");
        assert!(won.accesses.contains(&Access {
            object: named(Family::Once, 1),
            kind: Kind::Write
        }));
        log.begin_step(TaskId::from(1));
        log.shuttle_event(ShuttleEvent::End(Family::Mutex, 0x60));
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Revealed(Reveal::Release))));
        assert!(
            end(&mut log).opaque,
            "a step of the initializer, which marks the Once complete"
        );
        log.begin_step(TaskId::from(1));
        log.shuttle_event(ShuttleEvent::Touch(Family::Semaphore, 0x61, Some(Reveal::Release)));
        log.shuttle_event(ShuttleEvent::Touch(Family::Mutex, 0x60, None));
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Revealed(Reveal::Release))));
        assert!(end(&mut log).opaque, "the initializer's own mutex is not released yet");
        log.begin_step(TaskId::from(1));
        log.shuttle_event(ShuttleEvent::Touch(Family::Semaphore, 0x51, Some(Reveal::Release)));
        log.shuttle_event(ShuttleEvent::Touch(Family::Mutex, 0x50, None));
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Revealed(Reveal::Release))));
        assert!(
            !end(&mut log).opaque,
            "the release of the Once's mutex ends the initializer"
        );
    }

    #[test]
    fn the_last_thread_at_a_barrier_touches_every_barrier_before_its_switch() {
        let mut log = log_running(2);
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Revealed(Reveal::Barrier))));
        let before = end(&mut log);
        assert!(!before.opaque);
        assert_eq!(before.accesses[0].object, named(Family::Barrier, ANY));
        log.begin_step(TaskId::from(2));
        // It names the barrier after the switch, and another thread arrived in between: it blocks.
        log.shuttle_event(ShuttleEvent::Begin(Family::Barrier, 0x30, Covers::BarrierWait));
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Covered(Covers::BarrierWait))));
        let wait = end(&mut log);
        assert!(!wait.opaque);
        let in_flight = Footprint {
            accesses: vec![wait.accesses[0]],
            ..Footprint::default()
        };
        assert!(log.in_flight_conflicts(TaskId::from(2), &in_flight));
        assert!(log.in_flight_conflicts(TaskId::from(2), &before), "every barrier");
        // Woken: it returns from the wait, which ends it.
        log.begin_step(TaskId::from(2));
        log.shuttle_event(ShuttleEvent::EndAll(Family::Barrier));
        log.shuttle_event(ShuttleEvent::Switch(None));
        assert!(end(&mut log).opaque, "an unknown switch");
        assert!(!log.in_flight_conflicts(TaskId::from(2), &in_flight));
    }

    #[test]
    fn a_resumed_barrier_step_that_names_no_barrier_is_opaque() {
        let mut log = log_running(2);
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Revealed(Reveal::Barrier))));
        end(&mut log);
        log.begin_step(TaskId::from(2));
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Revealed(Reveal::Barrier))));
        assert!(end(&mut log).opaque);
    }

    #[test]
    fn addressed_objects_of_one_family_may_be_the_same() {
        let m = |n: u64| ADDRESSED | (Family::Mutex as u64) << FAMILY_SHIFT | n;
        let c = |n: u64| ADDRESSED | (Family::Condvar as u64) << FAMILY_SHIFT | n;
        assert!(may_be_same(m(1), m(2)));
        assert!(!may_be_same(m(1), c(1)));
        assert!(!may_be_same(m(1), 1));
    }
}

//! What shuttle's own primitives touch, read from the `tracing` events shuttle emits, for the
//! partial-order reduction (see [`footprint`](crate::explore::footprint)): a step of an object
//! written on `shuttle::sync::{Mutex, Condvar, RwLock, Barrier, Once}` directly is no longer
//! opaque (nor, with lineup's `vendor/shuttle-std`, one on its `mpsc` and atomics). Every access
//! read here is a *write* of its object (two steps on one object never commute; a read lock of an
//! `RwLock` too: see docs/partial-order-reduction.md, §2.5), but an atomic's load, a read.
//!
//! While an exploration that records footprints runs (the reduction or the spin pruning on: see
//! `explore/run.rs`), lineup installs [`ShuttleEvents`] as the default `tracing`
//! subscriber of its OS thread ([`install`]; shuttle runs every task as a coroutine on that
//! thread), forwarding everything to the subscriber that was the default before. shuttle names
//! the object of each operation with its address (`"waiting to acquire mutex 0x…"`) and every
//! scheduling point with its place in shuttle's source (`"switch from …/batch_semaphore.rs:876:9"`).
//! Only the `message` field is formatted (into a reused buffer), and only for the callsites below;
//! the events of lineup's `vendor/shuttle-engine` and `vendor/shuttle-std` carry what lineup reads
//! in fields of their own (`lineup.line` and `lineup.file`, `lineup.channel`, ...), read without
//! formatting anything. A callsite is known by its line first ([`CALLSITE_AT_LINE`]).
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
//! **Channels.** shuttle's `mpsc` channels name their object in the events of a send and a
//! receive, but the published shuttle-std changes a channel's counts of senders and receivers in
//! the clone and the drop of an endpoint (which decide whether a later send or receive fails)
//! without an event or a scheduling point. lineup's `vendor/shuttle-std` (the published crate
//! with events added, no line moved: vendor/README.md) says when a channel is created and when an
//! endpoint is cloned or dropped; a channel is named by its *creation* (the task and how many
//! objects it created before, as lineup names its own channels), compared exactly across
//! executions ([`ShuttleSteps::channels`]). A channel whose creation lineup did not see (the
//! published crate, without the `[patch]` line) has no name, and every step that touches it is
//! opaque, as before. A send and a receive switch first (mpsc.rs:212, :328) and name the channel
//! after; a send or a receive that blocks keeps it in flight (mpsc.rs:248, :389). The `recv` of
//! an unbounded channel's one consumer commutes with sends, as `lineup::sync::mpsc`'s receive
//! does (`FootprintLog::shuttle_receive`); the drop of a sender writes the channel's count of
//! senders only (`FootprintLog::shuttle_endpoint`).
//!
//! **Threads.** The spawn of a thread or a future task switches first (execution.rs:1028, :985)
//! and creates the task after: the step that resumes there writes the order of spawns, as
//! `lineup::thread::spawn` does. A thread's last step (`"thread finished"`) ends without a
//! scheduling point, as the last step of one of `lineup::thread::spawn`'s does, and writes the
//! thread's end ([`finished_of`]): it sets what `join` returns and wakes the joiner. A `join`
//! looks whether the thread finished and, if not, registers as its joiner and blocks, all before
//! its switch (thread.rs:272 if finished, :287 if it blocks); lineup's `vendor/shuttle-std` names
//! the thread first (`"joining thread {}"`), which puts a write of its end in the step running now
//! and in flight over that switch ([`Covers::Join`]). Without the patch a join's steps are opaque.
//! A `park` takes the thread's token, or registers as parked and blocks, before its switch
//! (thread.rs:354, if it blocks), and an `unpark` switches first (thread.rs:46) and makes the
//! token available after; lineup's `vendor/shuttle-std` names the thread (`"parking thread {}"`,
//! `"unparking thread {}"`), a write of its park token ([`token_of`], the name
//! `lineup::thread`'s park and unpark announce) in the step that parks and in flight over either
//! switch ([`Covers::Park`], [`Covers::Unpark`]). Without the patch an unpark's steps are opaque.
//!
//! **Atomics.** Each access of shuttle's atomics switches first (atomic/mod.rs:165, :174, :183,
//! :204) and performs the access after; lineup's `vendor/shuttle-std` names the atomic and the
//! access just before the switch (`"atomic read of {:p}"`, `"atomic write of {:p}"`), which puts it
//! in flight for the step that resumes there ([`Covers::Atomic`]). Without the patch the switch is
//! unknown, and the steps around it opaque.
//!
//! A `yield_now` or `sleep` (thread.rs:320, :326) is a give-way, as `lineup::thread::yield_now`:
//! the scheduler sees the yield request itself. Every other scheduling point
//! (`RwLock::into_inner`'s `try_acquire`, and any place not in the tables: another shuttle
//! version) stays unseen, its steps opaque. The polls of future tasks and `block_on`'s waits are
//! seen only through `lineup_signals::footprint::Observed`, which lineup's `vendor/shuttle-std`
//! puts around every future of its `spawn` and `block_on` (see [`observed`](crate::explore::observed));
//! with the published crate they stay unseen but for `block_on`'s waits on a lock.
//!
//! **Names.** An address names an object only while it lives, and an allocator may give it to
//! another object within an execution, in one execution and not in another: first-touch numbers
//! of addresses would then differ between executions that share a prefix. So an object named by
//! its address is numbered by first touch within the execution, apart from the objects lineup
//! names (two objects that share an address there count as one: more dependent, never less), and
//! two such objects of one *family* (mutex, condvar, semaphore, `RwLock`, barrier, `Once`, atomic) are
//! taken to be the same when accesses of different executions are compared ([`may_be_same`]).
//! Objects of different families never are: an address names one object at a time, and one
//! object belongs to one family. (A mutex's or an `RwLock`'s batch semaphore is a family of its
//! own: its release also names the lock, which is what orders the lock's steps.)

use std::cell::{Cell, RefCell};
use std::fmt::{self, Write as _};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Metadata, Subscriber};

use crate::config::ReductionFault;
use crate::explore::context::ExecutionContext;
use crate::explore::footprint::{finished_of, token_of, Access, FootprintLog, Kind, SPAWN_ORDER};

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
    /// shuttle's `mpsc` channels: named by their creation, not their address (see
    /// [`ShuttleSteps::channels`]).
    Channel = 7,
    /// shuttle's atomics (`AtomicBool`, the integers, `AtomicPtr`), seen through lineup's
    /// `vendor/shuttle-std` only.
    Atomic = 8,
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
    /// A send or a receive of shuttle's `mpsc` that blocks: its block (mpsc.rs:248, :389).
    ChannelBlock,
    /// An access of shuttle's atomics: its switch (atomic/mod.rs:165, :174, :183, :204), just
    /// after lineup's `vendor/shuttle-std` named the atomic (`"atomic read of {:p}"`, `"atomic
    /// write of {:p}"`). The step that resumes there performs the access. The published
    /// shuttle-std names nothing there, so its atomics' steps stay opaque.
    Atomic,
    /// A `join` of a thread: its switch when the thread had finished (thread.rs:272) or its block
    /// until it does (:287), after lineup's `vendor/shuttle-std` named the thread (`"joining
    /// thread {}"`) in the step that looked. The published shuttle-std names nothing, so a join's
    /// steps stay opaque there.
    Join,
    /// A `park` that blocks: its switch (thread.rs:354), after lineup's `vendor/shuttle-std` named
    /// the thread (`"parking thread {}"`) in the step that took its token or blocked for it.
    Park,
    /// An `unpark`: its switch (thread.rs:46), just after lineup's `vendor/shuttle-std` named the
    /// thread (`"unparking thread {}"`). The step that resumes there makes the token available
    /// (and wakes the thread if it is parked). The published shuttle-std names nothing, so an
    /// unpark's steps stay opaque there.
    Unpark,
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
    /// `"… starting send on channel {:p}"`: a send of shuttle's `mpsc` switches first
    /// (mpsc.rs:212) and looks at the channel after.
    Channel,
    /// `"starting recv on channel {:p}"`: a receive of shuttle's `mpsc` switches first
    /// (mpsc.rs:328) and looks at the channel after. The step that stops here is followed by the
    /// look; when the look commutes with every step and blocks, the scheduler counts the two as one
    /// step for the covering of the branch point the first was chosen at, as if the receive had no
    /// switch before its look, as `lineup::sync::mpsc`'s has none (see [`ShuttleSteps::stopped_before_look`]).
    Look,
    /// The spawn of a thread or a future task switches first (execution.rs:1028, :985) and
    /// creates the task after: the step that resumes there writes the order of spawns
    /// ([`SPAWN_ORDER`]), which the place alone says (no event is needed).
    Spawn,
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
    // The same wait in lineup's `vendor/shuttle-std`, which drives the acquire itself so that
    // the wait can be abandoned (`lineup_acquire_blocking`, below the published file's last line).
    ("shuttle-std-0.1.5/src/sync/mod.rs", 78, Site::Covered(Covers::Acquire)),
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
    ("shuttle-std-0.1.5/src/thread.rs", 272, Site::Covered(Covers::Join)),
    ("shuttle-std-0.1.5/src/thread.rs", 287, Site::Covered(Covers::Join)),
    ("shuttle-std-0.1.5/src/thread.rs", 46, Site::Covered(Covers::Unpark)),
    ("shuttle-std-0.1.5/src/thread.rs", 354, Site::Covered(Covers::Park)),
    (
        "shuttle-engine-0.1.7/src/runtime/execution.rs",
        1028,
        Site::Revealed(Reveal::Spawn),
    ),
    (
        "shuttle-engine-0.1.7/src/runtime/execution.rs",
        985,
        Site::Revealed(Reveal::Spawn),
    ),
    (
        "shuttle-std-0.1.5/src/sync/mpsc.rs",
        212,
        Site::Revealed(Reveal::Channel),
    ),
    ("shuttle-std-0.1.5/src/sync/mpsc.rs", 328, Site::Revealed(Reveal::Look)),
    (
        "shuttle-std-0.1.5/src/sync/mpsc.rs",
        248,
        Site::Covered(Covers::ChannelBlock),
    ),
    (
        "shuttle-std-0.1.5/src/sync/atomic/mod.rs",
        165,
        Site::Covered(Covers::Atomic),
    ),
    (
        "shuttle-std-0.1.5/src/sync/atomic/mod.rs",
        174,
        Site::Covered(Covers::Atomic),
    ),
    (
        "shuttle-std-0.1.5/src/sync/atomic/mod.rs",
        183,
        Site::Covered(Covers::Atomic),
    ),
    (
        "shuttle-std-0.1.5/src/sync/atomic/mod.rs",
        204,
        Site::Covered(Covers::Atomic),
    ),
    (
        "shuttle-std-0.1.5/src/sync/mpsc.rs",
        389,
        Site::Covered(Covers::ChannelBlock),
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
    /// The addresses of shuttle's `mpsc` channels to their names: the name of the channel's
    /// *creation* (as [`ObjectIdentity::created`](crate::explore::footprint::ObjectIdentity::created)
    /// names lineup's: the task and how many objects it created before), the same in every
    /// execution that shares the schedule up to it, so compared exactly across executions. Only
    /// lineup's `vendor/shuttle-std` says when a channel is created (`"created channel {:p}"`), and
    /// only it says when an endpoint is cloned or dropped, without which a channel's steps cannot
    /// be told: a channel whose creation lineup did not see (the published shuttle-std, or a
    /// creation outside a task) has no name here, and every step that touches it is opaque. An
    /// event lineup missed clears the map, so that no address keeps the name of a channel that
    /// is gone.
    channels: FxHashMap<usize, Channel>,
    /// The channel the step running now receives from, and how (see
    /// `FootprintLog::shuttle_receive`): a receive that blocks keeps that kind in flight.
    receiving: Option<(u64, Kind)>,
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
        channels: FxHashMap::with_hasher(rustc_hash::FxBuildHasher),
        receiving: None,
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
        self.channels.clear();
        self.receiving = None;
        MISSED.with(|m| m.set(false));
    }

    /// Takes the flag of an event missed while the footprints were borrowed: the step is opaque,
    /// and the channels' names are forgotten (the event may have been a channel's creation).
    fn take_missed(&mut self) -> bool {
        let missed = MISSED.with(|m| m.replace(false));
        if missed {
            self.channels.clear();
        }
        missed
    }

    /// A step of task `i` begins: the accesses of its operations in flight go into `step`.
    pub(crate) fn begin_step(&mut self, i: usize, step: &mut Vec<Access>) {
        if let Some(f) = self.in_flight.get(i) {
            step.extend(f.iter().map(|p| p.access));
        }
        self.expected = self.revealed_after.get_mut(i).and_then(Option::take);
        if self.expected == Some(Reveal::Spawn) {
            self.expected = None;
            step.push(Access {
                object: SPAWN_ORDER,
                kind: Kind::Write,
            });
        }
        self.missed = self.take_missed();
        self.acquired = None;
        self.completes = false;
        self.receiving = None;
    }

    /// Task `i`'s operations in flight (grown to hold it).
    fn in_flight_of(&mut self, i: usize) -> &mut Vec<Pending> {
        if self.in_flight.len() <= i {
            self.in_flight.resize_with(i + 1, Vec::new);
        }
        &mut self.in_flight[i]
    }

    /// Whether task `i` stopped at a scheduling point lineup sees through shuttle's events.
    pub(crate) fn stop_seen(&self, i: usize) -> bool {
        self.in_flight.get(i).is_some_and(|f| !f.is_empty()) || self.revealed_after.get(i).is_some_and(Option::is_some)
    }

    /// Whether the step ending now must be opaque: it did not name what it resumed into, an event
    /// was missed, or it may have marked a `Once` complete (see [`ShuttleEvent::Initialize`]).
    pub(crate) fn step_unseen(&mut self) -> bool {
        let completes = std::mem::take(&mut self.completes);
        let missed = self.take_missed();
        self.expected.take().is_some() || self.missed || missed || completes
    }

    /// Whether task `i` stopped at the switch of a receive of shuttle's `mpsc` before its look
    /// (mpsc.rs:328): its next step looks at the channel ([`Reveal::Look`]).
    pub(crate) fn stopped_before_look(&self, i: usize) -> bool {
        self.revealed_after.get(i) == Some(&Some(Reveal::Look))
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

/// A channel of shuttle's `mpsc` that lineup saw created (see [`ShuttleSteps::channels`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Channel {
    /// Its name, by creation.
    name: u64,
    /// A `sync_channel`: its sends may block, and its receives may wake a sender.
    bounded: bool,
}

/// What happened to an endpoint of a channel of shuttle's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Endpoint {
    /// `"cloned sender of channel {:p}"`.
    SenderCloned,
    /// `"dropped sender of channel {:p}"`.
    SenderDropped,
    /// `"dropped receiver of channel {:p}"`.
    ReceiverDropped,
}

/// The name of a channel's count of senders, apart from the channel (see
/// `FootprintLog::shuttle_endpoint`): bit 60 of a name by creation, above every task index.
const SENDERS_OF: u64 = 1 << 60;

/// The name of a channel's receivers, apart from the channel: every receive of shuttle's writes
/// it (bit 59 of a name by creation). shuttle's `Receiver` is `Sync`, so two threads may receive
/// from one channel, and which looks first decides which gets a message; a receive behind a
/// waiting one writes the channel, which a `Consume` does not conflict with. Through this name
/// any two receives of one channel conflict, while sends, which do not touch it, still commute
/// with a receive.
const RECEIVERS_OF: u64 = 1 << 59;

/// The name of the receivers of the channel named `channel` (see [`RECEIVERS_OF`]).
pub(crate) fn receivers_of(channel: u64) -> u64 {
    channel | RECEIVERS_OF
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
    /// A channel of shuttle's `mpsc` was created at the address (lineup's `vendor/shuttle-std`),
    /// bounded or not.
    Created(usize, bool),
    /// A receive of the channel at the address looks at it (`"starting recv on channel {:p}"`,
    /// after its switch; `"starting try_recv …"` in lineup's `vendor/shuttle-std`): `waits` when
    /// it is a `recv` (it takes the oldest message, or blocks until one comes or the last sender
    /// goes) and no receiver waits before it (from the event's `state` field).
    Receive { address: usize, waits: bool },
    /// An endpoint of the channel at the address was cloned or dropped (lineup's
    /// `vendor/shuttle-std`; see `FootprintLog::shuttle_endpoint`), which
    /// [`ReductionFault::ShuttleChannelEndpointsUnseen`] ignores.
    Endpoint(usize, Endpoint),
    /// An access of the atomic at the address, a store, a swap or a read-modify-write if `write`
    /// (lineup's `vendor/shuttle-std`: `"atomic read of {:p}"`, `"atomic write of {:p}"`).
    Atomic { address: usize, write: bool },
    /// A thread's function returned (`"thread finished, dropping thread locals"`,
    /// thread_support.rs:36): its last step ends without a scheduling point, as the steps of the
    /// threads of `lineup::thread::spawn` do.
    Finished,
    /// A `join` of the thread of the task with this index looks whether it finished (lineup's
    /// `vendor/shuttle-std`: `"joining thread {}"`), before its switch ([`Covers::Join`]).
    Join(usize),
    /// `ScopedJoinHandle::is_finished` reads whether the thread of the task with this index
    /// finished, in the step running now, without a scheduling point (lineup's
    /// `vendor/shuttle-std`: `"asking whether thread {} finished"`).
    IsFinished(usize),
    /// The thread of the task with this index (the current one) parks: it takes its park token
    /// or, if the token is not there, blocks until an `unpark` (lineup's `vendor/shuttle-std`:
    /// `"parking thread {}"`), in the step running now, before the switch of a park that blocks
    /// ([`Covers::Park`]).
    Park(usize),
    /// The park token of the thread of the task with this index is made available after the
    /// switch that follows (lineup's `vendor/shuttle-std`: `"unparking thread {}"`,
    /// [`Covers::Unpark`]).
    Unpark(usize),
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
    site_at(parts.next()?, line)
}

/// What lineup knows of the scheduling point at `line` of `file` ([`SITES`]).
fn site_at(file: &str, line: u32) -> Option<Site> {
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
    if message == "thread finished, dropping thread locals" {
        return Some(ShuttleEvent::Finished);
    }
    if let Some(task) = message.strip_prefix("joining thread ") {
        return task.parse().ok().map(ShuttleEvent::Join);
    }
    if let Some(task) = message
        .strip_prefix("asking whether thread ")
        .and_then(|rest| rest.strip_suffix(" finished"))
    {
        return task.parse().ok().map(ShuttleEvent::IsFinished);
    }
    if let Some(task) = message.strip_prefix("parking thread ") {
        return task.parse().ok().map(ShuttleEvent::Park);
    }
    if let Some(task) = message.strip_prefix("unparking thread ") {
        return task.parse().ok().map(ShuttleEvent::Unpark);
    }
    let a = address(message);
    if let Some(event) = parse_rwlock(message, a) {
        return event;
    }
    if let Some(event) = parse_barrier_once(message, a) {
        return event;
    }
    if let Some(event) = parse_channel(message, a) {
        return event;
    }
    let event = if message.starts_with("atomic read of ") || message.starts_with("atomic write of ") {
        ShuttleEvent::Atomic {
            address: a?,
            write: message.starts_with("atomic write"),
        }
    } else if message.starts_with("waiting to acquire mutex ") {
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

/// Parses the messages of shuttle's `mpsc` (`Some(None)`: one of them without its address).
fn parse_channel(message: &str, a: Option<usize>) -> Option<Option<ShuttleEvent>> {
    let rest = message.strip_suffix(message.rsplit(' ').next()?)?;
    let event = if rest == "created channel " || rest == "created bounded channel " {
        a.map(|a| ShuttleEvent::Created(a, rest == "created bounded channel "))
    } else if let Some(what) = rest.strip_suffix(" of channel ") {
        let endpoint = match what {
            "cloned sender" => Endpoint::SenderCloned,
            "dropped sender" => Endpoint::SenderDropped,
            "dropped receiver" => Endpoint::ReceiverDropped,
            _ => return None,
        };
        a.map(|a| ShuttleEvent::Endpoint(a, endpoint))
    } else if rest.ends_with(" starting send on channel ") {
        a.map(|a| ShuttleEvent::Touch(Family::Channel, a, Some(Reveal::Channel)))
    } else if rest == "starting recv on channel " || rest == "starting try_recv on channel " {
        // Read with its state by `parse_receive`; without it, a write.
        a.map(|a| ShuttleEvent::Receive {
            address: a,
            waits: false,
        })
    } else if rest.starts_with("blocking sender ") || rest.starts_with("blocking receiver ") {
        a.map(|a| ShuttleEvent::Begin(Family::Channel, a, Covers::ChannelBlock))
    } else if rest.starts_with("unblocked sender ") || rest.starts_with("unblocked receiver ") {
        a.map(|a| ShuttleEvent::End(Family::Channel, a))
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
    ("shuttle_engine::thread_support", 36),
    ("shuttle_std::sync::mpsc", 218),
    ("shuttle_std::sync::mpsc", 235),
    ("shuttle_std::sync::mpsc", 252),
    ("shuttle_std::sync::mpsc", 334),
    ("shuttle_std::sync::mpsc", 378),
    ("shuttle_std::sync::mpsc", 393),
    // lineup's `vendor/shuttle-std`: below the published file's last line.
    ("shuttle_std::sync::mpsc", 724),
    ("shuttle_std::sync::mpsc", 728),
    ("shuttle_std::sync::atomic", 331),
    ("shuttle_std::thread", 455),
    ("shuttle_std::thread", 462),
    ("shuttle_std::thread", 469),
    ("shuttle_std::thread", 477),
];

/// For each line of shuttle's source below 2,048, which of [`CALLSITES`] is at that line, plus one
/// (0: none; no two of them share a line). `tracing` asks [`ShuttleEvents`] about every event of
/// shuttle's, most of them of callsites lineup does not read, and their line alone tells those
/// apart; a loop over [`CALLSITES`] for each event, twice, was about a tenth of an execution's time
/// on shuttle's channels.
static CALLSITE_AT_LINE: [u8; 2048] = callsite_at_line();

const fn callsite_at_line() -> [u8; 2048] {
    let mut at = [0u8; 2048];
    let mut i = 0;
    while i < CALLSITES.len() {
        let line = CALLSITES[i].1 as usize;
        assert!(line < 2048, "a callsite's line past CALLSITE_AT_LINE");
        assert!(at[line] == 0, "two callsites on one line");
        at[line] = i as u8 + 1;
        i += 1;
    }
    at
}

/// The module of each of [`CALLSITES`] where `tracing` last said it was: its events name it with
/// one `&'static str`, compared by address before its text.
static TARGET_SEEN: [AtomicUsize; CALLSITES.len()] = [const { AtomicUsize::new(0) }; CALLSITES.len()];

/// Which of [`CALLSITES`] this callsite is.
fn callsite(meta: &Metadata<'_>) -> Option<usize> {
    let at = usize::try_from(meta.line()?).ok()?;
    let i = usize::from(*CALLSITE_AT_LINE.get(at)?).checked_sub(1)?;
    if !meta.is_event() {
        return None;
    }
    let target = meta.target();
    let seen = &TARGET_SEEN[i];
    if seen.load(Ordering::Relaxed) != target.as_ptr() as usize {
        if target != CALLSITES[i].0 {
            return None;
        }
        // Stored only when it changes: every worker reads it on every event.
        seen.store(target.as_ptr() as usize, Ordering::Relaxed);
    }
    Some(i)
}

/// Whether lineup reads the events of this callsite.
fn wanted(meta: &Metadata<'_>) -> bool {
    callsite(meta).is_some()
}

/// lineup's `vendor/shuttle-std` is the shuttle-std of this process: a channel's creation or an
/// atomic's access was seen.
static PATCHED: AtomicBool = AtomicBool::new(false);

/// A channel's creation or an atomic's access of lineup's `vendor/shuttle-std` was seen. Stores
/// only the first time, not on every such event of every worker.
fn note_patched() {
    if !PATCHED.load(Ordering::Relaxed) {
        PATCHED.store(true, Ordering::Relaxed);
    }
}

/// Whether the user was told how to let lineup see shuttle's channels.
static TOLD: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// A step of this OS thread's explorations touched a channel or an atomic of the published
    /// shuttle-std, which lineup cannot name, since [`take_unnamed_seen`] last asked: phase 1
    /// names the `[patch.crates-io]` line in its report if it does not finish.
    static UNNAMED_SEEN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a step of this OS thread touched a channel or an atomic of the published shuttle-std
/// since the last call (see [`UNNAMED_SEEN`]); clears the record.
pub(crate) fn take_unnamed_seen() -> bool {
    UNNAMED_SEEN.with(|seen| seen.replace(false))
}

/// A step touched a channel of shuttle's that lineup cannot name, or an atomic of shuttle's that
/// named nothing before its switch. If no channel's creation and no atomic's access was ever
/// seen in this process, the shuttle-std is the published one: says once, on standard error,
/// what to add to the workspace's `Cargo.toml` (the check goes on, as sound as before, with those
/// steps opaque to the reduction), and notes it for this thread's phase 1 (see
/// [`take_unnamed_seen`]).
fn tell_of_the_patch_once() {
    if PATCHED.load(Ordering::Relaxed) {
        return;
    }
    UNNAMED_SEEN.with(|seen| seen.set(true));
    if TOLD.swap(true, Ordering::Relaxed) {
        return;
    }
    eprintln!(
        "lineup: the object uses shuttle's own mpsc channels, atomics, thread joins or unparks, which the partial-order \
         reduction sees only with lineup's shuttle-std: their steps are opaque to it in this check (sound, \
         but phase 1 of an object whose threads talk over them may not end within its budget). \
         Add to your workspace's Cargo.toml:\n\n{PATCH_LINES}\n\n(see lineup's vendor/README.md), or \
         write the object on lineup::sync."
    );
}

/// The lines that let lineup see shuttle's channels and atomics: lineup's shuttle-std in place of
/// the published one, in the `Cargo.toml` of the user's workspace (indented, for a message); and
/// lineup's shuttle-engine, whose switches cost lineup less (vendor/README.md).
pub(crate) const PATCH_LINES: &str = "    [patch.crates-io]\n    \
     shuttle-std = { path = \"<path to lineup>/vendor/shuttle-std-0.1.5\" }\n    \
     shuttle-engine = { path = \"<path to lineup>/vendor/shuttle-engine-0.1.7\" }";

/// The callsite of `"created channel {:p}"` (lineup's `vendor/shuttle-std`).
const CREATED_CHANNEL: (&str, u32) = ("shuttle_std::sync::mpsc", 724);

impl ShuttleSteps {
    /// A channel was created where lineup does not name it (no step running, or inside one of
    /// lineup's primitives): its address may be an old channel's, so every name is forgotten (the
    /// steps of the channels created before are opaque from now on).
    fn forget_channels_if_created(&mut self, meta: &Metadata<'_>) {
        if meta.line() == Some(CREATED_CHANNEL.1) && meta.target() == CREATED_CHANNEL.0 {
            // Only lineup's shuttle-std has this callsite.
            note_patched();
            self.channels.clear();
        }
    }
}

/// Whether the `i`th of [`CALLSITES`] is one of a scheduling point's (the first two).
fn is_switch(i: usize) -> bool {
    i < 2
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
            // The end of a thread is written whatever it was inside of: a join reads it.
            ShuttleEvent::Finished => {
                let kind = self.join_kind();
                self.note_thread_finished(kind);
            }
            _ if in_lineups => {}
            ShuttleEvent::Switch(site) => self.shuttle_switch(i, site),
            ShuttleEvent::Begin(family, address, covers) => {
                let Some(access) = self.shuttle_begin(family, address) else {
                    return;
                };
                let s = &mut self.shuttle;
                s.in_flight_of(i).push(Pending { access, covers });
                if family == Family::Channel && s.receiving.is_some() {
                    // A receive that waits takes its message, or not, against the other
                    // receivers when woken (see `RECEIVERS_OF`).
                    s.in_flight[i].push(Pending {
                        access: Access {
                            object: receivers_of(access.object),
                            kind: Kind::Write,
                        },
                        covers,
                    });
                }
                if family == Family::Channel && access.kind == Kind::Write && s.receiving.is_some() {
                    // A receive that does not consume looks at the count of senders again when
                    // woken (see `shuttle_endpoint`).
                    let senders = Access {
                        object: access.object | SENDERS_OF,
                        kind: Kind::Write,
                    };
                    s.in_flight[i].push(Pending {
                        access: senders,
                        covers,
                    });
                }
                if family == Family::Barrier && s.expected == Some(Reveal::Barrier) {
                    s.expected = None;
                }
            }
            ShuttleEvent::End(family, address) => {
                let Some(access) = self.shuttle_end(i, family, address) else {
                    return;
                };
                if let Some(f) = self.shuttle.in_flight.get_mut(i) {
                    f.retain(|p| {
                        p.access.object != access.object
                            && p.access.object != access.object | SENDERS_OF
                            && p.access.object != receivers_of(access.object)
                    });
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
                if self.shuttle_touch(family, address).is_none() {
                    return;
                }
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
            ShuttleEvent::Created(address, bounded) => {
                note_patched();
                let name = self.creation_name(i);
                self.shuttle.channels.insert(address, Channel { name, bounded });
            }
            ShuttleEvent::Receive { address, waits } => self.shuttle_receive(address, waits),
            ShuttleEvent::Endpoint(address, endpoint) => self.shuttle_endpoint(address, endpoint),
            ShuttleEvent::Atomic { address, write } => self.shuttle_atomic(i, address, write),
            ShuttleEvent::Join(joined) => self.shuttle_join(i, joined),
            ShuttleEvent::Park(task) => self.shuttle_park(i, task),
            ShuttleEvent::Unpark(task) => self.shuttle_unpark(i, task),
            ShuttleEvent::IsFinished(task) => {
                note_patched();
                self.push_step_access(Access {
                    object: finished_of(task),
                    kind: Kind::Read,
                });
            }
        }
    }

    /// Task `i` is about to access the atomic at `address` (see [`Covers::Atomic`]): the access
    /// is in flight until the task's next scheduling point after the one that follows, so that it
    /// counts in the step that resumes there (and, while the task waits, in what lineup knows of
    /// its next step), as `lineup::sync::atomic`'s announcements do. The atomic is numbered by first
    /// touch, as every object named by its address.
    fn shuttle_atomic(&mut self, i: usize, address: usize, write: bool) {
        let kind = if write && self.fault != Some(ReductionFault::ShuttleAtomicsCommute) {
            Kind::Write
        } else {
            Kind::Read
        };
        note_patched();
        let object = self.addressed(Family::Atomic, address);
        let mine = self.shuttle.in_flight_of(i);
        // The access before, if any, was performed in the step ending now.
        mine.retain(|p| p.covers != Covers::Atomic);
        mine.push(Pending {
            access: Access { object, kind },
            covers: Covers::Atomic,
        });
    }

    /// Task `i` joins the thread of task `joined` (see [`ShuttleEvent::Join`]): in the step running
    /// now it looked whether that thread finished and, if not, registered as its joiner (which the
    /// thread's last step reads to wake it), so the step writes the thread's end
    /// ([`finished_of`]); in flight over the join's switch, as a blocking operation's object is.
    fn shuttle_join(&mut self, i: usize, joined: usize) {
        let access = Access {
            object: finished_of(joined),
            kind: self.join_kind(),
        };
        self.touch_before_switch(i, access, Covers::Join);
    }

    /// Task `i`'s step running now makes `access` (an operation of lineup's `vendor/shuttle-std`
    /// that acts before its switch), which stays in flight over that switch (`covers`).
    fn touch_before_switch(&mut self, i: usize, access: Access, covers: Covers) {
        note_patched();
        self.push_step_access(access);
        self.shuttle.in_flight_of(i).push(Pending { access, covers });
    }

    /// Task `i` parks the thread of task `task` (its own, see [`ShuttleEvent::Park`]): the step
    /// running now takes the park token or registers as parked, a write of the token
    /// ([`token_of`]), as `lineup::thread::park` announces; in flight over the switch of a park
    /// that blocks.
    fn shuttle_park(&mut self, i: usize, task: usize) {
        let access = Access {
            object: token_of(task),
            kind: self.park_kind(),
        };
        self.touch_before_switch(i, access, Covers::Park);
    }

    /// Task `i` unparks the thread of task `task` (see [`ShuttleEvent::Unpark`]): the step that
    /// resumes after the switch that follows makes the token available, a write of it, as
    /// `lineup::thread`'s `unpark` announces.
    fn shuttle_unpark(&mut self, i: usize, task: usize) {
        note_patched();
        let access = Access {
            object: token_of(task),
            kind: self.park_kind(),
        };
        self.shuttle.in_flight_of(i).push(Pending {
            access,
            covers: Covers::Unpark,
        });
    }

    /// How a park and an unpark touch the park token: a write, but a read under
    /// [`ReductionFault::ShuttleParksCommute`].
    fn park_kind(&self) -> Kind {
        self.write_unless(ReductionFault::ShuttleParksCommute)
    }

    /// How a join and a thread's last step touch the thread's end: a write, but a read under
    /// [`ReductionFault::ShuttleJoinsCommute`].
    fn join_kind(&self) -> Kind {
        self.write_unless(ReductionFault::ShuttleJoinsCommute)
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
        if let Some(Site::Covered(covers @ (Covers::Atomic | Covers::Join | Covers::Park | Covers::Unpark))) = site {
            if !s.in_flight.get(i).is_some_and(|f| f.iter().any(|p| p.covers == covers)) {
                // An atomic or a join of the published shuttle-std, which names nothing.
                tell_of_the_patch_once();
            }
        }
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

    /// The running step writes the object at `address` of `family`: its access. `None` for a
    /// channel without a name (see [`ShuttleSteps::channels`]): the step is opaque.
    fn shuttle_touch(&mut self, family: Family, address: usize) -> Option<Access> {
        if family == Family::Channel {
            let channel = self.channel(address)?;
            let access = Access {
                object: channel.name,
                kind: Kind::Write,
            };
            self.push_step_access(access);
            return Some(access);
        }
        let access = Access {
            object: self.addressed(family, address),
            kind: self.sync_kind(family),
        };
        self.push_step_access(access);
        Some(access)
    }

    /// The name of the object at `address` of `family` in this execution: its number by first
    /// touch.
    fn addressed(&mut self, family: Family, address: usize) -> u64 {
        let key = (address, family as u8);
        match self.shuttle.numbers.get(&key) {
            Some(&number) => number,
            None => {
                // Numbered apart from the objects lineup names: whether two addresses coincide may
                // differ between executions, and must not shift the numbers of lineup's objects.
                let number = named(family, self.shuttle.numbers.len() as u64);
                self.shuttle.numbers.insert(key, number);
                number
            }
        }
    }

    /// An operation on the object at `address` of `family` begins and puts it in flight: its
    /// access (a receive that blocks keeps the kind its look had: see [`Self::shuttle_receive`]).
    fn shuttle_begin(&mut self, family: Family, address: usize) -> Option<Access> {
        if family == Family::Channel {
            let channel = self.channel(address)?;
            if let Some((name, kind)) = self.shuttle.receiving.filter(|&(name, _)| name == channel.name) {
                let access = Access { object: name, kind };
                self.push_step_access(access);
                return Some(access);
            }
        }
        self.shuttle_touch(family, address)
    }

    /// The operation in flight for task `i` on the object at `address` of `family` ends in the
    /// step running now: its access (for a channel, the one it had in flight).
    fn shuttle_end(&mut self, i: usize, family: Family, address: usize) -> Option<Access> {
        if family == Family::Channel {
            let channel = self.channel(address)?;
            let pending = self.shuttle.in_flight.get(i).and_then(|f| {
                f.iter()
                    .find(|p| p.covers == Covers::ChannelBlock && p.access.object == channel.name)
                    .map(|p| p.access)
            });
            if let Some(access) = pending {
                self.push_step_access(access);
                return Some(access);
            }
        }
        self.shuttle_touch(family, address)
    }

    /// An endpoint of the channel at `address` was cloned or dropped, which changes its count of
    /// senders or receivers without a scheduling point (only lineup's `vendor/shuttle-std` says
    /// so):
    ///
    /// * the drop of a receiver writes the channel (later sends fail);
    /// * the drop of a sender writes the channel's count of senders (a name of its own,
    ///   [`SENDERS_OF`]), which only a receive that does not consume reads (a `try_recv` that
    ///   finds the channel empty says disconnected or empty). It commutes with sends (the sender
    ///   that sends is not the one dropped, so the count stays above zero for the send, and a
    ///   send does not look at it) and with a consuming receive, which ends the same either way
    ///   (shuttle's receive looks again at the count after its block);
    /// * the clone of a sender touches nothing: it raises a count that is at least one, and
    ///   everything that reads the count asks whether it is zero.
    fn shuttle_endpoint(&mut self, address: usize, endpoint: Endpoint) {
        if self.fault == Some(ReductionFault::ShuttleChannelEndpointsUnseen) || endpoint == Endpoint::SenderCloned {
            return;
        }
        let Some(channel) = self.channel(address) else {
            return;
        };
        let object = match endpoint {
            Endpoint::SenderDropped => channel.name | SENDERS_OF,
            _ => channel.name,
        };
        self.push_step_access(Access {
            object,
            kind: Kind::Write,
        });
    }

    /// The channel at `address`, if lineup saw it created; if not, the step running now is opaque.
    fn channel(&mut self, address: usize) -> Option<Channel> {
        let channel = self.shuttle.channels.get(&address).copied();
        if channel.is_none() {
            self.shuttle.missed = true;
            tell_of_the_patch_once();
        }
        channel
    }

    /// A receive looks at the channel at `address` (see [`ShuttleEvent::Receive`]). The `recv`
    /// of an unbounded channel's one waiting consumer is the receive of `lineup::sync::mpsc`'s
    /// channel ([`Kind::Consume`]: it commutes with sends and with the drop and clone of
    /// endpoints, and conflicts with another receive), in the step that looks, in its block and in
    /// the step that resumes from it: it takes the oldest message whenever it runs; if there is
    /// none it blocks, and the send (or the last sender's drop) that wakes it leaves it in the
    /// state it would have found had the send come first (shuttle's receive looks again after
    /// its block: mpsc.rs:398-404). Its switch before it looks (mpsc.rs:328) touches nothing.
    /// Any other receive (a `try_recv`, which reports the channel empty; a receive of a
    /// `sync_channel`, which may wake a sender; one that waits behind another receiver) writes
    /// the channel.
    fn shuttle_receive(&mut self, address: usize, waits: bool) {
        let Some(channel) = self.channel(address) else {
            return;
        };
        // A receive outside a step (never seen) counts as a second receiver: nothing covers.
        let task = self.running_task().map_or(usize::MAX, usize::from);
        self.note_receive(channel.name, task);
        let consumes = (waits && !channel.bounded) || self.fault == Some(ReductionFault::ShuttleReceivesCommute);
        let kind = if consumes { Kind::Consume } else { Kind::Write };
        self.push_step_access(Access {
            object: channel.name,
            kind,
        });
        self.push_step_access(Access {
            object: receivers_of(channel.name),
            kind: Kind::Write,
        });
        if !consumes {
            // It may report the channel disconnected (see `shuttle_endpoint`).
            self.push_step_access(Access {
                object: channel.name | SENDERS_OF,
                kind: Kind::Write,
            });
        }
        let s = &mut self.shuttle;
        s.receiving = Some((channel.name, kind));
        if matches!(s.expected, Some(Reveal::Channel | Reveal::Look)) {
            s.expected = None;
        }
    }

    /// How a step touches an object of `family`: a write, unless the reduction is broken on
    /// purpose ([`ReductionFault::ShuttleLocksCommute`], [`ReductionFault::ShuttleSyncStepsCommute`]).
    fn sync_kind(&self, family: Family) -> Kind {
        let fault = match family {
            Family::Mutex => ReductionFault::ShuttleLocksCommute,
            Family::RwLock | Family::Barrier | Family::Once => ReductionFault::ShuttleSyncStepsCommute,
            Family::Condvar | Family::Semaphore | Family::Channel | Family::Atomic => return Kind::Write,
        };
        self.write_unless(fault)
    }
}

/// The subscriber lineup installs on the thread of an exploration (see the module): it reads
/// shuttle's events and forwards everything to `inner`, the default it replaced.
pub(crate) struct ShuttleEvents {
    inner: Dispatch,
    /// `inner` is a subscriber that may want an event (not `tracing`'s `NoSubscriber`, the
    /// default without one, which wants none): asked once here, not at every event.
    inner_listens: bool,
}

impl ShuttleEvents {
    fn new(inner: Dispatch) -> Self {
        let inner_listens = !inner.is::<tracing::subscriber::NoSubscriber>();
        Self { inner, inner_listens }
    }
}

/// Makes [`ShuttleEvents`] the default subscriber of this OS thread until the guard drops.
pub(crate) fn install() -> tracing::subscriber::DefaultGuard {
    keep_interest();
    let inner = tracing::dispatcher::get_default(Dispatch::clone);
    tracing::subscriber::set_default(ShuttleEvents::new(inner))
}

/// A dispatcher that lives as long as the process, so that `tracing` never caches "never" for a
/// callsite lineup reads (see [`KeepInterest`]).
static KEEP_INTEREST: OnceLock<Dispatch> = OnceLock::new();

/// Makes sure [`KEEP_INTEREST`] lives: every exploration calls it before it runs shuttle, with the
/// reduction on or off, so that no thread of lineup's reaches one of shuttle's callsites first
/// without it.
pub(crate) fn keep_interest() {
    KEEP_INTEREST.get_or_init(|| Dispatch::new(KeepInterest));
}

/// Keeps the callsites lineup reads enabled in every thread's view of them. `tracing` computes a
/// callsite's interest once, when some thread first reaches it, from the dispatchers alive then,
/// and caches it for the process. A thread of a check that installs no [`ShuttleEvents`] (the
/// reduction off) may be first to reach one of shuttle's callsites while no [`ShuttleEvents`]
/// lives, or while one is being installed; "never" was then cached, and another thread's check
/// lost those events for a whole phase (its steps opaque: sound, but phase 1 of an object with
/// threads of its own may then not finish; lineup-zoo/tests/parallel_checks.rs). With this one
/// alive, each such callsite's interest is at least "sometimes": `tracing` asks the thread's own
/// dispatcher on every event, and only a [`ShuttleEvents`] says yes. It is never any thread's
/// default, so it receives no event.
struct KeepInterest;

impl Subscriber for KeepInterest {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if wanted(meta) {
            Interest::sometimes()
        } else {
            Interest::never()
        }
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }

    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        wanted(meta)
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, _event: &Event<'_>) {}

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
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

/// The callsite of `"starting recv on channel {:p}"`, whose `state` field lineup reads too.
const RECEIVE: (&str, u32) = ("shuttle_std::sync::mpsc", 334);

/// Formats the `message` field, then the `state` field after a newline.
struct MessageAndState<'a>(&'a mut String, String);

impl Visit for MessageAndState<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        match field.name() {
            "message" => {
                let _ = write!(self.0, "{value:?}");
            }
            "state" => {
                let _ = write!(self.1, "{value:?}");
            }
            _ => {}
        }
    }
}

/// The receive of `"starting recv on channel {:p}"` (or `try_recv`) with the channel's `state`
/// (its `Debug`: `"Channel { num_messages: 1 … waiting_receivers: [[]] }"`): whether it is a `recv`
/// that no receiver waits before.
fn parse_receive(message: &str, state: &str) -> Option<ShuttleEvent> {
    if let Some(rest) = message.strip_prefix("starting try_recv on channel ") {
        return Some(ShuttleEvent::Receive {
            address: address(rest)?,
            waits: false,
        });
    }
    let address = address(message.strip_prefix("starting recv on channel ")?)?;
    Some(ShuttleEvent::Receive {
        address,
        waits: state.contains("waiting_receivers: [[]] "),
    })
}

/// The fields `lineup.*` that lineup's `vendor/shuttle-std` adds to the events of its channels
/// and atomics: the object's address (what the message's `{:p}` prints) and what else the message
/// and the `state` field say, read without formatting either (formatting every event's message
/// was about a third of an execution's time on shuttle's channels). An event without them (the
/// published shuttle-std) is parsed from its message, as before.
#[derive(Debug, Default, PartialEq)]
struct LineupFields {
    /// `lineup.channel`: the channel's address.
    channel: Option<usize>,
    /// `lineup.atomic`: the atomic's address.
    atomic: Option<usize>,
    /// `lineup.joined`: the index of the task a `join` waits for.
    joined: Option<usize>,
    /// `lineup.finished_of`: the index of the task whose end `is_finished` reads.
    finished_of: Option<usize>,
    /// `lineup.parked`: the index of the task that parks.
    parked: Option<usize>,
    /// `lineup.unparked`: the index of the task whose park token `unpark` makes available.
    unparked: Option<usize>,
    /// `lineup.waits` (a receive), `lineup.bounded` (a creation) or `lineup.write` (an atomic's
    /// access).
    flag: Option<bool>,
    /// `lineup.endpoint`: which endpoint was cloned or dropped (`None` also for a name lineup does
    /// not know).
    endpoint: Option<Endpoint>,
    /// `lineup.line`: the line of a switch's place (lineup's `vendor/shuttle-engine`).
    line: Option<u32>,
    /// What `lineup.file`, read after `lineup.line`, says with it: the place of a switch
    /// ([`site_at`]; `Some(None)`: a place lineup does not know).
    site: Option<Option<Site>>,
}

impl Visit for LineupFields {
    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "lineup.channel" => self.channel = usize::try_from(value).ok(),
            "lineup.atomic" => self.atomic = usize::try_from(value).ok(),
            "lineup.joined" => self.joined = usize::try_from(value).ok(),
            "lineup.finished_of" => self.finished_of = usize::try_from(value).ok(),
            "lineup.parked" => self.parked = usize::try_from(value).ok(),
            "lineup.unparked" => self.unparked = usize::try_from(value).ok(),
            "lineup.line" => self.line = u32::try_from(value).ok(),
            _ => {}
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        if matches!(field.name(), "lineup.waits" | "lineup.bounded" | "lineup.write") {
            self.flag = Some(value);
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "lineup.file" {
            // The file is only borrowed for this call: it is looked up now, with the line the
            // engine records before it (a file recorded first leaves the event to its message).
            self.site = self.line.map(|line| site_at(value, line));
        }
        if field.name() == "lineup.endpoint" {
            self.endpoint = match value {
                "cloned sender" => Some(Endpoint::SenderCloned),
                "dropped sender" => Some(Endpoint::SenderDropped),
                "dropped receiver" => Some(Endpoint::ReceiverDropped),
                _ => None,
            };
        }
    }

    /// The message and the `state` field: not formatted.
    fn record_debug(&mut self, _field: &Field, _value: &dyn fmt::Debug) {}
}

impl LineupFields {
    /// The event of a callsite with the fields `lineup.*`, from its line and those fields; `None`
    /// for a callsite without them, or one whose fields do not say what its message would (which
    /// is then parsed from its message).
    fn read(event: &Event<'_>, callsite: usize) -> Option<ShuttleEvent> {
        let meta = event.metadata();
        if !Self::fielded(meta, callsite) {
            return None;
        }
        let mut read = LineupFields::default();
        event.record(&mut read);
        read.event(meta.target(), meta.line()?)
    }

    /// Whether the callsite, the `callsite`th of [`CALLSITES`], has the fields `lineup.*`.
    fn fielded(meta: &Metadata<'_>, callsite: usize) -> bool {
        let fields = meta.fields();
        if is_switch(callsite) {
            fields.field("lineup.line").is_some()
        } else {
            fields.field("lineup.channel").is_some()
                || fields.field("lineup.atomic").is_some()
                || fields.field("lineup.joined").is_some()
                || fields.field("lineup.finished_of").is_some()
                || fields.field("lineup.parked").is_some()
                || fields.field("lineup.unparked").is_some()
        }
    }

    /// What the event of the callsite at `line` of `target` says, with these fields.
    fn event(&self, target: &str, line: u32) -> Option<ShuttleEvent> {
        if line == CALLSITES[0].1 && target == CALLSITES[0].0 {
            return Some(ShuttleEvent::Switch(self.site?));
        }
        if line == JOINING.1 && target == JOINING.0 {
            return Some(ShuttleEvent::Join(self.joined?));
        }
        if line == IS_FINISHED.1 && target == IS_FINISHED.0 {
            return Some(ShuttleEvent::IsFinished(self.finished_of?));
        }
        if line == PARKING.1 && target == PARKING.0 {
            return Some(ShuttleEvent::Park(self.parked?));
        }
        if line == UNPARKING.1 && target == UNPARKING.0 {
            return Some(ShuttleEvent::Unpark(self.unparked?));
        }
        if line == ATOMIC_ACCESS.1 && target == ATOMIC_ACCESS.0 {
            return Some(ShuttleEvent::Atomic {
                address: self.atomic?,
                write: self.flag?,
            });
        }
        if target != RECEIVE.0 {
            return None;
        }
        let a = self.channel?;
        let event = match line {
            SEND => ShuttleEvent::Touch(Family::Channel, a, Some(Reveal::Channel)),
            BLOCKING_SENDER | BLOCKING_RECEIVER => ShuttleEvent::Begin(Family::Channel, a, Covers::ChannelBlock),
            UNBLOCKED_SENDER | UNBLOCKED_RECEIVER => ShuttleEvent::End(Family::Channel, a),
            line if line == RECEIVE.1 => ShuttleEvent::Receive {
                address: a,
                waits: self.flag?,
            },
            line if line == CREATED_CHANNEL.1 => ShuttleEvent::Created(a, self.flag?),
            ENDPOINT => ShuttleEvent::Endpoint(a, self.endpoint?),
            _ => return None,
        };
        Some(event)
    }
}

/// The lines of the callsites of shuttle's `mpsc` (module [`RECEIVE`]`.0`) whose events
/// [`LineupFields`] reads: a send's look, a sender's or receiver's block and unblock, and (lineup's
/// `vendor/shuttle-std`) an endpoint's clone or drop.
const SEND: u32 = 218;
const BLOCKING_SENDER: u32 = 235;
const UNBLOCKED_SENDER: u32 = 252;
const BLOCKING_RECEIVER: u32 = 378;
const UNBLOCKED_RECEIVER: u32 = 393;
const ENDPOINT: u32 = 728;

/// The callsite of `"atomic {read|write} of {:p}"` (lineup's `vendor/shuttle-std`).
const ATOMIC_ACCESS: (&str, u32) = ("shuttle_std::sync::atomic", 331);

/// The callsite of `"thread finished, dropping thread locals"` (shuttle-engine's `thread_fn`).
const THREAD_FINISHED: (&str, u32) = ("shuttle_engine::thread_support", 36);

/// The callsite of `"joining thread {}"` (lineup's `vendor/shuttle-std`).
const JOINING: (&str, u32) = ("shuttle_std::thread", 455);

/// The callsite of `"asking whether thread {} finished"` (lineup's `vendor/shuttle-std`).
const IS_FINISHED: (&str, u32) = ("shuttle_std::thread", 462);

/// The callsite of `"unparking thread {}"` (lineup's `vendor/shuttle-std`).
const UNPARKING: (&str, u32) = ("shuttle_std::thread", 469);

/// The callsite of `"parking thread {}"` (lineup's `vendor/shuttle-std`).
const PARKING: (&str, u32) = ("shuttle_std::thread", 477);

/// Reads one event of a wanted callsite, the `callsite`th of [`CALLSITES`], into the execution's
/// footprints.
fn read(event: &Event<'_>, callsite: usize) {
    let _ = ExecutionContext::try_with(|cx| {
        let Some(mut footprints) = cx.footprints_try() else {
            MISSED.with(|m| m.set(true));
            return;
        };
        if !footprints.is_on() {
            return;
        }
        let Some(task) = footprints.running_task() else {
            footprints.shuttle.forget_channels_if_created(event.metadata());
            return;
        };
        if !footprints.in_flight(task).is_empty() {
            // Inside a primitive of lineup's: no message to read (see `shuttle_event`), but the
            // end of a thread, which a join reads.
            if is_switch(callsite) {
                footprints.shuttle_event(ShuttleEvent::Switch(None));
            }
            let meta = event.metadata();
            if meta.line() == Some(THREAD_FINISHED.1) && meta.target() == THREAD_FINISHED.0 {
                footprints.shuttle_event(ShuttleEvent::Finished);
            }
            footprints.shuttle.forget_channels_if_created(event.metadata());
            return;
        }
        let meta = event.metadata();
        if let Some(parsed) = LineupFields::read(event, callsite) {
            footprints.shuttle_event(parsed);
            return;
        }
        let receive = meta.line() == Some(RECEIVE.1) && meta.target() == RECEIVE.0;
        let parsed = MESSAGE.with(|buffer| {
            let mut buffer = buffer.borrow_mut();
            buffer.clear();
            if receive {
                let mut fields = MessageAndState(&mut buffer, String::new());
                event.record(&mut fields);
                // A receive whose message or state does not read as expected names no channel:
                // its step stays opaque.
                return Some(parse_receive(fields.0, &fields.1).unwrap_or(ShuttleEvent::Receive {
                    address: 0,
                    waits: false,
                }));
            }
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
        wanted(meta) || (self.inner_listens && self.inner.enabled(meta))
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
        if let Some(i) = callsite(meta) {
            read(event, i);
        }
        if self.inner_listens && self.inner.enabled(meta) {
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

    /// Says which subscriber this is ([`lineup_signals::dispatch`]): lineup's `vendor/shuttle-engine`
    /// then sees that a task's default is its execution's, and does not park it at every switch.
    ///
    /// # Safety
    ///
    /// As the trait's: the pointer is `self`'s, for its own type and for
    /// [`Identity`](lineup_signals::dispatch::Identity), a type of no size whose reference is
    /// valid at any address.
    unsafe fn downcast_raw(&self, id: std::any::TypeId) -> Option<*const ()> {
        let answers =
            id == std::any::TypeId::of::<Self>() || id == std::any::TypeId::of::<lineup_signals::dispatch::Identity>();
        answers.then_some(self as *const Self as *const ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::footprint::Footprint;
    use shuttle::current::TaskId;

    /// A subscriber for the tests: every callsite enabled, every event handed to its function.
    struct Listen<F>(F);

    impl<F: Fn(&Event<'_>) + Send + Sync + 'static> Subscriber for Listen<F> {
        fn register_callsite(&self, _meta: &'static Metadata<'static>) -> Interest {
            Interest::always()
        }
        fn enabled(&self, _meta: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _span: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _span: &Id, _values: &Record<'_>) {}
        fn record_follows_from(&self, _span: &Id, _follows: &Id) {}
        fn event(&self, event: &Event<'_>) {
            (self.0)(event)
        }
        fn enter(&self, _span: &Id) {}
        fn exit(&self, _span: &Id) {}
    }

    /// An event's line, and the event read from its fields and from its message.
    type ReadBothWays = (u32, Option<ShuttleEvent>, Option<ShuttleEvent>);

    /// Reads an event of lineup's `vendor/shuttle-std` or `vendor/shuttle-engine` that has the
    /// fields `lineup.*` both ways, from the fields and from the message (and `state`).
    fn read_both_ways(event: &Event<'_>) -> Option<ReadBothWays> {
        let meta = event.metadata();
        let from_fields = LineupFields::read(event, callsite(meta)?)?;
        let (mut message, mut state) = (String::new(), String::new());
        let mut both = MessageAndState(&mut message, String::new());
        event.record(&mut both);
        state.push_str(&both.1);
        let from_message = if meta.line() == Some(RECEIVE.1) && meta.target() == RECEIVE.0 {
            parse_receive(&message, &state)
        } else {
            parse(&message)
        };
        Some((meta.line().unwrap_or(0), Some(from_fields), from_message))
    }

    /// A subscriber that was the default before lineup's still gets every event it wants; none is
    /// offered to `tracing`'s `NoSubscriber`.
    #[test]
    fn the_subscriber_before_lineup_s_gets_its_events() {
        use std::sync::atomic::AtomicUsize as Count;
        use std::sync::Arc;
        assert!(!ShuttleEvents::new(Dispatch::none()).inner_listens);
        let count = Arc::new(Count::new(0));
        let seen = Arc::clone(&count);
        let before = Dispatch::new(Listen(move |_: &Event<'_>| {
            seen.fetch_add(1, Ordering::SeqCst);
        }));
        let lineup = ShuttleEvents::new(before);
        assert!(lineup.inner_listens);
        tracing::dispatcher::with_default(&Dispatch::new(lineup), || {
            tracing::info!("an event of the user's");
        });
        assert_eq!(count.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn lineup_s_subscriber_says_which_it_is() {
        use lineup_signals::dispatch::same;
        let a = Dispatch::new(ShuttleEvents::new(Dispatch::none()));
        let b = Dispatch::new(ShuttleEvents::new(Dispatch::none()));
        assert!(same(&a, &a.clone()), "one subscriber");
        assert!(!same(&a, &b), "two subscribers");
        assert!(!same(&a, &Dispatch::none()), "one that does not say");
        assert!(
            a.downcast_ref::<ShuttleEvents>().is_some(),
            "its own type still answers"
        );
    }

    /// lineup's `vendor/shuttle-engine` does not park a task's default dispatcher when it is lineup's
    /// subscriber, the execution's: a task with a default of its own still has it alone, across
    /// its switches, and the other tasks still have lineup's.
    #[test]
    fn a_task_s_own_default_stays_its_own_across_its_switches() {
        use std::sync::Arc;
        // The events of the task's own target, and of the other task's.
        let mine = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
        let counted = Arc::clone(&mine);
        let dispatch = Dispatch::new(Listen(move |event: &Event<'_>| {
            match event.metadata().target() {
                "lineup_test_mine" => counted.0.fetch_add(1, Ordering::Relaxed),
                "lineup_test_theirs" => counted.1.fetch_add(1, Ordering::Relaxed),
                _ => 0,
            };
        }));
        let _lineup = install();
        shuttle::check_dfs(
            move || {
                let own = dispatch.clone();
                let t = shuttle::thread::spawn(move || {
                    tracing::dispatcher::with_default(&own, || {
                        shuttle::thread::yield_now();
                        tracing::info!(target: "lineup_test_mine", "mine");
                    });
                });
                shuttle::thread::yield_now();
                tracing::info!(target: "lineup_test_theirs", "theirs");
                t.join().unwrap();
            },
            None,
        );
        assert!(
            mine.0.load(Ordering::Relaxed) > 1,
            "the task's own events reach its default"
        );
        assert_eq!(mine.1.load(Ordering::Relaxed), 0, "no other task's event does");
    }

    #[test]
    fn the_fields_of_lineup_s_shuttle_std_say_what_its_messages_say() {
        use shuttle::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
        use shuttle::sync::mpsc::{channel, sync_channel};
        use std::sync::Arc;
        let both = Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = Arc::clone(&both);
        let dispatch = Dispatch::new(Listen(move |event: &Event<'_>| {
            kept.lock().unwrap().extend(read_both_ways(event));
        }));
        tracing::dispatcher::with_default(&dispatch, || {
            shuttle::check_random(
                || {
                    let (tx, rx) = channel::<u32>();
                    let (btx, brx) = sync_channel::<u32>(0);
                    let count = Arc::new(AtomicUsize::new(0));
                    let tx2 = tx.clone();
                    let c = Arc::clone(&count);
                    let t = shuttle::thread::spawn(move || {
                        tx2.send(1).unwrap();
                        btx.send(2).unwrap();
                        tx2.send(3).unwrap();
                        c.fetch_add(1, AtomicOrdering::SeqCst);
                    });
                    let _ = rx.try_recv();
                    let _ = brx.recv();
                    let _ = rx.recv();
                    drop(tx);
                    let _ = rx.recv();
                    t.join().unwrap();
                    shuttle::thread::scope(|s| s.spawn(|| ()).is_finished());
                    shuttle::thread::current().unpark();
                    shuttle::thread::park();
                    count.load(AtomicOrdering::SeqCst);
                    count.store(5, AtomicOrdering::SeqCst);
                    drop(rx);
                },
                20,
            );
        });
        let seen = both.lock().unwrap();
        for (line, from_fields, from_message) in seen.iter() {
            assert_eq!(from_fields, from_message, "the event of line {line}");
        }
        let mut lines: Vec<u32> = seen.iter().map(|(line, _, _)| *line).collect();
        lines.sort_unstable();
        lines.dedup();
        let wanted = [
            SEND,
            BLOCKING_SENDER,
            UNBLOCKED_SENDER,
            RECEIVE.1,
            BLOCKING_RECEIVER,
            UNBLOCKED_RECEIVER,
            CREATED_CHANNEL.1,
            ENDPOINT,
            ATOMIC_ACCESS.1,
            JOINING.1,
            IS_FINISHED.1,
            PARKING.1,
            UNPARKING.1,
            CALLSITES[0].1,
        ];
        for line in wanted {
            assert!(lines.contains(&line), "no event of line {line} was compared: {lines:?}");
        }
        let receives = seen.iter().filter_map(|(_, e, _)| match e {
            Some(ShuttleEvent::Receive { waits, .. }) => Some(*waits),
            _ => None,
        });
        let (waits, looks): (Vec<bool>, Vec<bool>) = receives.partition(|&w| w);
        assert!(
            !waits.is_empty() && !looks.is_empty(),
            "both kinds of receive were compared"
        );
    }

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
            parse("switch from /r/shuttle-std-0.1.5/src/sync/atomic/mod.rs:165:38"),
            Some(ShuttleEvent::Switch(Some(Site::Covered(Covers::Atomic))))
        );
        assert_eq!(
            parse("switch from /r/shuttle-std-0.1.5/src/sync/atomic/mod.rs:166:9"),
            Some(ShuttleEvent::Switch(None))
        );
        assert_eq!(
            parse("atomic read of 0x20"),
            Some(ShuttleEvent::Atomic {
                address: 0x20,
                write: false
            })
        );
        assert_eq!(
            parse("atomic write of 0x20"),
            Some(ShuttleEvent::Atomic {
                address: 0x20,
                write: true
            })
        );
        assert_eq!(parse("atomic write of"), None);
        assert_eq!(parse("Acquire::poll for x"), None);
    }

    /// Task 2 names the atomic access `next` (if any) and stops at an atomic's switch: the
    /// footprint of the step ending there.
    fn atomic_stop(log: &mut FootprintLog, next: Option<(usize, bool)>) -> Footprint {
        if let Some((address, write)) = next {
            log.shuttle_event(ShuttleEvent::Atomic { address, write });
        }
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Covered(Covers::Atomic))));
        let f = end(log);
        log.begin_step(TaskId::from(2));
        f
    }

    #[test]
    fn the_step_resumed_at_an_atomic_s_switch_reads_or_writes_the_atomic_named_before_it() {
        let mut log = log_running(2);
        let before = atomic_stop(&mut log, Some((0x20, false)));
        assert!(!before.opaque);
        assert!(before.accesses.is_empty(), "the load is performed after the switch");
        let load = atomic_stop(&mut log, Some((0x20, true)));
        assert!(!load.opaque);
        assert_eq!(
            load.accesses,
            vec![Access {
                object: named(Family::Atomic, 0),
                kind: Kind::Read
            }],
            "the load, not the store named before the next switch"
        );
        let store = atomic_stop(&mut log, Some((0x28, true)));
        assert_eq!(
            store.accesses,
            vec![Access {
                object: named(Family::Atomic, 0),
                kind: Kind::Write
            }]
        );
        let probe = Footprint {
            accesses: vec![Access {
                object: named(Family::Atomic, 1),
                kind: Kind::Read,
            }],
            ..Footprint::default()
        };
        assert!(
            log.in_flight_conflicts(TaskId::from(2), &probe),
            "the store to another atomic is in flight"
        );
        // Its step then stops at an unknown switch: the access is no longer in flight.
        log.shuttle_event(ShuttleEvent::Switch(None));
        let other = end(&mut log);
        assert_eq!(other.accesses[0].object, named(Family::Atomic, 1));
        assert!(other.opaque, "an unknown switch");
        assert!(!log.in_flight_conflicts(TaskId::from(2), &probe));
    }

    #[test]
    fn an_atomic_s_switch_without_its_event_is_unseen() {
        // The published shuttle-std names no atomic before the switch: both steps are opaque.
        let mut log = log_running(2);
        assert!(atomic_stop(&mut log, None).opaque);
        log.shuttle_event(ShuttleEvent::Atomic {
            address: 0x20,
            write: true,
        });
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Covered(Covers::Atomic))));
        assert!(end(&mut log).opaque, "resumed from an unseen switch");
    }

    #[test]
    fn stores_to_one_shuttle_atomic_commute_only_under_their_fault() {
        let mut log = log_running(2);
        log.fault = Some(ReductionFault::ShuttleAtomicsCommute);
        atomic_stop(&mut log, Some((0x20, true)));
        let store = atomic_stop(&mut log, None);
        assert_eq!(store.accesses[0].kind, Kind::Read);
    }

    #[test]
    fn channel_and_thread_messages_parse_into_events() {
        assert_eq!(parse("joining thread 3"), Some(ShuttleEvent::Join(3)));
        assert_eq!(
            parse("asking whether thread 4 finished"),
            Some(ShuttleEvent::IsFinished(4))
        );
        assert_eq!(parse("joining thread"), None);
        assert_eq!(parse("parking thread 2"), Some(ShuttleEvent::Park(2)));
        assert_eq!(parse("unparking thread 5"), Some(ShuttleEvent::Unpark(5)));
        assert_eq!(parse("created channel 0x30"), Some(ShuttleEvent::Created(0x30, false)));
        assert_eq!(
            parse("created bounded channel 0x30"),
            Some(ShuttleEvent::Created(0x30, true))
        );
        assert_eq!(
            parse("dropped sender of channel 0x30"),
            Some(ShuttleEvent::Endpoint(0x30, Endpoint::SenderDropped))
        );
        assert_eq!(
            parse("dropped receiver of channel 0x30"),
            Some(ShuttleEvent::Endpoint(0x30, Endpoint::ReceiverDropped))
        );
        assert_eq!(
            parse("cloned sender of channel 0x30"),
            Some(ShuttleEvent::Endpoint(0x30, Endpoint::SenderCloned))
        );
        assert_eq!(parse("moved sender of channel 0x30"), None);
        assert_eq!(
            parse("sender TaskId(2) starting send on channel 0x30"),
            Some(ShuttleEvent::Touch(Family::Channel, 0x30, Some(Reveal::Channel)))
        );
        assert_eq!(
            parse("blocking receiver TaskId(1) on channel 0x30"),
            Some(ShuttleEvent::Begin(Family::Channel, 0x30, Covers::ChannelBlock))
        );
        assert_eq!(
            parse("unblocked sender TaskId(1) on channel 0x30"),
            Some(ShuttleEvent::End(Family::Channel, 0x30))
        );
        assert_eq!(
            parse("thread finished, dropping thread locals"),
            Some(ShuttleEvent::Finished)
        );
        assert_eq!(
            parse("switch from /r/shuttle-engine-0.1.7/src/runtime/execution.rs:1028:9"),
            Some(ShuttleEvent::Switch(Some(Site::Revealed(Reveal::Spawn))))
        );
        assert_eq!(
            parse("switch from vendor/shuttle-std-0.1.5/src/sync/mpsc.rs:389:13"),
            Some(ShuttleEvent::Switch(Some(Site::Covered(Covers::ChannelBlock))))
        );
    }

    /// A `recv` that no receiver waits before consumes; a `try_recv`, or a `recv` behind a waiting
    /// receiver, does not; a receive whose state does not read as expected is not one.
    #[test]
    fn a_receive_waits_only_as_recv_with_no_receiver_before_it() {
        let state = |waiting: &str| {
            format!("Channel {{ num_messages: 0 known_senders 1 known_receivers 1 waiting_senders: [[]] waiting_receivers: [{waiting}] }}")
        };
        let receive = |address, waits| Some(ShuttleEvent::Receive { address, waits });
        assert_eq!(
            parse_receive("starting recv on channel 0x40", &state("[]")),
            receive(0x40, true)
        );
        assert_eq!(
            parse_receive("starting recv on channel 0x40", &state("[TaskId(3)]")),
            receive(0x40, false)
        );
        assert_eq!(
            parse_receive("starting try_recv on channel 0x40", &state("[]")),
            receive(0x40, false)
        );
        assert_eq!(parse_receive("starting peek on channel 0x40", &state("[]")), None);
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

    /// The place of a join's switch: when the thread had finished (272), or its block (287).
    fn join_switch(line: u32) -> ShuttleEvent {
        ShuttleEvent::Switch(site_at("shuttle-std-0.1.5/src/thread.rs", line))
    }

    /// Task 2 joins the thread of task 3 and blocks (`event`: lineup's `vendor/shuttle-std` names
    /// the thread); task 3's last step: their footprints, and the step of task 2 after the join.
    fn join_and_finish(fault: Option<ReductionFault>, event: bool) -> (Footprint, Footprint, Footprint) {
        let mut log = log_running(2);
        log.fault = fault;
        if event {
            log.shuttle_event(ShuttleEvent::Join(3));
        }
        log.shuttle_event(join_switch(287));
        let join = end(&mut log);
        log.begin_step(TaskId::from(3));
        log.shuttle_event(ShuttleEvent::Finished);
        let last = end(&mut log);
        log.begin_step(TaskId::from(2));
        log.shuttle_event(ShuttleEvent::Switch(None));
        let after = end(&mut log);
        (join, last, after)
    }

    #[test]
    fn a_join_writes_the_end_of_the_thread_whose_last_step_writes_it() {
        let (join, last, after) = join_and_finish(None, true);
        let end_of_3 = Access {
            object: finished_of(3),
            kind: Kind::Write,
        };
        assert!(!join.opaque, "the join's block is seen");
        assert_eq!(join.accesses, vec![end_of_3]);
        assert!(!last.opaque, "a thread's last step ends without a switch");
        assert_eq!(last.accesses, vec![end_of_3]);
        assert!(join.conflicts(&last, 0));
        assert_eq!(after.accesses, vec![end_of_3], "in flight over the join's switch");
        // A join of a thread that had finished switches at line 272: seen too.
        let mut log = log_running(2);
        log.shuttle_event(ShuttleEvent::Join(4));
        log.shuttle_event(join_switch(272));
        let finished = end(&mut log);
        assert!(!finished.opaque);
        assert_eq!(finished.accesses[0].object, finished_of(4));
        // Another thread's end is another object.
        let mut log = log_running(5);
        log.shuttle_event(ShuttleEvent::Finished);
        assert!(!join.conflicts(&end(&mut log), 0));
    }

    #[test]
    fn asking_whether_a_thread_finished_reads_the_end_its_last_step_writes() {
        let mut log = log_running(2);
        log.shuttle_event(ShuttleEvent::IsFinished(3));
        log.shuttle_event(ShuttleEvent::Switch(None));
        let ask = end(&mut log);
        assert!(ask.accesses.contains(&Access {
            object: finished_of(3),
            kind: Kind::Read,
        }));
        log.begin_step(TaskId::from(3));
        log.shuttle_event(ShuttleEvent::Finished);
        let last = end(&mut log);
        let mut ask_seen = ask.clone();
        ask_seen.opaque = false;
        assert!(ask_seen.conflicts(&last, 0), "the read and the end conflict");
        let mut other = ask_seen.clone();
        other.accesses = vec![Access {
            object: finished_of(4),
            kind: Kind::Read,
        }];
        assert!(!other.conflicts(&last, 0), "another thread's end");
        assert!(!ask_seen.conflicts(&ask_seen, 0), "two reads commute");
    }

    #[test]
    fn a_join_without_its_event_is_unseen_and_commutes_with_the_end_only_under_its_fault() {
        // The published shuttle-std names no thread: the join's steps are opaque, as before.
        let (join, _, _) = join_and_finish(None, false);
        assert!(join.opaque);
        let (join, last, _) = join_and_finish(Some(ReductionFault::ShuttleJoinsCommute), true);
        assert!(!join.opaque && !last.opaque);
        assert!(!join.conflicts(&last, 0), "both read the thread's end");
    }

    /// Task 2 parks and blocks (`events`: lineup's `vendor/shuttle-std` names the threads); task 3
    /// unparks it: the park's step, the unpark's step up to its switch and the step after it (which
    /// makes the token available), and task 2's step after its park.
    fn park_and_unpark(fault: Option<ReductionFault>, events: bool) -> [Footprint; 4] {
        let mut log = log_running(2);
        log.fault = fault;
        if events {
            log.shuttle_event(ShuttleEvent::Park(2));
        }
        log.shuttle_event(join_switch(354));
        let park = end(&mut log);
        log.begin_step(TaskId::from(3));
        if events {
            log.shuttle_event(ShuttleEvent::Unpark(2));
        }
        log.shuttle_event(join_switch(46));
        let before = end(&mut log);
        log.begin_step(TaskId::from(3));
        // It ends at a yield, a stop lineup sees.
        let mut unpark = Footprint::default();
        log.end_step(true, false, &mut unpark);
        log.begin_step(TaskId::from(2));
        log.shuttle_event(ShuttleEvent::Switch(None));
        let after = end(&mut log);
        [park, before, unpark, after]
    }

    #[test]
    fn a_park_and_an_unpark_write_the_thread_s_token() {
        let [park, before, unpark, after] = park_and_unpark(None, true);
        let token_of_2 = Access {
            object: token_of(2),
            kind: Kind::Write,
        };
        assert!(
            !park.opaque && !before.opaque && !unpark.opaque,
            "{park:?} {before:?} {unpark:?}"
        );
        assert_eq!(
            park.accesses,
            vec![token_of_2],
            "the park takes the token or blocks for it"
        );
        assert!(before.accesses.is_empty(), "the unpark acts after its switch");
        assert_eq!(unpark.accesses, vec![token_of_2], "the step after the unpark's switch");
        assert!(park.conflicts(&unpark, 0));
        assert_eq!(after.accesses, vec![token_of_2], "in flight over the park's switch");
        // Another thread's token is another object.
        let mut log = log_running(5);
        log.shuttle_event(ShuttleEvent::Unpark(4));
        log.shuttle_event(join_switch(46));
        end(&mut log);
        log.begin_step(TaskId::from(5));
        let other = end(&mut log);
        assert_eq!(other.accesses[0].object, token_of(4));
        assert!(!park.conflicts(&other, 0));
    }

    #[test]
    fn a_park_without_its_event_is_unseen_and_commutes_with_an_unpark_only_under_its_fault() {
        // The published shuttle-std names no thread: the unpark's step after its switch is opaque,
        // as before (and the park's own step touches nothing lineup sees).
        let [_, _, unpark, _] = park_and_unpark(None, false);
        assert!(unpark.opaque);
        let [park, _, unpark, _] = park_and_unpark(Some(ReductionFault::ShuttleParksCommute), true);
        assert!(!park.opaque && !unpark.opaque);
        assert!(!park.conflicts(&unpark, 0), "both read the token");
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

    /// A receive resumed from its switch (mpsc.rs:328), on a channel whose creation lineup saw
    /// (its `vendor/shuttle-std`) and on one whose creation it did not (the published crate).
    fn receive_step(created: bool) -> Footprint {
        let mut log = log_running(3);
        if created {
            log.shuttle_event(ShuttleEvent::Created(0x50, false));
        }
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Revealed(Reveal::Look))));
        assert!(log.shuttle.stopped_before_look(3));
        end(&mut log);
        log.begin_step(TaskId::from(3));
        log.shuttle_event(ShuttleEvent::Receive {
            address: 0x50,
            waits: true,
        });
        // The next receive's switch.
        log.shuttle_event(ShuttleEvent::Switch(Some(Site::Revealed(Reveal::Look))));
        end(&mut log)
    }

    #[test]
    fn a_channel_lineup_saw_created_is_named_and_one_it_did_not_is_opaque() {
        let seen = receive_step(true);
        assert!(!seen.opaque);
        assert!(seen.accesses.iter().any(|a| a.kind == Kind::Consume));
        assert!(receive_step(false).opaque);
    }

    /// A creation lineup could not name forgets every name: the address may be an old channel's.
    #[test]
    fn a_creation_lineup_cannot_name_forgets_the_channels() {
        let mut log = log_running(3);
        log.shuttle_event(ShuttleEvent::Created(0x50, false));
        assert_eq!(log.shuttle.channels.len(), 1);
        MISSED.with(|m| m.set(true));
        end(&mut log);
        assert!(log.shuttle.channels.is_empty());
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

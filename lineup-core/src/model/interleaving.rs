//! The interleaving of a violating execution: every step its threads took, in the order they took
//! them, recorded on demand when a check fails (the violating schedule is replayed once more with
//! step recording on; the exploration itself records nothing).
//!
//! A [`Step`] is what one thread did at one scheduling point of lineup's primitives (an atomic's
//! load, a lock, a send, ...), with the values it read and wrote, the object it touched and the
//! place in the user's code that called it; a [`Action::Switch`] says why the scheduler moved from
//! one thread to another there. Steps of primitives lineup cannot see (shuttle's own, used
//! directly) are [`Action::Unseen`]: a scheduling point, the thread, nothing invented; under
//! loom, a scheduling point of loom's own primitives is [`Action::Backend`], with what loom's
//! event says of it.
//!
//! The record serializes (serde): under loom it comes from the child process that replayed the
//! violating execution.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

/// A name in a record: a `&'static str` (spelled through this alias so that serde's derive reads
/// it with [`interned`], not borrowed from the input).
type Name = &'static str;

/// A name (a kind, a method) read back from a serialized record, as the `&'static str` the record
/// holds: each distinct name is kept once for the life of the process (a record has a handful,
/// from a fixed vocabulary).
fn interned<'de, D: Deserializer<'de>>(deserializer: D) -> Result<&'static str, D::Error> {
    use std::collections::BTreeSet;
    use std::sync::Mutex;
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let name = String::deserialize(deserializer)?;
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&known) = names.get(name.as_str()) {
        return Ok(known);
    }
    let kept: &'static str = Box::leak(name.into_boxed_str());
    names.insert(kept);
    Ok(kept)
}

/// A place in the user's source code (from `#[track_caller]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SourceLocation {
    /// The file, as the compiler names it (relative to the crate's workspace).
    pub file: String,
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1.
    pub column: u32,
}

impl SourceLocation {
    /// The location of a `#[track_caller]` caller.
    pub fn from_caller(location: &std::panic::Location<'_>) -> Self {
        Self {
            file: location.file().to_string(),
            line: location.line(),
            column: location.column(),
        }
    }

    /// `file:line`, the file without its folders (for narrow columns).
    pub fn short(&self) -> String {
        let file = self.file.rsplit(['/', '\\']).next().unwrap_or(&self.file);
        format!("{file}:{}", self.line)
    }
}

/// Whether `site` is no place in the user's code: in Rust's own library or a dependency (an object
/// made by `Arc::default`, say), or in lineup's own primitives (a `#[track_caller]` chain that a
/// closure or a trait broke). Such a site is not shown: no location rather than a wrong one.
pub(crate) fn not_the_users(site: &std::panic::Location<'_>) -> bool {
    let file = site.file().replace('\\', "/");
    file.starts_with("/rustc/") || file.contains("/.cargo/registry/") || file.contains("lineup-core/src/")
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// The stable name of an object a step touched: its kind, its number in the execution (by first
/// touch, the same in every replay of the schedule), and where the user's code created it, when
/// lineup knows (`#[track_caller]` on the constructors: the field's initializer).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ObjectName {
    /// `AtomicUsize`, `Mutex`, `Condvar`, `channel`, ...
    #[serde(deserialize_with = "interned")]
    pub kind: Name,
    /// Its number in the execution.
    pub number: u64,
    /// Where it was created, if known.
    pub created_at: Option<SourceLocation>,
}

impl fmt::Display for ObjectName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.kind, self.number)?;
        if let Some(at) = &self.created_at {
            write!(f, " (new at {})", at.short())?;
        }
        Ok(())
    }
}

/// Why the scheduler switched from one thread to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SwitchReason {
    /// The thread could have gone on: a preemption (counted against the bound).
    Preemption,
    /// The thread yielded (`yield_now`, a spin hint, an `.await` that suspended).
    Yield,
    /// The thread had run many steps in a row or spun on an unchanged value: a fair switch.
    FairSwitch,
    /// The thread blocked (a lock held, a wait, an empty channel, a join).
    Blocked,
    /// The thread finished.
    Finished,
}

impl fmt::Display for SwitchReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SwitchReason::Preemption => "preempted",
            SwitchReason::Yield => "yielded",
            SwitchReason::FairSwitch => "fair switch",
            SwitchReason::Blocked => "blocked",
            SwitchReason::Finished => "finished",
        })
    }
}

/// What a step did. Values are rendered with `Debug`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    /// An atomic load that read `value`.
    Load {
        /// The value read.
        value: String,
    },
    /// An atomic store of `value`.
    Store {
        /// The value written.
        value: String,
    },
    /// An atomic swap: read `old`, wrote `new`.
    Swap {
        /// The value read.
        old: String,
        /// The value written.
        new: String,
    },
    /// A compare-exchange that expected `expected` and found `found`; it wrote `new` if it
    /// succeeded.
    CompareExchange {
        /// The value it expected.
        expected: String,
        /// The value it would write.
        new: String,
        /// The value it read.
        found: String,
        /// Whether it wrote.
        succeeded: bool,
    },
    /// A read-modify-write (`fetch_add`, ..., `fetch_update`): read `old`, then wrote `new`
    /// (`None`: `fetch_update`'s function declined).
    FetchOp {
        /// The method (`fetch_add`, ...).
        #[serde(deserialize_with = "interned")]
        op: Name,
        /// The value read.
        old: String,
        /// The value written.
        new: Option<String>,
    },
    /// A lock taken (`kind`: `lock`, `read`, `write`).
    Lock {
        /// `lock`, `read` or `write`.
        #[serde(deserialize_with = "interned")]
        kind: Name,
    },
    /// A `try_lock` (`try_read`, `try_write`): whether it got the lock.
    TryLock {
        /// `try_lock`, `try_read` or `try_write`.
        #[serde(deserialize_with = "interned")]
        kind: Name,
        /// It got the lock.
        acquired: bool,
    },
    /// A lock released.
    Unlock,
    /// A wait (a condition variable's, a barrier's, a park) returned.
    Wait {
        /// `wait`, `barrier wait`, `park`.
        #[serde(deserialize_with = "interned")]
        kind: Name,
    },
    /// A notification (`notify_one`, `notify_all`, `unpark`).
    Notify {
        /// `notify_one`, `notify_all`, `unpark`.
        #[serde(deserialize_with = "interned")]
        kind: Name,
    },
    /// A send on a channel (`ok`: the receiver was still there).
    Send {
        /// The receiver was still there.
        ok: bool,
    },
    /// A receive on a channel (`got`: a message; else empty or disconnected).
    Receive {
        /// It got a message.
        got: bool,
    },
    /// A thread spawned (the new task's number).
    Spawn {
        /// The new task's number.
        task: usize,
    },
    /// A join of a thread returned.
    Join,
    /// A `Once` (or `OnceLock`) step: `ran` the initializer, or found it done.
    Once {
        /// It ran the initializer.
        ran: bool,
    },
    /// A yield (`yield_now`, a spin hint).
    Yield,
    /// An `.await` that suspended the operation's future (it resumed here).
    Await,
    /// The exploration dropped a [cancellable](crate::Invocation::cancellable) operation's
    /// future, which had returned `Pending` at poll number `polls`: the operation was cancelled.
    Cancel {
        /// The poll after which the future was dropped (from 1).
        polls: u32,
    },
    /// A scheduling point of a primitive lineup does not wrap (shuttle's own, used directly; the
    /// partial-order reduction may see what it touches, the trace records nothing of it): only
    /// the thread and the place in the schedule are known.
    Unseen,
    /// A scheduling point of a primitive of the backend's own that lineup does not wrap (loom's,
    /// used directly), as the backend's event names it (`Load`, `Store`, `Rmw`, `Opaque`, ...):
    /// no values, no source location.
    Backend {
        /// What the backend's event says the step is.
        event: String,
    },
    /// The scheduler switched from this step's thread to `to` (a task number).
    Switch {
        /// The task that runs next (`None`: none; the execution is stuck).
        to: Option<usize>,
        /// Why.
        reason: SwitchReason,
    },
}

impl Action {
    /// The action in words, on `object` (its name as the caller wants it shown) if it touched one.
    pub fn describe(&self, object: Option<&str>) -> String {
        let o = object.map(|o| format!(" {o}")).unwrap_or_default();
        match self {
            Action::Load { value } => format!("load{o} -> {value}"),
            Action::Store { value } => format!("store{o} <- {value}"),
            Action::Swap { old, new } => format!("swap{o}: {old} -> {new}"),
            Action::CompareExchange {
                expected,
                new,
                succeeded: true,
                ..
            } => format!("compare_exchange{o}({expected} -> {new}): succeeded"),
            Action::CompareExchange {
                expected, new, found, ..
            } => format!("compare_exchange{o}({expected} -> {new}): failed, found {found}"),
            Action::FetchOp {
                op,
                old,
                new: Some(new),
            } => format!("{op}{o}: {old} -> {new}"),
            Action::FetchOp { op, old, new: None } => format!("{op}{o}: read {old}, wrote nothing"),
            Action::Lock { kind } => format!("{kind}{o}"),
            Action::TryLock { kind, acquired } => {
                format!("{kind}{o}: {}", if *acquired { "acquired" } else { "busy" })
            }
            Action::Unlock => format!("unlock{o}"),
            Action::Wait { kind } => format!("{kind}{o} returned"),
            Action::Notify { kind } => format!("{kind}{o}"),
            Action::Send { ok } => format!("send{o}{}", if *ok { "" } else { ": disconnected" }),
            Action::Receive { got } => format!("receive{o}{}", if *got { "" } else { ": nothing" }),
            Action::Spawn { task } => format!("spawn{o}: task {task}"),
            Action::Join => format!("join{o}"),
            Action::Once { ran } => format!("call_once{o}: {}", if *ran { "ran" } else { "done already" }),
            Action::Yield => "yield".to_string(),
            Action::Await => ".await resumed".to_string(),
            Action::Cancel { polls } => format!("future dropped after poll {polls}: cancelled"),
            Action::Unseen => "scheduling point of a shuttle primitive (no values recorded)".to_string(),
            Action::Backend { event } => format!("{event}{o} (loom's own primitive: values not seen)"),
            Action::Switch { to: Some(to), reason } => format!("-- {reason}, switch to task {to} --"),
            Action::Switch { to: None, reason } => format!("-- {reason}, no thread can run --"),
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(None))
    }
}

/// One recorded step of an execution.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Step {
    /// The task (shuttle's number: 0 is the main thread) that took it.
    pub task: usize,
    /// The operation the task ran at the step (threads an operation spawned belong to it), or
    /// `None` for the object's own threads and lineup's harness.
    pub op: Option<usize>,
    /// What it did.
    pub action: Action,
    /// The object it touched, if any.
    pub object: Option<ObjectName>,
    /// Where the user's code called the primitive, if known.
    pub location: Option<SourceLocation>,
    /// How many call and return events of the history came before it.
    pub events_before: usize,
}

impl Step {
    /// The step in one line: what it did, to which object, where.
    pub fn describe(&self) -> String {
        let object = self.object.as_ref().map(ToString::to_string);
        let mut text = self.action.describe(object.as_deref());
        if let Some(at) = &self.location {
            text.push_str(&format!("  @ {}", at.short()));
        }
        text
    }
}

/// The object's state (its `Debug`) after an operation returned, when asked for
/// (`#[invocations(state)]`, `Subject::with_state`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StateAfter {
    /// The operation.
    pub op: usize,
    /// The object's `Debug`.
    pub state: String,
}

/// Every step of one execution, in order, as recorded by a replay of its schedule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Interleaving {
    /// The steps, in the order they took effect.
    pub steps: Vec<Step>,
    /// The object's state after each operation, if asked for.
    pub states: Vec<StateAfter>,
    /// Preemptions in the schedule (switches away from a thread that could have gone on).
    pub preemptions: usize,
    /// The report shows every step (`LINEUP_TRACE=full`), not only the steps that matter.
    pub full: bool,
}

impl Interleaving {
    /// The steps of operation `op`, in order.
    pub fn steps_of(&self, op: usize) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(move |s| s.op == Some(op))
    }

    /// The steps that are not switches.
    pub fn actions(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(|s| !matches!(s.action, Action::Switch { .. }))
    }
}

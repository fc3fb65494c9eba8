//! Settings of a check: [`Config`], with the phase-2 [`Strategy`] and [`Interlude`] it names.

pub(crate) mod interlude;
pub(crate) mod strategy;

pub use interlude::Interlude;
pub use strategy::{Strategy, StrategyParseError};

/// The default [`Config::shortest_schedule`]: executions spent at most on showing a violation's
/// shortest schedule.
pub const DEFAULT_SHORTEST_SCHEDULE: u64 = 2_000;

/// The default [`Config::max_cancellations`]: the most operations one execution cancels.
pub const DEFAULT_MAX_CANCELLATIONS: u32 = 2;

/// Settings of [`check`](crate::check). The defaults are the paper's.
///
/// ```
/// let config = lineup_core::Config { preemption_bound: 1, ..Default::default() };
/// assert!(config.check_stuck);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Phase 2 explores every schedule with at most this many preemptions: switches away from a
    /// thread that could still run, inside an operation or between two of its operations, as in
    /// CHESS. Switches at yields and away from blocked or finished threads are free. Default 2,
    /// as in CHESS and the paper.
    pub preemption_bound: u32,
    /// Check stuck histories (Def. 2). Switching this off reduces the check to classic
    /// linearizability, which cannot see erroneous blocking (paper §2.2.2). Default on.
    pub check_stuck: bool,
    /// A set of threads is livelocked when each of them has yielded (`yield_now`, spin hints, or
    /// a fair switch, see [`fair_switch_steps`](Self::fair_switch_steps)) this many times within
    /// its current operation while no operation was called or returned anywhere. Phase 1 and
    /// phase 2 use the same bound, so a spin-wait is judged alike in both. Default 500.
    pub spin_bound: u32,
    /// A thread that has run this many scheduling steps in a row (without a yield, and without
    /// another thread running in between) is switched away from for free, to the thread that ran
    /// least recently, in both phases: a *fair* switch, not counted against the preemption bound.
    /// A loop that spins on `std::hint::spin_loop()` (a CPU hint that yields to no scheduler) then
    /// lets the thread it waits for run, as any real machine would, instead of spinning until the
    /// step limit in a schedule that is not fair. Each fair switch counts as a yield towards
    /// [`spin_bound`](Self::spin_bound). Lower values explore spin loops faster (each iteration
    /// that can be preempted is a branch of the search); higher ones switch less often inside long
    /// operations. Default 64.
    pub fair_switch_steps: u32,
    /// An execution that takes this many scheduling steps is stopped and *inconclusive*: its
    /// history is not judged, and [`CheckStats::inconclusive_executions`](crate::CheckStats)
    /// counts it (in phase 1, where every serial history is needed for the specification, it is a
    /// [`CheckError::StepLimit`](crate::CheckError::StepLimit)). Spin loops end long before it
    /// (fair switches, and livelock after `spin_bound` of them): it only stops a thread that keeps
    /// making progress for that long. Default 100 000.
    pub max_steps: u64,
    /// Phase 2 stops after this many executions (`None`: explore every schedule within the
    /// preemption bound). Phase 1 is never bounded. Default `None`.
    pub max_executions: Option<u64>,
    /// The longest one check may take (`None`: as long as it needs). When it is over, a phase 1
    /// that has not finished stops and the check returns [`CheckError::Unfinished`](crate::CheckError):
    /// the matrix is *inconclusive*, never judged (phase 1 is never cut short and counted, since
    /// the specification needs every serial history); a phase 2 stops where it is, and
    /// [`CheckStats::unfinished`](crate::CheckStats) says that the verdict covers only the
    /// executions that ran. A [`LineupTest`](crate::LineupTest) with a time budget gives each check
    /// its share. The loom backend ignores it. Default `None`.
    pub max_duration: Option<std::time::Duration>,
    /// How much the check's sets of distinct executions may hold (phase 1's serial traces and
    /// histories, phase 2's fingerprints of the histories it judged). Past it the check ends with
    /// [`CheckError::MemoryLimit`](crate::CheckError::MemoryLimit), no verdict, instead of growing
    /// until the kernel's out-of-memory killer ends the process. Default
    /// [`MemoryLimit::Auto`](crate::MemoryLimit): half of the memory available, read once the sets
    /// hold 16 MiB.
    pub max_memory: crate::memory_limit::MemoryLimit,
    /// Accept a check in which every operation panicked in every serial execution (an object whose
    /// operations are all meant to panic). Off, such a check is a
    /// [`CheckError::Vacuous`](crate::CheckError::Vacuous): it cannot fail, so it is no pass. A
    /// response that shows a foreign runtime (another shuttle or loom) is an error either way.
    /// Default off.
    pub allow_all_panics: bool,
    /// Under loom (`--cfg loom`): real-time order is happens-before. When one operation returns
    /// before another is called, everything the first did happens-before the second, as
    /// linearizability's real-time order presumes (each call and return does an acquire-release
    /// read-modify-write of one harness atomic, inside the operation's interval). Weak-memory
    /// behaviour inside overlapping operations is still explored and labelled. Off: loom's bare
    /// C11 model, in which an operation called after another returned may still load values older
    /// than that operation stored (a correct `SeqCst` counter's `get` can miss a finished `inc`,
    /// because loom treats `SeqCst` loads as `Acquire`), which is linearizability with
    /// happens-before in place of real time. shuttle is sequentially consistent and ignores it.
    /// Default on.
    pub real_time_happens_before: bool,
    /// How many OS threads explore one matrix on the shuttle backend (`0`: one per core). They
    /// split each phase's tree of schedules by prefix and steal work from each other; every
    /// execution is still explored once, and the verdict and the violation reported (the first one
    /// in depth-first order) do not depend on their number. A replay, and phase 2 with
    /// [`max_executions`](Self::max_executions), run on one. loom explores with its own search and
    /// ignores it. Default `0`.
    pub workers: usize,
    /// How phase 2 explores (see [`Strategy`] and `docs/strategies.md`):
    /// exhaustive preemption-bounded DFS by default. `LINEUP_STRATEGY` overrides it in
    /// [`LineupTest`](crate::LineupTest)s.
    pub strategy: Strategy,
    /// `pb-dfs`: at a yield (`yield_now`, `lineup::hint::spin_loop`) the thread that ran least
    /// recently runs next, for free; up to this many times per execution, every other thread that
    /// can run is an option too (a race that needs one particular thread after a yield). Default 1.
    /// With [`yield_to_self`](Self::yield_to_self) the yielding thread itself is one of them.
    /// Measured in `docs/yield-choices-measurements.md`.
    pub yield_choices: u32,
    /// `pb-dfs`: at a yield choice (see [`yield_choices`](Self::yield_choices)) the yielding thread
    /// itself may run again next, as a spinning core does (it re-reads the flag before the thread
    /// it waits for is ever descheduled): a lost wake-up in a spin-then-park lock that shows only
    /// when the spinner goes on right after its own `spin_loop()`. Each such choice counts
    /// against `yield_choices`; the fair choice (the thread that ran least recently) stays the
    /// free default. It makes a yield with one other thread a choice too, so it costs on every
    /// matrix that yields: off by default, for the deepening stages (see
    /// `docs/yield-choices-measurements.md`). Default off.
    pub yield_to_self: bool,
    /// `pb-dfs`: how a thread that spins on an unchanged value is bounded or pruned (see
    /// [`SpinPruning`] and `docs/strategies.md`). A *repeated read*: the thread ran the last two
    /// steps with no yield or fair switch between them, the last one read one of `lineup::sync`'s
    /// atomics and nothing else (no call or return), and its next step is the same read, called at
    /// the same place in the source (`#[track_caller]`); no other thread ran meanwhile, so it reads
    /// what it read. Steps of primitives lineup cannot see (shuttle's own atomics) are never
    /// repeated reads. Default [`SpinPruning::SwitchAfter`]`(5)`: the fair switch after 5 steps in
    /// a row when the last is a repeated read (instead of `fair_switch_steps`), nothing pruned;
    /// `lineup-zoo/tests/spin_pruning.rs` compares the distinct histories with `Off`.
    pub spin_pruning: SpinPruning,
    /// Partial-order reduction (sleep sets) in phase 1 and in phase 2's `pb-dfs`: an execution
    /// that only reorders independent steps of one already explored is not explored again (see
    /// `docs/partial-order-reduction.md`). Steps of `lineup::sync`'s primitives, atomics and
    /// channels and of `lineup::thread::spawn` are seen, and so are those of shuttle's own
    /// primitives used directly (`Mutex`, `Condvar`, `RwLock`, `Barrier`, `Once`, thread spawns;
    /// its `mpsc` channels and atomics with lineup's shuttle-std, `vendor/README.md`), and, with
    /// lineup's shuttle-tokio-impl-inner, tokio's `mpsc`, `oneshot`, `Mutex`, `RwLock`, `Notify` and `Semaphore` and the polls of the tasks of
    /// `tokio::spawn` and of asynchronous operations; any other scheduling point (another future's
    /// poll, tokio's other primitives) is dependent with everything. Every distinct
    /// history found without it is still found, at the same bound, and phase 1 stays exact.
    /// The other strategies ignore it. `LINEUP_REDUCTION` overrides it in
    /// [`LineupTest`](crate::LineupTest)s. Default [`Reduction::Auto`]: on for objects with
    /// threads of their own (actors), which it makes checkable at all, off for the others, on
    /// which it finds the same bugs a little more slowly (see `docs/strategies.md`).
    pub reduction: Reduction,
    /// A sample of schedules run in the middle of an exhaustive phase 2 whose tree turns out large
    /// (see [`Interlude`]): by default 1,000 executions of PCT at depth 3 once
    /// `pb-dfs` has run 10,000 without finishing, then the search goes on to the end. Trees within
    /// 10,000 executions (every zoo matrix up to 3x3 at bound 2) are explored exactly as without it.
    /// `None` turns it off. A sampling [`strategy`](Self::strategy), a replay and a bounded
    /// [`max_executions`](Self::max_executions) below `after` never run it. `LINEUP_INTERLUDE`
    /// overrides it in [`LineupTest`](crate::LineupTest)s.
    pub interlude: Option<Interlude>,
    /// The executions a failing check (and a [`LineupTest`](crate::LineupTest), after shrinking)
    /// may spend on the search for a shorter schedule of its violation: one that reaches the same
    /// violating history with fewer preemptions, then fewer context switches (see
    /// [`shorten_schedule`](crate::shorten_schedule)). An execution budget, not a time, so the
    /// schedule shown depends on neither the machine nor the number of workers; when it runs out,
    /// the best schedule found so far (or the one phase 2 found) is shown. `0` shows the schedule
    /// phase 2 found. Default [`DEFAULT_SHORTEST_SCHEDULE`] (2 000).
    pub shortest_schedule: u64,
    /// The most operations one execution cancels, when the subject has
    /// [cancellable](crate::Invocation::cancellable) invocations (a bound, as the preemption bound
    /// is). Phase 2 offers a *cancellation point* after every poll of a cancellable operation that
    /// returns `Pending`, while fewer than this many were cancelled: a choice of two (drop the
    /// pending future there, or go on), explored under every strategy like a choice among
    /// threads. Phase 1 offers, before each cancellable operation's first poll, to skip it (the
    /// serial histories without it), while fewer than this many were skipped, so that a witness
    /// may leave out any set of operations phase 2 can cancel. Partial-order reduction is off for
    /// a subject with cancellable invocations. `0` turns cancellation off. A replay token replays
    /// under the bound it was found with. Default [`DEFAULT_MAX_CANCELLATIONS`] (2);
    /// `lineup-bench cancel` measures its cost.
    pub max_cancellations: u32,
    /// A deliberately broken reduction, for the tests that show the superset property can fail.
    /// Never set it otherwise.
    #[doc(hidden)]
    pub reduction_fault: Option<ReductionFault>,
}

/// Whether the partial-order reduction is on (see [`Config::reduction`]). Written `on`, `off` or
/// `auto` (also `1`/`0`, `true`/`false`, `yes`/`no`):
///
/// ```
/// use lineup_core::Reduction;
/// assert_eq!("auto".parse::<Reduction>(), Ok(Reduction::Auto));
/// assert_eq!("1".parse::<Reduction>(), Ok(Reduction::On));
/// assert_eq!(Reduction::from(false), Reduction::Off);
/// assert!("sometimes".parse::<Reduction>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// Never.
    Off,
    /// Always.
    On,
    /// When the object has threads of its own: threads its constructor spawned (actors) or that
    /// outlive the operation that spawned them, seen in a first serial execution (one more
    /// execution per exploration).
    #[default]
    Auto,
}

impl From<bool> for Reduction {
    fn from(on: bool) -> Self {
        if on {
            Reduction::On
        } else {
            Reduction::Off
        }
    }
}

impl std::fmt::Display for Reduction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reduction::Off => "off",
            Reduction::On => "on",
            Reduction::Auto => "auto",
        })
    }
}

impl std::str::FromStr for Reduction {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "on" | "1" | "true" | "yes" => Ok(Reduction::On),
            "off" | "0" | "false" | "no" => Ok(Reduction::Off),
            "auto" => Ok(Reduction::Auto),
            _ => Err("expected on, off or auto".into()),
        }
    }
}

/// What [`Config::spin_pruning`] does to a spin on an unchanged value (a *repeated read*, see
/// there). Written `off`, `switch-after:N`, `preemptions` or `switch`:
///
/// ```
/// use lineup_core::SpinPruning;
/// assert_eq!("switch".parse::<SpinPruning>(), Ok(SpinPruning::Switch));
/// assert_eq!(SpinPruning::Preemptions.to_string(), "preemptions");
/// assert_eq!("switch-after:5".parse::<SpinPruning>(), Ok(SpinPruning::default()));
/// assert!("some".parse::<SpinPruning>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpinPruning {
    /// Every step of a spin is a preemption point, up to the fair switch after
    /// [`Config::fair_switch_steps`] steps.
    Off,
    /// The default, [`DEFAULT_SPIN_READS`] (5): a thread that spins on an unchanged value gets its
    /// fair switch once it has run this many steps in a row (instead of
    /// [`Config::fair_switch_steps`]), the last of them repeated reads; every step of the spin is
    /// still a preemption point. Nothing is pruned: the spin is *bounded*, as every run of a thread
    /// is by `fair_switch_steps`, and the bound is stated in the PASS line. A spin that decides on
    /// its own after more than `n` looks at an unchanged value (a counted spin with a larger count)
    /// is covered up to `n` looks in a row; one that decides within `n` keeps every history
    /// (`lineup-zoo/tests/spin_pruning.rs` compares the distinct histories with `Off`).
    SwitchAfter(u32),
    /// No preemption at a repeated read: the thread goes on without a choice, up to the fair
    /// switch. A preemption there reaches what the preemption before the read it repeats reached
    /// only if the read leaves the thread where it was: a spin whose result depends on how many
    /// times it looked (`for i in 0..4 { if flag.load(..) { return i } }`) loses histories, and so
    /// does a load wrapped in a helper function that straight-line code calls twice in a row
    /// (one call site, the helper's). For loops that spin until a value changes.
    Preemptions,
    /// As `Preemptions`, and the fair switch comes at the repeated read: two steps per stretch. A
    /// spin that gives up after a few looks (`for _ in 0..8 { if flag.load(..) { return true } }`)
    /// no longer gets to run them all before another thread runs, and histories that need that
    /// are lost (`lineup-zoo/tests/spin_pruning.rs` shows one). For loops that spin until a value
    /// changes.
    Switch,
}

/// The default [`Config::yield_choices`]: one non-default choice at yields per execution (a
/// replay token of `pb-dfs` names other settings, `p2-b2-y2`).
pub const DEFAULT_YIELD_CHOICES: u32 = 1;

/// The default [`SpinPruning::SwitchAfter`]: the fair switch of a spin on an unchanged value
/// after this many steps in a row (measured in `docs/strategies.md`).
pub const DEFAULT_SPIN_READS: u32 = 5;

impl Default for SpinPruning {
    fn default() -> Self {
        SpinPruning::SwitchAfter(DEFAULT_SPIN_READS)
    }
}

impl std::fmt::Display for SpinPruning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpinPruning::Off => f.write_str("off"),
            SpinPruning::SwitchAfter(n) => write!(f, "switch-after:{n}"),
            SpinPruning::Preemptions => f.write_str("preemptions"),
            SpinPruning::Switch => f.write_str("switch"),
        }
    }
}

impl std::str::FromStr for SpinPruning {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "0" | "false" | "no" => Ok(SpinPruning::Off),
            "preemptions" | "on" => Ok(SpinPruning::Preemptions),
            "switch" => Ok(SpinPruning::Switch),
            other => match other.strip_prefix("switch-after:").map(str::parse::<u32>) {
                Some(Ok(n)) if n >= 2 => Ok(SpinPruning::SwitchAfter(n)),
                _ => Err("expected off, switch-after:N (N at least 2), preemptions or switch".into()),
            },
        }
    }
}

/// A deliberately broken partial-order reduction (see [`Config::reduction_fault`]).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReductionFault {
    /// Steps that record a call or a return do not depend on each other.
    HistoryIndependent,
    /// Every explored option may sleep in later siblings, whatever the preemption bound.
    IgnoreBound,
    /// Two sends to one `lineup::sync::mpsc::channel` commute (as if the order of messages did
    /// not matter).
    SendsCommute,
    /// The spin pruning ([`Config::spin_pruning`]) takes any read for a repeated read, whatever
    /// the next step (so a preemption between a load and the store that follows it is lost).
    SpinPruneAnyRead,
    /// The accesses of shuttle's own `Mutex` that lineup reads from shuttle's events are taken to
    /// be reads (as if two lock operations of one mutex commuted).
    ShuttleLocksCommute,
    /// Every step of `lineup::sync`'s `RwLock`, `Barrier` and `Once` and of `lineup::thread`'s
    /// park and unpark is taken to be a read of its object (as if two write locks of one `RwLock`
    /// commuted).
    SyncStepsCommute,
    /// The accesses of shuttle's own `RwLock`, `Barrier` and `Once` that lineup reads from
    /// shuttle's events are taken to be reads (as if two write locks of one `RwLock`, or two waits
    /// at one `Barrier`, commuted), and the steps of a `Once`'s initializer are not opaque.
    ShuttleSyncStepsCommute,
    /// The clone and the drop of an endpoint of shuttle's own `mpsc` channels touch nothing (the
    /// events lineup's `vendor/shuttle-std` adds are ignored), as if the last receiver's drop
    /// commuted with a send.
    ShuttleChannelEndpointsUnseen,
    /// Every receive of shuttle's own `mpsc` channels is taken to commute with sends (as if it
    /// never found the channel empty), not only one that takes a message of an unbounded channel.
    ShuttleReceivesCommute,
    /// Every access of shuttle's own atomics that lineup reads from the events of lineup's
    /// `vendor/shuttle-std` is taken to be a load (as if two stores to one atomic commuted).
    ShuttleAtomicsCommute,
    /// A `join` of shuttle's and the last step of the thread it joins, which lineup reads from the
    /// events of lineup's `vendor/shuttle-std` and of shuttle's, are taken to read the thread's
    /// end (as if looking whether a thread finished, and registering as its joiner, commuted with
    /// its finishing).
    ShuttleJoinsCommute,
    /// A `park` and an `unpark` of shuttle's, which lineup reads from the events of lineup's
    /// `vendor/shuttle-std`, are taken to read the thread's park token (as if taking the token, or
    /// blocking for it, commuted with making it available).
    ShuttleParksCommute,
    /// A step whose record waits for the look of a receive of shuttle's own `mpsc` after it (and
    /// then counts as one step with that look) is not watched for conflicts with other threads'
    /// steps, so that it covers its later siblings even when one conflicted with it (see
    /// `docs/partial-order-reduction.md` section 3.12).
    ShuttleLookUnwatched,
    /// In phase 1, every explored option covers its later siblings (see
    /// `docs/partial-order-reduction.md` section 3.11), not only one whose step touched nothing or
    /// only the receive of its own channel.
    CoverAnyStep,
    /// A second thread that receives from one channel goes unnoticed, so a receive's look covers
    /// its later siblings even when another thread shares its receiver.
    SharedReceiversUnseen,
    /// A step of another thread that conflicts with a step chosen at a branch point goes
    /// unnoticed, so that step covers its later siblings whatever came after it.
    CoverRacedSteps,
    /// On several workers, every option whose subtree one worker completed is taken to cover its
    /// later siblings, which other workers explore (see `docs/partial-order-reduction.md`
    /// section 3.13), so that their subtrees are left unexplored.
    SplitCompletionsCover,
    /// The lock and release of tokio's `Mutex` and the acquires and releases of its `Semaphore`
    /// (with lineup's shuttle-tokio-impl-inner) are taken to be reads, as if two lock operations
    /// of one mutex commuted.
    TokioLocksCommute,
    /// A clone of an observed future's waker outside an operation that names its object (the
    /// registration of a future lineup does not see: `lineup_signals::footprint`) taints nothing,
    /// so the task's later steps count only what its named operations touch.
    ObservedClonesIgnored,
    /// Every operation that names its object to lineup (`lineup_signals::footprint::touching`) is
    /// taken to touch it only from its next scheduling point on, as those that reach one before
    /// they look at the object (`touching_after_switch`: tokio's sends) do, so that what an
    /// operation without such a point (a oneshot's `is_closed`, an endpoint's drop) touches is
    /// counted in no step.
    TouchesAfterTheirSwitch,
    /// The operations of tokio's `Notify` (with lineup's shuttle-tokio-impl-inner) are taken to be
    /// reads, as if a notification and a waiter's look at the permit commuted.
    TokioNotifyCommutes,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            preemption_bound: 2,
            check_stuck: true,
            spin_bound: 500,
            fair_switch_steps: 64,
            max_steps: 100_000,
            max_executions: None,
            max_duration: None,
            real_time_happens_before: true,
            allow_all_panics: false,
            max_memory: crate::memory_limit::MemoryLimit::Auto,
            workers: 0,
            strategy: Strategy::PbDfs,
            yield_choices: DEFAULT_YIELD_CHOICES,
            yield_to_self: false,
            spin_pruning: SpinPruning::default(),
            reduction: Reduction::Auto,
            interlude: Some(Interlude::default()),
            shortest_schedule: DEFAULT_SHORTEST_SCHEDULE,
            max_cancellations: DEFAULT_MAX_CANCELLATIONS,
            reduction_fault: None,
        }
    }
}

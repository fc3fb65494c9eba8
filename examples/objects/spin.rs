//! Objects that spin or race: a spin-wait flag, and an operation whose result depends on the
//! schedule.

use lineup::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use lineup::sync::Arc;
use lineup::{Invocation, Subject};

/// `wait` spins (yielding) until another thread calls `set`.
#[derive(Default)]
pub struct SpinFlag(AtomicBool);

impl SpinFlag {
    pub fn set(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn wait(&self) {
        while !self.0.load(Ordering::SeqCst) {
            lineup::hint::spin_loop();
        }
    }

    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Invocations 0: `set()`, 1: `wait()`, 2: `is_set()`.
pub fn spin_flag() -> Subject<SpinFlag> {
    Subject::new("SpinFlag", SpinFlag::default)
        .with(Invocation::new("set", SpinFlag::set))
        .with(Invocation::new("wait", SpinFlag::wait))
        .with(Invocation::new("is_set", SpinFlag::is_set))
}

/// `race` hands a job to two helper threads and reports which one claimed it first: its result
/// depends on the schedule even when no other operation runs.
#[derive(Default)]
pub struct Race {
    rounds: AtomicU64,
}

impl Race {
    pub fn race(&self) -> u64 {
        self.rounds.fetch_add(1, Ordering::SeqCst);
        let winner = Arc::new(AtomicU64::new(0));
        let helpers: Vec<_> = [1, 2]
            .into_iter()
            .map(|id| {
                let winner = Arc::clone(&winner);
                lineup::thread::spawn(move || {
                    let _ = winner.compare_exchange(0, id, Ordering::SeqCst, Ordering::SeqCst);
                })
            })
            .collect();
        for helper in helpers {
            helper.join().unwrap();
        }
        winner.load(Ordering::SeqCst)
    }
}

/// Invocation 0: `race()`.
pub fn race() -> Subject<Race> {
    Subject::new("Race", Race::default).with(Invocation::new("race", Race::race))
}

/// A correct counter behind a ticket lock whose waiters spin with `std::hint::spin_loop()`: the
/// CPU hint, which yields to no scheduler (code is often written so). Every spin iteration is a
/// scheduling point (an atomic load), but never a yield: only a fair scheduler lets the lock's
/// holder run again and end the spin.
#[derive(Default)]
pub struct TicketLockCounter {
    next_ticket: AtomicU64,
    now_serving: AtomicU64,
    value: AtomicU64,
}

impl TicketLockCounter {
    fn locked<R>(&self, f: impl FnOnce() -> R) -> R {
        let ticket = self.next_ticket.fetch_add(1, Ordering::SeqCst);
        while self.now_serving.load(Ordering::SeqCst) != ticket {
            std::hint::spin_loop();
        }
        let result = f();
        self.now_serving.store(ticket + 1, Ordering::SeqCst);
        result
    }

    pub fn inc(&self) {
        self.locked(|| {
            let v = self.value.load(Ordering::SeqCst);
            self.value.store(v + 1, Ordering::SeqCst);
        });
    }

    pub fn get(&self) -> u64 {
        self.locked(|| self.value.load(Ordering::SeqCst))
    }
}

/// Invocations 0: `inc()`, 1: `get()`.
pub fn ticket_lock_counter() -> Subject<TicketLockCounter> {
    Subject::new("TicketLockCounter", TicketLockCounter::default)
        .with(Invocation::new("inc", TicketLockCounter::inc))
        .with(Invocation::new("get", TicketLockCounter::get))
}

/// How a waiter of [`TwoFlagLockCounter`] spins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spin {
    /// `std::hint::spin_loop()`: no yield.
    CpuHint,
    /// `lineup::hint::spin_loop()`: a yield to the model checker.
    Yield,
}

/// A counter behind a broken two-flag lock: a thread raises its own flag, then waits while the
/// other thread's flag is up. Serially every operation returns; two threads that raise their
/// flags together wait for each other forever, however fairly they are scheduled (a real
/// livelock). Operations are `inc_a`/`get_a` (flag 0) and `inc_b`/`get_b` (flag 1).
pub struct TwoFlagLockCounter {
    flags: [AtomicBool; 2],
    value: AtomicU64,
    spin: Spin,
}

impl TwoFlagLockCounter {
    pub fn new(spin: Spin) -> Self {
        Self {
            flags: [AtomicBool::new(false), AtomicBool::new(false)],
            value: AtomicU64::new(0),
            spin,
        }
    }

    fn locked<R>(&self, me: usize, f: impl FnOnce() -> R) -> R {
        self.flags[me].store(true, Ordering::SeqCst);
        while self.flags[1 - me].load(Ordering::SeqCst) {
            match self.spin {
                Spin::CpuHint => std::hint::spin_loop(),
                Spin::Yield => lineup::hint::spin_loop(),
            }
        }
        let result = f();
        self.flags[me].store(false, Ordering::SeqCst);
        result
    }

    pub fn inc(&self, me: usize) {
        self.locked(me, || {
            let v = self.value.load(Ordering::SeqCst);
            self.value.store(v + 1, Ordering::SeqCst);
        });
    }

    pub fn get(&self, me: usize) -> u64 {
        self.locked(me, || self.value.load(Ordering::SeqCst))
    }
}

/// Invocations 0: `inc_a()`, 1: `get_a()`, 2: `inc_b()`, 3: `get_b()`.
pub fn two_flag_lock_counter(spin: Spin) -> Subject<TwoFlagLockCounter> {
    Subject::new("TwoFlagLockCounter", move || TwoFlagLockCounter::new(spin))
        .with(Invocation::new("inc_a", |c: &TwoFlagLockCounter| c.inc(0)))
        .with(Invocation::new("get_a", |c: &TwoFlagLockCounter| c.get(0)))
        .with(Invocation::new("inc_b", |c: &TwoFlagLockCounter| c.inc(1)))
        .with(Invocation::new("get_b", |c: &TwoFlagLockCounter| c.get(1)))
}

/// How many levels [`FilterLockCounter`]'s filter lock has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Levels {
    /// `1..n`: the n - 1 levels of Peterson's filter lock (Herlihy and Shavit, §2.5): at most
    /// n - L threads get past level L, so one at a time gets past the last. Correct.
    NMinusOne,
    /// `1..n - 1`: one level short (the range's end read as inclusive). With three threads this is
    /// Peterson's two-thread lock run by three: a waiter gets through as soon as a *later* arrival
    /// takes its place as the level's victim, even while a third thread holds the lock.
    OneShort,
}

/// A fetch-and-increment counter behind a filter lock (Peterson's lock generalized to `n`
/// threads) whose waiters spin with `lineup::hint::spin_loop()`. Thread `i` calls `inc(i)`. The
/// threads' levels share one word, four bits each, so that a waiter reads them all at once.
pub struct FilterLockCounter {
    /// Four bits per thread: the level thread `i` is trying to get past (0: not trying).
    levels: AtomicU64,
    /// `victim[l]`: the thread that arrived at level `l` last, which waits there.
    victim: Vec<AtomicU64>,
    value: AtomicU64,
    n: usize,
    top: usize,
}

impl FilterLockCounter {
    /// A counter for `n` threads (at most 16).
    pub fn new(n: usize, levels: Levels) -> Self {
        assert!(n <= 16, "four bits a thread in one word");
        Self {
            levels: AtomicU64::new(0),
            victim: (0..n).map(|_| AtomicU64::new(0)).collect(),
            value: AtomicU64::new(0),
            n,
            top: match levels {
                Levels::NMinusOne => n,
                Levels::OneShort => n - 1,
            },
        }
    }

    /// The highest level of a thread other than `me` in the word `levels`.
    fn others_level(&self, levels: u64, me: usize) -> u64 {
        (0..self.n)
            .filter(|&k| k != me)
            .map(|k| (levels >> (4 * k)) & 0xf)
            .max()
            .unwrap_or(0)
    }

    fn lock(&self, me: usize) {
        for l in 1..self.top {
            // One level up (from l - 1 to l).
            self.levels.fetch_add(1 << (4 * me), Ordering::SeqCst);
            self.victim[l].store(me as u64, Ordering::SeqCst);
            // Wait while another thread is at my level or above and I am the victim here.
            while self.others_level(self.levels.load(Ordering::SeqCst), me) >= l as u64
                && self.victim[l].load(Ordering::SeqCst) == me as u64
            {
                lineup::hint::spin_loop();
            }
        }
    }

    fn unlock(&self, me: usize) {
        self.levels.fetch_and(!(0xf << (4 * me)), Ordering::SeqCst);
    }

    /// Adds one and returns the value before, as thread `me`.
    pub fn inc(&self, me: usize) -> u64 {
        self.lock(me);
        let v = self.value.load(Ordering::SeqCst);
        self.value.store(v + 1, Ordering::SeqCst);
        self.unlock(me);
        v
    }
}

/// Three threads' counter: invocations 0: `inc_a()`, 1: `inc_b()`, 2: `inc_c()` (the thread
/// index is the caller's slot in the lock, so thread `A` of a matrix calls `inc_a`, and so on).
pub fn filter_lock_counter(levels: Levels) -> Subject<FilterLockCounter> {
    filter_lock_counter_for(3, levels)
}

/// `n` threads' counter: invocation `i` is `inc` as thread `i`.
pub fn filter_lock_counter_for(n: usize, levels: Levels) -> Subject<FilterLockCounter> {
    let name = match levels {
        Levels::NMinusOne => "FilterLockCounter",
        Levels::OneShort => "FilterLockCounter(one level short)",
    };
    let mut subject = Subject::new(name, move || FilterLockCounter::new(n, levels));
    for i in 0..n {
        let op = ["inc_a", "inc_b", "inc_c", "inc_d"][i];
        subject = subject.with(Invocation::new(op, move |c: &FilterLockCounter| c.inc(i)));
    }
    subject
}

/// How [`SpinThenParkEvent`]'s waiter registers once its spin is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registration {
    /// It raises `waiting` and parks without looking at the flag again: a `set` that came after
    /// its last look but before `waiting` went up saw no waiter and woke nobody (a lost
    /// wake-up). The bug.
    Blind,
    /// It raises `waiting`, then looks at the flag once more before it parks. Correct.
    Recheck,
}

/// How many times [`SpinThenParkEvent::wait`] looks at the flag before it parks.
pub const SPINS: usize = 3;

/// A one-shot event whose `wait` spins first (`SPINS` looks at the flag, a
/// `lineup::hint::spin_loop()` after each), then parks on a condition variable; `set` raises the
/// flag and wakes a parked waiter if `waiting` is up.
///
/// With [`Registration::Blind`] the wake-up is lost when `set` runs after the waiter's last look
/// and before it registers. Each of the waiter's yields hands the turn to `set` (the thread that
/// ran least recently), whose first step after it raises the flag; a preemption of `set` right
/// after it was handed the turn, before its store, brings the waiter back once, but `set` stores
/// as soon as it runs again. So the waiter reaches its last look with the flag down only if it
/// runs again right after one of its own yields, as a spinning core does: with
/// `Config::yield_to_self` (one yield choice and one preemption), never without it, whatever the
/// preemption bound.
pub struct SpinThenParkEvent {
    flag: AtomicBool,
    waiting: AtomicBool,
    woken: lineup::sync::Mutex<bool>,
    wake: lineup::sync::Condvar,
    registration: Registration,
    /// How many times `wait` looks at the flag before it parks.
    spins: usize,
}

impl SpinThenParkEvent {
    pub fn new(registration: Registration) -> Self {
        Self::with_spins(registration, SPINS)
    }

    /// An event whose `wait` looks at the flag `spins` times before it parks.
    pub fn with_spins(registration: Registration, spins: usize) -> Self {
        Self {
            flag: AtomicBool::new(false),
            waiting: AtomicBool::new(false),
            woken: lineup::sync::Mutex::new(false),
            wake: lineup::sync::Condvar::new(),
            registration,
            spins,
        }
    }

    pub fn wait(&self) {
        for _ in 0..self.spins {
            if self.flag.load(Ordering::SeqCst) {
                return;
            }
            lineup::hint::spin_loop();
        }
        self.waiting.store(true, Ordering::SeqCst);
        if self.registration == Registration::Recheck && self.flag.load(Ordering::SeqCst) {
            return;
        }
        let mut woken = self.woken.lock().unwrap();
        while !*woken {
            woken = self.wake.wait(woken).unwrap();
        }
    }

    pub fn set(&self) {
        self.flag.store(true, Ordering::SeqCst);
        if self.waiting.load(Ordering::SeqCst) {
            *self.woken.lock().unwrap() = true;
            self.wake.notify_all();
        }
    }
}

/// Invocations 0: `wait()`, 1: `set()`.
pub fn spin_then_park_event(registration: Registration) -> Subject<SpinThenParkEvent> {
    let name = match registration {
        Registration::Blind => "SpinThenParkEvent(blind registration)",
        Registration::Recheck => "SpinThenParkEvent",
    };
    spin_then_park_event_named(name, registration, SPINS)
}

/// [`spin_then_park_event`] whose waiter looks `spins` times, named `name`.
pub fn spin_then_park_event_named(name: &str, registration: Registration, spins: usize) -> Subject<SpinThenParkEvent> {
    Subject::new(name, move || SpinThenParkEvent::with_spins(registration, spins))
        .with(Invocation::new("wait", SpinThenParkEvent::wait))
        .with(Invocation::new("set", SpinThenParkEvent::set))
}

/// A flag whose `try_wait` spins a bounded number of times on `std::hint::spin_loop()` (no
/// yield) and then gives up: it returns whether it saw the flag up. Its spin counts its
/// iterations, so a waiter that runs them all before `set` runs returns `false`, one that gets
/// interrupted returns `true`: the object on which [`SpinPruning::Switch`](lineup::SpinPruning)
/// loses a history and `Preemptions` keeps them all.
#[derive(Default)]
pub struct BoundedSpinFlag(AtomicBool);

impl BoundedSpinFlag {
    /// How many times `try_wait` looks.
    pub const LOOKS: usize = 4;

    pub fn set(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn try_wait(&self) -> bool {
        for _ in 0..Self::LOOKS {
            if self.0.load(Ordering::SeqCst) {
                return true;
            }
            std::hint::spin_loop();
        }
        false
    }
}

/// Invocations 0: `set()`, 1: `try_wait()`.
pub fn bounded_spin_flag() -> Subject<BoundedSpinFlag> {
    Subject::new("BoundedSpinFlag", BoundedSpinFlag::default)
        .with(Invocation::new("set", BoundedSpinFlag::set))
        .with(Invocation::new("try_wait", BoundedSpinFlag::try_wait))
}

//! [`async-lock`](https://crates.io/crates/async-lock) 3.5.0 with
//! [`event-listener`](https://crates.io/crates/event-listener) 5.4.2, switched to loom by their
//! `loom` features and `--cfg loom`: the asynchronous `Mutex` and `Semaphore`.
//!
//! A lock is only worth checking if it can stay taken between operations, so each thread keeps
//! the guards its operations acquire in its own per-thread state
//! ([`Subject::with_thread_state`], a `Vec` of guards that the thread owns from its start to its
//! end): `lock` takes the mutex and keeps the guard, `unlock` drops the guard that the calling
//! thread took last. As with a real mutex, only the owner unlocks, and nobody else even sees its
//! guards. A guard still held when its thread's last operation ends is dropped after it, in the
//! thread's `drop(handle)` operation (lineup drops every worker's state there, as an operation of
//! the history): a thread that ends holding the mutex releases it, as a thread whose guards go out
//! of scope does. In a serial execution the mutex is then held exactly when some thread has locked
//! and not yet unlocked it or dropped its state, so `try_lock` has a deterministic answer, and a
//! `lock` of a held mutex blocks for good: a stuck serial history, the witness that a blocked
//! `lock` in a concurrent execution needs (Def. 2).
//! Asynchronous operations (`lock().await`, `acquire().await`) run through
//! [`lineup::future::block_on`], which is loom's `block_on` under `--cfg loom`: a future that
//! stays pending parks its loom thread.
//!
//! A shared pile of guards would not do: acquiring and putting the guard on the pile are two
//! steps, and another thread's `unlock` in between would find the pile empty although the lock is
//! taken, a history that no serial execution has ([`shared_stash_semaphore`], which lineup must
//! reject for exactly that).

use std::sync::Arc;

use async_lock::{Mutex, MutexGuardArc, Semaphore, SemaphoreGuardArc};
use lineup::future::block_on;
use lineup::{Invocation, Subject};

/// The guards of [`HeldMutex`] that one thread holds, the last taken last: the thread's own state.
pub type MutexGuards = Vec<MutexGuardArc<u32>>;

/// The permits of [`HeldSemaphore`] that one thread holds, the last taken last: the thread's own
/// state.
pub type Permits = Vec<SemaphoreGuardArc>;

/// An `async_lock::Mutex<u32>` that counts its acquisitions; each thread keeps the guards it holds
/// in its own [`MutexGuards`].
#[derive(Debug, Default)]
pub struct HeldMutex {
    mutex: Arc<Mutex<u32>>,
}

impl HeldMutex {
    /// Counts the acquisition that `guard` is, and keeps it in the calling thread's `guards`;
    /// returns how many acquisitions came before.
    fn keep(guards: &mut MutexGuards, mut guard: MutexGuardArc<u32>) -> u32 {
        let before = *guard;
        *guard += 1;
        guards.push(guard);
        before
    }

    /// `mutex.lock_arc().await`, through `block_on`; keeps the guard. Blocks while another
    /// thread (or the calling one) holds the mutex.
    pub fn lock(&self, guards: &mut MutexGuards) -> u32 {
        let guard = block_on(self.mutex.lock_arc());
        Self::keep(guards, guard)
    }

    /// `mutex.lock_arc_blocking()`: the same, through event-listener's blocking wait instead of a
    /// future.
    pub fn lock_blocking(&self, guards: &mut MutexGuards) -> u32 {
        let guard = self.mutex.lock_arc_blocking();
        Self::keep(guards, guard)
    }

    /// `mutex.try_lock_arc()`; keeps the guard if it got one.
    pub fn try_lock(&self, guards: &mut MutexGuards) -> Option<u32> {
        self.mutex.try_lock_arc().map(|guard| Self::keep(guards, guard))
    }

    /// Drops the guard that the calling thread took last; whether it held one.
    pub fn unlock(&self, guards: &mut MutexGuards) -> bool {
        guards.pop().is_some()
    }

    /// A whole critical section in one operation: `mutex.lock().await`, count, release. Another
    /// thread's `try_lock` can meet that critical section and fail, which no serial execution
    /// shows (between two operations nobody is inside one): matrices do not combine `with_lock`
    /// with a `try_lock` of another thread (that is [`try_with_lock`](Self::try_with_lock)'s
    /// mistake, seen from the other side).
    pub fn with_lock(&self) -> u32 {
        let mut guard = block_on(self.mutex.lock());
        let before = *guard;
        *guard += 1;
        before
    }

    /// A deliberately wrong operation: `try_lock`, count, release, all in one operation. It
    /// returns `None` when it meets another thread's critical section, which no serial execution
    /// does (between two operations nobody is inside one): the answer depends on the schedule.
    pub fn try_with_lock(&self) -> Option<u32> {
        let mut guard = self.mutex.try_lock()?;
        let before = *guard;
        *guard += 1;
        Some(before)
    }
}

/// Positions of the invocations of [`mutex`] (what a matrix refers to).
pub mod mutex_op {
    /// `lock()`: `lock_arc().await`, guard kept.
    pub const LOCK: usize = 0;
    /// `try_lock()`, guard kept.
    pub const TRY_LOCK: usize = 1;
    /// `unlock()`: drops the calling thread's guard.
    pub const UNLOCK: usize = 2;
    /// `with_lock()`: `lock().await`, count, release.
    pub const WITH_LOCK: usize = 3;
    /// `lock_blocking()`, guard kept.
    pub const LOCK_BLOCKING: usize = 4;
    /// `try_with_lock()`, only in [`scoped_try_lock_mutex`](super::scoped_try_lock_mutex).
    pub const TRY_WITH_LOCK: usize = 5;
}

/// The async-lock `Mutex` with `lock`, `try_lock`, `unlock`, `with_lock` and `lock_blocking`
/// (see [`mutex_op`]). Responses: the number of acquisitions before this one (`u32`), `Some` of
/// it or `None` for `try_lock`, and whether the thread held a guard for `unlock`.
pub fn mutex() -> Subject<HeldMutex> {
    mutex_named("async-lock 3.5.0 Mutex")
}

fn mutex_named(name: &str) -> Subject<HeldMutex> {
    Subject::new(name, HeldMutex::default)
        .with_thread_state::<MutexGuards>()
        .with(Invocation::on_handle("lock", HeldMutex::lock))
        .with(Invocation::on_handle("try_lock", HeldMutex::try_lock))
        .with(Invocation::on_handle("unlock", HeldMutex::unlock))
        .with(Invocation::new("with_lock", HeldMutex::with_lock))
        .with(Invocation::on_handle("lock_blocking", HeldMutex::lock_blocking))
}

/// [`mutex`] plus the deliberately wrong `try_with_lock` (see [`HeldMutex::try_with_lock`]):
/// lineup must reject it.
pub fn scoped_try_lock_mutex() -> Subject<HeldMutex> {
    mutex_named("async-lock 3.5.0 Mutex with a scoped try_lock")
        .with(Invocation::new("try_with_lock", HeldMutex::try_with_lock))
}

/// An `async_lock::Semaphore`; each thread keeps the permits (guards) it holds in its own
/// [`Permits`].
#[derive(Debug)]
pub struct HeldSemaphore {
    semaphore: Arc<Semaphore>,
}

impl HeldSemaphore {
    /// A semaphore with `permits` permits.
    pub fn new(permits: usize) -> Self {
        Self {
            semaphore: Arc::new(Semaphore::new(permits)),
        }
    }

    /// `semaphore.acquire_arc().await`, through `block_on`; keeps the permit in the calling
    /// thread's `permits`. Blocks while no permit is available.
    pub fn acquire(&self, permits: &mut Permits) {
        permits.push(block_on(self.semaphore.acquire_arc()));
    }

    /// `semaphore.try_acquire_arc()`; keeps the permit if it got one; whether it did.
    pub fn try_acquire(&self, permits: &mut Permits) -> bool {
        self.semaphore.try_acquire_arc().map(|p| permits.push(p)).is_some()
    }

    /// Drops the permit that the calling thread took last; whether it held one.
    pub fn release(&self, permits: &mut Permits) -> bool {
        permits.pop().is_some()
    }

    /// `semaphore.available_permits()`.
    pub fn available(&self) -> usize {
        self.semaphore.available_permits()
    }
}

/// Positions of the invocations of [`semaphore`] and [`shared_stash_semaphore`].
pub mod semaphore_op {
    /// `acquire()`: `acquire_arc().await`, permit kept.
    pub const ACQUIRE: usize = 0;
    /// `try_acquire()`, permit kept.
    pub const TRY_ACQUIRE: usize = 1;
    /// `release()`: drops a kept permit.
    pub const RELEASE: usize = 2;
    /// `available()`: `available_permits()`.
    pub const AVAILABLE: usize = 3;
}

/// The async-lock `Semaphore` with `permits` permits and `acquire`, `try_acquire`, `release` and
/// `available` (see [`semaphore_op`]). Responses: `()`, whether a permit was taken, whether the
/// thread held a permit to release, the number of available permits.
pub fn semaphore(permits: usize) -> Subject<HeldSemaphore> {
    Subject::new(format!("async-lock 3.5.0 Semaphore({permits})"), move || {
        HeldSemaphore::new(permits)
    })
    .with_thread_state::<Permits>()
    .with(Invocation::on_handle("acquire", HeldSemaphore::acquire))
    .with(Invocation::on_handle("try_acquire", HeldSemaphore::try_acquire))
    .with(Invocation::on_handle("release", HeldSemaphore::release))
    .with(Invocation::new("available", HeldSemaphore::available))
}

/// A semaphore whose permits are kept on one shared pile (a `lineup::sync::Mutex`), whoever took
/// them: a deliberately wrong wrapper. `acquire` takes a permit, *then* puts it on the pile;
/// another thread's `release` in between finds the pile empty although the permit is taken, and a
/// `try_acquire` of that thread just before has seen the permit taken: no serial execution does
/// both. lineup must reject it (this is why [`HeldSemaphore`] keeps each permit in the state of the
/// thread that took it).
#[derive(Debug)]
pub struct SharedStashSemaphore {
    semaphore: Arc<Semaphore>,
    pile: lineup::sync::Mutex<Vec<SemaphoreGuardArc>>,
}

impl SharedStashSemaphore {
    /// `acquire_arc().await`, then the permit goes on the shared pile.
    pub fn acquire(&self) {
        let permit = block_on(self.semaphore.acquire_arc());
        self.pile.lock().unwrap().push(permit);
    }

    /// `try_acquire_arc()`, then the permit goes on the shared pile; whether there was one.
    pub fn try_acquire(&self) -> bool {
        match self.semaphore.try_acquire_arc() {
            Some(permit) => {
                self.pile.lock().unwrap().push(permit);
                true
            }
            None => false,
        }
    }

    /// Drops any permit of the pile; whether there was one.
    pub fn release(&self) -> bool {
        let permit = self.pile.lock().unwrap().pop();
        let held = permit.is_some();
        drop(permit);
        held
    }

    /// `available_permits()`.
    pub fn available(&self) -> usize {
        self.semaphore.available_permits()
    }
}

/// The deliberately wrong [`SharedStashSemaphore`] with `permits` permits, with the invocations
/// of [`semaphore_op`].
pub fn shared_stash_semaphore(permits: usize) -> Subject<SharedStashSemaphore> {
    Subject::new(
        format!("async-lock 3.5.0 Semaphore({permits}) with a shared pile of permits"),
        move || SharedStashSemaphore {
            semaphore: Arc::new(Semaphore::new(permits)),
            pile: lineup::sync::Mutex::new(Vec::new()),
        },
    )
    .with(Invocation::new("acquire", SharedStashSemaphore::acquire))
    .with(Invocation::new("try_acquire", SharedStashSemaphore::try_acquire))
    .with(Invocation::new("release", SharedStashSemaphore::release))
    .with(Invocation::new("available", SharedStashSemaphore::available))
}

//! `lineup::sync::Once` and `OnceLock`.
//!
//! On shuttle, [`Once`] is shuttle's step for step: its state lives in the execution (so that a
//! `static` one starts afresh in every execution), the first call takes a mutex (lineup's own,
//! whose steps are announced and whose lock is an abandonment point), runs the initializer and
//! marks the `Once` complete; a later call looks at that mark, without a scheduling point. The
//! look and the mark are writes of the `Once` for lineup's partial-order reduction (see
//! [`footprint`](crate::explore::footprint)), so that a call that found the `Once` complete and one
//! that found it running never commute.
//!
//! Under loom (which has no `Once`), a `Once` is a mutex of loom's and a flag: the same names,
//! not `const`.
//!
//! [`OnceLock`] (which shuttle does not have) is a [`Once`] and the value it initializes, so that
//! its steps are the `Once`'s.

use std::cell::UnsafeCell;
use std::fmt;

/// What the closure of [`Once::call_once_force`] is told, the same as [`std::sync::OnceState`].
#[derive(Debug)]
pub struct OnceState {
    poisoned: bool,
}

impl OnceState {
    /// Whether the [`Once`] was poisoned (an earlier initializer panicked) before this call.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }
}

#[cfg(not(loom))]
pub use self::shuttle_once::Once;

#[cfg(loom)]
pub use self::loom_once::Once;

#[cfg(not(loom))]
mod shuttle_once {
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::LazyLock;

    use shuttle_engine::runtime::execution::ExecutionState;
    use shuttle_engine::runtime::storage::StorageKey;
    use shuttle_engine::runtime::task::clock::VectorClock;

    use super::OnceState;
    use crate::explore::footprint::{touch_sync, ObjectIdentity};
    use crate::primitives::abandonable::Mutex;

    /// The kind of execution storage of a `Once` (shuttle's own `Once` is `0x2`, its lazy statics
    /// `0x3`).
    const STORAGE_KIND: usize = 0x4c2;

    /// A one-time initialization, the same as [`std::sync::Once`]: shuttle's (the same scheduling
    /// points), whose steps lineup's partial-order reduction sees.
    #[derive(Debug)]
    pub struct Once {
        identity: ObjectIdentity,
        /// The key of its state in the execution.
        id: LazyLock<usize>,
    }

    /// The state of a `Once` in an execution.
    enum Init {
        /// Racing callers take the mutex; its flag says whether an initializer completed.
        Running(Rc<Mutex<bool>>),
        /// Complete: the clock of the initializer's end.
        Complete(VectorClock),
    }

    impl From<&Once> for StorageKey {
        fn from(once: &Once) -> Self {
            StorageKey(*once.id, STORAGE_KIND)
        }
    }

    impl Once {
        /// Creates a new `Once`.
        #[must_use]
        #[allow(clippy::new_without_default)]
        #[track_caller]
        pub const fn new() -> Self {
            static NEXT_ID: AtomicUsize = AtomicUsize::new(1);
            Self {
                identity: ObjectIdentity::at(std::panic::Location::caller()),
                id: LazyLock::new(|| NEXT_ID.fetch_add(1, Ordering::Relaxed)),
            }
        }

        /// Runs `f` if no initializer of this `Once` has completed yet, and returns once one has
        /// (blocking while another runs). Panics if an initializer panicked before.
        #[track_caller]
        pub fn call_once<F: FnOnce()>(&self, f: F) {
            self.call_once_traced(|_| f(), false, std::panic::Location::caller());
        }

        /// [`call_once`](Self::call_once), ignoring an earlier initializer's panic (the closure is
        /// told of it).
        #[track_caller]
        pub fn call_once_force<F: FnOnce(&OnceState)>(&self, f: F) {
            self.call_once_traced(f, true, std::panic::Location::caller());
        }

        /// `call_once_inner`, recorded as one step called at `site` (see
        /// [`trace`](crate::explore::trace)).
        fn call_once_traced<F: FnOnce(&OnceState)>(
            &self,
            f: F,
            ignore_poisoning: bool,
            site: &'static std::panic::Location<'static>,
        ) {
            let step = crate::explore::trace::begin(Some((&self.identity, "Once")), Some(site));
            let mut ran = false;
            self.call_once_inner(
                |state| {
                    ran = true;
                    f(state)
                },
                ignore_poisoning,
            );
            step.done(|| crate::explore::trace::Action::Once { ran });
        }

        /// Whether an initializer has completed.
        pub fn is_completed(&self) -> bool {
            touch_sync(&self.identity);
            ExecutionState::with(|s| {
                let Some(init) = s.get_storage::<_, RefCell<Init>>(self) else {
                    return false;
                };
                let clock = match &*init.borrow() {
                    Init::Complete(clock) => clock.clone(),
                    Init::Running(_) => return false,
                };
                s.update_clock(&clock);
                true
            })
        }

        /// The mutex to race on, or `None` if the `Once` is complete.
        fn running(&self) -> Option<Rc<Mutex<bool>>> {
            ExecutionState::with(|s| {
                if s.get_storage::<_, RefCell<Init>>(self).is_none() {
                    s.init_storage(self, RefCell::new(Init::Running(Rc::new(Mutex::new(false)))));
                }
                let init = s.get_storage::<_, RefCell<Init>>(self).expect("initialized above");
                let clock = match &*init.borrow() {
                    Init::Running(lock) => return Some(Rc::clone(lock)),
                    Init::Complete(clock) => clock.clone(),
                };
                s.update_clock(&clock);
                None
            })
        }

        fn call_once_inner<F: FnOnce(&OnceState)>(&self, f: F, ignore_poisoning: bool) {
            // The look at the state is part of the step running now.
            touch_sync(&self.identity);
            let Some(lock) = self.running() else {
                return;
            };
            let (mut done, poisoned) = match lock.lock() {
                Ok(done) => (done, false),
                Err(_) if !ignore_poisoning => panic!("Once instance has previously been poisoned"),
                Err(poisoned) => (poisoned.into_inner(), true),
            };
            if *done {
                return;
            }
            f(&OnceState { poisoned });
            *done = true;
            touch_sync(&self.identity);
            ExecutionState::with(|s| {
                let clock = s.increment_clock().clone();
                *s.get_storage::<_, RefCell<Init>>(self)
                    .expect("initialized by this call")
                    .borrow_mut() = Init::Complete(clock);
            });
        }
    }
}

#[cfg(loom)]
mod loom_once {
    use super::OnceState;
    use crate::sync::Mutex;

    /// A one-time initialization, the same as [`std::sync::Once`] (under loom: a mutex of loom's
    /// and a flag; not `const`).
    #[derive(Debug)]
    pub struct Once {
        done: Mutex<bool>,
    }

    impl Once {
        /// Creates a new `Once`.
        #[must_use]
        #[allow(clippy::new_without_default)]
        pub fn new() -> Self {
            Self {
                done: Mutex::new(false),
            }
        }

        /// Runs `f` if no initializer of this `Once` has completed yet, and returns once one has.
        pub fn call_once<F: FnOnce()>(&self, f: F) {
            self.call_once_inner(|_| f(), false);
        }

        /// [`call_once`](Self::call_once), ignoring an earlier initializer's panic.
        pub fn call_once_force<F: FnOnce(&OnceState)>(&self, f: F) {
            self.call_once_inner(f, true);
        }

        /// Whether an initializer has completed.
        pub fn is_completed(&self) -> bool {
            match self.done.lock() {
                Ok(done) => *done,
                Err(poisoned) => *poisoned.into_inner(),
            }
        }

        fn call_once_inner<F: FnOnce(&OnceState)>(&self, f: F, ignore_poisoning: bool) {
            let (mut done, poisoned) = match self.done.lock() {
                Ok(done) => (done, false),
                Err(_) if !ignore_poisoning => panic!("Once instance has previously been poisoned"),
                Err(poisoned) => (poisoned.into_inner(), true),
            };
            if !*done {
                f(&OnceState { poisoned });
                *done = true;
            }
        }
    }
}

/// A cell written once, the same as [`std::sync::OnceLock`]: a [`Once`] and its value, whose
/// steps are the `Once`'s (shuttle has no `OnceLock`). Build it with the object under test (in
/// the `Subject`'s factory), not in a `static`: a `static` one would be shared by the executions
/// that several workers run at once on their OS threads, while its `Once` starts afresh in each.
/// (`take` is not there: a `Once` cannot be reset. Nor is `LazyLock`: a `static` one would have to
/// run its `FnOnce` initializer again in every execution.)
pub struct OnceLock<T> {
    once: Once,
    value: UnsafeCell<Option<T>>,
}

// SAFETY: the value is written once, by the one initializer that the `Once` lets run, before the
// `Once` completes; it is read only after the `Once` completed (as std's `OnceLock`).
unsafe impl<T: Send + Sync> Sync for OnceLock<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for OnceLock<T> {}

impl<T> OnceLock<T> {
    /// Creates a new empty cell.
    #[must_use]
    #[cfg(not(loom))]
    #[track_caller]
    pub const fn new() -> Self {
        Self {
            once: Once::new(),
            value: UnsafeCell::new(None),
        }
    }

    /// Creates a new empty cell (under loom, not `const`).
    #[must_use]
    #[cfg(loom)]
    pub fn new() -> Self {
        Self {
            once: Once::new(),
            value: UnsafeCell::new(None),
        }
    }

    /// The value, if the cell was initialized.
    pub fn get(&self) -> Option<&T> {
        if self.once.is_completed() {
            // SAFETY: complete: the value is written and never written again.
            unsafe { (*self.value.get()).as_ref() }
        } else {
            None
        }
    }

    /// The value, initialized with `f` if the cell is empty (blocking while another thread
    /// initializes it).
    #[track_caller]
    pub fn get_or_init<F: FnOnce() -> T>(&self, f: F) -> &T {
        self.once.call_once_force(|_| {
            let value = f();
            // SAFETY: the one initializer the `Once` lets run; nobody reads before it completes.
            unsafe { *self.value.get() = Some(value) };
        });
        self.get().expect("the once completed")
    }

    /// Sets the value if the cell is empty; returns `Err(value)` if it was full.
    #[track_caller]
    pub fn set(&self, value: T) -> Result<(), T> {
        let mut value = Some(value);
        self.get_or_init(|| value.take().expect("taken once"));
        match value {
            None => Ok(()),
            Some(value) => Err(value),
        }
    }

    /// A mutable reference to the value, if any (no concurrent access possible).
    pub fn get_mut(&mut self) -> Option<&mut T> {
        self.value.get_mut().as_mut()
    }

    /// Consumes the cell, returning its value, if any.
    pub fn into_inner(self) -> Option<T> {
        self.value.into_inner()
    }
}

impl<T> Default for OnceLock<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for OnceLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.get() {
            Some(value) => f.debug_tuple("OnceLock").field(value).finish(),
            None => f.write_str("OnceLock(<uninit>)"),
        }
    }
}

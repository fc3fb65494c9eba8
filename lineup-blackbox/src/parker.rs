//! [`parking`](https://crates.io/crates/parking) 2.2.1, switched to loom by its `loom` feature and
//! `--cfg loom` (`cfg(all(loom, feature = "loom"))` replaces its atomics, `Mutex`, `Condvar` and
//! `Arc` with loom's): a thread parker, the `Parker`/`Unparker` pair that smol's executors and
//! event-listener build on.
//!
//! A parker holds at most one token. `unpark` makes the token available (and wakes a parked
//! thread) and says whether it did: `false` if the token was already there. `park` consumes the
//! token, blocking until there is one. As a sequential object: one boolean. (The crate's
//! non-blocking forms, `park_timeout` and `park_deadline`, do not exist under `cfg(loom)`.)
//!
//! A `Parker` is `Send` but not `Sync`: only the thread that owns it parks. The object keeps it in
//! a `lineup::sync::Mutex` so that lineup can hand it to the thread whose column parks, and the
//! matrices put every `park` in one column (as a real owner would); `park` blocks with the mutex
//! held, which nobody else needs. The `Unparker` is `Sync` and used by every thread.

use lineup::sync::Mutex;
use lineup::{Invocation, Subject};
use parking::{Parker, Unparker};

/// A `parking::Parker` (used by one thread) and its `Unparker` (used by all).
#[derive(Debug)]
pub struct Parking {
    parker: Mutex<Parker>,
    unparker: Unparker,
}

impl Default for Parking {
    fn default() -> Self {
        let (parker, unparker) = parking::pair();
        Self {
            parker: Mutex::new(parker),
            unparker,
        }
    }
}

impl Parking {
    /// `parker.park()`: consumes the token, blocking until there is one.
    pub fn park(&self) {
        self.parker.lock().unwrap().park();
    }

    /// `unparker.unpark()`: makes the token available; `false` if it already was.
    pub fn unpark(&self) -> bool {
        self.unparker.unpark()
    }

    /// A deliberately wrong operation, to show that the harness is not vacuous: two `unpark`s
    /// reported as one, returning both answers. Serially the second always answers `false` (the
    /// first left the token there); a `park` of another thread in between consumes the token and
    /// the second answers `true`. lineup must reject it.
    pub fn unpark_twice(&self) -> (bool, bool) {
        let first = self.unparker.unpark();
        let second = self.unparker.unpark();
        (first, second)
    }
}

/// Positions of the invocations of [`parker`] and [`non_atomic_unpark_twice`].
pub mod op {
    /// `park()`: `()`, after blocking until a token is there.
    pub const PARK: usize = 0;
    /// `unpark()`: whether it made the token available (`false`: it already was).
    pub const UNPARK: usize = 1;
    /// `unpark_twice()` (only in [`non_atomic_unpark_twice`](super::non_atomic_unpark_twice)).
    pub const UNPARK_TWICE: usize = 2;
}

fn named(name: &str) -> Subject<Parking> {
    Subject::new(name, Parking::default)
        .with(Invocation::new("park", Parking::park))
        .with(Invocation::new("unpark", Parking::unpark))
}

/// The parker with `park` and `unpark` (see [`op`]).
pub fn parker() -> Subject<Parking> {
    named("parking 2.2.1 Parker")
}

/// [`parker`] plus the deliberately wrong `unpark_twice` (see [`Parking::unpark_twice`]): lineup
/// must reject it.
pub fn non_atomic_unpark_twice() -> Subject<Parking> {
    named("parking 2.2.1 Parker with a non-atomic unpark_twice")
        .with(Invocation::new("unpark_twice", Parking::unpark_twice))
}

//! loom's atomics, wrapped so that lineup sees every load that returned an older value than the
//! latest store of the interleaving: the weak-memory behaviours loom explores and shuttle does
//! not. Each atomic gets a number when it is created; a side table (outside loom's view, reset
//! at the start of every execution) holds the value of the latest store or read-modify-write to
//! it in execution order.

use std::cell::RefCell;
use std::panic::Location;

use loom::sync::atomic::Ordering;

use super::steps::{self, Action, Pending};

fn shown<V: std::fmt::Debug>(v: V) -> String {
    format!("{v:?}")
}

/// The step of a tracked atomic's method called at the user's `site` (recording on, see
/// [`steps`]).
#[inline]
fn step(
    kind: &'static str,
    number: usize,
    created: &'static Location<'static>,
    site: &'static Location<'static>,
) -> Pending {
    steps::begin(Some((kind, number, Some(created))), Some(site))
}

/// A load that returned an older value than the latest store of the interleaving.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WeakLoad {
    /// The atomic's type.
    pub atomic: &'static str,
    /// The atomic's number in the execution (in creation order, from 0).
    pub number: usize,
    /// What the load returned.
    pub returned: u64,
    /// The value of the latest store in the interleaving.
    pub latest: u64,
    /// The ordering of the load.
    pub ordering: String,
}

#[derive(Default)]
struct Table {
    latest: Vec<u64>,
    weak: Vec<WeakLoad>,
}

thread_local! {
    // loom runs every thread of a model as a coroutine on one OS thread.
    static TABLE: RefCell<Table> = RefCell::new(Table::default());
}

/// Forgets every atomic: a new execution starts.
pub(crate) fn reset() {
    TABLE.with(|t| *t.borrow_mut() = Table::default());
}

/// The weak loads of the current execution so far.
pub(crate) fn weak_loads() -> Vec<WeakLoad> {
    TABLE.with(|t| t.borrow().weak.clone())
}

fn register(value: u64) -> usize {
    TABLE.with(|t| {
        let mut t = t.borrow_mut();
        t.latest.push(value);
        t.latest.len() - 1
    })
}

fn stored(number: usize, value: u64) {
    TABLE.with(|t| {
        if let Some(slot) = t.borrow_mut().latest.get_mut(number) {
            *slot = value;
        }
    })
}

fn loaded(atomic: &'static str, number: usize, returned: u64, ordering: Ordering) {
    TABLE.with(|t| {
        let mut t = t.borrow_mut();
        if let Some(&latest) = t.latest.get(number) {
            if latest != returned {
                t.weak.push(WeakLoad {
                    atomic,
                    number,
                    returned,
                    latest,
                    ordering: format!("{ordering:?}"),
                });
            }
        }
    })
}

macro_rules! tracked_integer {
    ($name:ident, $int:ty) => {
        #[doc = concat!("loom's `", stringify!($name), "`, tracked for weak-memory loads (see the module).")]
        #[derive(Debug)]
        pub struct $name {
            inner: loom::sync::atomic::$name,
            number: usize,
            /// Where it was made (the steps' name of it).
            created: &'static Location<'static>,
        }

        impl $name {
            #[doc = concat!("A new `", stringify!($name), "` holding `v`.")]
            #[track_caller]
            pub fn new(v: $int) -> Self {
                Self { inner: loom::sync::atomic::$name::new(v), number: register(v as u64), created: Location::caller() }
            }

            #[track_caller]
            #[inline]
            fn step(&self) -> Pending {
                step(stringify!($name), self.number, self.created, Location::caller())
            }

            /// Loads the value.
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $int {
                let step = self.step();
                let v = self.inner.load(order);
                loaded(stringify!($name), self.number, v as u64, order);
                step.done(|| Action::Load { value: shown(v) });
                v
            }

            /// Stores a value.
            #[track_caller]
            pub fn store(&self, v: $int, order: Ordering) {
                let step = self.step();
                self.inner.store(v, order);
                stored(self.number, v as u64);
                step.done(|| Action::Store { value: shown(v) });
            }

            /// Stores a value, returning the previous one.
            #[track_caller]
            pub fn swap(&self, v: $int, order: Ordering) -> $int {
                let step = self.step();
                let old = self.inner.swap(v, order);
                loaded(stringify!($name), self.number, old as u64, order);
                stored(self.number, v as u64);
                step.done(|| Action::Swap { old: shown(old), new: shown(v) });
                old
            }

            /// Stores `new` if the value is `current`.
            #[track_caller]
            pub fn compare_exchange(&self, current: $int, new: $int, success: Ordering, failure: Ordering) -> Result<$int, $int> {
                let step = self.step();
                let r = self.inner.compare_exchange(current, new, success, failure);
                self.after_cas(r, (current, new), failure, step)
            }

            /// Stores `new` if the value is `current` (loom never fails it spuriously).
            #[track_caller]
            pub fn compare_exchange_weak(&self, current: $int, new: $int, success: Ordering, failure: Ordering) -> Result<$int, $int> {
                let step = self.step();
                let r = self.inner.compare_exchange_weak(current, new, success, failure);
                self.after_cas(r, (current, new), failure, step)
            }

            fn after_cas(&self, r: Result<$int, $int>, (current, new): ($int, $int), failure: Ordering, step: Pending) -> Result<$int, $int> {
                step.done(|| Action::CompareExchange {
                    expected: shown(current),
                    new: shown(new),
                    found: shown(r.unwrap_or_else(|found| found)),
                    succeeded: r.is_ok(),
                });
                match r {
                    Ok(old) => {
                        loaded(stringify!($name), self.number, old as u64, failure);
                        stored(self.number, new as u64);
                    }
                    Err(seen) => loaded(stringify!($name), self.number, seen as u64, failure),
                }
                r
            }

            /// Fetches the value and applies `f` until it returns `None` or the store succeeds.
            #[track_caller]
            pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, mut f: F) -> Result<$int, $int>
            where
                F: FnMut($int) -> Option<$int>,
            {
                let mut prev = self.load(fetch_order);
                while let Some(next) = f(prev) {
                    match self.compare_exchange_weak(prev, next, set_order, fetch_order) {
                        Ok(old) => return Ok(old),
                        Err(seen) => prev = seen,
                    }
                }
                Err(prev)
            }

            /// The value, through a mutable reference (no concurrent access possible).
            pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut $int) -> R) -> R {
                let number = self.number;
                self.inner.with_mut(|v| {
                    let r = f(v);
                    stored(number, *v as u64);
                    r
                })
            }

            /// Consumes the atomic, returning its value.
            pub fn into_inner(self) -> $int {
                self.inner.into_inner()
            }
        }

        tracked_integer!(@rmw $name, $int, fetch_add, |old: $int, v: $int| old.wrapping_add(v));
        tracked_integer!(@rmw $name, $int, fetch_sub, |old: $int, v: $int| old.wrapping_sub(v));
        tracked_integer!(@rmw $name, $int, fetch_and, |old: $int, v: $int| old & v);
        tracked_integer!(@rmw $name, $int, fetch_or, |old: $int, v: $int| old | v);
        tracked_integer!(@rmw $name, $int, fetch_xor, |old: $int, v: $int| old ^ v);
        tracked_integer!(@rmw $name, $int, fetch_nand, |old: $int, v: $int| !(old & v));
        tracked_integer!(@rmw $name, $int, fetch_max, |old: $int, v: $int| old.max(v));
        tracked_integer!(@rmw $name, $int, fetch_min, |old: $int, v: $int| old.min(v));

        impl Default for $name {
            fn default() -> Self {
                Self::new(0)
            }
        }

        impl From<$int> for $name {
            fn from(v: $int) -> Self {
                Self::new(v)
            }
        }
    };
    (@rmw $name:ident, $int:ty, $op:ident, $apply:expr) => {
        impl $name {
            #[doc = concat!("`", stringify!($op), "`: a read-modify-write; returns the previous value.")]
            #[track_caller]
            pub fn $op(&self, v: $int, order: Ordering) -> $int {
                let step = self.step();
                let old = self.inner.$op(v, order);
                loaded(stringify!($name), self.number, old as u64, order);
                let apply = $apply;
                let new = apply(old, v);
                stored(self.number, new as u64);
                step.done(|| Action::FetchOp { op: stringify!($op), old: shown(old), new: Some(shown(new)) });
                old
            }
        }
    };
}

tracked_integer!(AtomicU8, u8);
tracked_integer!(AtomicU16, u16);
tracked_integer!(AtomicU32, u32);
tracked_integer!(AtomicU64, u64);
tracked_integer!(AtomicUsize, usize);
tracked_integer!(AtomicI8, i8);
tracked_integer!(AtomicI16, i16);
tracked_integer!(AtomicI32, i32);
tracked_integer!(AtomicI64, i64);
tracked_integer!(AtomicIsize, isize);

/// loom's `AtomicBool`, tracked for weak-memory loads (see the module).
#[derive(Debug)]
pub struct AtomicBool {
    inner: loom::sync::atomic::AtomicBool,
    number: usize,
    /// Where it was made (the steps' name of it).
    created: &'static Location<'static>,
}

impl AtomicBool {
    /// A new `AtomicBool` holding `v`.
    #[track_caller]
    pub fn new(v: bool) -> Self {
        Self {
            inner: loom::sync::atomic::AtomicBool::new(v),
            number: register(v as u64),
            created: Location::caller(),
        }
    }

    #[track_caller]
    #[inline]
    fn step(&self) -> Pending {
        step("AtomicBool", self.number, self.created, Location::caller())
    }

    /// Loads the value.
    #[track_caller]
    pub fn load(&self, order: Ordering) -> bool {
        let step = self.step();
        let v = self.inner.load(order);
        loaded("AtomicBool", self.number, v as u64, order);
        step.done(|| Action::Load { value: shown(v) });
        v
    }

    /// Stores a value.
    #[track_caller]
    pub fn store(&self, v: bool, order: Ordering) {
        let step = self.step();
        self.inner.store(v, order);
        stored(self.number, v as u64);
        step.done(|| Action::Store { value: shown(v) });
    }

    /// Stores a value, returning the previous one.
    #[track_caller]
    pub fn swap(&self, v: bool, order: Ordering) -> bool {
        let step = self.step();
        let old = self.inner.swap(v, order);
        loaded("AtomicBool", self.number, old as u64, order);
        stored(self.number, v as u64);
        step.done(|| Action::Swap {
            old: shown(old),
            new: shown(v),
        });
        old
    }

    /// Stores `new` if the value is `current`.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        let step = self.step();
        let r = self.inner.compare_exchange(current, new, success, failure);
        step.done(|| Action::CompareExchange {
            expected: shown(current),
            new: shown(new),
            found: shown(r.unwrap_or_else(|found| found)),
            succeeded: r.is_ok(),
        });
        match r {
            Ok(old) => {
                loaded("AtomicBool", self.number, old as u64, failure);
                stored(self.number, new as u64);
            }
            Err(seen) => loaded("AtomicBool", self.number, seen as u64, failure),
        }
        r
    }

    /// Stores `new` if the value is `current` (loom never fails it spuriously).
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        self.compare_exchange(current, new, success, failure)
    }

    /// Logical or; returns the previous value.
    #[track_caller]
    pub fn fetch_or(&self, v: bool, order: Ordering) -> bool {
        let step = self.step();
        let old = self.inner.fetch_or(v, order);
        loaded("AtomicBool", self.number, old as u64, order);
        stored(self.number, (old | v) as u64);
        step.done(|| Action::FetchOp {
            op: "fetch_or",
            old: shown(old),
            new: Some(shown(old | v)),
        });
        old
    }

    /// Logical and; returns the previous value.
    #[track_caller]
    pub fn fetch_and(&self, v: bool, order: Ordering) -> bool {
        let step = self.step();
        let old = self.inner.fetch_and(v, order);
        loaded("AtomicBool", self.number, old as u64, order);
        stored(self.number, (old & v) as u64);
        step.done(|| Action::FetchOp {
            op: "fetch_and",
            old: shown(old),
            new: Some(shown(old & v)),
        });
        old
    }

    /// Consumes the atomic, returning its value.
    pub fn into_inner(self) -> bool {
        self.inner.into_inner()
    }
}

impl Default for AtomicBool {
    fn default() -> Self {
        Self::new(false)
    }
}

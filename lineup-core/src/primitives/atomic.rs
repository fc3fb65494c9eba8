//! `lineup::sync::atomic` on shuttle: shuttle's atomics (the same scheduling points), each of
//! which announces itself before it calls into shuttle, so that the partial-order reduction sees
//! what each step touches (see [`footprint`](crate::explore::footprint)): a load reads, every
//! other access writes (a failed compare-exchange included: conservative, never unsound).

use std::fmt::Debug;

pub use shuttle::sync::atomic::{compiler_fence, fence, Ordering};

use std::panic::Location;

use crate::explore::footprint::{announce, announce_load, ObjectIdentity};
use crate::explore::trace::Action;
use crate::explore::trace::{self, Pending};

/// A value of an atomic, as the steps' record shows it.
fn shown<V: Debug>(v: V) -> String {
    format!("{v:?}")
}

/// A pointer of an `AtomicPtr`, as the steps' record shows it: its number in the execution (by
/// first sight), never its address, which differs from run to run.
fn shown_ptr<T>(p: *mut T) -> String {
    trace::pointer_name(p as usize)
}

macro_rules! announced_integer {
    ($name:ident, $int:ty) => {
        #[doc = concat!("An integer that can be shared between threads: shuttle's `", stringify!($name), "`, seen by lineup's partial-order reduction.")]
        pub struct $name {
            inner: shuttle::sync::atomic::$name,
            identity: ObjectIdentity,
        }

        impl $name {
            /// The step of the user's call in progress, for the record of steps.
            #[track_caller]
            fn step(&self) -> Pending {
                trace::begin(Some((&self.identity, stringify!($name))), Some(Location::caller()))
            }

            #[doc = concat!("A new `", stringify!($name), "` holding `v`.")]
            #[track_caller]
            pub const fn new(v: $int) -> Self {
                Self {
                    inner: shuttle::sync::atomic::$name::new(v),
                    identity: ObjectIdentity::at(Location::caller()),
                }
            }

            /// A mutable reference to the value (no concurrent access possible).
            pub fn get_mut(&mut self) -> &mut $int {
                self.inner.get_mut()
            }

            /// Consumes the atomic, returning its value.
            pub fn into_inner(self) -> $int {
                self.inner.into_inner()
            }

            /// Loads the value.
            #[track_caller]
            pub fn load(&self, order: Ordering) -> $int {
                let _seen = announce_load(&self.identity, Location::caller());
                let step = self.step();
                let v = self.inner.load(order);
                step.done(|| Action::Load { value: shown(v) });
                v
            }

            /// Stores a value.
            #[track_caller]
            pub fn store(&self, v: $int, order: Ordering) {
                let _seen = announce(&self.identity, true);
                let step = self.step();
                self.inner.store(v, order);
                step.done(|| Action::Store { value: shown(v) })
            }

            /// Stores a value, returning the previous one.
            #[track_caller]
            pub fn swap(&self, v: $int, order: Ordering) -> $int {
                let _seen = announce(&self.identity, true);
                let step = self.step();
                let old = self.inner.swap(v, order);
                step.done(|| Action::Swap { old: shown(old), new: shown(v) });
                old
            }

            /// Stores `new` if the value is `current`; returns the previous value.
            #[track_caller]
            pub fn compare_exchange(&self, current: $int, new: $int, success: Ordering, failure: Ordering) -> Result<$int, $int> {
                let _seen = announce(&self.identity, true);
                let step = self.step();
                let result = self.inner.compare_exchange(current, new, success, failure);
                step.done(|| Action::CompareExchange {
                    expected: shown(current),
                    new: shown(new),
                    found: shown(result.unwrap_or_else(|found| found)),
                    succeeded: result.is_ok(),
                });
                result
            }

            /// Stores `new` if the value is `current` (shuttle never fails it spuriously).
            #[track_caller]
            pub fn compare_exchange_weak(&self, current: $int, new: $int, success: Ordering, failure: Ordering) -> Result<$int, $int> {
                let _seen = announce(&self.identity, true);
                let step = self.step();
                let result = self.inner.compare_exchange_weak(current, new, success, failure);
                step.done(|| Action::CompareExchange {
                    expected: shown(current),
                    new: shown(new),
                    found: shown(result.unwrap_or_else(|found| found)),
                    succeeded: result.is_ok(),
                });
                result
            }

            /// Fetches the value and applies `f` until it returns `None` or the store succeeds.
            #[track_caller]
            pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, mut f: F) -> Result<$int, $int>
            where
                F: FnMut($int) -> Option<$int>,
            {
                let _seen = announce(&self.identity, true);
                let step = self.step();
                let mut wrote = None;
                let result = self.inner.fetch_update(set_order, fetch_order, |x| {
                    let n = f(x);
                    wrote = n;
                    n
                });
                step.done(|| Action::FetchOp {
                    op: "fetch_update",
                    old: shown(result.unwrap_or_else(|old| old)),
                    new: wrote.map(shown),
                });
                result
            }
        }

        announced_integer!(@rmw $name, $int,
            fetch_add: |old: $int, v: $int| old.wrapping_add(v),
            fetch_sub: |old: $int, v: $int| old.wrapping_sub(v),
            fetch_and: |old: $int, v: $int| old & v,
            fetch_nand: |old: $int, v: $int| !(old & v),
            fetch_or: |old: $int, v: $int| old | v,
            fetch_xor: |old: $int, v: $int| old ^ v,
            fetch_max: |old: $int, v: $int| old.max(v),
            fetch_min: |old: $int, v: $int| old.min(v));

        impl Default for $name {
            #[track_caller]
            fn default() -> Self {
                Self::new(0)
            }
        }

        impl From<$int> for $name {
            #[track_caller]
            fn from(v: $int) -> Self {
                Self::new(v)
            }
        }

        impl Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                Debug::fmt(&self.inner, f)
            }
        }
    };
    (@rmw $name:ident, $int:ty, $($op:ident: $new:expr),*) => {
        impl $name {
            $(
                #[doc = concat!("`", stringify!($op), "`: a read-modify-write; returns the previous value.")]
                #[track_caller]
                pub fn $op(&self, v: $int, order: Ordering) -> $int {
                    let _seen = announce(&self.identity, true);
                    let step = self.step();
                    let old = self.inner.$op(v, order);
                    step.done(|| Action::FetchOp { op: stringify!($op), old: shown(old), new: Some(shown(($new)(old, v))) });
                    old
                }
            )*
        }
    };
}

announced_integer!(AtomicU8, u8);
announced_integer!(AtomicU16, u16);
announced_integer!(AtomicU32, u32);
announced_integer!(AtomicU64, u64);
announced_integer!(AtomicUsize, usize);
announced_integer!(AtomicI8, i8);
announced_integer!(AtomicI16, i16);
announced_integer!(AtomicI32, i32);
announced_integer!(AtomicI64, i64);
announced_integer!(AtomicIsize, isize);

/// A boolean that can be shared between threads: shuttle's `AtomicBool`, seen by lineup's
/// partial-order reduction.
pub struct AtomicBool {
    inner: shuttle::sync::atomic::AtomicBool,
    identity: ObjectIdentity,
}

impl AtomicBool {
    /// The step of the user's call in progress, for the record of steps.
    #[track_caller]
    fn step(&self) -> Pending {
        trace::begin(Some((&self.identity, "AtomicBool")), Some(Location::caller()))
    }

    /// A new `AtomicBool` holding `v`.
    #[track_caller]
    pub const fn new(v: bool) -> Self {
        Self {
            inner: shuttle::sync::atomic::AtomicBool::new(v),
            identity: ObjectIdentity::at(Location::caller()),
        }
    }

    /// A mutable reference to the value (no concurrent access possible).
    pub fn get_mut(&mut self) -> &mut bool {
        self.inner.get_mut()
    }

    /// Consumes the atomic, returning its value.
    pub fn into_inner(self) -> bool {
        self.inner.into_inner()
    }

    /// Loads the value.
    #[track_caller]
    pub fn load(&self, order: Ordering) -> bool {
        let _seen = announce_load(&self.identity, Location::caller());
        let step = self.step();
        let v = self.inner.load(order);
        step.done(|| Action::Load { value: shown(v) });
        v
    }

    /// Stores a value.
    #[track_caller]
    pub fn store(&self, v: bool, order: Ordering) {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        self.inner.store(v, order);
        step.done(|| Action::Store { value: shown(v) })
    }

    /// Stores a value, returning the previous one.
    #[track_caller]
    pub fn swap(&self, v: bool, order: Ordering) -> bool {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let old = self.inner.swap(v, order);
        step.done(|| Action::Swap {
            old: shown(old),
            new: shown(v),
        });
        old
    }

    /// Stores `new` if the value is `current`; returns the previous value.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let result = self.inner.compare_exchange(current, new, success, failure);
        step.done(|| Action::CompareExchange {
            expected: shown(current),
            new: shown(new),
            found: shown(result.unwrap_or_else(|found| found)),
            succeeded: result.is_ok(),
        });
        result
    }

    /// Stores `new` if the value is `current` (shuttle never fails it spuriously).
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let result = self.inner.compare_exchange_weak(current, new, success, failure);
        step.done(|| Action::CompareExchange {
            expected: shown(current),
            new: shown(new),
            found: shown(result.unwrap_or_else(|found| found)),
            succeeded: result.is_ok(),
        });
        result
    }

    /// Logical "and" with `v`; returns the previous value.
    #[track_caller]
    pub fn fetch_and(&self, v: bool, order: Ordering) -> bool {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let old = self.inner.fetch_and(v, order);
        step.done(|| Action::FetchOp {
            op: "fetch_and",
            old: shown(old),
            new: Some(shown(old & v)),
        });
        old
    }

    /// Logical "nand" with `v`; returns the previous value.
    #[track_caller]
    pub fn fetch_nand(&self, v: bool, order: Ordering) -> bool {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let old = self.inner.fetch_nand(v, order);
        step.done(|| Action::FetchOp {
            op: "fetch_nand",
            old: shown(old),
            new: Some(shown(!(old & v))),
        });
        old
    }

    /// Logical "or" with `v`; returns the previous value.
    #[track_caller]
    pub fn fetch_or(&self, v: bool, order: Ordering) -> bool {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let old = self.inner.fetch_or(v, order);
        step.done(|| Action::FetchOp {
            op: "fetch_or",
            old: shown(old),
            new: Some(shown(old | v)),
        });
        old
    }

    /// Logical "xor" with `v`; returns the previous value.
    #[track_caller]
    pub fn fetch_xor(&self, v: bool, order: Ordering) -> bool {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let old = self.inner.fetch_xor(v, order);
        step.done(|| Action::FetchOp {
            op: "fetch_xor",
            old: shown(old),
            new: Some(shown(old ^ v)),
        });
        old
    }

    /// Fetches the value and applies `f` until it returns `None` or the store succeeds.
    #[track_caller]
    pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, mut f: F) -> Result<bool, bool>
    where
        F: FnMut(bool) -> Option<bool>,
    {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let mut wrote = None;
        let result = self.inner.fetch_update(set_order, fetch_order, |x| {
            let n = f(x);
            wrote = n;
            n
        });
        step.done(|| Action::FetchOp {
            op: "fetch_update",
            old: shown(result.unwrap_or_else(|old| old)),
            new: wrote.map(shown),
        });
        result
    }
}

impl Default for AtomicBool {
    #[track_caller]
    fn default() -> Self {
        Self::new(false)
    }
}

impl From<bool> for AtomicBool {
    #[track_caller]
    fn from(v: bool) -> Self {
        Self::new(v)
    }
}

impl Debug for AtomicBool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Debug::fmt(&self.inner, f)
    }
}

/// A raw pointer that can be shared between threads: shuttle's `AtomicPtr`, seen by lineup's
/// partial-order reduction.
pub struct AtomicPtr<T> {
    inner: shuttle::sync::atomic::AtomicPtr<T>,
    identity: ObjectIdentity,
}

impl<T> AtomicPtr<T> {
    /// The step of the user's call in progress, for the record of steps.
    #[track_caller]
    fn step(&self) -> Pending {
        trace::begin(Some((&self.identity, "AtomicPtr")), Some(Location::caller()))
    }

    /// A new `AtomicPtr` holding `p`.
    #[track_caller]
    pub const fn new(p: *mut T) -> Self {
        Self {
            inner: shuttle::sync::atomic::AtomicPtr::new(p),
            identity: ObjectIdentity::at(Location::caller()),
        }
    }

    /// A mutable reference to the pointer (no concurrent access possible).
    pub fn get_mut(&mut self) -> &mut *mut T {
        self.inner.get_mut()
    }

    /// Consumes the atomic, returning the pointer.
    pub fn into_inner(self) -> *mut T {
        self.inner.into_inner()
    }

    /// Loads the pointer.
    #[track_caller]
    pub fn load(&self, order: Ordering) -> *mut T {
        let _seen = announce_load(&self.identity, Location::caller());
        let step = self.step();
        let v = self.inner.load(order);
        step.done(|| Action::Load { value: shown_ptr(v) });
        v
    }

    /// Stores a pointer.
    #[track_caller]
    pub fn store(&self, p: *mut T, order: Ordering) {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        self.inner.store(p, order);
        step.done(|| Action::Store { value: shown_ptr(p) })
    }

    /// Stores a pointer, returning the previous one.
    #[track_caller]
    pub fn swap(&self, p: *mut T, order: Ordering) -> *mut T {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let old = self.inner.swap(p, order);
        step.done(|| Action::Swap {
            old: shown_ptr(old),
            new: shown_ptr(p),
        });
        old
    }

    /// Stores `new` if the pointer is `current`; returns the previous pointer.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let result = self.inner.compare_exchange(current, new, success, failure);
        step.done(|| Action::CompareExchange {
            expected: shown_ptr(current),
            new: shown_ptr(new),
            found: shown_ptr(result.unwrap_or_else(|found| found)),
            succeeded: result.is_ok(),
        });
        result
    }

    /// Stores `new` if the pointer is `current` (shuttle never fails it spuriously).
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let result = self.inner.compare_exchange_weak(current, new, success, failure);
        step.done(|| Action::CompareExchange {
            expected: shown_ptr(current),
            new: shown_ptr(new),
            found: shown_ptr(result.unwrap_or_else(|found| found)),
            succeeded: result.is_ok(),
        });
        result
    }

    /// Fetches the pointer and applies `f` until it returns `None` or the store succeeds.
    #[track_caller]
    pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, mut f: F) -> Result<*mut T, *mut T>
    where
        F: FnMut(*mut T) -> Option<*mut T>,
    {
        let _seen = announce(&self.identity, true);
        let step = self.step();
        let mut wrote = None;
        let result = self.inner.fetch_update(set_order, fetch_order, |x| {
            let n = f(x);
            wrote = n;
            n
        });
        step.done(|| Action::FetchOp {
            op: "fetch_update",
            old: shown_ptr(result.unwrap_or_else(|old| old)),
            new: wrote.map(shown_ptr),
        });
        result
    }
}

impl<T> Default for AtomicPtr<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(std::ptr::null_mut())
    }
}

impl<T> From<*mut T> for AtomicPtr<T> {
    #[track_caller]
    fn from(p: *mut T) -> Self {
        Self::new(p)
    }
}

impl<T> Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Debug::fmt(&self.inner, f)
    }
}

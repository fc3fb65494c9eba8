//! `lineup::sync::atomic` on shuttle: shuttle's atomics (the same scheduling points), each of
//! which announces itself before it calls into shuttle, so that the partial-order reduction sees
//! what each step touches (see [`footprint`](crate::explore::footprint)): a load reads, every
//! other access writes (a failed compare-exchange included: conservative, never unsound).

use std::fmt::Debug;

pub use shuttle::sync::atomic::{compiler_fence, fence, Ordering};

use crate::explore::footprint::{announce, announce_load, ObjectIdentity};

macro_rules! announced_integer {
    ($name:ident, $int:ty) => {
        #[doc = concat!("An integer that can be shared between threads: shuttle's `", stringify!($name), "`, seen by lineup's partial-order reduction.")]
        pub struct $name {
            inner: shuttle::sync::atomic::$name,
            identity: ObjectIdentity,
        }

        impl $name {
            #[doc = concat!("A new `", stringify!($name), "` holding `v`.")]
            #[track_caller]
            pub const fn new(v: $int) -> Self {
                Self {
                    inner: shuttle::sync::atomic::$name::new(v),
                    identity: ObjectIdentity::new(),
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
                let _seen = announce_load(&self.identity, std::panic::Location::caller());
                self.inner.load(order)
            }

            /// Stores a value.
            pub fn store(&self, v: $int, order: Ordering) {
                let _seen = announce(&self.identity, true);
                self.inner.store(v, order)
            }

            /// Stores a value, returning the previous one.
            pub fn swap(&self, v: $int, order: Ordering) -> $int {
                let _seen = announce(&self.identity, true);
                self.inner.swap(v, order)
            }

            /// Stores `new` if the value is `current`; returns the previous value.
            pub fn compare_exchange(&self, current: $int, new: $int, success: Ordering, failure: Ordering) -> Result<$int, $int> {
                let _seen = announce(&self.identity, true);
                self.inner.compare_exchange(current, new, success, failure)
            }

            /// Stores `new` if the value is `current` (shuttle never fails it spuriously).
            pub fn compare_exchange_weak(&self, current: $int, new: $int, success: Ordering, failure: Ordering) -> Result<$int, $int> {
                let _seen = announce(&self.identity, true);
                self.inner.compare_exchange_weak(current, new, success, failure)
            }

            /// Fetches the value and applies `f` until it returns `None` or the store succeeds.
            pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<$int, $int>
            where
                F: FnMut($int) -> Option<$int>,
            {
                let _seen = announce(&self.identity, true);
                self.inner.fetch_update(set_order, fetch_order, f)
            }
        }

        announced_integer!(@rmw $name, $int, fetch_add, fetch_sub, fetch_and, fetch_nand, fetch_or, fetch_xor, fetch_max, fetch_min);

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

        impl Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                Debug::fmt(&self.inner, f)
            }
        }
    };
    (@rmw $name:ident, $int:ty, $($op:ident),*) => {
        impl $name {
            $(
                #[doc = concat!("`", stringify!($op), "`: a read-modify-write; returns the previous value.")]
                pub fn $op(&self, v: $int, order: Ordering) -> $int {
                    let _seen = announce(&self.identity, true);
                    self.inner.$op(v, order)
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
    /// A new `AtomicBool` holding `v`.
    #[track_caller]
    pub const fn new(v: bool) -> Self {
        Self {
            inner: shuttle::sync::atomic::AtomicBool::new(v),
            identity: ObjectIdentity::new(),
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
        let _seen = announce_load(&self.identity, std::panic::Location::caller());
        self.inner.load(order)
    }

    /// Stores a value.
    pub fn store(&self, v: bool, order: Ordering) {
        let _seen = announce(&self.identity, true);
        self.inner.store(v, order)
    }

    /// Stores a value, returning the previous one.
    pub fn swap(&self, v: bool, order: Ordering) -> bool {
        let _seen = announce(&self.identity, true);
        self.inner.swap(v, order)
    }

    /// Stores `new` if the value is `current`; returns the previous value.
    pub fn compare_exchange(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        let _seen = announce(&self.identity, true);
        self.inner.compare_exchange(current, new, success, failure)
    }

    /// Stores `new` if the value is `current` (shuttle never fails it spuriously).
    pub fn compare_exchange_weak(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        let _seen = announce(&self.identity, true);
        self.inner.compare_exchange_weak(current, new, success, failure)
    }

    /// Logical "and" with `v`; returns the previous value.
    pub fn fetch_and(&self, v: bool, order: Ordering) -> bool {
        let _seen = announce(&self.identity, true);
        self.inner.fetch_and(v, order)
    }

    /// Logical "nand" with `v`; returns the previous value.
    pub fn fetch_nand(&self, v: bool, order: Ordering) -> bool {
        let _seen = announce(&self.identity, true);
        self.inner.fetch_nand(v, order)
    }

    /// Logical "or" with `v`; returns the previous value.
    pub fn fetch_or(&self, v: bool, order: Ordering) -> bool {
        let _seen = announce(&self.identity, true);
        self.inner.fetch_or(v, order)
    }

    /// Logical "xor" with `v`; returns the previous value.
    pub fn fetch_xor(&self, v: bool, order: Ordering) -> bool {
        let _seen = announce(&self.identity, true);
        self.inner.fetch_xor(v, order)
    }

    /// Fetches the value and applies `f` until it returns `None` or the store succeeds.
    pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<bool, bool>
    where
        F: FnMut(bool) -> Option<bool>,
    {
        let _seen = announce(&self.identity, true);
        self.inner.fetch_update(set_order, fetch_order, f)
    }
}

impl Default for AtomicBool {
    fn default() -> Self {
        Self::new(false)
    }
}

impl From<bool> for AtomicBool {
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
    /// A new `AtomicPtr` holding `p`.
    #[track_caller]
    pub const fn new(p: *mut T) -> Self {
        Self {
            inner: shuttle::sync::atomic::AtomicPtr::new(p),
            identity: ObjectIdentity::new(),
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
        let _seen = announce_load(&self.identity, std::panic::Location::caller());
        self.inner.load(order)
    }

    /// Stores a pointer.
    pub fn store(&self, p: *mut T, order: Ordering) {
        let _seen = announce(&self.identity, true);
        self.inner.store(p, order)
    }

    /// Stores a pointer, returning the previous one.
    pub fn swap(&self, p: *mut T, order: Ordering) -> *mut T {
        let _seen = announce(&self.identity, true);
        self.inner.swap(p, order)
    }

    /// Stores `new` if the pointer is `current`; returns the previous pointer.
    pub fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let _seen = announce(&self.identity, true);
        self.inner.compare_exchange(current, new, success, failure)
    }

    /// Stores `new` if the pointer is `current` (shuttle never fails it spuriously).
    pub fn compare_exchange_weak(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let _seen = announce(&self.identity, true);
        self.inner.compare_exchange_weak(current, new, success, failure)
    }

    /// Fetches the pointer and applies `f` until it returns `None` or the store succeeds.
    pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<*mut T, *mut T>
    where
        F: FnMut(*mut T) -> Option<*mut T>,
    {
        let _seen = announce(&self.identity, true);
        self.inner.fetch_update(set_order, fetch_order, f)
    }
}

impl<T> Default for AtomicPtr<T> {
    fn default() -> Self {
        Self::new(std::ptr::null_mut())
    }
}

impl<T> From<*mut T> for AtomicPtr<T> {
    fn from(p: *mut T) -> Self {
        Self::new(p)
    }
}

impl<T> Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Debug::fmt(&self.inner, f)
    }
}

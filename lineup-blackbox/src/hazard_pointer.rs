//! [`haphazard`](https://crates.io/crates/haphazard) 0.1.8, switched to loom by `--cfg loom` alone
//! (its loom dependency is unconditional under `cfg(loom)`, which replaces its atomics and
//! `yield_now`, makes the global domain a per-execution `loom::lazy_static`, and lowers the
//! reclamation threshold to 5 retired objects): hazard pointers, and `haphazard::AtomicPtr`, an
//! atomically replaceable heap value whose readers protect what they read (the job that
//! `arc-swap` does with reference counts).
//!
//! The object is one `haphazard::AtomicPtr<u32>` in the global domain, starting at `Box::new(0)`.
//! Every operation takes a fresh `HazardPointer` from the domain for what it reads.
//!
//! * `load()`: `safe_load` (protect, then re-check the pointer), the value copied out.
//! * `store(v)`: `swap(Box::new(v))`, then `retire` the old box (it is freed once no hazard
//!   pointer protects it).
//! * `compare_and_set(a, b)`: a compare-and-set *by value* made of the crate's calls, the usual
//!   way: load and protect the current box; if its value is not `a`, `false`; else
//!   `compare_exchange` its pointer with a new box of `b`, retire the old one and answer `true`, or
//!   start again if the pointer changed in between. The protected box cannot be freed and reused
//!   at the same address while protected, so a successful exchange replaced the value read.
//! * `reclaim()`: `Domain::global().eager_reclaim()`, the number it returns dropped (it depends on
//!   which hazard pointers are active at that moment, which no sequential object says).
//!
//! As a sequential object: a register with compare-and-set. A box freed while a reader still
//! reads it would show up as a wrong value (the freed memory is reused by the allocator).

use haphazard::{AtomicPtr, Domain, HazardPointer};
use lineup::{Invocation, Subject};

/// A `haphazard::AtomicPtr<u32>` in the global domain.
pub struct Cell(AtomicPtr<u32>);

impl std::fmt::Debug for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("haphazard::AtomicPtr<u32>")
    }
}

impl Default for Cell {
    fn default() -> Self {
        Self(AtomicPtr::from(Box::new(0)))
    }
}

impl Cell {
    /// `safe_load` with a fresh hazard pointer; the value, copied out.
    pub fn load(&self) -> Option<u32> {
        let mut hazard = HazardPointer::new();
        self.0.safe_load(&mut hazard).copied()
    }

    /// `swap(Box::new(value))` and `retire` the box it replaced.
    pub fn store(&self, value: u32) {
        if let Some(old) = self.0.swap(Box::new(value)) {
            // SAFETY: the box left the AtomicPtr and is reachable only through hazard pointers
            // taken before the swap; it is retired once, in the global domain of every load.
            unsafe { old.retire() };
        }
    }

    /// A compare-and-set by value, through `compare_exchange` on the protected pointer (see the
    /// module); whether it replaced `expected` with `new`.
    pub fn compare_and_set(&self, expected: u32, new: u32) -> bool {
        let mut hazard = HazardPointer::new();
        let mut replacement = Box::new(new);
        loop {
            let Some(current) = self.0.safe_load(&mut hazard) else {
                return false;
            };
            if *current != expected {
                return false;
            }
            let current = std::ptr::from_ref(current).cast_mut();
            match self.0.compare_exchange(current, replacement) {
                Ok(old) => {
                    if let Some(old) = old {
                        // SAFETY: as in `store`.
                        unsafe { old.retire() };
                    }
                    return true;
                }
                Err(unused) => replacement = unused,
            }
        }
    }

    /// `Domain::global().eager_reclaim()`, its count dropped.
    pub fn reclaim(&self) {
        Domain::global().eager_reclaim();
    }

    /// A deliberately wrong operation, to show that the harness is not vacuous: a swap made of
    /// a `load` and a `store`, returning the value loaded. Two of them can both load 0; serially
    /// the second returns what the first stored. lineup must reject it.
    pub fn load_then_store(&self, value: u32) -> Option<u32> {
        let old = self.load();
        self.store(value);
        old
    }
}

/// Positions of the invocations of [`cell`] and [`non_atomic_swap`].
pub mod op {
    /// `load()`: `Some(value)`.
    pub const LOAD: usize = 0;
    /// `store(1)`: `()`.
    pub const STORE_1: usize = 1;
    /// `store(2)`: `()`.
    pub const STORE_2: usize = 2;
    /// `compare_and_set(0, 1)`: whether it did.
    pub const CAS_0_1: usize = 3;
    /// `compare_and_set(1, 2)`: whether it did.
    pub const CAS_1_2: usize = 4;
    /// `reclaim()`: `()`.
    pub const RECLAIM: usize = 5;
    /// `load_then_store(1)` (only in [`non_atomic_swap`](super::non_atomic_swap)): the value loaded.
    pub const LOAD_THEN_STORE_1: usize = 6;
}

fn named(name: &str) -> Subject<Cell> {
    Subject::new(name, Cell::default)
        .with(Invocation::new("load", Cell::load))
        .with(Invocation::new("store", |c: &Cell| c.store(1)).arg(1))
        .with(Invocation::new("store", |c: &Cell| c.store(2)).arg(2))
        .with(
            Invocation::new("compare_and_set", |c: &Cell| c.compare_and_set(0, 1))
                .arg(0)
                .arg(1),
        )
        .with(
            Invocation::new("compare_and_set", |c: &Cell| c.compare_and_set(1, 2))
                .arg(1)
                .arg(2),
        )
        .with(Invocation::new("reclaim", Cell::reclaim))
}

/// The `AtomicPtr` with `load`, `store`, `compare_and_set` and `reclaim` (see [`op`]).
pub fn cell() -> Subject<Cell> {
    named("haphazard 0.1.8 AtomicPtr")
}

/// [`cell`] plus the deliberately wrong `load_then_store` (see [`Cell::load_then_store`]):
/// lineup must reject it.
pub fn non_atomic_swap() -> Subject<Cell> {
    named("haphazard 0.1.8 AtomicPtr with a non-atomic swap")
        .with(Invocation::new("load_then_store", |c: &Cell| c.load_then_store(1)).arg(1))
}

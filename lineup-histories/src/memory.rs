//! The memory budget of a check: how much the searches may hold, the default read from the
//! machine, and the accounting of what they hold.
//!
//! The checkers count what their search structures hold (cache entries with their bitsets and
//! model states, the hash table itself, the stack of the search, the online checker's
//! possibilities) and stop with an unknown verdict when the next allocation would take them past
//! the budget. The count is an estimate (allocator overhead is rounded, and a model state's heap
//! is what [`crate::Model::state_heap_size`] says), so the default budget leaves room: half of
//! the memory available, read when the check first holds 16 MiB (a smaller check never needs
//! it).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

pub use lineup_core::{default_memory_budget, MemoryLimit};

/// The allocator's estimate every memory budget counts with (see [`lineup_core::allocation_size`]).
pub(crate) use lineup_core::allocation_size as allocation;

/// Below this many bytes held (with the slack), a check under [`MemoryLimit::Auto`] does not
/// read its budget from the machine: reading it (`/proc/meminfo`, the cgroup, the limits) costs
/// more than checking a small history.
const AUTO_READ_AT: u64 = 16 << 20;

/// The slack of a budget not read yet (the most it can be).
const UNREAD_SLACK: u64 = 1 << 20;

/// A budget shared by the searches of one check (the partitions of a partitioned check run at
/// the same time), with what they hold together.
pub(crate) struct MemoryMeter {
    /// The limit, once known (`u64::MAX`: unlimited).
    limit: OnceLock<u64>,
    used: AtomicU64,
    peak: AtomicU64,
}

impl MemoryMeter {
    /// A meter of `limit`. [`MemoryLimit::Auto`] is read from the machine
    /// ([`default_memory_budget`]) the first time the searches hold about 16 MiB, so that small
    /// checks never pay for reading it.
    pub(crate) fn new(limit: MemoryLimit) -> Self {
        let known = OnceLock::new();
        match limit {
            MemoryLimit::Auto => {}
            MemoryLimit::Bytes(bytes) => {
                let _ = known.set(bytes);
            }
            MemoryLimit::Unlimited => {
                let _ = known.set(u64::MAX);
            }
        }
        MemoryMeter {
            limit: known,
            used: AtomicU64::new(0),
            peak: AtomicU64::new(0),
        }
    }

    /// The limit, in bytes (read from the machine now if it was not yet).
    pub(crate) fn limit(&self) -> u64 {
        *self.limit.get_or_init(default_memory_budget)
    }

    /// The most the searches held together (at the points they reported).
    pub(crate) fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// Between two reports a search may grow by this much unreported.
    pub(crate) fn slack(&self) -> u64 {
        match self.limit.get() {
            Some(limit) => (limit / 64).clamp(4 << 10, UNREAD_SLACK),
            None => UNREAD_SLACK,
        }
    }

    /// Whether `bytes` (with the slack) fit in the budget.
    fn allows(&self, bytes: u64) -> bool {
        if self.limit.get().is_none() && bytes.saturating_add(UNREAD_SLACK) <= AUTO_READ_AT {
            return true;
        }
        let limit = self.limit();
        bytes.saturating_add(self.slack()) <= limit
    }
}

/// What one search holds, reported to the shared [`MemoryMeter`] now and then.
pub(crate) struct MemoryAccount<'a> {
    meter: &'a MemoryMeter,
    reported: u64,
}

impl<'a> MemoryAccount<'a> {
    pub(crate) fn new(meter: &'a MemoryMeter) -> Self {
        MemoryAccount { meter, reported: 0 }
    }

    /// Reports that the search holds `held` bytes and is about to allocate `extra` more;
    /// returns whether that fits in the budget (with what the other searches hold, and the
    /// [`MemoryMeter::slack`] it may grow by before its next report).
    pub(crate) fn fits(&mut self, held: u64, extra: u64) -> bool {
        let now = if held >= self.reported {
            self.meter.used.fetch_add(held - self.reported, Ordering::Relaxed) + (held - self.reported)
        } else {
            self.meter.used.fetch_sub(self.reported - held, Ordering::Relaxed) - (self.reported - held)
        };
        self.reported = held;
        self.meter.peak.fetch_max(now, Ordering::Relaxed);
        // Room is left for the slack a search may grow by before its next report.
        self.meter.allows(now.saturating_add(extra))
    }

    /// The bytes reported last.
    pub(crate) fn reported(&self) -> u64 {
        self.reported
    }
}

impl Drop for MemoryAccount<'_> {
    fn drop(&mut self) {
        // The search's structures are freed with it.
        self.meter.used.fetch_sub(self.reported, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounts_add_up_and_free_on_drop() {
        let meter = MemoryMeter::new(MemoryLimit::Bytes(1000 + (4 << 10)));
        let mut a = MemoryAccount::new(&meter);
        let mut b = MemoryAccount::new(&meter);
        assert!(a.fits(600, 0));
        assert!(!b.fits(300, 200), "600 + 300 + 200 > 1000");
        assert!(a.fits(100, 0));
        assert!(b.fits(300, 200));
        drop(a);
        assert_eq!(meter.used.load(Ordering::Relaxed), 300);
        assert_eq!(meter.peak(), 900);
        assert_eq!(allocation(0), 0);
        assert_eq!(allocation(8), 32);
        assert_eq!(allocation(100), 112);
    }
}

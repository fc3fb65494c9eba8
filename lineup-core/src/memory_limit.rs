//! The memory budget of a check ([`MemoryLimit`]), shared by the engine (its sets of distinct
//! serial traces and of phase-2 fingerprints, [`Config::max_memory`](crate::Config)) and
//! lineup-histories' searches: past it a check ends without a verdict, never in the kernel's
//! out-of-memory killer.

/// How much memory a check may hold: [`Config::max_memory`](crate::Config) for the engine's sets of
/// distinct executions, and lineup-histories' `CheckOptions::max_memory` and
/// `OnlineChecker::with_memory_limit` for its searches.
///
/// ```
/// use lineup_core::MemoryLimit;
/// assert_eq!(MemoryLimit::Bytes(1 << 20).bytes(), Some(1 << 20));
/// assert_eq!(MemoryLimit::Unlimited.bytes(), None);
/// assert!(MemoryLimit::Auto.bytes().is_some_and(|b| b > 0) || cfg!(not(target_os = "linux")));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemoryLimit {
    /// Half of the memory available ([`default_memory_budget`]), read from the machine when the
    /// check first holds about 16 MiB (a check that holds less never reads it).
    #[default]
    Auto,
    /// At most this many bytes.
    Bytes(u64),
    /// No limit (a hard history may then use all the machine's memory).
    Unlimited,
}

impl MemoryLimit {
    /// The budget in bytes (`Auto` is read from the machine now), or `None` for no limit.
    pub fn bytes(self) -> Option<u64> {
        match self {
            MemoryLimit::Auto => Some(default_memory_budget()),
            MemoryLimit::Bytes(bytes) => Some(bytes),
            MemoryLimit::Unlimited => None,
        }
    }
}

/// The budget used when none is given: half of the memory available to this process now, that
/// is the least of `MemAvailable` (`/proc/meminfo`), the headroom under the cgroup's
/// `memory.max` and the address-space limit (`ulimit -v`); 4 GiB where none of them can be
/// read.
pub fn default_memory_budget() -> u64 {
    let mut available: Option<u64> = None;
    let mut least = |bytes: u64| available = Some(available.map_or(bytes, |a| a.min(bytes)));
    if let Some(kib) = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| meminfo_field(&text, "MemAvailable:"))
    {
        least(kib.saturating_mul(1024));
    }
    let read_u64 = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse::<u64>().ok())
    };
    if let (Some(max), Some(current)) = (
        read_u64("/sys/fs/cgroup/memory.max"),
        read_u64("/sys/fs/cgroup/memory.current"),
    ) {
        least(max.saturating_sub(current));
    }
    if let Some(limit) = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| address_space_limit(&text))
    {
        least(limit);
    }
    available.map_or(4 << 30, |bytes| bytes / 2)
}

/// A field of `/proc/meminfo`, in KiB.
fn meminfo_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with(name))?;
    line[name.len()..].split_whitespace().next()?.parse().ok()
}

/// The soft "Max address space" of `/proc/self/limits`, in bytes, if limited.
fn address_space_limit(text: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// What a check's sets hold, against its [`MemoryLimit`]. `Auto` is read from the machine only
/// once they hold 16 MiB (reading it costs more than a small check).
#[derive(Debug)]
pub(crate) struct MemoryBudget {
    limit: MemoryLimit,
    read: Option<Option<u64>>,
}

impl MemoryBudget {
    pub(crate) fn new(limit: MemoryLimit) -> Self {
        Self { limit, read: None }
    }

    /// Whether `held` bytes are past the budget.
    pub(crate) fn exceeded(&mut self, held: u64) -> bool {
        if self.limit == MemoryLimit::Auto && held < 16 << 20 {
            return false;
        }
        let limit = *self.read.get_or_insert_with(|| self.limit.bytes());
        limit.is_some_and(|limit| held > limit)
    }

    /// The budget in bytes, as far as it was read (for messages).
    pub(crate) fn limit(&mut self) -> u64 {
        self.read.get_or_insert_with(|| self.limit.bytes()).unwrap_or(u64::MAX)
    }
}

/// The bytes an allocation of `bytes` takes from the allocator, about (a header, 16-byte rounding,
/// a 32-byte minimum; none for an empty one): the estimate every memory budget counts with (the
/// engine's sets, lineup-histories' searches).
///
/// ```
/// assert_eq!(lineup_core::allocation_size(0), 0);
/// assert_eq!(lineup_core::allocation_size(1), 32);
/// assert_eq!(lineup_core::allocation_size(100), 112);
/// ```
pub fn allocation_size(bytes: usize) -> usize {
    if bytes == 0 {
        0
    } else {
        ((bytes + 8 + 15) & !15).max(32)
    }
}

/// [`allocation_size`] in the engine's unit of account.
fn allocation(bytes: usize) -> u64 {
    allocation_size(bytes) as u64
}

/// About what one distinct serial history holds while a check runs: its interned trace and
/// schedule in phase 1's trace set, and its history in the observation set (events, responses
/// rendered as text of a few dozen bytes, the set's index entries), with the allocator's overhead.
pub(crate) fn serial_history_bytes(events: usize, ops: usize) -> u64 {
    let event = std::mem::size_of::<crate::model::history::Event>();
    allocation(events * event) * 2
        + allocation(ops * std::mem::size_of::<Option<u32>>())
        + allocation(events * 4)
        + ops as u64 * allocation(48)
        + 128
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_read() {
        let meminfo = "MemTotal:       24683520 kB\nMemFree:        22174624 kB\nMemAvailable:   23771136 kB\n";
        assert_eq!(meminfo_field(meminfo, "MemAvailable:"), Some(23_771_136));
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max address space         8192000000           unlimited            bytes     \n";
        assert_eq!(address_space_limit(limits), Some(8_192_000_000));
        let unlimited = "Max address space         unlimited            unlimited            bytes     \n";
        assert_eq!(address_space_limit(unlimited), None);
    }

    #[test]
    fn a_budget_is_exceeded_past_its_bytes_and_never_when_unlimited() {
        let mut small = MemoryBudget::new(MemoryLimit::Bytes(1000));
        assert!(!small.exceeded(1000));
        assert!(small.exceeded(1001));
        assert!(!MemoryBudget::new(MemoryLimit::Unlimited).exceeded(u64::MAX));
        // Auto reads nothing below 16 MiB.
        let mut auto = MemoryBudget::new(MemoryLimit::Auto);
        assert!(!auto.exceeded(1 << 20));
        assert!(auto.read.is_none());
    }
}

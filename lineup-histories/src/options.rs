//! Options of a check: limits, partitioning, workers.

use std::num::NonZeroUsize;
use std::time::Duration;

use crate::memory::MemoryLimit;

/// How to run a check. The defaults: no time or cache-entry limit, a memory budget of half the
/// memory available ([`MemoryLimit::Auto`]), partitioning on, one worker per core.
///
/// A limit that is reached makes the check return [`crate::CheckOutcome::Unknown`], never a
/// guessed verdict.
///
/// ```
/// use lineup_histories::CheckOptions;
/// use std::time::Duration;
///
/// let options = CheckOptions::default().with_time_limit(Duration::from_secs(10)).with_partitioning(false);
/// assert_eq!(options.time_limit, Some(Duration::from_secs(10)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// Give up (verdict unknown) after this much wall-clock time.
    pub time_limit: Option<Duration>,
    /// Give up (verdict unknown) when the memoization cache of one search holds this many
    /// configurations (a bound on memory).
    pub max_cache_entries: Option<usize>,
    /// Give up (verdict unknown) before the search would hold more than this much memory (its
    /// cache entries, hash table and stack, summed over the partitions checked at the same
    /// time; the history itself is not counted). The default, [`MemoryLimit::Auto`], is half
    /// of the memory available, read when the check first holds about 16 MiB.
    pub max_memory: MemoryLimit,
    /// Split the history by the model's partition key ([`crate::check_partitioned`] only).
    pub partition: bool,
    /// How many threads check partitions in parallel (`None`: the number of cores).
    pub workers: Option<NonZeroUsize>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            time_limit: None,
            max_cache_entries: None,
            max_memory: MemoryLimit::Auto,
            partition: true,
            workers: None,
        }
    }
}

impl CheckOptions {
    /// Sets the time limit.
    pub fn with_time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// Sets the cache-entry limit.
    pub fn with_max_cache_entries(mut self, entries: usize) -> Self {
        self.max_cache_entries = Some(entries);
        self
    }

    /// Sets the memory budget to `bytes`.
    pub fn with_max_memory(mut self, bytes: u64) -> Self {
        self.max_memory = MemoryLimit::Bytes(bytes);
        self
    }

    /// Sets the memory budget ([`MemoryLimit::Unlimited`] turns it off).
    pub fn with_memory_limit(mut self, limit: MemoryLimit) -> Self {
        self.max_memory = limit;
        self
    }

    /// Turns partitioning on or off.
    pub fn with_partitioning(mut self, on: bool) -> Self {
        self.partition = on;
        self
    }

    /// Sets the number of worker threads (at least 1).
    pub fn with_workers(mut self, workers: usize) -> Self {
        self.workers = NonZeroUsize::new(workers.max(1));
        self
    }

    /// The number of worker threads to use.
    pub fn worker_count(&self) -> usize {
        self.workers.map(NonZeroUsize::get).unwrap_or_else(|| {
            // Read once per process: `available_parallelism` reads the cgroup's files.
            static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
            *CORES.get_or_init(|| std::thread::available_parallelism().map(NonZeroUsize::get).unwrap_or(1))
        })
    }
}

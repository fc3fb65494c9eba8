//! How much of a check runs on all of its workers: the figure behind `serial_share` in
//! `lineup-bench scaling`.
//!
//! lineup adds up, for the whole process, the wall time of the parts of a check that run on every
//! worker [`Config::workers`](crate::Config::workers) allows: the explorations of phase 1 and of
//! phase 2's exhaustive search, and the parallel steps of building the specification. The rest of
//! a check (setting up, the steps that stay on one thread, the parts of phase 2 that run on one
//! worker so that what they find does not depend on the number of workers) is what bounds its
//! speedup on many cores. Timed with one worker, `1 - parallel / total` is that share, and it can
//! be read on a machine with two cores.
//!
//! ```
//! let before = lineup_core::profile::parallel_time();
//! // ... a check ...
//! let parallel = lineup_core::profile::parallel_time() - before;
//! assert!(parallel.as_secs_f64() >= 0.0);
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Nanoseconds during which at least one parallel section ran, by every check of the process.
static PARALLEL_NANOS: AtomicU64 = AtomicU64::new(0);

/// The parallel sections running now, and since when one has been (a section inside another, as
/// the checks of RandomCheck's matrices inside its batch, adds no time of its own).
static RUNNING: Mutex<(usize, Option<Instant>)> = Mutex::new((0, None));

/// The wall time the checks of this process have spent so far in parts that run on all of their
/// workers (see the [module](self)): the time during which at least one such part ran.
pub fn parallel_time() -> Duration {
    Duration::from_nanos(PARALLEL_NANOS.load(Ordering::Relaxed))
}

/// Runs `work`, a part of a check that runs on all of its workers, counting its wall time.
pub(crate) fn parallel_section<T>(work: impl FnOnce() -> T) -> T {
    struct Section;
    impl Drop for Section {
        fn drop(&mut self) {
            let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
            running.0 -= 1;
            if running.0 == 0 {
                if let Some(since) = running.1.take() {
                    let nanos = u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    PARALLEL_NANOS.fetch_add(nanos, Ordering::Relaxed);
                }
            }
        }
    }
    {
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        running.0 += 1;
        if running.0 == 1 {
            running.1 = Some(Instant::now());
        }
    }
    let _section = Section;
    work()
}

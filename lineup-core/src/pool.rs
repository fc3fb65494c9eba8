//! The thread pools on which the parts of a check that are not explorations (building the
//! specification at the end of phase 1, phase 2's index of it) run on the check's workers: one
//! pool per number of workers, made on first use and kept for the process, so that a check of a
//! small matrix does not pay for starting threads.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The pools made so far, by their number of threads.
static POOLS: Mutex<Option<HashMap<usize, Arc<rayon::ThreadPool>>>> = Mutex::new(None);

/// Runs `work` on the pool of `threads` threads (at least one): rayon's parallel iterators inside
/// it use those threads, and no others.
pub(crate) fn install<R: Send>(threads: usize, work: impl FnOnce() -> R + Send) -> R {
    let threads = threads.max(1);
    let pool = {
        let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
        let pools = pools.get_or_insert_with(HashMap::new);
        Arc::clone(pools.entry(threads).or_insert_with(|| {
            Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(move |k| format!("lineup-pool-{threads}-{k}"))
                    .build()
                    .expect("a thread pool for a check's workers"),
            )
        }))
    };
    pool.install(work)
}

//! The thread pools on which the parts of a check that are not explorations (building the
//! specification at the end of phase 1, phase 2's index of it) run on the check's workers, and
//! the thread that frees what a check no longer needs ([`free_elsewhere`]).
//!
//! Each calling thread has its own pools, one per number of workers, made on first use and kept
//! while the thread lives: a check of a small matrix does not pay for starting threads, and the
//! checks that RandomCheck runs side by side, each from a worker of its own, never queue up on a
//! pool they share.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

thread_local! {
    /// This thread's pools, by their number of threads.
    static POOLS: RefCell<HashMap<usize, Rc<rayon::ThreadPool>>> = RefCell::new(HashMap::new());
}

/// Runs `work` on this thread's pool of `threads` threads (at least one): rayon's parallel
/// iterators inside it use those threads, and no others.
pub(crate) fn install<R: Send>(threads: usize, work: impl FnOnce() -> R + Send) -> R {
    let threads = threads.max(1);
    let pool = POOLS.with(|pools| {
        Rc::clone(pools.borrow_mut().entry(threads).or_insert_with(|| {
            Rc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(move |k| format!("lineup-pool-{threads}-{k}"))
                    .build()
                    .expect("a thread pool for a check's workers"),
            )
        }))
    });
    pool.install(work)
}

/// Below this many items, a collection is freed where it is let go.
pub(crate) const FREE_ELSEWHERE_FROM: usize = 10_000;

/// Frees `large` (hundreds of thousands of traces or histories) on a thread of its own, so that
/// the check that let go of it does not wait for every free: on a 4x3 matrix, phase 1's 369,600
/// traces took 80 to 170 ms to free on one thread and 26 to 42 ms on 16, with phase 2 waiting.
pub(crate) fn free_elsewhere<T: Send + 'static>(large: T) {
    let freeing = std::thread::Builder::new()
        .name("lineup-free".into())
        .spawn(move || drop(large));
    // Without a thread, `large` was dropped here with the closure.
    drop(freeing);
}

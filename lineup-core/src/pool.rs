//! The thread pools on which the parts of a check that are not explorations (building the
//! specification at the end of phase 1, phase 2's index of it) run on the check's workers, and
//! the thread that frees what a check no longer needs ([`free_elsewhere`]), and the grouping of
//! equal items in parallel that those ends share ([`equal_groups`]).
//!
//! Each calling thread has its own pools, one per number of workers, made on first use and kept
//! while the thread lives: a check of a small matrix does not pay for starting threads, and the
//! checks that RandomCheck runs side by side, each from a worker of its own, never queue up on a
//! pool they share.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

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

/// How many parts [`equal_groups`] splits its positions into by hash.
const SHARDS: u64 = 64;

/// The positions `0..len` grouped by `same` (an equivalence whose equal positions have equal
/// `hash`), in parallel: split into [`SHARDS`] parts by hash, each grouped on its own. Each group holds
/// its positions in order; the groups come in no particular order.
pub(crate) fn equal_groups(
    len: usize,
    hash: impl Fn(usize) -> u64 + Send + Sync,
    same: impl Fn(usize, usize) -> bool + Sync,
) -> Vec<Vec<usize>> {
    let hashes: Vec<u64> = (0..len).into_par_iter().map(hash).collect();
    let mut shards: Vec<Vec<usize>> = vec![Vec::new(); SHARDS as usize];
    for (i, hash) in hashes.iter().enumerate() {
        shards[(hash % SHARDS) as usize].push(i);
    }
    shards
        .par_iter()
        .flat_map_iter(|shard| {
            let mut by_hash: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
            let mut groups: Vec<Vec<usize>> = Vec::new();
            for &i in shard {
                let alike = by_hash.entry(hashes[i]).or_default();
                match alike.iter().copied().find(|&g| same(groups[g][0], i)) {
                    Some(g) => groups[g].push(i),
                    None => {
                        alike.push(groups.len());
                        groups.push(vec![i]);
                    }
                }
            }
            groups
        })
        .collect()
}

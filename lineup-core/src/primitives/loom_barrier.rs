//! `lineup::sync::Barrier` under loom (whose own `Barrier` is a stub that panics): a count and a
//! generation behind lineup's loom mutex, and a condition variable whose waiting threads lineup
//! sees (see [`observable_mutex`](crate::loom_backend::observable_mutex)), as std's.

use crate::sync::{Condvar, Mutex};

/// What a [`Barrier::wait`] returns, the same as [`std::sync::BarrierWaitResult`].
#[derive(Clone, Copy, Debug)]
pub struct BarrierWaitResult {
    is_leader: bool,
}

impl BarrierWaitResult {
    /// Whether this thread is the leader of its batch (exactly one of each batch is).
    pub fn is_leader(&self) -> bool {
        self.is_leader
    }
}

/// A barrier, the same as [`std::sync::Barrier`] (under loom: on lineup's loom mutex and
/// condition variable; not `const`).
#[derive(Debug)]
pub struct Barrier {
    /// Threads waiting in the batch filling now, and how many batches were released.
    state: Mutex<(usize, u64)>,
    released: Condvar,
    bound: usize,
}

impl Barrier {
    /// Creates a barrier that blocks `n - 1` threads and releases them all when the `n`th thread
    /// waits.
    pub fn new(n: usize) -> Self {
        Self {
            state: Mutex::new((0, 0)),
            released: Condvar::new(),
            bound: n,
        }
    }

    /// Blocks the current thread until all threads have rendezvoused here.
    pub fn wait(&self) -> BarrierWaitResult {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let generation = state.1;
        state.0 += 1;
        if state.0 < self.bound {
            while state.1 == generation {
                state = self.released.wait(state).unwrap_or_else(|e| e.into_inner());
            }
            BarrierWaitResult { is_leader: false }
        } else {
            state.0 = 0;
            state.1 += 1;
            drop(state);
            self.released.notify_all();
            BarrierWaitResult { is_leader: true }
        }
    }
}

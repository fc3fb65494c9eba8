//! Guards held across operations, each by the thread that acquired it.
//!
//! A lock or a permit is only interesting if it can stay taken between two operations (`lock`,
//! then later `unlock`), so the object under test keeps the guards that its operations acquire.
//! It keeps them *per thread*: `unlock` releases a guard that the calling thread holds, as with a
//! real mutex, where only the owner unlocks. A shared pile of guards would not do: acquiring and
//! putting the guard on the pile are two steps, and another thread's `unlock` in between would
//! find the pile empty although the lock is taken, a history that no serial execution has (see
//! [`locks::shared_stash_semaphore`](crate::locks::shared_stash_semaphore), which lineup must
//! reject for exactly that). With one owner per guard, only the owner looks at its guards, and it
//! runs its operations one after the other.
//!
//! The pile is behind a `std` mutex, which loom does not see: it is the harness's bookkeeping,
//! not part of the object under test, no thread ever reads another thread's entries, and the
//! mutex is never held across a loom operation (a guard is dropped after the pile is unlocked),
//! so loom has nothing to interleave there and explores no extra schedules for it.

use std::sync::Mutex;

use lineup::thread::{self, ThreadId};

/// Guards of type `G`, each held by the thread that put it there.
#[derive(Debug)]
pub struct PerThread<G> {
    held: Mutex<Vec<(ThreadId, G)>>,
}

impl<G> Default for PerThread<G> {
    fn default() -> Self {
        Self {
            held: Mutex::new(Vec::new()),
        }
    }
}

impl<G> PerThread<G> {
    /// Keeps `guard` for the calling thread.
    pub fn hold(&self, guard: G) {
        let me = thread::current().id();
        self.held.lock().unwrap().push((me, guard));
    }

    /// Takes the guard that the calling thread put there last, if any. The caller drops it
    /// (after this returns: the pile is not locked while a guard's release runs).
    pub fn take_mine(&self) -> Option<G> {
        let me = thread::current().id();
        let mut held = self.held.lock().unwrap();
        let position = held.iter().rposition(|(owner, _)| *owner == me)?;
        Some(held.remove(position).1)
    }

    /// How many guards the calling thread holds.
    pub fn count_mine(&self) -> usize {
        let me = thread::current().id();
        self.held
            .lock()
            .unwrap()
            .iter()
            .filter(|(owner, _)| *owner == me)
            .count()
    }
}

//! Objects that spin or race: a spin-wait flag, and an operation whose result depends on the
//! schedule.

use lineup::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use lineup::sync::Arc;
use lineup::{Invocation, Subject};

/// `wait` spins (yielding) until another thread calls `set`.
#[derive(Default)]
pub struct SpinFlag(AtomicBool);

impl SpinFlag {
    pub fn set(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn wait(&self) {
        while !self.0.load(Ordering::SeqCst) {
            lineup::hint::spin_loop();
        }
    }

    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Invocations 0: `set()`, 1: `wait()`, 2: `is_set()`.
pub fn spin_flag() -> Subject<SpinFlag> {
    Subject::new("SpinFlag", SpinFlag::default)
        .with(Invocation::new("set", SpinFlag::set))
        .with(Invocation::new("wait", SpinFlag::wait))
        .with(Invocation::new("is_set", SpinFlag::is_set))
}

/// `race` hands a job to two helper threads and reports which one claimed it first: its result
/// depends on the schedule even when no other operation runs.
#[derive(Default)]
pub struct Race {
    rounds: AtomicU64,
}

impl Race {
    pub fn race(&self) -> u64 {
        self.rounds.fetch_add(1, Ordering::SeqCst);
        let winner = Arc::new(AtomicU64::new(0));
        let helpers: Vec<_> = [1, 2]
            .into_iter()
            .map(|id| {
                let winner = Arc::clone(&winner);
                lineup::thread::spawn(move || {
                    let _ = winner.compare_exchange(0, id, Ordering::SeqCst, Ordering::SeqCst);
                })
            })
            .collect();
        for helper in helpers {
            helper.join().unwrap();
        }
        winner.load(Ordering::SeqCst)
    }
}

/// Invocation 0: `race()`.
pub fn race() -> Subject<Race> {
    Subject::new("Race", Race::default).with(Invocation::new("race", Race::race))
}

//! Per-thread handles on lineup's loom backend, with a handle factory that does a loom operation
//! (as left-right's `ReadHandleFactory::handle`, which locks the list of readers, does in
//! `lineup_blackbox::left_right_buffer`).
//!
//! A regression test: the loom harness (`lineup-core/src/loom_backend/harness.rs`) once made
//! worker `t`'s handle right before it spawned worker `t`, after workers `0..t` were running
//! (shuttle makes every worker's handle first, as `lineup::Handles` documents). A factory that does
//! a loom operation was then a scheduling point on the main thread while earlier workers ran, and
//! an earlier worker could end before the main thread called `wait_registry::watch`: its
//! `finished()` was lost, the main thread parked for good, and loom asserted a deadlock, a stuck
//! execution outside `lineup::sync` resumed from loom's stored path (skipping the schedules only it
//! leads to) although nothing in the object blocks. Both tests failed then, with (1, 1) and (2, 2)
//! stuck and resumed executions; every worker's handle is now made before the first worker starts.
#![cfg(loom)]

use lineup::sync::atomic::{AtomicUsize, Ordering};
use lineup::{check, Config, Invocation, Subject, TestMatrix};

/// An object that counts the handles made from it; each handle is its number.
#[derive(Debug, Default)]
struct Registry {
    handles: AtomicUsize,
}

fn registry() -> Subject<Registry> {
    Subject::new("a registry of handles", Registry::default)
        // A loom operation in the factory: a scheduling point on the main thread.
        .with_handles(|registry: &std::sync::Arc<Registry>, _| registry.handles.fetch_add(1, Ordering::SeqCst))
        // How many handles exist: every one, since they are all made before any operation. Never
        // blocks.
        .with(Invocation::on_handle(
            "handles",
            |registry: &Registry, _: &mut usize| registry.handles.load(Ordering::SeqCst),
        ))
}

const HANDLES: usize = 0;

/// Checks `workers` workers that each run `handles()` once: a pass, and no execution stuck.
fn never_stuck(workers: usize) {
    let matrix = TestMatrix::new(vec![vec![HANDLES]; workers]);
    let verdict = check(&registry(), &matrix, &Config::default()).unwrap();
    let stats = verdict.stats();
    eprintln!("{workers} workers: {stats:?}");
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
    // Nothing blocks: no execution may get stuck, and none may be resumed from a stored path.
    assert_eq!((stats.stuck_histories, stats.stuck_resumed), (0, 0));
}

#[test]
fn two_workers_never_get_stuck() {
    never_stuck(2);
}

#[test]
fn three_workers_never_get_stuck() {
    never_stuck(3);
}

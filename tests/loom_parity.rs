//! The regression matrices of lineup's own example objects, with their verdicts. The same file
//! runs on both backends and must give the same verdicts:
//!
//! * `cargo test --test loom_parity` on shuttle (the default), and
//! * `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test --release --test loom_parity`
//!   on loom (its own target directory: a change of RUSTFLAGS rebuilds everything).
//!
//! The objects are built on `lineup::sync`, which is shuttle's or loom's.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, Config, Subject, TestMatrix, Verdict, ViolationKind};
use objects::counters::{atomic_counter, counter1, counter2};
use objects::queues::{blocking_queue, give_up_queue};

/// What a check must conclude.
#[derive(Debug, PartialEq, Eq)]
enum Expected {
    Pass,
    /// A full history without a serial witness.
    FailFull,
    /// A stuck history without a stuck serial witness.
    FailStuck,
    /// Phase 1 found nondeterminism.
    FailNondeterministic,
}

fn verdict_of(verdict: &Verdict) -> Expected {
    match verdict.violation().map(|v| &v.kind) {
        None => Expected::Pass,
        Some(ViolationKind::NotLinearizable { .. }) => Expected::FailFull,
        Some(ViolationKind::StuckNotLinearizable { .. }) => Expected::FailStuck,
        Some(ViolationKind::Nondeterministic(_)) => Expected::FailNondeterministic,
    }
}

fn backend() -> &'static str {
    if cfg!(loom) {
        "loom"
    } else {
        "shuttle"
    }
}

fn expect<O: Send + Sync + 'static>(subject: Subject<O>, matrix: TestMatrix, expected: Expected) -> Verdict {
    let verdict = check(&subject, &matrix, &Config::default()).expect("the check runs");
    if let Some(v) = verdict.violation() {
        eprintln!("{v}");
    }
    let got = verdict_of(&verdict);
    assert_eq!(
        got,
        expected,
        "{} on {}: expected {expected:?}, got {got:?}\n{}",
        subject.name(),
        backend(),
        verdict.violation().map(|v| v.to_string()).unwrap_or_default()
    );
    let s = verdict.stats();
    eprintln!(
        "{} on {}: {got:?}; phase 1 {} executions ({} full, {} stuck) in {:.1?}; phase 2 {} executions in {:.1?}",
        subject.name(),
        backend(),
        s.serial_executions,
        s.serial_full,
        s.serial_stuck,
        s.phase1_time,
        s.concurrent_executions,
        s.phase2_time
    );
    verdict
}

#[test]
fn atomic_counter_passes() {
    expect(
        atomic_counter(),
        TestMatrix::new(vec![vec![0, 1], vec![0, 1]]),
        Expected::Pass,
    );
}

#[test]
fn counter1_loses_an_update() {
    let verdict = expect(
        counter1(),
        TestMatrix::new(vec![vec![0, 1], vec![0, 1]]),
        Expected::FailFull,
    );
    if cfg!(loom) {
        // Counter1's atomics are lineup::sync's, so lineup can tell: a lost update is an
        // interleaving bug, no weak load is needed.
        let loom = verdict.violation().unwrap().loom.as_ref().expect("loom evidence");
        assert!(!loom.is_weak_memory(), "{:?}", loom.weak_loads);
    }
}

// Both bugs below hide behind a `try_lock` that finds the lock held. loom alone never preempts a
// critical section without a loom operation inside; lineup::sync's mutex makes its held state
// visible to loom, so loom finds them too.

#[test]
fn counter2_blocks_only_under_contention() {
    let matrix = TestMatrix::new(vec![vec![1], vec![0, 0]]);
    if cfg!(loom) {
        // Known divergence (issue 5 stays open on it): the leak needs `get` to find the lock held
        // by the first `inc` and then to take it before the second `inc` does, two preemptions.
        // lineup's shuttle explorer enumerates every schedule within the bound and finds it at
        // bound 2; loom's preemption-bounded DPOR prunes (it adds backtracking points only at
        // conflicting accesses, conservatively) and reaches it only at bound 3: it attributes the
        // conflict of the two threads' first accesses to the branch where `get`'s thread already
        // runs, so starting `inc`'s thread first costs it a preemption that a free choice (the
        // main thread blocked) would not. With the threads in the other order it finds it at
        // bound 2. Asserted both ways so that a change in either shows up here.
        let at_two = expect(counter2(), matrix.clone(), Expected::Pass);
        assert_eq!(at_two.stats().stuck_histories, 0);
        let config = Config {
            preemption_bound: 3,
            ..Config::default()
        };
        let at_three = check(&counter2(), &matrix, &config).expect("the check runs");
        assert_eq!(verdict_of(&at_three), Expected::FailStuck);
    } else {
        expect(counter2(), matrix, Expected::FailStuck);
    }
}

#[test]
#[ignore = "run with --include-ignored (CI does): the loom child must find an ignored test too"]
fn an_ignored_test_runs_under_loom_too() {
    // Regression: the loom child re-ran the test by name without `--include-ignored`, so a user's
    // `cargo test -- --ignored` failed with "the child process ended before reaching the check".
    expect(
        atomic_counter(),
        TestMatrix::new(vec![vec![0], vec![1]]),
        Expected::Pass,
    );
}

#[test]
fn blocking_queue_passes_with_stuck_serial_witnesses() {
    // add(200), try_take(), take(): the blocking take is justified by stuck serial histories.
    let verdict = expect(
        blocking_queue(),
        TestMatrix::new(vec![vec![0, 3], vec![3, 2]]),
        Expected::Pass,
    );
    assert!(verdict.stats().serial_stuck > 0);
}

#[test]
fn give_up_queue_fails() {
    expect(
        give_up_queue(),
        TestMatrix::new(vec![vec![0, 2], vec![1, 2]]),
        Expected::FailFull,
    );
}

/// A flag published with relaxed stores: `publish(7)` writes the data, then the flag; `read()`
/// returns the data once the flag is set. Every interleaving is linearizable; only a load that
/// returns an older value than the latest store (the flag seen set, the data not yet) breaks it.
#[derive(Default)]
struct RelaxedPublication {
    data: lineup::sync::atomic::AtomicU64,
    ready: lineup::sync::atomic::AtomicBool,
}

fn relaxed_publication() -> Subject<RelaxedPublication> {
    use lineup::sync::atomic::Ordering::Relaxed;
    Subject::new("RelaxedPublication", RelaxedPublication::default)
        .with(
            lineup::Invocation::new("publish", |p: &RelaxedPublication| {
                p.data.store(7, Relaxed);
                p.ready.store(true, Relaxed); // BUG under weak memory: Release is needed
            })
            .arg(7),
        )
        .with(lineup::Invocation::new("read", |p: &RelaxedPublication| {
            p.ready.load(Relaxed).then(|| p.data.load(Relaxed)) // and Acquire here
        }))
}

#[test]
fn relaxed_publication_is_a_weak_memory_bug_only() {
    let matrix = TestMatrix::new(vec![vec![0], vec![1]]);
    if cfg!(loom) {
        let verdict = expect(relaxed_publication(), matrix, Expected::FailFull);
        let loom = verdict.violation().unwrap().loom.as_ref().expect("loom evidence");
        assert!(loom.is_weak_memory(), "the report must say that weak memory is needed");
        assert!(verdict.violation().unwrap().to_string().contains("WEAK-MEMORY"));
    } else {
        // shuttle's atomics are sequentially consistent: no interleaving breaks it.
        expect(relaxed_publication(), matrix, Expected::Pass);
    }
}

#[test]
fn real_time_order_is_happens_before_unless_switched_off() {
    // inc() | get(): every serial order is explained, and with real-time order as happens-before
    // (the default) a get called after inc returned sees it.
    let matrix = TestMatrix::new(vec![vec![0], vec![1]]);
    expect(atomic_counter(), matrix.clone(), Expected::Pass);
    let c11 = Config {
        real_time_happens_before: false,
        ..Config::default()
    };
    let verdict = check(&atomic_counter(), &matrix, &c11).expect("the check runs");
    if cfg!(loom) {
        // loom's bare C11 model (SeqCst loads treated as Acquire): get may miss a finished inc,
        // and the report must say that only weak memory allows it.
        assert_eq!(verdict_of(&verdict), Expected::FailFull);
        let v = verdict.violation().unwrap();
        assert!(v.loom.as_ref().expect("loom evidence").is_weak_memory());
    } else {
        assert_eq!(
            verdict_of(&verdict),
            Expected::Pass,
            "shuttle is sequentially consistent"
        );
    }
}

/// A blocking queue whose `add` gives up (drops its item) when the lock is busy: a `take` that
/// holds the lock for a moment makes the item vanish, and that `take` then blocks forever where
/// every serial execution gives it the item.
#[derive(Default)]
struct DroppingBlockingQueue {
    items: lineup::sync::Mutex<std::collections::VecDeque<u32>>,
    not_empty: lineup::sync::Condvar,
}

fn dropping_blocking_queue() -> Subject<DroppingBlockingQueue> {
    Subject::new("DroppingBlockingQueue", DroppingBlockingQueue::default)
        .with(
            lineup::Invocation::new("add", |q: &DroppingBlockingQueue| {
                if let Ok(mut items) = q.items.try_lock() {
                    items.push_back(1); // BUG: under contention the item is dropped
                }
                q.not_empty.notify_one();
            })
            .arg(1),
        )
        .with(lineup::Invocation::new("take", |q: &DroppingBlockingQueue| {
            let mut items = q.items.lock().unwrap();
            loop {
                if let Some(v) = items.pop_front() {
                    return v;
                }
                items = q.not_empty.wait(items).unwrap();
            }
        }))
}

#[test]
fn exploration_goes_on_past_stuck_executions() {
    // take(), take() | add(1): the second take blocks in every execution, so every execution is
    // stuck, the first one included. loom's deadlock assertion used to end the exploration there
    // (one execution, and a pass); lineup::sync's waits now let lineup end a stuck execution
    // normally, and the exploration reaches the contended add that drops its item.
    let verdict = expect(
        dropping_blocking_queue(),
        TestMatrix::new(vec![vec![1, 1], vec![0]]),
        Expected::FailStuck,
    );
    assert!(verdict.stats().concurrent_executions > 1);
    assert_eq!(verdict.stats().stuck_resumed, 0);
}

#[test]
fn stuck_executions_are_justified_and_explored_past() {
    // The same matrix on the correct blocking queue: every execution is stuck, each justified.
    let verdict = expect(
        blocking_queue(),
        TestMatrix::new(vec![vec![3, 3], vec![0]]),
        Expected::Pass,
    );
    let s = verdict.stats();
    assert!(s.concurrent_executions > 1, "{s:?}");
    assert!(s.distinct_histories > 1, "{s:?}");
    assert_eq!(s.stuck_histories, s.distinct_histories, "{s:?}");
    assert_eq!(s.stuck_resumed, 0, "{s:?}");
}

/// A correct object on per-thread handles passes `columns`, its twin fails there (a full history
/// without a serial witness, and an interleaving bug: no weak load is needed).
fn handles_pair<C: lineup::Invocations, B: lineup::Invocations>(
    correct: fn() -> C,
    buggy: fn() -> B,
    names: [&str; 2],
    columns: &[&[&str]],
) {
    let (correct, buggy) = (Subject::of(names[0], correct), Subject::of(names[1], buggy));
    let matrix = objects::handles::matrix_of(&correct, columns);
    expect(correct, matrix.clone(), Expected::Pass);
    let verdict = expect(buggy, matrix, Expected::FailFull);
    if cfg!(loom) {
        let loom = verdict.violation().unwrap().loom.as_ref().expect("loom evidence");
        assert!(!loom.is_weak_memory(), "{:?}", loom.weak_loads);
    }
}

#[test]
fn the_spsc_ring_on_handles_passes_and_its_twin_overwrites_a_slot() {
    use objects::handles::{SpscRing, SpscRingEarlyHead};
    handles_pair(
        SpscRing::default,
        SpscRingEarlyHead::default,
        ["SpscRing", "SpscRingEarlyHead"],
        &[&["push(1)", "push(2)", "push(2)"], &["pop()"]],
    );
}

#[test]
fn the_work_stealing_deque_on_handles_passes_and_its_twin_gives_the_last_element_twice() {
    use objects::handles::{WorkStealingDeque, WorkStealingDequeNoCas};
    handles_pair(
        WorkStealingDeque::default,
        WorkStealingDequeNoCas::default,
        ["WorkStealingDeque", "WorkStealingDequeNoCas"],
        &[&["push(1)", "pop()"], &["steal()"]],
    );
}

#[test]
fn the_mpsc_channel_on_handles_passes_and_its_twin_receives_an_unwritten_slot() {
    use objects::handles::{MpscChannel, MpscChannelEarlyPublish};
    handles_pair(
        MpscChannel::default,
        MpscChannelEarlyPublish::default,
        ["MpscChannel", "MpscChannelEarlyPublish"],
        &[&["send(1)"], &["try_recv()"]],
    );
    // recv() spins while a claimed slot is unwritten: on loom, through loom's yields.
    handles_pair(
        MpscChannel::default,
        MpscChannelEarlyPublish::default,
        ["MpscChannel", "MpscChannelEarlyPublish"],
        &[&["send(1)"], &["recv()"]],
    );
}

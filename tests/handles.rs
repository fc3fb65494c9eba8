//! Objects on per-thread handles and operation groups (examples/objects/handles.rs): an SPSC
//! ring, a Chase–Lev work-stealing deque and an MPSC channel. Each correct one passes a fixed
//! `LineupTest` sample (drawn with its groups; `lineup-bench -- handles` runs the default test,
//! deepening stages and all, in release); each buggy twin has the same serial histories as its
//! correct one and fails a short `LineupTest` with a violation on a concurrent history, and its
//! shrunk matrix keeps the groups; a failure's replay token replays it; the initial and final
//! operations get their own handles; an explicit matrix that breaks a group is an error that
//! names the group. The whole file takes about 20 to 30 s in debug on two cores.

#[path = "../examples/objects/mod.rs"]
mod objects;

use std::time::Duration;

use lineup::{
    check, synthesize_spec, Config, Invocations, LineupTest, Subject, TestFailure, TestMatrix, Verdict, Violation,
    ViolationKind,
};
use objects::handles::{
    matrix_of, MpscChannel, MpscChannelEarlyPublish, SpscRing, SpscRingEarlyHead, WorkStealingDeque,
    WorkStealingDequeNoCas,
};

/// A correct object passes a fixed run: `samples` sampled matrices of up to `threads` x `ops`
/// (seed 26), no deepening (a debug build is slow; `lineup-bench -- handles` runs the default
/// test in release). Each matrix keeps the groups: the sample is drawn so.
fn passes<O: Invocations>(name: &str, build: fn() -> O, threads: usize, ops: usize, samples: usize) {
    let summary = LineupTest::new(&format!("handles::{name}"))
        .threads(threads)
        .ops(ops)
        .samples(samples)
        .seed(26)
        .time_budget(None)
        .check(build)
        .unwrap_or_else(|failure| panic!("{name} failed: {failure}"));
    assert_eq!(summary.matrices, samples, "{summary}");
}

/// A buggy twin fails a short run (30 sampled matrices of up to 3x3, seed 26, then the deepening
/// stages, 20 s in all; it stops at the first failure) with a violation on a concurrent history;
/// both its original and its shrunk matrix keep the groups. Returns the smallest failure.
fn fails<O: Invocations>(name: &str, build: fn() -> O) -> Violation {
    let subject = Subject::of(name, build);
    let test = LineupTest::new(&format!("handles::{name}"))
        .samples(30)
        .seed(26)
        .time_budget(Duration::from_secs(20));
    match test.check_subject(&subject) {
        Err(TestFailure::Violation {
            smallest,
            original,
            origin,
            ..
        }) => {
            println!("{name}: found on {origin}, shrunk to:\n{smallest}");
            let groups = subject.groups();
            assert!(groups.respects(&original.matrix), "{:?}", original.matrix);
            assert!(groups.respects(&smallest.matrix), "{:?}", smallest.matrix);
            assert!(
                matches!(smallest.kind, ViolationKind::NotLinearizable { .. }),
                "{name}: {smallest}"
            );
            *smallest
        }
        Err(other) => panic!("{name}: expected a violation, got: {other}"),
        Ok(summary) => panic!("{name}: expected FAIL, got {summary}"),
    }
}

/// Phase 1 (every serial execution) of `correct` and of `buggy` on `matrix` sees the same
/// deterministic serial histories.
fn same_serial_histories<C: Send + Sync + 'static, B: Send + Sync + 'static>(
    correct: &Subject<C>,
    buggy: &Subject<B>,
    matrix: &TestMatrix,
) {
    let serial = |spec: lineup::Synthesis| {
        assert!(spec.nondeterminism.is_none(), "{matrix:?}");
        spec.spec
    };
    let config = Config::default();
    assert_eq!(
        serial(synthesize_spec(correct, matrix, &config).unwrap()),
        serial(synthesize_spec(buggy, matrix, &config).unwrap()),
        "the twins differ serially on {matrix:?}"
    );
}

/// The twins have the same serial histories on 20 matrices of up to `threads` x `ops` sampled
/// with the groups (seed 26): the bug of the twin is a concurrency bug, or lineup, which learns
/// the specification from the serial executions, could not find it.
fn twins_alike_serially<C: Invocations, B: Invocations>(
    correct: fn() -> C,
    buggy: fn() -> B,
    threads: usize,
    ops: usize,
) {
    let (correct, buggy) = (Subject::of("correct", correct), Subject::of("buggy", buggy));
    assert_eq!(correct.labels(), buggy.labels());
    for matrix in lineup::sample_matrices_grouped(&correct.groups(), threads, ops, 20, 26) {
        same_serial_histories(&correct, &buggy, &matrix);
    }
}

/// The twins have the same serial histories on `columns`, and the buggy one (only) fails there,
/// with the history named by `returns` (a result of the buggy object's) in its violation.
fn twins_differ_only_concurrently<C: Invocations, B: Invocations>(
    correct: fn() -> C,
    buggy: fn() -> B,
    columns: &[&[&str]],
    returns: &str,
) {
    let (correct, buggy) = (Subject::of("correct", correct), Subject::of("buggy", buggy));
    let matrix = matrix_of(&correct, columns);
    assert_eq!(matrix, matrix_of(&buggy, columns));
    let config = Config::default();
    same_serial_histories(&correct, &buggy, &matrix);
    assert!(matches!(check(&correct, &matrix, &config).unwrap(), Verdict::Pass(_)));
    let verdict = check(&buggy, &matrix, &config).unwrap();
    let violation = verdict.violation().expect("the twin fails");
    let history = violation.kind.history();
    let returned = lineup::Response::Returned(returns.to_string());
    assert!(history.responses().contains(&Some(returned)), "{}", history.timeline());
}

#[test]
fn the_spsc_ring_passes_and_its_twin_fails_on_wrap_around() {
    passes("SpscRing", SpscRing::default, 2, 3, 12);
    twins_alike_serially(SpscRing::default, SpscRingEarlyHead::default, 2, 3);
    twins_differ_only_concurrently(
        SpscRing::default,
        SpscRingEarlyHead::default,
        &[&["push(1)", "push(2)", "push(2)"], &["pop()"]],
        "Some(2)",
    );
    let smallest = fails("SpscRingEarlyHead", SpscRingEarlyHead::default);
    // The producer wraps around: three pushes and a pop, no fewer.
    assert_eq!(smallest.matrix.op_count(), 4, "{:?}", smallest.matrix);
}

#[test]
fn the_work_stealing_deque_passes_and_its_twin_fails_on_the_last_element() {
    passes("WorkStealingDeque", WorkStealingDeque::default, 3, 2, 12);
    twins_alike_serially(WorkStealingDeque::default, WorkStealingDequeNoCas::default, 3, 2);
    twins_differ_only_concurrently(
        WorkStealingDeque::default,
        WorkStealingDequeNoCas::default,
        &[&["push(1)", "pop()"], &["steal()"]],
        "Some(1)",
    );
    let smallest = fails("WorkStealingDequeNoCas", WorkStealingDequeNoCas::default);
    assert_eq!(smallest.matrix.op_count(), 3, "{:?}", smallest.matrix);
}

#[test]
fn the_mpsc_channel_passes_and_its_twin_fails_on_an_unwritten_slot() {
    passes("MpscChannel", MpscChannel::default, 3, 2, 12);
    twins_alike_serially(MpscChannel::default, MpscChannelEarlyPublish::default, 3, 2);
    twins_differ_only_concurrently(
        MpscChannel::default,
        MpscChannelEarlyPublish::default,
        &[&["send(1)"], &["try_recv()"]],
        "Some(0)",
    );
    let smallest = fails("MpscChannelEarlyPublish", MpscChannelEarlyPublish::default);
    assert_eq!(smallest.matrix.op_count(), 2, "{:?}", smallest.matrix);
}

#[test]
fn the_mpsc_channel_blocks_in_recv_as_its_serial_executions_do() {
    // The second recv() never returns: every execution is stuck, each justified by a stuck
    // serial history; the twin's recv() too takes a slot nobody has written.
    let channel = Subject::of("MpscChannel", MpscChannel::default);
    let matrix = matrix_of(&channel, &[&["recv()", "recv()"], &["send(1)"]]);
    let verdict = check(&channel, &matrix, &Config::default()).unwrap();
    assert!(matches!(verdict, Verdict::Pass(_)), "{verdict:?}");
    let stats = verdict.stats();
    assert!(stats.serial_stuck > 0 && stats.stuck_histories > 0, "{stats:?}");
    twins_differ_only_concurrently(
        MpscChannel::default,
        MpscChannelEarlyPublish::default,
        &[&["send(1)"], &["recv()"]],
        "0",
    );
}

#[test]
fn a_failure_on_handles_replays_from_its_token() {
    let subject = Subject::of("WorkStealingDequeNoCas", WorkStealingDequeNoCas::default);
    let smallest = fails("WorkStealingDequeNoCas", WorkStealingDequeNoCas::default);
    let replayed =
        lineup::replay(&subject, &smallest.matrix, &smallest.replay, &Config::default()).expect("the token replays");
    assert_eq!(replayed.history, *smallest.kind.history());
    assert_eq!(replayed.violation.as_ref(), Some(&smallest.kind));
}

#[test]
fn the_initial_and_final_operations_get_their_own_handles() {
    // The receiver moves from the main thread to worker A and back; the producer and the
    // consumer are made afresh for each phase, from the ring's indices.
    let channel = Subject::of("MpscChannel", MpscChannel::default);
    let matrix = matrix_of(&channel, &[&["try_recv()", "send(1)"], &["send(2)"]])
        .with_initial(vec![0, 2])
        .with_final(vec![2, 2, 2]);
    let verdict = check(&channel, &matrix, &Config::default()).unwrap();
    assert!(matches!(verdict, Verdict::Pass(_)), "{verdict:?}");
    let ring = Subject::of("SpscRing", SpscRing::default);
    let matrix = matrix_of(&ring, &[&["push(2)", "push(1)"], &["pop()"]])
        .with_initial(vec![0, 1, 2])
        .with_final(vec![2, 2, 0]);
    let verdict = check(&ring, &matrix, &Config::default()).unwrap();
    assert!(matches!(verdict, Verdict::Pass(_)), "{verdict:?}");
}

#[test]
fn an_explicit_matrix_that_breaks_a_group_is_an_error_that_names_it() {
    let broken = LineupTest::new("handles::broken_group")
        .samples(0)
        .time_budget(None)
        .matrix(&[&["push(1)"], &["push(2)", "pop()"]])
        .check(SpscRing::default);
    match broken {
        Err(TestFailure::Setup { problem, .. }) => assert!(
            problem.contains(
                "the matrix breaks operation group `producer`: `push(1)` on thread A and `push(2)` on thread B"
            ),
            "{problem}"
        ),
        other => panic!("expected a setup error, got {other:?}"),
    }
}

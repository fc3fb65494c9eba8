//! Operation groups across the runner: over many seeds, the random sample (both mixes of
//! shapes), every deepening stage's matrices and AutoCheck keep every group, and still put the
//! grouped invocations on every column in turn (the groups do not empty the sample).

use crate::config::Config;
use crate::model::groups::OperationGroups;
use crate::model::matrix::TestMatrix;
use crate::runner::deepening::{plan, PlanInput, Stage};
use crate::runner::shapes::{sample_shaped_grouped, Shapes};

/// Invocation sets with groups: an MPSC queue (`pop` in `consumer`), one with two groups
/// (`recv` and `peek` share one), three groups and a free invocation, and every invocation in
/// one of two groups.
fn grouped_sets() -> Vec<OperationGroups> {
    vec![
        OperationGroups::new([None, None, Some("consumer")]),
        OperationGroups::new([Some("consumer"), None, Some("producer"), Some("consumer")]),
        OperationGroups::new([Some("a"), Some("b"), None, Some("c")]),
        OperationGroups::new([Some("a"), Some("b"), Some("a")]),
    ]
}

/// The matrices of every deepening stage that draws or enumerates its own (AutoCheck's first
/// `auto`), for `seed`, with `sampled` as the run's sample.
fn stage_matrices(groups: &OperationGroups, seed: u64, sampled: &[TestMatrix], auto: usize) -> Vec<TestMatrix> {
    let config = Config::default();
    let frame = |m: TestMatrix| m;
    let input = PlanInput {
        config: &config,
        seed,
        samples: 20,
        threads: 3,
        ops: 3,
        shapes: Shapes::default(),
        groups,
        sampled,
        frame: &frame,
    };
    Stage::DEFAULT_ORDER
        .iter()
        .filter_map(|&stage| plan(stage, &input))
        .flat_map(|plan| plan.matrices.take(auto))
        .collect()
}

#[test]
fn the_sample_the_deepening_stages_and_autocheck_never_break_a_group() {
    for groups in grouped_sets() {
        let mut columns_seen = vec![[false; 4]; groups.names().len()];
        for seed in 0..500 {
            let mut matrices = Vec::new();
            for shapes in [Shapes::default(), Shapes::Exact] {
                matrices.extend(sample_shaped_grouped(&groups, 3, 3, 20, seed, shapes));
            }
            let sampled = matrices.clone();
            matrices.extend(stage_matrices(&groups, seed, &sampled, 300));
            for m in &matrices {
                if let Err(broken) = groups.check(m) {
                    panic!("seed {seed}, {groups:?}: {broken} in {m:?}");
                }
                for (t, column) in m.threads.iter().enumerate() {
                    for g in column.iter().filter_map(|&i| groups.group_of(i)) {
                        columns_seen[g][t.min(3)] = true;
                    }
                }
            }
        }
        // Each group sits on every column of a 4-thread matrix in some sample: the groups pin,
        // they do not always pick the same thread. Where every invocation is in a group, a
        // matrix has no more columns than groups (a column without one is left out).
        let free = (0..groups.invocations()).any(|i| groups.group_of(i).is_none());
        let columns = if free { 4 } else { groups.names().len() };
        for (g, seen) in columns_seen.iter().enumerate() {
            let expected: Vec<bool> = (0..4).map(|t| t < columns).collect();
            assert_eq!(seen.to_vec(), expected, "group {} of {groups:?}", groups.names()[g]);
        }
    }
}

#[test]
fn more_groups_than_threads_still_fill_every_thread() {
    let groups = OperationGroups::new([Some("a"), Some("b"), Some("c"), None]);
    let sample = sample_shaped_grouped(&groups, 2, 3, 500, 3, Shapes::Exact);
    assert!(sample.iter().all(|m| m.dimensions() == (2, 3) && groups.respects(m)));
    // Two groups share a column in some matrices.
    let shared = sample.iter().any(|m| {
        m.threads.iter().any(|column| {
            let mut in_column: Vec<usize> = column.iter().filter_map(|&i| groups.group_of(i)).collect();
            in_column.sort_unstable();
            in_column.dedup();
            in_column.len() >= 2
        })
    });
    assert!(shared);
}

#[test]
fn where_every_invocation_is_grouped_a_column_without_a_group_is_left_out() {
    let groups = OperationGroups::new([Some("a"), Some("b")]);
    let sample = sample_shaped_grouped(&groups, 3, 2, 200, 11, Shapes::Exact);
    assert!(sample
        .iter()
        .all(|m| groups.respects(m) && (1..=2).contains(&m.threads.len())));
    assert!(sample.iter().all(|m| m.threads.iter().all(|c| c.len() == 2)));
}

#[test]
fn where_every_invocation_is_grouped_the_groups_get_distinct_columns_when_there_are_enough() {
    // An SPSC ring: `push` in `producer`, `pop` in `consumer`. Two groups sharing one column
    // would leave a one-thread matrix, with no concurrency at all.
    let groups = OperationGroups::new([Some("producer"), Some("producer"), Some("consumer")]);
    for shapes in [Shapes::default(), Shapes::Exact] {
        let sample = sample_shaped_grouped(&groups, 3, 3, 300, 26, shapes);
        assert!(
            sample.iter().all(|m| groups.respects(m) && m.threads.len() == 2),
            "{sample:?}"
        );
    }
    // With more groups than threads, they share.
    let three = OperationGroups::new([Some("a"), Some("b"), Some("c")]);
    let sample = sample_shaped_grouped(&three, 2, 2, 100, 26, Shapes::Exact);
    assert!(sample.iter().all(|m| three.respects(m) && m.threads.len() == 2));
}

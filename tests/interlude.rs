//! The interlude (`Config::interlude`): a sample of schedules run in the middle of an exhaustive
//! phase 2 whose tree turns out large. A tree within its start is explored exactly as without it;
//! a larger one is still explored to the end, every execution once; a bug that the depth-first
//! order reaches late is found by the sample (`lineup-actors/tests/interlude.rs`, on Open Chord).
#![cfg(not(loom))]

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, CheckStats, Config, Interlude, Strategy, TestMatrix, Verdict};

fn pass(verdict: Verdict) -> CheckStats {
    match verdict {
        Verdict::Pass(stats) => stats,
        Verdict::Fail(v) => panic!("unexpected failure:\n{v}"),
    }
}

fn pct(after: u64, executions: u64) -> Option<Interlude> {
    Some(Interlude {
        after,
        strategy: Strategy::Pct {
            depth: 3,
            executions,
            seed: 5,
        },
    })
}

/// `add(200), try_take() | add(400), try_take() | try_take()` on the blocking queue: a tree of a
/// few thousand executions at bound 2.
fn queue_matrix() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 2], vec![1, 2], vec![2]])
}

#[test]
fn a_tree_within_the_start_is_explored_as_without_it() {
    let subject = objects::queues::blocking_queue();
    let without = pass(
        check(
            &subject,
            &queue_matrix(),
            &Config {
                interlude: None,
                ..Config::default()
            },
        )
        .unwrap(),
    );
    let with = pass(check(&subject, &queue_matrix(), &Config::default()).unwrap());
    assert!(without.concurrent_executions < Interlude::default().after);
    assert_eq!(with.interlude, None);
    assert_eq!(
        (with.concurrent_executions, with.distinct_histories),
        (without.concurrent_executions, without.distinct_histories)
    );
}

#[test]
fn a_tree_past_the_start_is_still_explored_to_the_end_on_any_number_of_workers() {
    let subject = objects::queues::blocking_queue();
    let plain = |workers| Config {
        interlude: None,
        workers,
        ..Config::default()
    };
    let whole = pass(check(&subject, &queue_matrix(), &plain(1)).unwrap());
    let tree = whole.concurrent_executions;
    assert!(tree > 200, "the tree is too small for the test: {tree}");
    for workers in [1, 2] {
        let config = Config {
            interlude: pct(tree / 2, 50),
            ..plain(workers)
        };
        let stats = pass(check(&subject, &queue_matrix(), &config).unwrap());
        let (interlude, executions) = stats.interlude.expect("the interlude ran");
        assert_eq!((interlude.after, executions), (tree / 2, 50));
        // Every execution of the search once, and the interlude's besides.
        assert_eq!(stats.concurrent_executions, tree + 50, "{workers} workers");
        assert!(stats.distinct_histories >= whole.distinct_histories);
    }
    // Within a bounded number of executions, the interlude and the search share it.
    let bounded = Config {
        interlude: pct(100, 50),
        max_executions: Some(180),
        ..plain(1)
    };
    let stats = pass(check(&subject, &queue_matrix(), &bounded).unwrap());
    assert_eq!(stats.concurrent_executions, 180);
    assert_eq!(stats.interlude.map(|(_, n)| n), Some(50));
}

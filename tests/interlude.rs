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
    // The search pauses on every worker; wherever the pause falls, nothing is explored twice or
    // left out.
    // The sample's executions (PCT's and random's) are split among the workers by index.
    let random = |after| {
        Some(Interlude {
            after,
            strategy: Strategy::Random {
                executions: 50,
                seed: 5,
            },
        })
    };
    // The random walks, unbounded, meet histories beyond the search's bound: the same ones on any
    // number of workers.
    let mut random_histories = None;
    for after in [1, 7, tree / 3, tree / 2, tree - 1] {
        for (workers, interlude) in [1, 2, 3, 4]
            .into_iter()
            .flat_map(|w| [(w, pct(after, 50)), (w, random(after))])
        {
            let config = Config {
                interlude,
                ..plain(workers)
            };
            let stats = pass(check(&subject, &queue_matrix(), &config).unwrap());
            let (interlude, executions) = stats.interlude.expect("the interlude ran");
            assert_eq!((interlude.after, executions), (after, 50));
            // Every execution of the search once, and the interlude's besides.
            assert_eq!(
                stats.concurrent_executions,
                tree + 50,
                "{workers} workers, after {after}"
            );
            if matches!(interlude.strategy, Strategy::Random { .. }) {
                let first = *random_histories.get_or_insert(stats.distinct_histories);
                assert!(first >= whole.distinct_histories);
                assert_eq!(stats.distinct_histories, first, "{workers} workers, after {after}");
            } else {
                assert_eq!(stats.distinct_histories, whole.distinct_histories);
            }
        }
    }
    // A tree of exactly `after` executions has no interlude.
    let exact = Config {
        interlude: pct(tree, 50),
        ..plain(3)
    };
    let stats = pass(check(&subject, &queue_matrix(), &exact).unwrap());
    assert_eq!((stats.interlude, stats.concurrent_executions), (None, tree));
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

/// What a failing check reports: the kind and the replay token of its violation.
fn failure(verdict: Verdict) -> String {
    match verdict {
        // The schedule phase 2 found, before it is shortened for the report.
        Verdict::Fail(v) => format!(
            "{:?} {}",
            v.kind,
            v.schedule.as_ref().map_or(&v.replay, |shown| &shown.found)
        ),
        Verdict::Pass(stats) => panic!("the check passed: {stats:?}"),
    }
}

/// The violation reported is the first one of the search's first `after` executions if there is
/// one, else the sample's, else the search's first: the same on any number of workers, wherever
/// the pause falls (and whatever the workers explored past it before they stopped).
#[test]
fn a_failing_check_reports_the_same_violation_on_any_number_of_workers_wherever_the_pause_falls() {
    let subject = objects::queues::give_up_queue();
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2], vec![2]]);
    let plain = |workers| Config {
        interlude: None,
        workers,
        ..Config::default()
    };
    let (search, executions) = match check(&subject, &matrix, &plain(1)).unwrap() {
        Verdict::Fail(v) => (
            format!(
                "{:?} {}",
                v.kind,
                v.schedule.as_ref().map_or(&v.replay, |shown| &shown.found)
            ),
            v.stats.concurrent_executions,
        ),
        Verdict::Pass(_) => panic!("the give-up queue passed"),
    };
    assert!(
        executions > 30,
        "the search finds the bug too early for the test: {executions}"
    );
    // A sample that misses the bug (PCT), and one that finds it (a random walk).
    let misses = Strategy::Pct {
        depth: 3,
        executions: 400,
        seed: 5,
    };
    let finds = Strategy::Random {
        executions: 400,
        seed: 5,
    };
    let alone = |strategy| Config { strategy, ..plain(1) };
    assert!(check(&subject, &matrix, &alone(misses)).unwrap().is_pass());
    let sampled = failure(check(&subject, &matrix, &alone(finds)).unwrap());
    // Pauses before the violation, right at it, and past it; the workers explore ahead of the
    // pause, so some of them meet the search's violation before it.
    for after in [1, 5, 20, executions - 2, executions - 1, executions, 10_000] {
        for (strategy, finds_it) in [(misses, false), (finds, true)] {
            let expected = if after >= executions || !finds_it {
                &search
            } else {
                &sampled
            };
            for workers in [1, 2, 3, 4] {
                let config = Config {
                    interlude: Some(Interlude { after, strategy }),
                    ..plain(workers)
                };
                let reported = failure(check(&subject, &matrix, &config).unwrap());
                assert_eq!(&reported, expected, "after {after}, {strategy}, {workers} workers");
            }
        }
    }
}

//! The interlude (`Config::interlude`): a sample of schedules run in the middle of an exhaustive
//! phase 2 whose tree turns out large, and again, twice as long, each time the search has run
//! twice as many executions. A tree within its start is explored exactly as without it; a larger
//! one is still explored to the end, every execution once; a bug that the depth-first order
//! reaches late is found by the sample (`lineup-actors/tests/interlude.rs`, on Open Chord).
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

fn random(after: u64, executions: u64) -> Option<Interlude> {
    Some(Interlude {
        after,
        strategy: Strategy::Random { executions, seed: 5 },
    })
}

/// How many rounds of `interlude` one worker runs in a search whose `n`th execution is its last
/// (its tree's, or a violation's): one for each pause before it.
fn rounds_before(interlude: Interlude, n: u64) -> u32 {
    (0..).take_while(|&round| interlude.pause_of_round(round) < n).count() as u32
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
    // The search pauses on every worker, as many times as its tree doubles past the first pause;
    // wherever the pauses fall, nothing is explored twice or left out. The sample's executions
    // (PCT's and random's) are split among the workers by index, and each round goes on from the
    // last.
    for (after, executions) in [(0, 1), (1, 1), (7, 4), (tree / 3, 50), (tree / 2, 50), (tree - 1, 50)] {
        // The samples, unbounded, may meet histories beyond the search's bound: the same ones on
        // any number of workers.
        let mut sample_histories = [None, None];
        for (workers, interlude) in [1, 2, 3, 4]
            .into_iter()
            .flat_map(|w| [(w, pct(after, executions)), (w, random(after, executions))])
        {
            let config = Config {
                interlude,
                ..plain(workers)
            };
            let stats = pass(check(&subject, &queue_matrix(), &config).unwrap());
            let (interlude, sampled) = stats.interlude.expect("the interlude ran");
            let rounds = rounds_before(interlude, tree);
            assert_eq!(
                (interlude.after, sampled),
                (after, interlude.sample_through(rounds - 1)),
                "{workers} workers, after {after}: {rounds} rounds"
            );
            // Every execution of the search once, and the interlude's besides.
            assert_eq!(
                stats.concurrent_executions,
                tree + sampled,
                "{workers} workers, after {after}"
            );
            let which = usize::from(matches!(interlude.strategy, Strategy::Random { .. }));
            let first = *sample_histories[which].get_or_insert(stats.distinct_histories);
            assert!(first >= whole.distinct_histories);
            assert_eq!(
                stats.distinct_histories, first,
                "{workers} workers, after {after}, {}",
                interlude.strategy
            );
        }
    }
    // A tree a round's pause doubles to exactly has no round after it: one round, not two.
    let config = Config {
        interlude: pct(tree / 2, 50),
        ..plain(3)
    };
    let stats = pass(check(&subject, &queue_matrix(), &config).unwrap());
    assert_eq!(
        stats.interlude.map(|(_, n)| n),
        Some(if tree % 2 == 0 { 50 } else { 150 })
    );
    // A tree of exactly `after` executions has no interlude.
    let exact = Config {
        interlude: pct(tree, 50),
        ..plain(3)
    };
    let stats = pass(check(&subject, &queue_matrix(), &exact).unwrap());
    assert_eq!((stats.interlude, stats.concurrent_executions), (None, tree));
    // Within a bounded number of executions, the interlude and the search share it: the search's
    // first 100, the sample's 50, the search's next 100, the sample's next 100 cut to 30.
    for (max, sampled) in [(180, 50), (280, 80)] {
        let bounded = Config {
            interlude: pct(100, 50),
            max_executions: Some(max),
            ..plain(1)
        };
        let stats = pass(check(&subject, &queue_matrix(), &bounded).unwrap());
        assert_eq!(stats.concurrent_executions, max);
        assert_eq!(stats.interlude.map(|(_, n)| n), Some(sampled));
    }
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

/// The violation reported is the first one in the order one worker meets them: the search's
/// first `after` executions, the sample's first round, the search's next `after`, the sample's
/// second round, and so on: the same on any number of workers, wherever the pauses fall (and
/// whatever the workers explored past them before they stopped).
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
    // Two samples, with what each finds alone and the index it finds it at: PCT late (past its
    // first round of 100, and its second), random walks early (past their first round of 2).
    let alone = |strategy| Config { strategy, ..plain(1) };
    let first_failing = |strategy: Strategy| {
        let verdict = check(&subject, &matrix, &alone(strategy)).unwrap();
        let index = verdict
            .violation()
            .map(|v| v.stats.concurrent_executions - 1)
            .unwrap_or_else(|| panic!("{strategy} alone passed"));
        (failure(verdict), index)
    };
    let pct = |executions| Strategy::Pct {
        depth: 3,
        executions,
        seed: 5,
    };
    let random = |executions| Strategy::Random { executions, seed: 5 };
    let samples = [
        (pct(100), first_failing(pct(10_000))),
        (random(2), first_failing(random(10_000))),
    ];
    assert!(
        samples[0].1 .1 >= 300,
        "PCT finds the bug too early: {}",
        samples[0].1 .1
    );
    assert!(
        (2..6).contains(&samples[1].1 .1),
        "random finds it at {}",
        samples[1].1 .1
    );
    // Pauses before the violation, right at it, and past it; the workers explore ahead of the
    // pauses, so some of them meet the search's violation before it.
    let mut by_the_sample = [0, 0];
    for after in [1, 5, 20, executions - 2, executions - 1, executions, 10_000] {
        for (s, (strategy, (sampled, failing))) in samples.iter().enumerate() {
            let interlude = Interlude {
                after,
                strategy: *strategy,
            };
            let rounds = rounds_before(interlude, executions);
            let found = rounds > 0 && *failing < interlude.sample_through(rounds - 1);
            by_the_sample[s] += usize::from(found);
            let expected = if found { sampled } else { &search };
            for workers in [1, 2, 3, 4] {
                let config = Config {
                    interlude: Some(interlude),
                    ..plain(workers)
                };
                let verdict = check(&subject, &matrix, &config).unwrap();
                if workers == 1 && found {
                    // One worker pauses exactly at each round's count: the search's executions
                    // up to the round that found it, then the sample's up to its failing index.
                    let round = (0..).find(|&r| *failing < interlude.sample_through(r)).unwrap();
                    let stats = &verdict.violation().expect("a failure").stats;
                    assert_eq!(
                        stats.concurrent_executions,
                        interlude.pause_of_round(round) + failing + 1,
                        "after {after}, {strategy}: found in round {round}"
                    );
                }
                let reported = failure(verdict);
                assert_eq!(&reported, expected, "after {after}, {strategy}, {workers} workers");
            }
        }
    }
    // Each sample finds the bug in some of the checks, and in a round after its first in some.
    assert_eq!(by_the_sample, [2, 2]);
}

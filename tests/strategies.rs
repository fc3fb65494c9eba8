//! Phase 2's strategies (`Config::strategy`): each one FAILs a buggy object and PASSes a correct
//! one; the sampling strategies are seeded and their violations replay exactly from the token;
//! delay bounding grows with its bound. (Yields as choices: `tests/yield_choices.rs`.)

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, replay, Config, Phase, Strategy, TestMatrix};
use objects::{counters, queues};

fn with(strategy: Strategy) -> Config {
    Config {
        strategy,
        ..Config::default()
    }
}

/// Every strategy, the sampling ones with `executions` executions.
fn every_strategy_with(executions: u64) -> Vec<Strategy> {
    vec![
        Strategy::PbDfs,
        Strategy::DbDfs { delays: 2 },
        Strategy::Random { executions, seed: 7 },
        Strategy::Pct {
            depth: 3,
            executions,
            seed: 7,
        },
    ]
}

fn every_strategy() -> Vec<Strategy> {
    vec![
        Strategy::PbDfs,
        Strategy::DbDfs { delays: 2 },
        Strategy::Random {
            executions: 300,
            seed: 7,
        },
        Strategy::Pct {
            depth: 3,
            executions: 300,
            seed: 7,
        },
    ]
}

fn inc_get_2x2() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 1], vec![0, 1]])
}

#[test]
fn every_strategy_fails_a_buggy_counter_and_passes_a_correct_one() {
    for strategy in every_strategy() {
        let verdict = check(&counters::counter1(), &inc_get_2x2(), &with(strategy)).unwrap();
        assert!(!verdict.is_pass(), "{strategy} misses Counter1's lost update");
        let verdict = check(&counters::atomic_counter(), &inc_get_2x2(), &with(strategy)).unwrap();
        if let Some(v) = verdict.violation() {
            panic!("{strategy} fails a correct counter:\n{v}");
        }
    }
}

#[test]
fn every_strategy_finds_the_give_up_queue_bug_and_passes_the_blocking_queue() {
    // The bug needs two well-placed switches (a depth-3 bug for PCT, found by one execution in
    // about a thousand here).
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    for strategy in every_strategy_with(5000) {
        let verdict = check(&queues::give_up_queue(), &matrix, &with(strategy)).unwrap();
        assert!(!verdict.is_pass(), "{strategy} misses the give-up queue's bug");
        // Blocking take() too: stuck histories are judged under every strategy.
        let blocking = TestMatrix::new(vec![vec![0, 3], vec![3, 1], vec![2]]);
        let verdict = check(&queues::blocking_queue(), &blocking, &with(strategy)).unwrap();
        if let Some(v) = verdict.violation() {
            panic!("{strategy} fails the correct blocking queue:\n{v}");
        }
    }
}

#[test]
fn sampling_strategies_run_as_many_executions_as_asked_and_repeat_with_their_seed() {
    for strategy in [
        Strategy::Random {
            executions: 50,
            seed: 3,
        },
        Strategy::Pct {
            depth: 2,
            executions: 50,
            seed: 3,
        },
    ] {
        let first = check(&counters::atomic_counter(), &inc_get_2x2(), &with(strategy)).unwrap();
        assert_eq!(first.stats().concurrent_executions, 50, "{strategy}");
        let again = check(&counters::atomic_counter(), &inc_get_2x2(), &with(strategy)).unwrap();
        assert_eq!(first.stats().distinct_histories, again.stats().distinct_histories);
    }
}

/// A violation found by any strategy but pb-dfs carries a `p2-s` token that replays exactly that
/// execution, with the same history and verdict.
#[test]
fn violations_of_every_strategy_replay_from_their_token() {
    let subject = counters::counter1();
    for strategy in every_strategy() {
        let verdict = check(&subject, &inc_get_2x2(), &with(strategy)).unwrap();
        let violation = verdict.violation().expect("Counter1 fails");
        match strategy {
            Strategy::PbDfs => assert!(matches!(violation.replay.phase, Phase::Concurrent { .. })),
            _ => assert_eq!(violation.replay.phase, Phase::Scheduled, "{strategy}"),
        }
        let token = violation.replay.to_string().parse().unwrap();
        // Replayed under the default config: the token alone names the schedule.
        let replayed = replay(&subject, &inc_get_2x2(), &token, &Config::default()).unwrap();
        assert_eq!(
            replayed.violation.as_ref(),
            Some(&violation.kind),
            "{strategy}: {token}"
        );
    }
}

#[test]
fn a_token_that_does_not_fit_the_execution_is_an_error() {
    let token = "lineup:p2-s:9.9.9".parse().unwrap();
    let err = replay(&counters::counter1(), &inc_get_2x2(), &token, &Config::default()).unwrap_err();
    assert!(err.to_string().contains("out of range"), "{err}");
}

#[test]
fn delay_bounding_explores_one_round_robin_schedule_at_zero_delays_and_more_with_more() {
    let subject = counters::atomic_counter();
    let count = |delays| {
        let verdict = check(&subject, &inc_get_2x2(), &with(Strategy::DbDfs { delays })).unwrap();
        assert!(verdict.is_pass());
        verdict.stats().concurrent_executions
    };
    let (zero, one, two, three) = (count(0), count(1), count(2), count(3));
    assert_eq!(zero, 1, "no delay: the round-robin schedule only");
    assert!(zero < one && one < two && two < three, "{zero} {one} {two} {three}");
    // With every delay it can use, it reaches every schedule pb-dfs reaches with every preemption.
    let all = check(
        &subject,
        &inc_get_2x2(),
        &Config {
            preemption_bound: 20,
            ..Config::default()
        },
    )
    .unwrap();
    let delays = check(&subject, &inc_get_2x2(), &with(Strategy::DbDfs { delays: 20 })).unwrap();
    assert_eq!(delays.stats().distinct_histories, all.stats().distinct_histories);
}

#[test]
fn strategies_are_read_from_their_names() {
    assert_eq!("pb-dfs".parse::<Strategy>().unwrap(), Strategy::PbDfs);
    assert_eq!(
        "random:20:5".parse::<Strategy>().unwrap(),
        Strategy::Random {
            executions: 20,
            seed: 5
        }
    );
    let err = "pct:3:x".parse::<Strategy>().unwrap_err().to_string();
    assert!(err.contains("`x` is not a whole number"), "{err}");
    let err = "bfs".parse::<Strategy>().unwrap_err().to_string();
    assert!(err.contains("`bfs` is not one of pb-dfs, db-dfs, random, pct"), "{err}");
    assert!("db-dfs:1:2".parse::<Strategy>().is_err());
}

#[test]
fn a_lineup_test_runs_the_strategy_it_names_and_says_so() {
    let summary = lineup::LineupTest::new("strategy_named")
        .time_budget(None)
        .threads(2)
        .ops(2)
        .samples(3)
        .seed(11)
        .strategy_named("pct:2:40")
        .check_subject(&counters::atomic_counter())
        .unwrap();
    // A seed of 0 (none given) takes the test's.
    assert_eq!(
        summary.phase2.strategy,
        Strategy::Pct {
            depth: 2,
            executions: 40,
            seed: 11
        }
    );
    let failure = lineup::LineupTest::new("bad_strategy")
        .time_budget(None)
        .strategy_named("dfs")
        .check_subject(&counters::atomic_counter())
        .unwrap_err()
        .to_string();
    assert!(failure.contains("`dfs` is not a strategy"), "{failure}");
}

#[test]
fn a_lineup_test_takes_its_interlude_by_setting() {
    // A tree past the interlude's start: the PASS line counts the matrices that ran it.
    let summary = lineup::LineupTest::new("interlude_named")
        .time_budget(None)
        .matrix(&[
            &["add(200)", "try_take()"],
            &["add(400)", "try_take()"],
            &["try_take()"],
        ])
        .samples(0)
        .interlude_named("50:random:20")
        .check_subject(&queues::blocking_queue());
    let summary = summary.unwrap();
    assert_eq!(summary.interludes, 1);
    let off = lineup::LineupTest::new("interlude_off")
        .time_budget(None)
        .matrix(&[
            &["add(200)", "try_take()"],
            &["add(400)", "try_take()"],
            &["try_take()"],
        ])
        .samples(0)
        .interlude_named("off")
        .check_subject(&queues::blocking_queue())
        .unwrap();
    assert_eq!(off.interludes, 0);
    let failure = lineup::LineupTest::new("bad_interlude")
        .time_budget(None)
        .interlude_named("50:pb-dfs")
        .check_subject(&counters::atomic_counter())
        .unwrap_err()
        .to_string();
    assert!(failure.contains("must be a sample"), "{failure}");
}

//! The shortest schedule: a violation shows, among the schedules that reach its violating history
//! (its stuck history, stuck the same way), one with the fewest preemptions, then the fewest
//! context switches that the search met; never one with more than phase 2 found, and never one that
//! does not reproduce the violation.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{
    check, record_steps, replay, shorten_schedule, Config, Phase, ScheduleCost, ShownSchedule, Strategy, Subject,
    TestMatrix, Violation, ViolationKind,
};
use objects::counters::{counter1, counter2};

/// inc, get | inc, get
fn inc_get_2x2() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 1], vec![0, 1]])
}

/// inc, inc, get | inc, get | get
fn three_threads() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 0, 1], vec![0, 1], vec![1]])
}

/// The violation of `matrix` under `config`, as phase 2 found it (no shortening).
fn as_found<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix, config: &Config) -> Violation {
    let config = Config {
        shortest_schedule: 0,
        ..config.clone()
    };
    let verdict = check(subject, matrix, &config).unwrap();
    let violation = verdict.violation().expect("the object fails").clone();
    assert_eq!(violation.schedule, None, "a budget of 0 shortens nothing");
    violation
}

/// Replays the schedule `violation` shows and asserts it reaches the same history, stuck the same
/// way, with the same violation, at the cost the violation names.
fn assert_reproduces<O: Send + Sync + 'static>(subject: &Subject<O>, violation: &Violation, config: &Config) {
    let replayed = replay(subject, &violation.matrix, &violation.replay, config).unwrap();
    assert_eq!(&replayed.history, violation.kind.history(), "{}", violation.replay);
    let stuck = match &violation.kind {
        ViolationKind::StuckNotLinearizable { stuck, .. } => Some(*stuck),
        _ => None,
    };
    assert_eq!(replayed.stuck, stuck, "{}", violation.replay);
    assert_eq!(
        replayed.violation.as_ref(),
        Some(&violation.kind),
        "{}",
        violation.replay
    );
    if let Some(schedule) = &violation.schedule {
        assert_eq!(replayed.schedule, schedule.shown_cost, "{}", violation.replay);
    }
}

/// The schedule record of a shortened violation.
fn shown(violation: &Violation) -> &ShownSchedule {
    violation
        .schedule
        .as_ref()
        .expect("a phase-2 violation on shuttle records its schedule")
}

#[test]
fn a_random_schedule_is_shortened_and_replays_to_the_same_violation() {
    let subject = counter1();
    let matrix = three_threads();
    let config = Config {
        strategy: Strategy::Random {
            executions: 1_000,
            seed: 3,
        },
        ..Config::default()
    };
    let mut violation = as_found(&subject, &matrix, &config);
    assert_eq!(violation.replay.phase, Phase::Scheduled);
    let found = violation.replay.clone();
    let found_cost = replay(&subject, &matrix, &found, &config).unwrap().schedule;

    shorten_schedule(&subject, &mut violation, &config, 2_000).unwrap();
    let schedule = shown(&violation).clone();
    assert_eq!((schedule.found.clone(), schedule.found_cost), (found, found_cost));
    assert!(schedule.is_shortened(), "{violation}");
    assert!(
        schedule.preemptions_after() < schedule.preemptions_before(),
        "{violation}"
    );
    // The search ran every bound below the found schedule's to its end: no schedule of this
    // history has fewer preemptions than the one shown.
    assert!(schedule.executions < 2_000, "{}", schedule.executions);
    // A pb-dfs token, at the bound of its own preemptions.
    assert_eq!(
        violation.replay.phase,
        Phase::Concurrent {
            preemption_bound: schedule.preemptions_after()
        }
    );
    assert_reproduces(&subject, &violation, &config);
    // The report says so.
    let report = violation.to_string();
    let line = format!(
        "{} → {} preemptions",
        schedule.preemptions_before(),
        schedule.preemptions_after()
    );
    assert!(report.contains(&line), "{report}");
    // So does the HTML page, beside the token it shows.
    let html = violation.to_html();
    assert!(html.contains(&violation.replay.to_string()), "{html}");
    assert!(
        html.contains(&format!("shortened from {}: {}", schedule.found_cost, schedule.found)),
        "{html}"
    );
}

#[test]
fn check_shows_the_shortened_schedule_and_the_report_names_both() {
    let subject = counter1();
    let config = Config {
        strategy: Strategy::Pct {
            depth: 3,
            executions: 1_000,
            seed: 3,
        },
        ..Config::default()
    };
    let verdict = check(&subject, &three_threads(), &config).unwrap();
    let violation = verdict.violation().expect("Counter1 loses updates");
    let schedule = shown(violation);
    assert!(schedule.shown_cost <= schedule.found_cost, "{violation}");
    assert_eq!(
        schedule.executions > 0,
        schedule.found_cost.preemptions > 0 || schedule.found_cost.context_switches > 0
    );
    assert_reproduces(&subject, violation, &config);
    // The found schedule reaches the same violation too.
    let found = replay(&subject, &three_threads(), &schedule.found, &config).unwrap();
    assert_eq!(&found.history, violation.kind.history());
    assert!(violation.to_string().contains("schedule: "), "{violation}");
}

#[test]
fn a_stuck_history_keeps_its_stuck_history_and_kind() {
    let subject = counter2();
    let config = Config {
        strategy: Strategy::Random {
            executions: 2_000,
            seed: 2,
        },
        ..Config::default()
    };
    let mut violation = as_found(&subject, &inc_get_2x2(), &config);
    assert!(violation.kind.is_stuck(), "{violation}");
    shorten_schedule(&subject, &mut violation, &config, 2_000).unwrap();
    let schedule = shown(&violation);
    assert!(schedule.shown_cost <= schedule.found_cost);
    assert!(schedule.is_shortened(), "{violation}");
    assert!(
        schedule.preemptions_after() < schedule.preemptions_before(),
        "{violation}"
    );
    assert_reproduces(&subject, &violation, &config);
}

#[test]
fn shortening_never_adds_preemptions_and_every_shown_schedule_reproduces() {
    let subject = counter1();
    let strategies = [
        Strategy::PbDfs,
        Strategy::DbDfs { delays: 2 },
        Strategy::Random {
            executions: 500,
            seed: 1,
        },
        Strategy::Random {
            executions: 500,
            seed: 2,
        },
        Strategy::Pct {
            depth: 2,
            executions: 500,
            seed: 5,
        },
    ];
    for matrix in [inc_get_2x2(), three_threads()] {
        for strategy in strategies {
            let config = Config {
                strategy,
                ..Config::default()
            };
            let Some(found) = check(
                &subject,
                &matrix,
                &Config {
                    shortest_schedule: 0,
                    ..config.clone()
                },
            )
            .unwrap()
            .violation()
            .cloned() else {
                continue;
            };
            let violation = check(&subject, &matrix, &config).unwrap().violation().cloned().unwrap();
            // The same violation as found, its schedule perhaps shorter.
            assert_eq!(violation.kind, found.kind, "{strategy:?}");
            let schedule = shown(&violation);
            assert_eq!(schedule.found, found.replay, "{strategy:?}");
            assert!(schedule.shown_cost <= schedule.found_cost, "{strategy:?}: {violation}");
            assert!(schedule.preemptions_after() <= schedule.preemptions_before());
            assert_reproduces(&subject, &violation, &config);
            // Shortening the shown schedule again finds nothing cheaper.
            let mut again = violation.clone();
            shorten_schedule(&subject, &mut again, &config, 2_000).unwrap();
            assert_eq!(shown(&again).shown_cost, schedule.shown_cost, "{strategy:?}");
            assert_eq!(again.replay, violation.replay, "{strategy:?}");
        }
    }
}

#[test]
fn a_budget_too_small_keeps_the_found_schedule() {
    let subject = counter1();
    let config = Config {
        strategy: Strategy::Random {
            executions: 1_000,
            seed: 7,
        },
        ..Config::default()
    };
    let mut violation = as_found(&subject, &three_threads(), &config);
    let found = violation.replay.clone();
    // Bound 0's tree alone has more executions than this: the search ends without a candidate.
    shorten_schedule(&subject, &mut violation, &config, 1).unwrap();
    let schedule = shown(&violation);
    assert_eq!(violation.replay, found);
    assert!(!schedule.is_shortened());
    assert_eq!(schedule.shown_cost, schedule.found_cost);
    assert_eq!(schedule.executions, 1);
}

#[test]
fn the_cost_of_a_schedule_counts_preemptions_and_context_switches() {
    // Serial order: inc, get on thread 0, then inc, get on thread 1: one free switch.
    let subject = counter1();
    let matrix = inc_get_2x2();
    let serial = replay(&subject, &matrix, &"lineup:p2-b0:".parse().unwrap(), &Config::default()).unwrap();
    assert_eq!(
        serial.schedule,
        ScheduleCost {
            preemptions: 0,
            context_switches: 1
        },
        "{}",
        serial.history.notation()
    );
    assert!(serial.violation.is_none());
}

#[test]
fn a_lineup_test_shows_the_shortest_schedule_of_its_smallest_matrix_whatever_the_workers() {
    use lineup::{LineupTest, TestFailure};
    let run = |workers| {
        LineupTest::new("shortest_schedule::lineup_test")
            .time_budget(None)
            .threads(3)
            .ops(2)
            .seed(4)
            .strategy(Strategy::Random {
                executions: 1_000,
                seed: 3,
            })
            .workers(workers)
            .check_subject(&counter1())
    };
    let smallest = |result| match result {
        Err(TestFailure::Violation { smallest, .. }) => smallest,
        other => panic!("expected a violation, got {other:?}"),
    };
    let (one, two) = (smallest(run(1)), smallest(run(2)));
    let schedule = shown(&one);
    assert!(schedule.is_shortened(), "{one}");
    assert_reproduces(&counter1(), &one, &Config::default());
    // The schedule shown depends on an execution budget, not on time or workers.
    assert_eq!(one.replay, two.replay);
    assert_eq!(one.schedule, two.schedule);
}

/// The steps a failing check shows are the shown schedule's: recorded again once the schedule is
/// shortened (the steps of the schedule found would show other preemptions).
#[test]
fn the_steps_shown_are_the_shortened_schedules() {
    let subject = counter1();
    let shortened = (0..20)
        .find_map(|seed| {
            let config = Config {
                strategy: Strategy::Random { executions: 200, seed },
                ..Config::default()
            };
            let verdict = check(&subject, &three_threads(), &config).unwrap();
            let violation = verdict.violation()?.clone();
            shown(&violation).is_shortened().then_some((violation, config))
        })
        .expect("a random schedule of Counter1 that is shortened");
    let (violation, config) = shortened;
    let steps = violation.interleaving.as_ref().expect("the steps are recorded");
    let again = record_steps(&subject, &three_threads(), &violation, &config)
        .unwrap()
        .expect("the shown schedule replays");
    assert_eq!(steps, &again);
    assert_eq!(
        steps.preemptions,
        shown(&violation).preemptions_after() as usize,
        "{violation}"
    );
    assert!(shown(&violation).preemptions_after() < shown(&violation).preemptions_before());
}

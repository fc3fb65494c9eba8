//! Cancellation safety (`Invocation::cancellable`, `#[invoke(cancellable)]`): the exploration also
//! drops a cancellable operation's future after each poll that returned `Pending`, and judges the
//! cancelled operation as a pending one of Def. 1 (a witness completes it or leaves it out).
//!
//! Each object of `examples/objects/cancel.rs` has a twin: a cancel-safe async channel, mutex and
//! semaphore pass with cancellation; a `recv` that takes the message before an `.await` fails with
//! a full history without a witness, and a semaphore whose cancelled `acquire` leaves its waiter
//! queued fails with a stuck history, both only because of the cancellation (they pass without
//! it). The violation's report shows the cancellation, its replay token reproduces it, and the
//! shortened schedule keeps it.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, invocations, replay, Config, Response, TestMatrix, Verdict, ViolationKind};
use objects::cancel::{channel, locked_counter, semaphore, AcquireDrop, RecvOrder};

/// The channel's matrix: one thread receives then reads the stats, the other sends twice.
/// Invocations: 0 `send(1)`, 1 `send(2)`, 2 `recv`, 3 `stats`.
fn channel_matrix() -> TestMatrix {
    TestMatrix::new(vec![vec![2, 3], vec![0, 1]])
}

/// The semaphore's matrix: one `use_permit` against two.
fn semaphore_matrix() -> TestMatrix {
    TestMatrix::new(vec![vec![0], vec![0, 0]])
}

/// The counter's matrix: `incr` then `get` on both threads.
fn counter_matrix() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 1], vec![0, 1]])
}

/// The verdict's report: the violation's, or the statistics of a pass.
fn shown(verdict: &Verdict) -> String {
    match verdict.violation() {
        Some(violation) => violation.to_string(),
        None => format!("{:?}", verdict.stats()),
    }
}

fn cancelled_ops(violation: &lineup::Violation) -> Vec<usize> {
    violation.kind.history().cancelled_ops()
}

#[test]
fn a_cancel_safe_channel_passes_with_cancellation() {
    let verdict = check(
        &channel(RecvOrder::TakeLast, true),
        &channel_matrix(),
        &Config::default(),
    )
    .unwrap();
    assert!(verdict.is_pass(), "{}", shown(&verdict));
}

#[test]
fn a_recv_that_takes_before_its_await_loses_the_message_when_cancelled() {
    let subject = channel(RecvOrder::TakeFirst, true);
    let verdict = check(&subject, &channel_matrix(), &Config::default()).unwrap();
    let violation = verdict.violation().expect("the cancelled recv loses its message");
    assert!(
        matches!(violation.kind, ViolationKind::NotLinearizable { .. }),
        "a full history without a witness: {violation}"
    );
    let history = violation.kind.history();
    let cancelled = cancelled_ops(violation);
    assert_eq!(cancelled.len(), 1, "{violation}");
    assert!(
        matches!(history.response(cancelled[0]), Some(Response::Cancelled { .. })),
        "{violation}"
    );
    assert_eq!(history.op(cancelled[0]).invocation.name, "recv");
    let report = violation.to_string();
    assert!(report.contains("cancelled after poll"), "{report}");
}

#[test]
fn the_lossy_recv_passes_without_cancellation() {
    let verdict = check(
        &channel(RecvOrder::TakeFirst, false),
        &channel_matrix(),
        &Config::default(),
    )
    .unwrap();
    assert!(verdict.is_pass(), "{}", shown(&verdict));
}

#[test]
fn the_replay_token_reproduces_the_cancellation() {
    let subject = channel(RecvOrder::TakeFirst, true);
    let config = Config::default();
    let verdict = check(&subject, &channel_matrix(), &config).unwrap();
    let violation = verdict.violation().expect("fails");
    let replayed = replay(&subject, &channel_matrix(), &violation.replay, &config).unwrap();
    assert_eq!(&replayed.history, violation.kind.history());
    assert!(replayed.violation.is_some(), "the replayed history violates too");
    assert_eq!(replayed.history.cancelled_ops().len(), 1);
}

#[test]
fn a_cancel_safe_async_mutex_passes_with_cancellation() {
    let verdict = check(&locked_counter(true), &counter_matrix(), &Config::default()).unwrap();
    assert!(verdict.is_pass(), "{}", shown(&verdict));
}

#[test]
fn a_cancelled_acquire_that_leaves_its_waiter_makes_a_later_acquire_block_for_good() {
    let subject = semaphore(AcquireDrop::LeaveWaiter, true);
    let verdict = check(&subject, &semaphore_matrix(), &Config::default()).unwrap();
    let violation = verdict.violation().expect("a permit goes to a dropped waiter");
    assert!(
        matches!(violation.kind, ViolationKind::StuckNotLinearizable { .. }),
        "a stuck history without a stuck witness: {violation}"
    );
    assert_eq!(cancelled_ops(violation).len(), 1, "{violation}");
}

#[test]
fn a_semaphore_whose_dropped_acquire_withdraws_passes() {
    let verdict = check(
        &semaphore(AcquireDrop::Withdraw, true),
        &semaphore_matrix(),
        &Config::default(),
    )
    .unwrap();
    assert!(verdict.is_pass(), "{}", shown(&verdict));
}

#[test]
fn the_leaky_semaphore_passes_without_cancellation() {
    let verdict = check(
        &semaphore(AcquireDrop::LeaveWaiter, false),
        &semaphore_matrix(),
        &Config::default(),
    )
    .unwrap();
    assert!(verdict.is_pass(), "{}", shown(&verdict));
}

#[test]
fn no_cancellations_turn_cancellation_off() {
    let config = Config {
        max_cancellations: 0,
        ..Config::default()
    };
    let verdict = check(&channel(RecvOrder::TakeFirst, true), &channel_matrix(), &config).unwrap();
    assert!(verdict.is_pass(), "{}", shown(&verdict));
    assert_eq!(verdict.stats().cancellation_points, 0);
}

/// `#[invoke(cancellable)]` marks the invocations of an `async fn` cancellable.
mod derive {
    use super::*;
    use lineup::Subject;
    use objects::cancel::Semaphore;

    struct Leaky(Semaphore);

    #[invocations]
    impl Leaky {
        #[invoke(cancellable)]
        async fn use_permit(&self) {
            self.0.use_permit().await
        }
    }

    #[test]
    fn the_derived_cancellable_invocation_finds_the_leaked_permit() {
        let subject = Subject::of("Leaky", || Leaky(Semaphore::new(1, AcquireDrop::LeaveWaiter)));
        assert!(subject.invocations()[0].is_cancellable());
        let verdict = check(&subject, &semaphore_matrix(), &Config::default()).unwrap();
        assert!(verdict.violation().is_some(), "{}", shown(&verdict));
    }
}

#[test]
#[ignore = "prints the reports, for a person"]
fn print_reports() {
    for verdict in [
        check(
            &channel(RecvOrder::TakeFirst, true),
            &channel_matrix(),
            &Config::default(),
        )
        .unwrap(),
        check(
            &semaphore(AcquireDrop::LeaveWaiter, true),
            &semaphore_matrix(),
            &Config::default(),
        )
        .unwrap(),
    ] {
        println!("{}", shown(&verdict));
    }
}

/// A counter whose `incr` reads, awaits, then writes: a lost update with or without
/// cancellation.
#[derive(Default)]
struct RacyCounter(lineup::sync::Mutex<u64>);

impl RacyCounter {
    async fn incr(&self) -> u64 {
        let read = *self.0.lock().unwrap();
        lineup::future::yield_now().await;
        *self.0.lock().unwrap() = read + 1;
        read + 1
    }

    async fn get(&self) -> u64 {
        *self.0.lock().unwrap()
    }
}

fn racy_counter() -> lineup::Subject<RacyCounter> {
    lineup::Subject::new("RacyCounter", RacyCounter::default)
        .with(lineup::Invocation::new_async("incr", RacyCounter::incr).cancellable())
        .with(lineup::Invocation::new_async("get", RacyCounter::get))
}

#[test]
fn shrinking_drops_a_cancellation_that_the_violation_does_not_need() {
    let subject = racy_counter();
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 0]]);
    // Random walks (which, unlike the depth-first search, do not try going on before dropping)
    // until one finds the lost update with a cancellation in its history; shrinking with the
    // same walks.
    let (violation, config) = (0..200)
        .find_map(|seed| {
            let config = Config {
                strategy: lineup::Strategy::Random { executions: 200, seed },
                shortest_schedule: 0,
                ..Config::default()
            };
            let verdict = check(&subject, &matrix, &config).unwrap();
            let violation = verdict.violation()?.clone();
            violation
                .kind
                .history()
                .has_cancelled()
                .then(|| (Box::new(violation), config))
        })
        .expect("some random walk cancels an incr on its way to a lost update");
    let shrunk = lineup::shrink(&subject, &matrix, violation, &config).unwrap();
    assert!(
        !shrunk.violation.kind.history().has_cancelled(),
        "the lost update needs no cancellation: {}",
        shrunk.violation
    );
}

#[test]
fn shrinking_keeps_a_cancellation_that_the_violation_needs() {
    let subject = channel(RecvOrder::TakeFirst, true);
    let verdict = check(&subject, &channel_matrix(), &Config::default()).unwrap();
    let violation = Box::new(verdict.violation().expect("fails").clone());
    let shrunk = lineup::shrink(&subject, &channel_matrix(), violation, &Config::default()).unwrap();
    assert!(
        shrunk.violation.kind.history().has_cancelled(),
        "the lost message needs the cancellation: {}",
        shrunk.violation
    );
}

#[test]
fn the_interleaving_shows_the_drop_of_the_future() {
    let verdict = check(
        &channel(RecvOrder::TakeFirst, true),
        &channel_matrix(),
        &Config::default(),
    )
    .unwrap();
    let violation = verdict.violation().expect("fails");
    let interleaving = violation.interleaving.as_ref().expect("recorded on shuttle");
    let drops: Vec<_> = interleaving
        .steps
        .iter()
        .filter(|step| matches!(step.action, lineup::Action::Cancel { .. }))
        .collect();
    assert_eq!(drops.len(), 1, "{violation}");
    assert!(
        violation.to_string().contains("future dropped after poll"),
        "{violation}"
    );
}

#[test]
fn the_text_and_html_reports_say_where_the_operation_was_cancelled() {
    let verdict = check(
        &channel(RecvOrder::TakeFirst, true),
        &channel_matrix(),
        &Config::default(),
    )
    .unwrap();
    let violation = verdict.violation().expect("fails");
    let report = violation.to_string();
    assert!(
        report.contains("cancelled: operation 1 `recv()` on thread A: its future was dropped after poll"),
        "{report}"
    );
    // Where it was suspended: the last step of its last poll, in the object's code (the Lock
    // future's poll of examples/objects/cancel.rs), before the drop's own steps.
    assert!(
        report.contains("(suspended in its last poll after `lock Mutex#") && report.contains("@ cancel.rs:"),
        "{report}"
    );
    let interleaving = violation.interleaving.as_ref().expect("recorded");
    let ours: Vec<_> = interleaving.steps_of(1).collect();
    let drop = ours
        .iter()
        .position(|s| matches!(s.action, lineup::Action::Cancel { .. }))
        .expect("the drop is a step");
    assert!(
        ours[drop + 1..]
            .iter()
            .any(|s| s.location.as_ref().is_some_and(|l| l.file.ends_with("cancel.rs"))),
        "the future's destructor runs after the drop is recorded: {ours:?}"
    );
    let html = violation.to_html();
    assert!(
        html.contains("its future was dropped after poll"),
        "the HTML page names the cancellation"
    );
    assert!(html.contains("suspended in its last poll after"), "and where");
    assert!(html.contains("cancelled after poll"), "the operation's bar shows it");
}

/// Every phase-2 strategy explores the cancellation points: each finds both bugs and passes both
/// correct twins, and its violations replay.
#[test]
fn every_strategy_explores_cancellation() {
    let strategies = [
        lineup::Strategy::PbDfs,
        lineup::Strategy::DbDfs { delays: 2 },
        lineup::Strategy::Random {
            executions: 2_000,
            seed: 1,
        },
        lineup::Strategy::Pct {
            depth: 3,
            executions: 2_000,
            seed: 1,
        },
    ];
    for strategy in strategies {
        let config = Config {
            strategy,
            ..Config::default()
        };
        let lossy = channel(RecvOrder::TakeFirst, true);
        let verdict = check(&lossy, &channel_matrix(), &config).unwrap();
        let violation = verdict
            .violation()
            .unwrap_or_else(|| panic!("{strategy:?} finds the lost message"));
        assert!(violation.kind.history().has_cancelled(), "{strategy:?}: {violation}");
        let replayed = replay(&lossy, &channel_matrix(), &violation.replay, &config).unwrap();
        assert_eq!(&replayed.history, violation.kind.history(), "{strategy:?}");

        let leaky = semaphore(AcquireDrop::LeaveWaiter, true);
        let verdict = check(&leaky, &semaphore_matrix(), &config).unwrap();
        assert!(verdict.violation().is_some(), "{strategy:?} finds the leaked permit");

        for verdict in [
            check(&channel(RecvOrder::TakeLast, true), &channel_matrix(), &config).unwrap(),
            check(&semaphore(AcquireDrop::Withdraw, true), &semaphore_matrix(), &config).unwrap(),
            check(&locked_counter(true), &counter_matrix(), &config).unwrap(),
        ] {
            assert!(verdict.is_pass(), "{strategy:?}: {}", shown(&verdict));
        }
    }
}

#[test]
fn one_cancellation_per_execution_finds_both_bugs() {
    let config = Config {
        max_cancellations: 1,
        ..Config::default()
    };
    let lossy = check(&channel(RecvOrder::TakeFirst, true), &channel_matrix(), &config).unwrap();
    assert!(lossy.violation().is_some(), "{}", shown(&lossy));
    let leaky = check(&semaphore(AcquireDrop::LeaveWaiter, true), &semaphore_matrix(), &config).unwrap();
    assert!(leaky.violation().is_some(), "{}", shown(&leaky));
}

/// Workers that split both phases' trees split their cancellation points too: the same verdicts,
/// and the same executions, as one worker.
#[test]
fn workers_split_the_cancellation_points() {
    for workers in [1, 2, 3] {
        let config = Config {
            workers,
            ..Config::default()
        };
        let pass = check(&locked_counter(true), &counter_matrix(), &config).unwrap();
        assert!(pass.is_pass(), "{workers} workers: {}", shown(&pass));
        assert_eq!(pass.stats().concurrent_executions, {
            let one = Config {
                workers: 1,
                ..Config::default()
            };
            check(&locked_counter(true), &counter_matrix(), &one)
                .unwrap()
                .stats()
                .concurrent_executions
        });
        let lossy = check(&channel(RecvOrder::TakeFirst, true), &channel_matrix(), &config).unwrap();
        assert!(lossy.violation().is_some(), "{workers} workers");
        let leaky = check(&semaphore(AcquireDrop::LeaveWaiter, true), &semaphore_matrix(), &config).unwrap();
        assert!(leaky.violation().is_some(), "{workers} workers");
    }
}

/// Three `incr`s on a lock whose unlock wakes only the first waiter.
fn three_incrs() -> TestMatrix {
    TestMatrix::new(vec![vec![0], vec![0], vec![0]])
}

#[test]
fn a_lock_dropped_after_its_wake_up_swallows_it_and_the_next_waiter_waits_for_good() {
    let subject = objects::cancel::locked_counter_waking_one(true);
    let verdict = check(&subject, &three_incrs(), &Config::default()).unwrap();
    let violation = verdict
        .violation()
        .expect("the wake-up is lost with the dropped lock future");
    assert!(
        matches!(violation.kind, ViolationKind::StuckNotLinearizable { .. }),
        "{violation}"
    );
    assert_eq!(cancelled_ops(violation).len(), 1, "{violation}");
}

#[test]
fn the_lock_waking_one_passes_without_cancellation_and_waking_all_passes_with_it() {
    let one = check(
        &objects::cancel::locked_counter_waking_one(false),
        &three_incrs(),
        &Config::default(),
    )
    .unwrap();
    assert!(one.is_pass(), "{}", shown(&one));
    let all = check(&locked_counter(true), &three_incrs(), &Config::default()).unwrap();
    assert!(all.is_pass(), "{}", shown(&all));
}

/// Cancellable operations among the initial and final operations (the main thread's, without a
/// gate): phase 1 skips them too, and the cancel-safe semaphore still passes.
#[test]
fn cancellable_initial_and_final_operations() {
    let matrix = TestMatrix::new(vec![vec![0], vec![0]])
        .with_initial(vec![0])
        .with_final(vec![0]);
    let verdict = check(&semaphore(AcquireDrop::Withdraw, true), &matrix, &Config::default()).unwrap();
    assert!(verdict.is_pass(), "{}", shown(&verdict));
    let leaky = check(&semaphore(AcquireDrop::LeaveWaiter, true), &matrix, &Config::default()).unwrap();
    assert!(leaky.violation().is_some(), "{}", shown(&leaky));
}

//! `cancel`: cancellation safety (`Invocation::cancellable`). Each object of
//! `examples/objects/cancel.rs` checked with `check` at default settings (cancellable operations,
//! `Config::max_cancellations` 2), one line each:
//!
//! `{"bench":"cancel","object":..,"verdict":"PASS"|"FAIL","executions":..,"cancellation_points":..,"seconds":..}`
//!
//! `executions` counts both phases' executions (phase 1 includes the serial executions that skip
//! a cancellable operation), `cancellation_points` the points phase 2 offered (a choice between
//! dropping a pending future and polling on), `seconds` the whole check (a failing one's report,
//! shortest schedule included). Every verdict is compared with the expected one; a wrong one
//! ends the run with an error.
//!
//! Then the cost of cancellation on passing 2x2 async matrices: the same object and matrix checked
//! without cancellable invocations, and with them at `max_cancellations` 1, 2 (the default) and
//! 3, with the bound in the object's name.

use std::time::Instant;

use lineup::{check, Config, Subject, TestMatrix};

use crate::objects::cancel::{channel, locked_counter, locked_counter_waking_one, semaphore, AcquireDrop, RecvOrder};

/// One check's line; panics when the verdict is not `expected`.
fn line<O: Send + Sync + 'static>(
    name: &str,
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    expected: &str,
) {
    let start = Instant::now();
    let verdict = check(subject, matrix, config).unwrap_or_else(|e| panic!("{name}: {e}"));
    let seconds = start.elapsed().as_secs_f64();
    let shown = if verdict.is_pass() { "PASS" } else { "FAIL" };
    let stats = verdict.stats();
    println!(
        "{{\"bench\":\"cancel\",\"object\":{name:?},\"verdict\":\"{shown}\",\"executions\":{},\"cancellation_points\":{},\"seconds\":{seconds:.4}}}",
        stats.serial_executions + stats.concurrent_executions,
        stats.cancellation_points,
    );
    assert_eq!(shown, expected, "{name}: wrong verdict");
}

/// Every line.
pub(crate) fn run() {
    let config = Config::default();
    // recv, stats on one thread; send(1), send(2) on the other.
    let channel_matrix = TestMatrix::new(vec![vec![2, 3], vec![0, 1]]);
    let semaphore_matrix = TestMatrix::new(vec![vec![0], vec![0, 0]]);
    let counter_matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
    let lossy = "Channel (recv takes before its .await)";
    let leaky = "Semaphore (cancelled acquire leaves its waiter)";
    line(
        "Channel",
        &channel(RecvOrder::TakeLast, true),
        &channel_matrix,
        &config,
        "PASS",
    );
    line(
        lossy,
        &channel(RecvOrder::TakeFirst, true),
        &channel_matrix,
        &config,
        "FAIL",
    );
    line(
        "AsyncMutex counter",
        &locked_counter(true),
        &counter_matrix,
        &config,
        "PASS",
    );
    line(
        "Semaphore",
        &semaphore(AcquireDrop::Withdraw, true),
        &semaphore_matrix,
        &config,
        "PASS",
    );
    line(
        leaky,
        &semaphore(AcquireDrop::LeaveWaiter, true),
        &semaphore_matrix,
        &config,
        "FAIL",
    );
    let three_incrs = TestMatrix::new(vec![vec![0], vec![0], vec![0]]);
    let waking_one = "AsyncMutex counter (unlock wakes one waiter)";
    line(
        waking_one,
        &locked_counter_waking_one(true),
        &three_incrs,
        &config,
        "FAIL",
    );
    // The cost on passing 2x2 async matrices.
    let budgets = [None, Some(1), Some(2), Some(3)];
    for budget in budgets {
        let (name, config) = named("AsyncMutex counter 2x2", budget);
        line(
            &name,
            &locked_counter(budget.is_some()),
            &counter_matrix,
            &config,
            "PASS",
        );
    }
    for budget in budgets {
        let (name, config) = named("Channel 2x2", budget);
        let subject = channel(RecvOrder::TakeLast, budget.is_some());
        line(&name, &subject, &channel_matrix, &config, "PASS");
    }
}

/// The name of `object`'s line without cancellation (`None`) or with cancellable operations at
/// at most `budget` cancellations per execution, and its configuration.
fn named(object: &str, budget: Option<u32>) -> (String, Config) {
    match budget {
        None => (format!("{object}, no cancellation"), Config::default()),
        Some(points) => (
            format!("{object}, cancellable, max_cancellations {points}"),
            Config {
                max_cancellations: points,
                ..Config::default()
            },
        ),
    }
}

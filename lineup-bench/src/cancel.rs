//! `cancel`: cancellation safety (`Invocation::cancellable`). Each object of
//! `examples/objects/cancel.rs` checked with `check` at default settings (cancellable operations,
//! `Config::cancellation_points` 2), one line each:
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
//! without cancellable invocations, and with them at budgets 1, 2 (the default) and 4, with the
//! budget in the object's name.

use std::time::Instant;

use lineup::{check, Config, Subject, TestMatrix};

use crate::objects::cancel::{channel, locked_counter, semaphore, AcquireDrop, RecvOrder};

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
    let objects: [(&str, &dyn Fn(&Config)); 5] = [
        ("Channel", &|c| {
            line("Channel", &channel(RecvOrder::TakeLast, true), &channel_matrix, c, "PASS")
        }),
        ("Channel (recv takes before its .await)", &|c| {
            line(
                "Channel (recv takes before its .await)",
                &channel(RecvOrder::TakeFirst, true),
                &channel_matrix,
                c,
                "FAIL",
            )
        }),
        ("AsyncMutex counter", &|c| {
            line("AsyncMutex counter", &locked_counter(true), &counter_matrix, c, "PASS")
        }),
        ("Semaphore", &|c| {
            line("Semaphore", &semaphore(AcquireDrop::Withdraw, true), &semaphore_matrix, c, "PASS")
        }),
        ("Semaphore (cancelled acquire leaves its waiter)", &|c| {
            line(
                "Semaphore (cancelled acquire leaves its waiter)",
                &semaphore(AcquireDrop::LeaveWaiter, true),
                &semaphore_matrix,
                c,
                "FAIL",
            )
        }),
    ];
    for (_, run) in objects {
        run(&config);
    }
    // The cost on passing 2x2 async matrices.
    let costs: [(&str, &dyn Fn(bool, &Config, &str)); 2] = [
        ("AsyncMutex counter 2x2", &|on, c, name| {
            line(name, &locked_counter(on), &counter_matrix, c, "PASS")
        }),
        ("Channel 2x2", &|on, c, name| {
            line(name, &channel(RecvOrder::TakeLast, on), &channel_matrix, c, "PASS")
        }),
    ];
    for (object, run) in costs {
        run(false, &config, &format!("{object}, no cancellation"));
        for budget in [1, 2, 4] {
            let with_budget = Config {
                cancellation_points: budget,
                ..Config::default()
            };
            run(true, &with_budget, &format!("{object}, cancellable, cancellation_points {budget}"));
        }
    }
}

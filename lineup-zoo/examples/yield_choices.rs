//! Phase-2 executions and time of pb-dfs for `yield_choices` 0, 1 and 2, and 1 and 2 with
//! `yield_to_self` (the yielding thread an option too), on the objects that yield
//! (docs/yield-choices-measurements.md):
//! `cargo run --release -p lineup-zoo --example yield_choices [-- --skip-large]`.

#[path = "../../examples/objects/mod.rs"]
mod objects;

use std::time::Instant;

use lineup::{check, Config, Invocations, Subject, TestMatrix};
use lineup_zoo::sync_primitives::{
    ManualResetEvent, ManualResetEventPre, TaskCompletionSource, TaskCompletionSourceBeta, TaskCompletionSourcePre,
};
use objects::spin::{
    filter_lock_counter_for, spin_flag, spin_then_park_event, ticket_lock_counter, Levels, Registration,
};

/// A matrix given by invocation labels, one column per thread.
fn matrix<O>(subject: &Subject<O>, columns: &[&[&str]]) -> TestMatrix {
    let labels: Vec<String> = subject.labels().iter().map(ToString::to_string).collect();
    TestMatrix::new(
        columns
            .iter()
            .map(|column| {
                column
                    .iter()
                    .map(|name| {
                        labels
                            .iter()
                            .position(|l| l == name)
                            .unwrap_or_else(|| panic!("`{name}` is not one of {labels:?}"))
                    })
                    .collect()
            })
            .collect(),
    )
}

/// One table row per matrix: verdict, phase-2 executions and seconds for 0, 1 and 2 yield
/// choices, then 1 and 2 with `yield_to_self` (one worker, default preemption bound 2).
fn measure<O: Send + Sync + 'static>(subject: &Subject<O>, columns: &[&[&str]]) {
    let m = matrix(subject, columns);
    let rows = columns.iter().map(|c| c.len()).max().unwrap_or(0);
    let text: Vec<String> = columns.iter().map(|c| c.join(", ")).collect();
    let mut row = format!(
        "| {} | {}x{rows} `{}` |",
        subject.name(),
        columns.len(),
        text.join(" \\| ")
    );
    for (yield_choices, yield_to_self) in [(0, false), (1, false), (2, false), (1, true), (2, true)] {
        let config = Config {
            yield_choices,
            yield_to_self,
            workers: 1,
            ..Config::default()
        };
        let start = Instant::now();
        let verdict = check(subject, &m, &config).unwrap();
        let verdict_text = if verdict.is_pass() { "PASS" } else { "FAIL" };
        row += &format!(
            " {verdict_text} {} / {:.2}s |",
            verdict.stats().concurrent_executions,
            start.elapsed().as_secs_f64()
        );
    }
    println!("{row}");
}

fn zoo<O: Invocations + Default>(name: &str) -> Subject<O> {
    Subject::of(name, O::default)
}

fn main() {
    println!(
        "| object | matrix | yield_choices 0 | yield_choices 1 | yield_choices 2 | 1 + yield_to_self | 2 + yield_to_self |"
    );
    println!("|---|---|---|---|---|---|---|");
    let flag = spin_flag();
    measure(&flag, &[&["set()", "is_set()"], &["wait()", "is_set()"]]);
    measure(
        &flag,
        &[&["set()", "is_set()"], &["wait()", "is_set()"], &["wait()", "set()"]],
    );
    measure(
        &flag,
        &[
            &["set()", "is_set()", "wait()"],
            &["wait()", "is_set()", "set()"],
            &["wait()", "set()", "is_set()"],
        ],
    );
    for registration in [Registration::Blind, Registration::Recheck] {
        let event = spin_then_park_event(registration);
        measure(&event, &[&["wait()"], &["set()"]]);
        measure(&event, &[&["wait()", "set()"], &["set()", "wait()"]]);
    }
    let ticket = ticket_lock_counter();
    measure(&ticket, &[&["inc()", "get()"], &["inc()", "get()"]]);
    measure(&ticket, &[&["inc()", "get()"], &["inc()", "get()"], &["inc()"]]);
    for levels in [Levels::OneShort, Levels::NMinusOne] {
        let three = filter_lock_counter_for(3, levels);
        measure(&three, &[&["inc_a()"], &["inc_b()"], &["inc_c()"]]);
        measure(&three, &[&["inc_a()", "inc_a()"], &["inc_b()"], &["inc_c()"]]);
        // `--skip-large`: without the correct four-thread lock (minutes with two choices).
        if levels == Levels::OneShort || !std::env::args().any(|a| a == "--skip-large") {
            let four = filter_lock_counter_for(4, levels);
            measure(&four, &[&["inc_a()"], &["inc_b()"], &["inc_c()"], &["inc_d()"]]);
        }
    }
    let mre = zoo::<ManualResetEvent>("ManualResetEvent");
    let pre = zoo::<ManualResetEventPre>("ManualResetEvent(Pre)");
    measure(&mre, &[&["wait()", "is_set()"], &["set()", "reset()"]]);
    measure(&pre, &[&["wait()", "is_set()"], &["set()", "reset()"]]);
    measure(&mre, &[&["set()"], &["reset()"], &["wait()", "wait()"]]);
    measure(&pre, &[&["set()"], &["reset()"], &["wait()", "wait()"]]);
    measure(
        &mre,
        &[
            &["wait()", "try_wait()"],
            &["wait()", "is_set()"],
            &["set()", "reset()"],
        ],
    );
    measure(
        &mre,
        &[
            &["wait()", "try_wait()", "is_set()"],
            &["wait()", "is_set()", "wait()"],
            &["set()", "reset()", "set()"],
        ],
    );
    let tcs = zoo::<TaskCompletionSource>("TaskCompletionSource");
    let tcs_pre = zoo::<TaskCompletionSourcePre>("TaskCompletionSource(Pre)");
    let tcs_beta = zoo::<TaskCompletionSourceBeta>("TaskCompletionSource(Beta 2)");
    measure(&tcs, &[&["wait()", "try_set_exception()"], &["try_result()", "wait()"]]);
    measure(&tcs_beta, &[&["wait()"], &["try_set_result(1)"]]);
    measure(&tcs_pre, &[&["try_set_result(1)"], &["try_set_canceled()"]]);
    measure(
        &tcs,
        &[&["wait()"], &["try_set_result(1)"], &["try_set_canceled()", "wait()"]],
    );
    measure(
        &tcs_beta,
        &[&["wait()"], &["wait()"], &["try_set_result(1)", "try_result()"]],
    );
    measure(
        &tcs,
        &[
            &["wait()", "try_result()"],
            &["wait()", "try_set_canceled()"],
            &["try_set_result(1)", "try_result()"],
        ],
    );
}

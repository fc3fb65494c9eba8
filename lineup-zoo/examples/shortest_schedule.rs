//! The schedule a violation shows against the one phase 2 found, on failing zoo classes: the
//! preemptions and context switches of each, and the executions the search for the shorter one ran,
//! for `pb-dfs` (bound 2), random walks and PCT (docs/strategies.md, "The schedule shown"):
//! `cargo run --release -p lineup-zoo --example shortest_schedule`.

use std::time::Instant;

use lineup::{check, Config, Invocations, Strategy, Subject, TestMatrix};
use lineup_zoo::collections::{
    BlockingCollectionBeta2, BlockingCollectionPre, ConcurrentBagBeta2, ConcurrentBagPre, ConcurrentLinkedListPre,
    ConcurrentQueuePre,
};
use lineup_zoo::sync_primitives::{ManualResetEventPre, TaskCompletionSourceBeta, TaskCompletionSourcePre};

/// The matrix with these columns of invocation labels (`"enqueue(10)"`).
fn matrix<O>(subject: &Subject<O>, columns: &[&[&str]]) -> TestMatrix {
    let labels: Vec<String> = subject.labels().iter().map(ToString::to_string).collect();
    let index = |label: &str| {
        labels
            .iter()
            .position(|l| l == label)
            .unwrap_or_else(|| panic!("no invocation {label} in {labels:?}"))
    };
    TestMatrix::new(columns.iter().map(|c| c.iter().map(|l| index(l)).collect()).collect())
}

/// The strategies compared, with a name for the table.
fn strategies() -> Vec<(String, Strategy)> {
    let mut all = vec![("pb-dfs".to_string(), Strategy::PbDfs)];
    for seed in 1..=3 {
        all.push((
            format!("random seed {seed}"),
            Strategy::Random {
                executions: 2_000,
                seed,
            },
        ));
        all.push((
            format!("pct seed {seed}"),
            Strategy::Pct {
                depth: 3,
                executions: 2_000,
                seed,
            },
        ));
    }
    all
}

/// One line per strategy for class `O` on `columns`.
fn measure<O: Invocations + Default>(name: &str, columns: &[&[&str]]) {
    let subject = Subject::of(name, O::default);
    let matrix = matrix(&subject, columns);
    for (strategy_name, strategy) in strategies() {
        let config = Config {
            strategy,
            workers: 1,
            interlude: None,
            ..Config::default()
        };
        let start = Instant::now();
        let verdict = check(&subject, &matrix, &config).expect("the check runs");
        let elapsed = start.elapsed();
        let Some(violation) = verdict.violation() else {
            println!("| {name} | {strategy_name} | pass | | | | |");
            continue;
        };
        match &violation.schedule {
            Some(s) => println!(
                "| {name} | {strategy_name} | {} → {} | {} → {} | {} | {:.1} ms | `{}` |",
                s.preemptions_before(),
                s.preemptions_after(),
                s.found_cost.context_switches,
                s.shown_cost.context_switches,
                s.executions,
                elapsed.as_secs_f64() * 1e3,
                violation.replay
            ),
            None => println!("| {name} | {strategy_name} | (phase 1) | | | | |"),
        }
    }
}

fn main() {
    println!("| class | strategy | preemptions found → shown | context switches | search executions | check time | token shown |");
    println!("|---|---|---|---|---|---|---|");
    measure::<ConcurrentQueuePre>(
        "ConcurrentQueue(Pre)",
        &[&["enqueue(10)", "try_dequeue()"], &["enqueue(20)", "try_dequeue()"]],
    );
    measure::<ConcurrentLinkedListPre>(
        "ConcurrentLinkedList(Pre)",
        &[&["add_first(10)", "remove_last()"], &["add_last(20)", "count()"]],
    );
    measure::<BlockingCollectionPre>("BlockingCollection(Pre)", &[&["take()"], &["add(10)"]]);
    measure::<BlockingCollectionBeta2>("BlockingCollection(Beta2)", &[&["add(10)", "try_take()"], &["add(20)"]]);
    measure::<ConcurrentBagPre>(
        "ConcurrentBag(Pre)",
        &[&["add(10)", "try_take()"], &["add(20)", "count()"]],
    );
    measure::<ConcurrentBagBeta2>(
        "ConcurrentBag(Beta2)",
        &[&["add(10)", "try_take()"], &["add(20)", "count()"]],
    );
    measure::<ManualResetEventPre>("ManualResetEvent(Pre)", &[&["wait()"], &["set()", "reset()", "set()"]]);
    measure::<TaskCompletionSourcePre>(
        "TaskCompletionSource(Pre)",
        &[&["try_set_result(1)"], &["try_set_canceled()"]],
    );
    measure::<TaskCompletionSourceBeta>("TaskCompletionSource(Beta)", &[&["wait()"], &["try_set_result(1)"]]);
}

//! `strategies`: for every zoo class that fails (root causes A to L), how many phase-2 executions
//! and distinct histories each strategy explores before its first violation, and how long it
//! takes, on the smallest known failing matrix and on the 3x3 matrix it was shrunk from (DS2's HF
//! and TF columns). One line per class, matrix and strategy:
//! `{"bench":"first_bug","class":..,"strategy":..,"matrix":..,"executions":..,"histories":..,"ms":..,"found":..}`.
//! `pb-dfs+por` is pb-dfs with the partial-order reduction (`Config::reduction`).
//!
//! Before them, the `reduction` lines: one matrix explored exhaustively with the reduction off and
//! on, the executions (with it, the redundant ones it ended early included) and the distinct
//! histories of each, and whether every history found without it was found with it:
//! `{"bench":"reduction","matrix":..,"bound":..,"executions_plain":..,"executions_reduced":..,"histories_plain":..,"histories_reduced":..,"superset":..}`,
//! plus `ceiling` (`executions_plain / histories_plain`: no reduction that keeps every history can
//! do better) and the time of each: the 3x3 queue at bounds 2 and 3, the zoo's TreiberStack, and a
//! class with threads of its own (a queue behind two actors).

use lineup::{Config, Strategy, Subject};
use lineup_zoo::collections::TreiberStack;
use lineup_zoo::reduction::{compare_with, comparison_config, ReductionRow};
use lineup_zoo::{entries, first_bugs, Expected};

use crate::objects::actors::relay_queue;
use crate::objects::queues::blocking_queue;

/// The strategies compared, with the sampling ones' budgets, and whether each runs with the
/// partial-order reduction.
pub fn compared() -> Vec<(Strategy, bool)> {
    vec![
        (Strategy::PbDfs, false),
        (Strategy::PbDfs, true),
        (Strategy::DbDfs { delays: 2 }, false),
        (
            Strategy::Random {
                executions: 10_000,
                seed: 1,
            },
            false,
        ),
        (
            Strategy::Pct {
                depth: 3,
                executions: 10_000,
                seed: 1,
            },
            false,
        ),
    ]
}

/// The strategy's name in the lines, `+por` with the reduction.
fn name(strategy: Strategy, reduction: bool) -> String {
    if reduction {
        format!("{strategy}+por")
    } else {
        strategy.to_string()
    }
}

fn reduction_line(matrix: &str, row: &ReductionRow) {
    println!(
        "{{\"bench\":\"reduction\",\"matrix\":\"{matrix}\",\"notation\":\"{}\",\"bound\":{},\"executions_plain\":{},\
         \"executions_reduced\":{},\"histories_plain\":{},\"histories_reduced\":{},\"superset\":{},\"ratio\":{:.2},\
         \"ceiling\":{:.2},\"serial_plain\":{},\"serial_reduced\":{},\"ms_plain\":{:.1},\"ms_reduced\":{:.1},\"target_ratio\":3}}",
        row.notation,
        row.bound,
        row.executions_plain,
        row.executions_reduced,
        row.histories_plain,
        row.histories_reduced,
        row.sound(),
        row.executions_plain as f64 / row.executions_reduced.max(1) as f64,
        row.executions_plain as f64 / row.histories_plain.max(1) as f64,
        row.serial_plain,
        row.serial_reduced,
        row.elapsed_plain.as_secs_f64() * 1e3,
        row.elapsed_reduced.as_secs_f64() * 1e3,
    );
}

/// The settings of the `reduction` lines: the defaults at `bound`, one worker.
fn at(bound: u32) -> Config {
    Config {
        spin_bound: Config::default().spin_bound,
        ..comparison_config(bound)
    }
}

/// Prints the `reduction` lines.
pub fn reduction_lines() {
    let queue = blocking_queue();
    for bound in [2, 3] {
        let row = compare_with(&queue, &crate::queue_3x3(), &at(bound), None);
        reduction_line("3x3 queue", &row);
    }
    // The zoo's lock-free stack: CAS retry loops, whose loads commute.
    let stack = Subject::of("TreiberStack", TreiberStack::default);
    let n = stack.invocations().len();
    let stack_3x3 = lineup::sample_matrices(n, 3, 3, 1, 20261124).remove(0);
    for bound in [2, 3] {
        let row = compare_with(&stack, &stack_3x3, &at(bound), None);
        reduction_line("3x3 TreiberStack", &row);
    }
    // Classes with threads of their own (no zoo class has any): a queue behind two actor threads
    // (a front that relays `add`s to a store, which also serves `try_take`s), on
    // `lineup::sync::mpsc` channels; phase 1 interleaves the actors too.
    let relay = relay_queue();
    let relay_2x2 = lineup::TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    let row = compare_with(&relay, &relay_2x2, &at(2), None);
    reduction_line("2x2 RelayQueue (2 actor threads)", &row);
}

/// Prints the `reduction` and `first_bug` lines.
pub fn run() {
    reduction_lines();
    let strategies = compared();
    for entry in entries() {
        if matches!(entry.expected, Expected::Pass) {
            continue;
        }
        let causes = format!("{}{}{}", entry.bugs, entry.nondeterminism, entry.nonlinearizability);
        let Some(rows) = first_bugs(&entry, &strategies, 20261124, 200) else {
            println!(
                "{{\"bench\":\"first_bug\",\"class\":\"{} {}\",\"causes\":\"{causes}\",\"found\":false,\
                 \"note\":\"no failing 3x3 matrix among 200 sampled\"}}",
                entry.class, entry.version
            );
            continue;
        };
        for row in rows {
            println!(
                "{{\"bench\":\"first_bug\",\"class\":\"{} {}\",\"causes\":\"{causes}\",\"strategy\":\"{}\",\
                 \"matrix\":\"{} {}\",\"executions\":{},\"histories\":{},\"ms\":{:.1},\"found\":{},\"phase1\":{}}}",
                entry.class,
                entry.version,
                name(row.strategy, row.reduction),
                row.matrix,
                row.notation,
                row.executions,
                row.histories,
                row.elapsed.as_secs_f64() * 1e3,
                row.found,
                row.phase1
            );
        }
    }
}

//! `strategies`: for every zoo class that fails (root causes A to L), how many phase-2 executions
//! and distinct histories each strategy explores before its first violation, and how long it
//! takes, on the smallest known failing matrix and on the 3x3 matrix it was shrunk from (DS2's HF
//! and TF columns). One line per class, matrix and strategy:
//! `{"bench":"first_bug","class":..,"strategy":..,"matrix":..,"executions":..,"histories":..,"ms":..,"found":..}`.
//!
//! Partial-order reduction is not implemented yet: there are no `pb-dfs+reduction` lines and no
//! `reduction` lines.

use lineup::Strategy;
use lineup_zoo::{entries, first_bugs, Expected};

/// The strategies compared, with the sampling ones' budgets.
pub fn compared() -> Vec<Strategy> {
    vec![
        Strategy::PbDfs,
        Strategy::DbDfs { delays: 2 },
        Strategy::Random {
            executions: 10_000,
            seed: 1,
        },
        Strategy::Pct {
            depth: 3,
            executions: 10_000,
            seed: 1,
        },
    ]
}

/// Prints the `first_bug` lines.
pub fn run() {
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
                row.strategy,
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

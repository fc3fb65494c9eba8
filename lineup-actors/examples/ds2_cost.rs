//! Checks DS2's five systems (`src/ds2/`) on their harnesses and prints, per system and
//! harness, one JSON line: the verdict, phase 1's serial executions, serial histories and time,
//! and phase 2's executions, distinct histories and time.
//!
//! ```sh
//! cargo run --release -p lineup-actors --example ds2_cost                 # every system, 2R+1W
//! cargo run --release -p lineup-actors --example ds2_cost -- 2r2w dr px   # some systems, 2R+2W
//! ```
//!
//! Systems: `dr`, `edr`, `adr`, `oc`, `oc-fixed`, `px`; harnesses: `2r1w`, `2r2w`, or a matrix
//! of invocation labels, columns separated by `|` and a column's operations by `;` (for example
//! `'read(1) | write(1)'`: the smaller matrices on which phase 1's cost grows; a prefix
//! `'read(0) > ...'` adds initial operations, run by the main thread before the clients). `WORKERS=n`
//! sets `Config::workers` (default 0, one per core), `REDUCTION=on|off|auto` sets `Config::reduction`
//! (the partial-order reduction, default `auto`: on for these actors), `MAX_EXECUTIONS=n` bounds phase 2, `BOUND=b` sets the preemption bound, `STRATEGY=s`
//! the strategy (as `LINEUP_STRATEGY`). Stop a run
//! that takes too long with
//! `timeout`.

use lineup::{check, Config, Invocations, Subject, TestMatrix, Verdict};
use lineup_actors::ds2::another_register::AnotherDistributedRegister;
use lineup_actors::ds2::chord::OpenChord;
use lineup_actors::ds2::paxos::PaxosMap;
use lineup_actors::ds2::register::{DistributedRegister, ErroneousDistributedRegister};

fn run<O: Invocations>(name: &str, harness: &str, build: fn() -> O, matrix: TestMatrix, config: &Config) {
    let matrix = if harness.contains('(') {
        let (initial, harness) = match harness.split_once('>') {
            Some((initial, rest)) => (Some(initial), rest),
            None => (None, harness),
        };
        let columns: Vec<Vec<&str>> = harness
            .split('|')
            .map(|column| column.split(';').map(str::trim).collect())
            .collect();
        let columns: Vec<&[&str]> = columns.iter().map(Vec::as_slice).collect();
        let matrix = lineup_actors::ds2::matrix::<O>(&columns);
        match initial {
            Some(initial) => {
                let ops: Vec<&str> = initial.split(';').map(str::trim).collect();
                let initial = lineup_actors::ds2::matrix::<O>(&[&ops]).threads.remove(0);
                matrix.with_initial(initial)
            }
            None => matrix,
        }
    } else {
        matrix
    };
    let subject = Subject::of(name, build);
    let started = std::time::Instant::now();
    match check(&subject, &matrix, config) {
        Ok(verdict) => {
            let stats = verdict.stats();
            let outcome = match &verdict {
                Verdict::Pass(_) => "PASS".to_string(),
                Verdict::Fail(v) if v.kind.is_nondeterminism() => "FAIL (phase 1)".to_string(),
                Verdict::Fail(v) if v.kind.is_stuck() => "FAIL (stuck)".to_string(),
                Verdict::Fail(_) => "FAIL".to_string(),
            };
            println!(
                "{{\"system\":\"{name}\",\"harness\":\"{harness}\",\"verdict\":\"{outcome}\",\
                 \"serial_executions\":{},\"serial_histories\":{},\"phase1_ms\":{},\
                 \"concurrent_executions\":{},\"distinct_histories\":{},\"phase2_ms\":{},\"redundant_executions\":{},\"total_ms\":{}}}",
                stats.serial_executions,
                stats.serial_full + stats.serial_stuck,
                stats.phase1_time.as_millis(),
                stats.concurrent_executions,
                stats.distinct_histories,
                stats.phase2_time.as_millis(),
                stats.redundant_executions,
                started.elapsed().as_millis()
            );
            if std::env::var_os("REPORT").is_some() {
                if let Some(violation) = verdict.violation() {
                    println!("{violation}");
                }
            }
        }
        Err(e) => println!(
            "{{\"system\":\"{name}\",\"harness\":\"{harness}\",\"error\":{:?},\"total_ms\":{}}}",
            e.to_string(),
            started.elapsed().as_millis()
        ),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let custom = args.iter().find(|a| a.contains('('));
    let harness = match custom {
        Some(custom) => custom.as_str(),
        None if args.iter().any(|a| a == "2r2w") => "2r2w",
        None => "2r1w",
    };
    let mut systems: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with("2r") && !a.contains('('))
        .collect();
    if systems.is_empty() {
        systems = vec!["dr", "edr", "adr", "oc", "oc-fixed", "px"];
    }
    let workers = std::env::var("WORKERS").ok().and_then(|w| w.parse().ok()).unwrap_or(0);
    let reduction: lineup::Reduction = std::env::var("REDUCTION").map_or(lineup::Reduction::Auto, |r| {
        r.parse().unwrap_or_else(|e| panic!("REDUCTION={r:?}: {e}"))
    });
    let max_executions = std::env::var("MAX_EXECUTIONS").ok().and_then(|m| m.parse().ok());
    let preemption_bound = std::env::var("BOUND").ok().and_then(|b| b.parse().ok()).unwrap_or(2);
    let strategy = std::env::var("STRATEGY").map_or(lineup::Strategy::PbDfs, |s| s.parse().expect("a strategy"));
    let config = Config {
        strategy,
        workers,
        reduction,
        max_executions,
        preemption_bound,
        ..Config::default()
    };
    let wide = harness == "2r2w";
    for system in systems {
        match system {
            "dr" => {
                let m = if wide {
                    DistributedRegister::harness_2r2w()
                } else {
                    DistributedRegister::harness_2r1w()
                };
                run("DR", harness, DistributedRegister::new, m, &config)
            }
            "edr" => {
                let m = if wide {
                    ErroneousDistributedRegister::harness_2r2w()
                } else {
                    ErroneousDistributedRegister::harness_2r1w()
                };
                run("EDR", harness, ErroneousDistributedRegister::new, m, &config)
            }
            "adr" => {
                let m = if wide {
                    AnotherDistributedRegister::harness_2r2w()
                } else {
                    AnotherDistributedRegister::harness_2r1w()
                };
                run("ADR", harness, AnotherDistributedRegister::new, m, &config)
            }
            "oc" | "oc-fixed" => {
                let m = if wide {
                    OpenChord::harness_2r2w()
                } else {
                    OpenChord::harness_2r1w()
                };
                if system == "oc" {
                    run("OC", harness, OpenChord::new, m, &config)
                } else {
                    run("OC-fixed", harness, OpenChord::relaying_while_joining, m, &config)
                }
            }
            "px" => {
                let m = if wide {
                    PaxosMap::harness_2r2w()
                } else {
                    PaxosMap::harness_2r1w()
                };
                run("PX", harness, PaxosMap::new, m, &config)
            }
            other => panic!("unknown system `{other}`: dr, edr, adr, oc, oc-fixed, px"),
        }
    }
}

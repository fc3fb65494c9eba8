//! `actors`: DS2's table, ours. For each of DS2's five systems (`lineup-actors`'s `ds2`), each of
//! DS2's client harnesses (2 reads + 1 write, 2 reads + 2 writes) and each of phase 2's strategies
//! (pb-dfs with and without the partial-order reduction, db-dfs, random, PCT), a survey of phase 2
//! (every distinct history judged, not stopping at the first violation) within a budget of
//! executions, against the specification phase 1 synthesized (with the reduction; phase 1 is exact
//! either way, and without it a harness's phase 1 does not finish). One line each:
//! `{"bench":"actors","system":"EDR","harness":"2r1w","strategy":..,"schedules":..,"unique_histories":..,"nonlinearizable":..,"histories_to_first_bug":..,"ms_to_first_bug":..,"total_ms":..,"verdict":"FAIL"}`,
//! DS2's columns S, UH, NL, HF, TF and TT, and the schedules up to the first violating history;
//! times include phase 1 (`phase1_ms`, also printed). The first row of each harness is lineup's
//! default settings (pb-dfs with the reduction and the interlude), the others one strategy each.
//! `cargo run --release -p lineup-bench -- actors [BUDGET]` (default 50,000 executions per
//! strategy, DS2's smaller budget).

use std::time::Instant;

use lineup::{survey_against_spec, synthesize_spec, Config, Invocations, Strategy, Subject, TestMatrix};
use lineup_actors::ds2::another_register::AnotherDistributedRegister;
use lineup_actors::ds2::chord::OpenChord;
use lineup_actors::ds2::paxos::PaxosMap;
use lineup_actors::ds2::register::{DistributedRegister, ErroneousDistributedRegister};

/// The rows of each harness: lineup's default settings, then each strategy on its own (with or
/// without the reduction in phase 2, without the interlude).
fn strategies(budget: u64) -> Vec<(String, Config)> {
    let alone = |strategy: Strategy, reduction: bool| {
        let label = if reduction {
            format!("{strategy}+por")
        } else {
            strategy.to_string()
        };
        let config = Config {
            strategy,
            reduction: reduction.into(),
            interlude: None,
            ..Config::default()
        };
        (label, config)
    };
    vec![
        ("default".to_string(), Config::default()),
        alone(Strategy::PbDfs, true),
        alone(Strategy::PbDfs, false),
        alone(Strategy::DbDfs { delays: 2 }, false),
        alone(
            Strategy::Random {
                executions: budget,
                seed: 1,
            },
            false,
        ),
        alone(
            Strategy::Pct {
                depth: 3,
                executions: budget,
                seed: 1,
            },
            false,
        ),
    ]
}

fn system<O: Invocations>(name: &str, build: fn() -> O, harnesses: [(&str, TestMatrix); 2], budget: u64) {
    let subject = Subject::of(name, build);
    for (harness, matrix) in harnesses {
        let phase1 = Config {
            reduction: lineup::Reduction::On,
            workers: 1,
            ..Config::default()
        };
        let start = Instant::now();
        let synthesis = match synthesize_spec(&subject, &matrix, &phase1) {
            Ok(s) => s,
            Err(e) => {
                println!(
                    "{{\"bench\":\"actors\",\"system\":\"{name}\",\"harness\":\"{harness}\",\"error\":{}}}",
                    serde_json::to_string(&e.to_string()).unwrap_or_default()
                );
                continue;
            }
        };
        let phase1_ms = start.elapsed().as_secs_f64() * 1e3;
        for (label, config) in strategies(budget) {
            let config = Config {
                workers: 1,
                max_executions: Some(budget),
                ..config
            };
            let start = Instant::now();
            let found = survey_against_spec(&subject, &matrix, &synthesis.spec, &config);
            let phase2_ms = start.elapsed().as_secs_f64() * 1e3;
            match found {
                Ok(found) => {
                    let stats = found.verdict.stats();
                    let violating = found.histories.iter().filter(|h| h.violating).count();
                    let first = found.first_violation();
                    let (hf, sf, tf) = match first {
                        Some((i, h)) => (
                            (i + 1).to_string(),
                            h.executions.to_string(),
                            format!("{:.1}", phase1_ms + h.elapsed.as_secs_f64() * 1e3),
                        ),
                        None => ("null".into(), "null".into(), "null".into()),
                    };
                    println!(
                        "{{\"bench\":\"actors\",\"system\":\"{name}\",\"harness\":\"{harness}\",\"strategy\":\"{label}\",\
                         \"schedules\":{},\"unique_histories\":{},\"nonlinearizable\":{violating},\
                         \"histories_to_first_bug\":{hf},\"schedules_to_first_bug\":{sf},\"ms_to_first_bug\":{tf},\"total_ms\":{:.1},\"verdict\":\"{}\",\
                         \"phase1_ms\":{phase1_ms:.1},\"serial_executions\":{},\"serial_histories\":{},\"budget\":{budget}}}",
                        stats.concurrent_executions,
                        found.histories.len(),
                        phase1_ms + phase2_ms,
                        if found.verdict.is_pass() { "PASS" } else { "FAIL" },
                        synthesis.executions,
                        synthesis.spec.full_count() + synthesis.spec.stuck_count(),
                    );
                }
                Err(e) => println!(
                    "{{\"bench\":\"actors\",\"system\":\"{name}\",\"harness\":\"{harness}\",\"strategy\":\"{label}\",\"error\":{}}}",
                    serde_json::to_string(&e.to_string()).unwrap_or_default()
                ),
            }
        }
    }
}

/// Prints the `actors` lines.
pub fn run(budget: u64) {
    system(
        "DR",
        DistributedRegister::new,
        [
            ("2r1w", DistributedRegister::harness_2r1w()),
            ("2r2w", DistributedRegister::harness_2r2w()),
        ],
        budget,
    );
    system(
        "EDR",
        ErroneousDistributedRegister::new,
        [
            ("2r1w", ErroneousDistributedRegister::harness_2r1w()),
            ("2r2w", ErroneousDistributedRegister::harness_2r2w()),
        ],
        budget,
    );
    system(
        "ADR",
        AnotherDistributedRegister::new,
        [
            ("2r1w", AnotherDistributedRegister::harness_2r1w()),
            ("2r2w", AnotherDistributedRegister::harness_2r2w()),
        ],
        budget,
    );
    system(
        "OC",
        OpenChord::new,
        [("2r1w", OpenChord::harness_2r1w()), ("2r2w", OpenChord::harness_2r2w())],
        budget,
    );
    system(
        "PX",
        PaxosMap::new,
        [("2r1w", PaxosMap::harness_2r1w()), ("2r2w", PaxosMap::harness_2r2w())],
        budget,
    );
}

//! Benchmarks of lineup. Each prints one JSON object per line.
//!
//! `cargo run --release -p lineup-bench -- phases`, `... -- random`, `... -- workers`,
//! `... -- table2 [--samples K]`, `... -- depth [--stages]`, `... -- handles`, `... -- trace`
//! and `... -- loom [queue|counter1]`
//!
//! * `phase1_3x3`: phase 1 (every serial execution) of a non-blocking 3x3 queue matrix, median
//!   of several runs. Target: <= 20 ms.
//! * `phase2_vs_shuttle_dfs`: executions per second of lineup's phase 2 (scheduling, recording
//!   and checking every history) against shuttle's own `DfsScheduler` running the same test
//!   body without recording or checking, in the same process. Target: ratio >= 0.8.
//! * `randomcheck_100_3x3` (`random`): 100 random 3x3 matrices of the correct non-blocking queue
//!   (`add(200)`, `add(400)`, `try_take()`) at bound 2, with one worker and with two, in the same
//!   process. Target: speedup >= 1.8. `randomcheck_100_3x3_blocking` does the same with the
//!   blocking queue (with `take()`), whose stuck executions cost shuttle a fresh stack each.
//! * `one_matrix_workers` (`workers`): one matrix checked by one worker and by two, which split
//!   both phases' trees ([`one_matrix_workers`]). Target: speedup >= 1.7 on the passing matrix.
//! * `scaling [MAX_WORKERS]`: one expensive matrix and RandomCheck at 1, 2, 4, ... workers, with
//!   the speedup and the share of the one-worker time outside parallel sections ([`scaling`]).
//!   Targets: `serial_share` <= 0.05 for one matrix; on 16 cores, one matrix >= 10x and
//!   RandomCheck >= 14x.
//! * `native`: the same objects on `lineup::sync` and on shuttle's own primitives: phase 1 and
//!   the default check of each ([`native`]).
//! * `loom_vs_shuttle` (`loom`): the same 2x2 matrix checked on shuttle (here) and on loom (this
//!   command again under `--cfg loom`, in its own target directory): executions and time of each
//!   phase on each backend; see [`loom_vs_shuttle`]. The other subcommands run on shuttle only.
//! * `trace`: the report's "interleaving" section of each failing zoo class's violation: steps
//!   recorded and shown, preemptions, and the time the recording and rendering take ([`trace`]).
//! * `handles`: the objects on per-thread handles and operation groups, correct and buggy, at
//!   default `LineupTest` settings: the verdict and the seconds to the first failure ([`handles`]).
//! * `cancel`: cancellation safety, the cancellable async objects (a channel, a mutex, a
//!   semaphore, correct and not cancel-safe) and the cost of cancellation on passing 2x2 async
//!   matrices ([`cancel`]).
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

mod actors;
mod cancel;
mod depth;
mod handles;
mod histories;
mod loom_vs_shuttle;
mod native;
#[path = "../../examples/objects/mod.rs"]
mod objects;
mod one_matrix_workers;
mod scaling;
mod shapes;
mod spin;
mod strategies;
mod trace;

use std::time::{Duration, Instant};

use lineup::{check_against_spec, synthesize_spec, Config, TestMatrix};
use objects::queues::{blocking_queue, BlockingQueue, NonBlockingQueue};
use shuttle::scheduler::DfsScheduler;
use shuttle::sync::Arc;

/// A non-blocking 3x3 queue matrix: add(200), add(400), try_take() in every column, rotated.
pub(crate) fn queue_3x3() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 2, 1], vec![1, 0, 2], vec![2, 1, 0]])
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn phase1_3x3() {
    let subject = blocking_queue();
    let matrix = queue_3x3();
    // One worker: the figure is per core, as before `Config::workers`.
    let config = Config {
        workers: 1,
        ..Config::default()
    };
    let mut times = Vec::new();
    let mut histories = 0;
    let mut executions = 0;
    let runs: usize = std::env::var("LINEUP_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(21);
    for _ in 0..runs {
        let start = Instant::now();
        let synthesis = synthesize_spec(&subject, &matrix, &config).expect("phase 1");
        times.push(start.elapsed());
        histories = synthesis.spec.full_count() + synthesis.spec.stuck_count();
        executions = synthesis.executions;
        assert!(synthesis.nondeterminism.is_none());
    }
    let min = *times.iter().min().unwrap();
    let max = *times.iter().max().unwrap();
    println!(
        "{{\"bench\":\"phase1_3x3\", \"serial_histories\":{histories}, \"executions\":{executions}, \
         \"runs\":{}, \"median_ms\":{:.3}, \"min_ms\":{:.3}, \"max_ms\":{:.3}, \"target_ms\":20}}",
        times.len(),
        ms(median(times)),
        ms(min),
        ms(max)
    );
}

/// The same body as lineup's harness runs for `queue_3x3`, without gates, roles or recording.
fn plain_body() {
    let queue = Arc::new(BlockingQueue::default());
    let columns: [[u8; 3]; 3] = [[0, 2, 1], [1, 0, 2], [2, 1, 0]];
    let threads: Vec<_> = columns
        .into_iter()
        .map(|column| {
            let queue = Arc::clone(&queue);
            shuttle::thread::spawn(move || {
                for op in column {
                    let _ = std::hint::black_box(match op {
                        0 => {
                            queue.add(200);
                            None
                        }
                        1 => {
                            queue.add(400);
                            None
                        }
                        _ => queue.try_take(),
                    });
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

fn phase2_vs_shuttle_dfs() {
    let executions: u64 = std::env::var("LINEUP_BENCH_EXECUTIONS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20_000);
    let subject = blocking_queue();
    let matrix = queue_3x3();
    let spec = synthesize_spec(
        &subject,
        &matrix,
        &Config {
            workers: 1,
            ..Config::default()
        },
    )
    .expect("phase 1")
    .spec;
    // Without the reduction and the interlude, as shuttle's DFS explores.
    let config = Config {
        max_executions: Some(executions),
        workers: 1,
        reduction: lineup::Reduction::Off,
        interlude: None,
        ..Config::default()
    };
    let runs: usize = std::env::var("LINEUP_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    // Side by side: the time to exhaust the same tree (bound 2) without and with the reduction.
    let exhaust = |reduction: bool| {
        let config = Config {
            max_executions: None,
            reduction: reduction.into(),
            ..config.clone()
        };
        let mut best = f64::MAX;
        let mut executions = 0;
        for _ in 0..runs {
            let start = Instant::now();
            let verdict = check_against_spec(&subject, &matrix, &spec, &config).expect("phase 2");
            best = best.min(start.elapsed().as_secs_f64() * 1e3);
            assert!(verdict.is_pass());
            executions = verdict.stats().concurrent_executions;
        }
        (executions, best)
    };
    // For profiling one side alone: LINEUP_BENCH_ONLY=lineup or =shuttle, which also skips the
    // exhaustive runs (their figures print as 0).
    let only = std::env::var("LINEUP_BENCH_ONLY").unwrap_or_default();
    let ((exhaust_plain, exhaust_plain_ms), (exhaust_reduced, exhaust_reduced_ms)) = if only.is_empty() {
        (exhaust(false), exhaust(true))
    } else {
        ((0, 0.0), (0, 0.0))
    };
    let mut lineup_rates = Vec::new();
    let mut shuttle_rates = Vec::new();
    let mut lineup_executions = 0;
    let mut distinct = 0;
    let mut shuttle_executions = 0;
    // Interleave the two so that machine noise hits both alike.
    for _ in 0..runs {
        if only == "shuttle" {
            lineup_rates.push(1.0);
        } else {
            let start = Instant::now();
            let verdict = check_against_spec(&subject, &matrix, &spec, &config).expect("phase 2");
            let elapsed = start.elapsed();
            assert!(verdict.is_pass());
            lineup_executions = verdict.stats().concurrent_executions;
            distinct = verdict.stats().distinct_histories;
            lineup_rates.push(lineup_executions as f64 / elapsed.as_secs_f64());
        }
        if only == "lineup" {
            shuttle_rates.push(1.0);
            continue;
        }

        let start = Instant::now();
        let runner = shuttle::Runner::new(
            DfsScheduler::new(Some(executions as usize), false),
            shuttle::Config::new(),
        );
        shuttle_executions = runner.run(plain_body);
        shuttle_rates.push(shuttle_executions as f64 / start.elapsed().as_secs_f64());
    }
    let best = |rates: &[f64]| rates.iter().copied().fold(0.0, f64::max);
    let (a, b) = (best(&lineup_rates), best(&shuttle_rates));
    println!(
        "{{\"bench\":\"phase2_vs_shuttle_dfs\", \"matrix\":\"3x3 queue\", \"preemption_bound\":2, \
         \"lineup_executions\":{lineup_executions}, \"lineup_distinct_histories\":{distinct}, \
         \"shuttle_dfs_executions\":{shuttle_executions}, \"lineup_execs_per_s\":{a:.0}, \
         \"shuttle_dfs_execs_per_s\":{b:.0}, \"ratio\":{:.3}, \"target_ratio\":0.8, \"runs\":{runs}, \
         \"exhaust_executions_plain\":{exhaust_plain}, \"exhaust_ms_plain\":{exhaust_plain_ms:.1}, \
         \"exhaust_executions_reduced\":{exhaust_reduced}, \"exhaust_ms_reduced\":{exhaust_reduced_ms:.1}}}",
        a / b
    );
}

/// RandomCheck of 100 random 3x3 matrices of a correct queue at bound 2, with one worker and
/// with two, in the same process; the same seed, so the same matrices.
fn randomcheck_100_3x3<O: lineup::Invocations>(name: &str, build: fn() -> O) {
    let seed = 20261122;
    let run = |workers: usize| {
        let start = Instant::now();
        let summary = lineup::LineupTest::new(name)
            .threads(3)
            .ops(3)
            .samples(100)
            .shapes(lineup::Shapes::Exact)
            .seed(seed)
            .workers(workers)
            .time_budget(None) // the sample alone: the deepening would add the same time to both
            .check(build)
            .unwrap_or_else(|failure| panic!("{failure}"));
        (start.elapsed(), summary)
    };
    let (one, summary) = run(1);
    let (two, _) = run(2);
    println!(
        "{{\"bench\":\"{name}\", \"seed\":{seed}, \"matrices\":{}, \"executions\":{}, \
         \"preemption_bound\":2, \"workers_1_s\":{:.3}, \"workers_2_s\":{:.3}, \"speedup\":{:.2}, \
         \"target_speedup\":1.8}}",
        summary.matrices,
        summary.executions,
        one.as_secs_f64(),
        two.as_secs_f64(),
        one.as_secs_f64() / two.as_secs_f64()
    );
}

/// Table 2 of the paper, ours: RandomCheck of `samples` random 3x3 matrices per zoo class, with
/// the paper's columns, as Markdown on stdout and JSON in `target/table2.json`.
fn table2(samples: usize) {
    use lineup_zoo::{entries, run_entry, TableSettings};
    let settings = TableSettings {
        samples,
        threads: 3,
        ops: 3,
        seed: 20100605,
        workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let start = Instant::now();
    println!(
        "| Class | Version | Bugs | Nondet. | Nonlin. | Smallest failing test | Phase 1 #histories avg | max | \
         Phase 1 time avg [ms] | max [ms] | # pass | # fail | avg time pass [ms] | avg time fail [ms] | PB |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut json = Vec::new();
    for entry in entries() {
        let row = run_entry(&entry, &settings);
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let smallest = row
            .smallest_failing
            .map_or_else(String::new, |(t, o, kind)| format!("{t}x{o} ({kind})"));
        let opt = |d: Option<std::time::Duration>| d.map_or_else(String::new, |d| format!("{:.1}", ms(d)));
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.0} | {} | {:.1} | {:.1} | {} | {}{} | {} | {} | {} |",
            entry.class,
            entry.version,
            entry.bugs,
            entry.nondeterminism,
            entry.nonlinearizability,
            smallest,
            row.phase1_histories.0,
            row.phase1_histories.1,
            ms(row.phase1_time.0),
            ms(row.phase1_time.1),
            row.passed,
            row.failed,
            if row.errors > 0 {
                format!(" ({} errors)", row.errors)
            } else {
                String::new()
            },
            opt(row.time_pass),
            opt(row.time_fail),
            entry.preemption_bound
        );
        json.push(serde_json::json!({
            "class": entry.class,
            "version": entry.version,
            "bugs": entry.bugs,
            "nondeterminism": entry.nondeterminism,
            "nonlinearizability": entry.nonlinearizability,
            "expected": format!("{:?}", entry.expected),
            "smallest_failing": row.smallest_failing.map(|(t, o, kind)| serde_json::json!({"threads": t, "ops": o, "kind": kind})),
            "phase1_histories_avg": row.phase1_histories.0,
            "phase1_histories_max": row.phase1_histories.1,
            "phase1_ms_avg": ms(row.phase1_time.0),
            "phase1_ms_max": ms(row.phase1_time.1),
            "passed": row.passed,
            "failed": row.failed,
            "errors": row.errors,
            "avg_ms_pass": row.time_pass.map(ms),
            "avg_ms_fail": row.time_fail.map(ms),
            "preemption_bound": entry.preemption_bound,
            "row_s": row.elapsed.as_secs_f64(),
        }));
    }
    let doc = serde_json::json!({
        "samples": samples, "threads": 3, "ops": 3, "seed": settings.seed, "workers": settings.workers,
        "total_s": start.elapsed().as_secs_f64(), "rows": json,
    });
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/table2.json");
    let _ = std::fs::create_dir_all(path.parent().unwrap());
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).expect("write table2.json");
    eprintln!(
        "table2: {samples} samples per class in {:.1?}; JSON in {}",
        start.elapsed(),
        path.display()
    );
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "phases".to_string());
    match what.as_str() {
        "random" => {
            randomcheck_100_3x3("randomcheck_100_3x3", NonBlockingQueue::default);
            randomcheck_100_3x3("randomcheck_100_3x3_blocking", BlockingQueue::default);
        }
        "table2" => {
            let samples = match std::env::args().skip(2).collect::<Vec<_>>().as_slice() {
                [] => 100,
                [flag, k] if flag == "--samples" => k.parse().unwrap_or_else(|_| {
                    eprintln!("--samples takes a whole number, not `{k}`");
                    std::process::exit(2)
                }),
                other => {
                    eprintln!("usage: lineup-bench table2 [--samples K], not {other:?}");
                    std::process::exit(2)
                }
            };
            table2(samples);
        }
        "depth" => depth::run(&std::env::args().skip(2).collect::<Vec<_>>()),
        "handles" => handles::run(),
        "cancel" => cancel::run(),
        "histories" => histories::run(&std::env::args().skip(2).collect::<Vec<_>>()),
        "phase1" => phase1_3x3(),
        "workers" => one_matrix_workers::run(),
        "scaling" => scaling::run(std::env::args().nth(2).map(|n| {
            n.parse().unwrap_or_else(|_| {
                eprintln!("usage: lineup-bench scaling [MAX_WORKERS], not `{n}`");
                std::process::exit(2)
            })
        })),
        "strategies" => strategies::run(),
        "trace" => trace::run(),
        "actors" => actors::run(std::env::args().nth(2).and_then(|n| n.parse().ok()).unwrap_or(50_000)),
        "shapes" => shapes::run(std::env::args().nth(2).and_then(|n| n.parse().ok()).unwrap_or(20)),
        "phase2" => phase2_vs_shuttle_dfs(),
        "spin" => spin::run(),
        "native" => native::run(),
        "native-part" => {
            let args: Vec<String> = std::env::args().skip(2).collect();
            match args.as_slice() {
                [part, i] if i.parse::<usize>().is_ok() => native::child(part, i.parse().unwrap_or(0)),
                _ => std::process::exit(2),
            }
        }
        "phases" => {
            phase1_3x3();
            phase2_vs_shuttle_dfs();
        }
        "loom" => {
            if let Err(e) = loom_vs_shuttle::run(&std::env::args().skip(2).collect::<Vec<_>>()) {
                eprintln!("lineup-bench loom: {e}");
                std::process::exit(1);
            }
        }
        other => {
            eprintln!(
                "unknown benchmark `{other}`; available: phases, random, depth [--stages], handles, workers, scaling [MAX_WORKERS], strategies, actors [BUDGET], shapes [K], \
                 table2 [--samples K], phase1, phase2, spin, native, trace, loom [queue|counter1]"
            );
            std::process::exit(2);
        }
    }
}

//! `loom_vs_shuttle`: the same 2x2 matrix checked by lineup on its shuttle backend and on its loom
//! backend, with the executions and the time of each phase on each.
//!
//! `cargo run --release -p lineup-bench -- loom [queue|counter1]` (a normal build):
//!
//! 1. checks each part's matrix on shuttle, in this process, `LINEUP_BENCH_RUNS` times (default
//!    11), and takes the median time of each phase;
//! 2. runs the loom side: `cargo run --release -p lineup-bench -- loom [part]` again, with
//!    `--cfg loom` appended to `RUSTFLAGS` and its own target directory
//!    ([`LOOM_TARGET_DIR_ENV`], default `<workspace>/target/loom`, the one CI uses for loom),
//!    and reads the `loom_vs_shuttle_loom_side` line of each part from its stdout;
//! 3. prints one line per part with both sides, and fails if the verdicts differ.
//!
//! Built with `RUSTFLAGS="--cfg loom"`, the same subcommand measures the loom side only and prints
//! `loom_vs_shuttle_loom_side` lines. Each part runs in its own process there: lineup's loom
//! backend re-runs this executable with the same arguments for every loom job, and the re-run
//! process would run the checks of every part that comes before the one it serves.
//!
//! The parts:
//!
//! * `queue` (`loom_vs_shuttle`): the non-blocking queue (`add(200)`, `add(400)`, `try_take()`,
//!   never stuck: loom cannot explore past a deadlock) on `[[add(200), try_take()], [add(400),
//!   try_take()]]`. It passes; phase 2 explores the whole tree at the default preemption bound.
//! * `counter1` (`loom_vs_shuttle_first_violation`): the paper's Counter1 (a lost update) on
//!   `[[inc(), get()], [inc(), get()]]`. It fails; phase 2's executions are those up to and
//!   including the first violating one.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lineup::{check, Config, Subject, TestMatrix, Verdict, ViolationKind};
use serde_json::{json, Value};

use crate::objects::counters::counter1;
use crate::objects::queues::NonBlockingQueue;

/// Overrides the target directory of the loom side (default `<workspace>/target/loom`).
pub const LOOM_TARGET_DIR_ENV: &str = "LINEUP_BENCH_LOOM_TARGET_DIR";

/// The `bench` of the lines the loom side prints for the normal build to read.
const LOOM_SIDE_BENCH: &str = "loom_vs_shuttle_loom_side";

/// One matrix of the benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Queue,
    Counter1,
}

impl Part {
    const ALL: [Part; 2] = [Part::Queue, Part::Counter1];

    fn name(self) -> &'static str {
        match self {
            Part::Queue => "queue",
            Part::Counter1 => "counter1",
        }
    }

    /// The `bench` of the combined line.
    fn bench(self) -> &'static str {
        match self {
            Part::Queue => "loom_vs_shuttle",
            Part::Counter1 => "loom_vs_shuttle_first_violation",
        }
    }

    /// Checks the part's matrix `runs` times on the backend this binary is built for.
    fn measure(self, runs: usize) -> Result<Measured, String> {
        match self {
            Part::Queue => measure(
                &Subject::of("NonBlockingQueue", NonBlockingQueue::default),
                &TestMatrix::new(vec![vec![0, 2], vec![1, 2]]),
                runs,
            ),
            Part::Counter1 => measure(&counter1(), &TestMatrix::new(vec![vec![0, 1], vec![0, 1]]), runs),
        }
    }
}

/// The parts named on the command line (after `loom`): one, or all of them.
fn parse_parts(args: &[String]) -> Result<Vec<Part>, String> {
    match args {
        [] => Ok(Part::ALL.to_vec()),
        [name] => Part::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .map(|p| vec![p])
            .ok_or_else(|| format!("unknown part `{name}`; usage: lineup-bench loom [queue|counter1]")),
        other => Err(format!("usage: lineup-bench loom [queue|counter1], not {other:?}")),
    }
}

/// The checks of one part on one backend.
struct Measured {
    /// The object and the matrix, with invocation labels.
    matrix: String,
    preemption_bound: u32,
    verdict: &'static str,
    /// Executions, histories, verdict and times of each phase, as JSON.
    side: Value,
}

fn backend() -> &'static str {
    if cfg!(loom) {
        "loom"
    } else {
        "shuttle"
    }
}

fn verdict_name(verdict: &Verdict) -> &'static str {
    match verdict.violation().map(|v| &v.kind) {
        None => "pass",
        Some(ViolationKind::NotLinearizable { .. }) => "fail_full",
        Some(ViolationKind::StuckNotLinearizable { .. }) => "fail_stuck",
        Some(ViolationKind::Nondeterministic(_)) => "fail_nondeterministic",
    }
}

fn runs() -> Result<usize, String> {
    match std::env::var("LINEUP_BENCH_RUNS") {
        Err(_) => Ok(11),
        Ok(text) => match text.parse() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("LINEUP_BENCH_RUNS must be a whole number > 0, not `{text}`")),
        },
    }
}

/// Milliseconds, rounded to microseconds.
fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

fn median_min(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    (ms(samples[samples.len() / 2]), ms(samples[0]))
}

/// Everything about one check that must not change from run to run.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Counts {
    verdict: &'static str,
    serial_executions: u64,
    serial_histories: usize,
    concurrent_executions: u64,
    distinct_histories: usize,
    stuck_histories: usize,
    weak_memory: bool,
}

fn measure<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    runs: usize,
) -> Result<Measured, String> {
    let labels = subject.labels();
    let threads: Vec<String> = matrix
        .threads
        .iter()
        .map(|ops| {
            let ops: Vec<String> = ops.iter().map(|&i| labels[i].to_string()).collect();
            format!("[{}]", ops.join(", "))
        })
        .collect();
    let described = format!("{} [{}]", subject.name(), threads.join(", "));
    let config = Config::default();
    let mut counts: Option<Counts> = None;
    let (mut phase1, mut phase2, mut total) = (Vec::new(), Vec::new(), Vec::new());
    for run in 1..=runs {
        let start = Instant::now();
        let verdict = check(subject, matrix, &config)
            .map_err(|e| format!("{described} on {}: the check did not run (run {run}): {e}", backend()))?;
        total.push(start.elapsed());
        let loom = verdict.violation().and_then(|v| v.loom.as_ref());
        // The stored loom path of a violation is kept for a replay; the benchmark needs none.
        if let Some(path) = loom.and_then(|l| l.checkpoint.as_ref()) {
            let _ = std::fs::remove_file(path);
        }
        let s = verdict.stats();
        let these = Counts {
            verdict: verdict_name(&verdict),
            serial_executions: s.serial_executions,
            serial_histories: s.serial_full + s.serial_stuck,
            concurrent_executions: s.concurrent_executions,
            distinct_histories: s.distinct_histories,
            stuck_histories: s.stuck_histories,
            weak_memory: loom.is_some_and(|l| l.is_weak_memory()),
        };
        match &counts {
            None => counts = Some(these),
            Some(first) if *first != these => {
                return Err(format!(
                    "{described} on {}: run {run} gave {these:?}, run 1 gave {first:?}; both backends explore \
                     deterministically, so the figures cannot be compared",
                    backend()
                ))
            }
            Some(_) => {}
        }
        phase1.push(s.phase1_time);
        phase2.push(s.phase2_time);
    }
    let c = counts.expect("at least one run");
    let (p1_median, p1_min) = median_min(phase1);
    let (p2_median, p2_min) = median_min(phase2);
    let (check_median, check_min) = median_min(total);
    Ok(Measured {
        matrix: described,
        preemption_bound: config.preemption_bound,
        verdict: c.verdict,
        side: json!({
            "verdict": c.verdict,
            "weak_memory": c.weak_memory,
            "phase1": {
                "executions": c.serial_executions,
                "serial_histories": c.serial_histories,
                "median_ms": p1_median,
                "min_ms": p1_min,
            },
            "phase2": {
                "executions": c.concurrent_executions,
                "distinct_histories": c.distinct_histories,
                "stuck_histories": c.stuck_histories,
                "median_ms": p2_median,
                "min_ms": p2_min,
            },
            "check": { "median_ms": check_median, "min_ms": check_min },
        }),
    })
}

/// `lineup-bench loom [queue|counter1]`: both sides in a normal build, the loom side under
/// `--cfg loom` (see the module).
pub fn run(args: &[String]) -> Result<(), String> {
    let parts = parse_parts(args)?;
    let runs = runs()?;
    // Either would make a check replay one schedule instead of exploring.
    for replay in [lineup::REPLAY_ENV, "LOOM_CHECKPOINT_FILE"] {
        if std::env::var_os(replay).is_some() {
            return Err(format!(
                "{replay} is set: the benchmark explores, it does not replay; unset it"
            ));
        }
    }
    if cfg!(loom) {
        loom_side(&parts, args, runs)
    } else {
        both_sides(&parts, args, runs)
    }
}

/// Under `--cfg loom`: prints the loom side of each part, each part in its own process.
fn loom_side(parts: &[Part], args: &[String], runs: usize) -> Result<(), String> {
    if let [part] = parts {
        // Nothing may be printed before the checks: a loom child re-runs this process up to them.
        let m = part.measure(runs)?;
        println!(
            "{{\"bench\":\"{LOOM_SIDE_BENCH}\", \"part\":\"{}\", \"matrix\":{}, \"preemption_bound\":{}, \
             \"runs\":{runs}, \"loom\":{}}}",
            part.name(),
            Value::from(m.matrix),
            m.preemption_bound,
            m.side
        );
        return Ok(());
    }
    debug_assert!(args.is_empty());
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    for part in parts {
        let status = Command::new(&exe)
            .args(["loom", part.name()])
            .status()
            .map_err(|e| format!("cannot run `{} loom {}`: {e}", exe.display(), part.name()))?;
        if !status.success() {
            return Err(format!("`{} loom {}` failed ({status})", exe.display(), part.name()));
        }
    }
    Ok(())
}

/// The workspace root (lineup-bench's parent directory).
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("lineup-bench lies inside the workspace")
        .to_path_buf()
}

/// The loom side's `RUSTFLAGS` or `CARGO_ENCODED_RUSTFLAGS` (which cargo prefers if set): the
/// current ones with `--cfg loom` appended, unless they have it already.
fn loom_rustflags() -> (&'static str, String) {
    if let Ok(encoded) = std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        let flags: Vec<&str> = encoded.split('\x1f').filter(|f| !f.is_empty()).collect();
        if flags.windows(2).any(|w| w == ["--cfg", "loom"]) || flags.contains(&"--cfg=loom") {
            return ("CARGO_ENCODED_RUSTFLAGS", encoded);
        }
        return (
            "CARGO_ENCODED_RUSTFLAGS",
            [&flags[..], &["--cfg", "loom"]].concat().join("\x1f"),
        );
    }
    let flags = std::env::var("RUSTFLAGS").unwrap_or_default();
    let words: Vec<&str> = flags.split_whitespace().collect();
    if words.windows(2).any(|w| w == ["--cfg", "loom"]) || words.contains(&"--cfg=loom") {
        return ("RUSTFLAGS", flags);
    }
    ("RUSTFLAGS", [&words[..], &["--cfg", "loom"]].concat().join(" "))
}

/// In a normal build: the shuttle side here, the loom side by `cargo run` under `--cfg loom`.
fn both_sides(parts: &[Part], args: &[String], runs: usize) -> Result<(), String> {
    let mut shuttle = Vec::new();
    for &part in parts {
        shuttle.push((part, part.measure(runs)?));
    }

    let target_dir = std::env::var_os(LOOM_TARGET_DIR_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target").join("loom"));
    let (flags_var, flags) = loom_rustflags();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cargo_args = vec!["run", "--release", "-p", "lineup-bench", "--", "loom"];
    cargo_args.extend(args.iter().map(String::as_str));
    let shown = format!(
        "{flags_var}=\"{}\" CARGO_TARGET_DIR={} cargo {}",
        flags.replace('\x1f', " "),
        target_dir.display(),
        cargo_args.join(" ")
    );
    eprintln!(
        "lineup-bench loom: shuttle side done; now the loom side: `{shown}` (in {}). The first build under \
         --cfg loom takes several minutes.",
        workspace().display()
    );
    let start = Instant::now();
    let output = Command::new(&cargo)
        .args(&cargo_args)
        .current_dir(workspace())
        .env(flags_var, &flags)
        .env("CARGO_TARGET_DIR", &target_dir)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start `{shown}`: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "the loom side failed: `{shown}` exited with {}; its stdout:\n{stdout}",
            output.status
        ));
    }
    eprintln!(
        "lineup-bench loom: the loom side took {:.1} s (its build included)",
        start.elapsed().as_secs_f64()
    );

    let mut disagree = Vec::new();
    for (part, shuttle) in shuttle {
        let line = stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["bench"] == LOOM_SIDE_BENCH && v["part"] == part.name())
            .ok_or_else(|| {
                format!(
                    "`{shown}` printed no `{LOOM_SIDE_BENCH}` line for part `{}`; its stdout:\n{stdout}",
                    part.name()
                )
            })?;
        if line["matrix"] != shuttle.matrix.as_str() || line["runs"] != runs {
            return Err(format!(
                "the loom side checked {} ({} runs), this side {} ({runs} runs): is {} built from other sources?",
                line["matrix"],
                line["runs"],
                shuttle.matrix,
                target_dir.display()
            ));
        }
        let loom = &line["loom"];
        let agree = loom["verdict"] == shuttle.verdict;
        let ratio = |a: &Value, b: &Value| match (a.as_f64(), b.as_f64()) {
            (Some(a), Some(b)) if b > 0.0 => Value::from((a / b * 100.0).round() / 100.0),
            _ => Value::Null,
        };
        println!(
            "{{\"bench\":\"{}\", \"matrix\":{}, \"preemption_bound\":{}, \"runs\":{runs}, \"shuttle\":{}, \
             \"loom\":{}, \"verdicts_agree\":{agree}, \"check_median_loom_over_shuttle\":{}}}",
            part.bench(),
            Value::from(shuttle.matrix.as_str()),
            shuttle.preemption_bound,
            shuttle.side,
            loom,
            ratio(&loom["check"]["median_ms"], &shuttle.side["check"]["median_ms"]),
        );
        if !agree {
            disagree.push(format!(
                "{}: shuttle says {}, loom says {}",
                shuttle.matrix, shuttle.verdict, loom["verdict"]
            ));
        }
    }
    if disagree.is_empty() {
        Ok(())
    } else {
        Err(format!("the backends disagree: {}", disagree.join("; ")))
    }
}

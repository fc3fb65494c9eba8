//! `depth`: the deep-bug objects of `examples/objects/deep.rs` and their correct twins at
//! default settings (a fresh `LineupTest` per object, a fixed printed seed, two workers):
//!
//! * `{"bench":"depth","object":..,"kind":..,"verdict":"FAIL","seconds_to_first_failure":..,"stage":..,"matrix":..}`
//!   for each buggy object (the time until the failing matrix was found; `seconds_with_shrinking`
//!   adds the shrinking the test does before it returns), and
//! * `{"bench":"depth","object":..,"verdict":"PASS","seconds":..,"covered":".."}` for each twin
//!   (`covered` is the PASS line).
//!
//! `depth --stages` measures each deepening stage alone after the sample on each bug: the time
//! to find it (`null` when the stage did not within `LINEUP_BENCH_STAGE_BUDGET`, default 20 s),
//! one `depth_stage` line each, then one `depth_stage_rate` line per stage (bugs found per second
//! of stage time, a miss counted at a stage's equal share of the default budget, what it costs a
//! default run) and `depth_order`, the stages by that rate
//! (AutoCheck, which never ends, last): the order `Stage::DEFAULT_ORDER` is set to. A bug that the
//! sample finds, or that deepening the sample's small matrices at once finds during the sample
//! (whatever the order of the stages after it), is said so and charged to no stage.

use std::time::{Duration, Instant};

use lineup::{LineupTest, MatrixOrigin, Stage, Subject, TestFailure};

use crate::objects::deep;

/// The seed of every run.
const SEED: u64 = 1;

/// Runs `subject` with `test`'s settings; `Ok(PASS line)` or `Err((stage, matrix, seconds
/// spent shrinking))`.
fn outcome<O: Send + Sync + 'static>(test: LineupTest, subject: &Subject<O>) -> Result<String, (String, String, f64)> {
    match test.check_subject(subject) {
        Ok(summary) => Ok(summary.to_string()),
        Err(TestFailure::Violation {
            original,
            origin,
            shrink_ms,
            ..
        }) => {
            let stage = match origin {
                MatrixOrigin::Deepening { stage, .. } => stage,
                other => other.to_string(),
            };
            Err((
                stage,
                original.matrix.display(&original.labels).to_string(),
                shrink_ms as f64 / 1000.0,
            ))
        }
        Err(other) => panic!("{}: {other}", subject.name()),
    }
}

/// A fresh default test of `subject`.
fn default_test<O>(subject: &Subject<O>) -> LineupTest {
    LineupTest::new(&format!("depth::{}", subject.name()))
        .seed(SEED)
        .workers(2)
}

/// One buggy object at default settings.
fn buggy<O: Send + Sync + 'static>(kind: &str, subject: Subject<O>) {
    let start = Instant::now();
    let result = outcome(default_test(&subject), &subject);
    let seconds = start.elapsed().as_secs_f64();
    match result {
        Err((stage, matrix, shrinking)) => println!(
            "{{\"bench\":\"depth\",\"object\":{:?},\"kind\":{kind:?},\"verdict\":\"FAIL\",\"seconds_to_first_failure\":{:.2},\
             \"stage\":{stage:?},\"matrix\":{:?},\"seconds_with_shrinking\":{seconds:.2},\"seed\":{SEED}}}",
            subject.name(),
            seconds - shrinking,
            matrix.trim().replace('\n', " / ")
        ),
        Ok(line) => println!(
            "{{\"bench\":\"depth\",\"object\":{:?},\"kind\":{kind:?},\"verdict\":\"PASS\",\"missed\":true,\"seconds\":{seconds:.2},\
             \"covered\":{line:?},\"seed\":{SEED}}}",
            subject.name()
        ),
    }
}

/// One correct twin at default settings.
fn twin<O: Send + Sync + 'static>(subject: Subject<O>) {
    let start = Instant::now();
    let result = outcome(default_test(&subject), &subject);
    let seconds = start.elapsed().as_secs_f64();
    match result {
        Ok(line) => println!(
            "{{\"bench\":\"depth\",\"object\":{:?},\"verdict\":\"PASS\",\"seconds\":{seconds:.2},\"covered\":{line:?},\"seed\":{SEED}}}",
            subject.name()
        ),
        Err((stage, matrix, _)) => panic!("the correct {} failed in {stage} on {matrix}", subject.name()),
    }
}

/// Seconds `stage` alone (after the sample, which takes `sample` seconds) takes to find the bug
/// of `subject` within `budget`, or `None`.
fn stage_alone<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    stage: Stage,
    budget: Duration,
    sample: f64,
) -> Option<f64> {
    let start = Instant::now();
    // The time budget covers the sample too.
    let test = default_test(subject)
        .stages(&[stage])
        .time_budget(budget + Duration::from_secs_f64(sample));
    let found = outcome(test, subject).is_err();
    found.then(|| (start.elapsed().as_secs_f64() - sample).max(0.0))
}

/// Seconds the sample alone takes on `subject`, or `Err(seconds)` when the sample finds the bug
/// itself (on its 3-thread matrices, some spin bugs are not deep).
fn sample_alone<O: Send + Sync + 'static>(subject: &Subject<O>) -> Result<f64, f64> {
    let start = Instant::now();
    let passed = outcome(default_test(subject).time_budget(None), subject).is_ok();
    let seconds = start.elapsed().as_secs_f64();
    if passed {
        Ok(seconds)
    } else {
        Err(seconds)
    }
}

/// The stage name of the failure when deepening the sample's small matrices at once (which a
/// default run does during its sample, whatever the order of the stages after it) finds the bug:
/// such a bug is charged to no stage.
fn found_at_once<O: Send + Sync + 'static>(subject: &Subject<O>, sample: f64) -> Option<String> {
    let test = default_test(subject)
        .stages(&[Stage::IterativeDeepening])
        .time_budget(Duration::from_secs_f64(sample * 1.5 + 1.0));
    match outcome(test, subject) {
        Err((stage, _, _)) if stage.contains("at once") => Some(stage),
        _ => None,
    }
}

/// Each stage alone on one bug: a `depth_stage` line each; the seconds to find it per stage, or
/// `None` when the sample alone finds it (a `depth_stage` line says so, and no stage is charged).
fn stages_on<O: Send + Sync + 'static>(kind: &str, subject: Subject<O>, budget: Duration) -> Option<Vec<Option<f64>>> {
    let sample = match sample_alone(&subject) {
        Ok(seconds) => seconds,
        Err(seconds) => {
            println!(
                "{{\"bench\":\"depth_stage\",\"object\":{:?},\"kind\":{kind:?},\"found_by_the_sample\":true,\"sample_seconds\":{seconds:.2}}}",
                subject.name()
            );
            return None;
        }
    };
    if let Some(stage) = found_at_once(&subject, sample) {
        println!(
            "{{\"bench\":\"depth_stage\",\"object\":{:?},\"kind\":{kind:?},\"found_at_once\":{stage:?},\"sample_seconds\":{sample:.2}}}",
            subject.name()
        );
        return None;
    }
    let found = Stage::DEFAULT_ORDER
        .iter()
        .map(|&stage| {
            let found = stage_alone(&subject, stage, budget, sample);
            let seconds = found.map_or("null".to_string(), |s| format!("{s:.2}"));
            println!(
                "{{\"bench\":\"depth_stage\",\"object\":{:?},\"kind\":{kind:?},\"stage\":\"{stage}\",\
                 \"seconds_after_sample\":{seconds},\"sample_seconds\":{sample:.2},\"budget_s\":{}}}",
                subject.name(),
                budget.as_secs()
            );
            found
        })
        .collect();
    Some(found)
}

/// `depth --stages`: the rate of each stage and the order they give.
fn stages(budget: Duration) {
    let per_bug = [
        stages_on("a third preemption", deep::third_preemption(), budget),
        stages_on("a fourth thread", deep::fourth_thread(), budget),
        stages_on("a fourth operation on one thread", deep::fourth_operation(), budget),
        stages_on("only sampling reaches it", deep::sampling_only(), budget),
        stages_on(
            "a thread that runs again right after its own yield",
            deep::yield_to_self(),
            budget,
        ),
        stages_on(
            "several non-default choices at yields in one execution",
            deep::several_yield_choices(),
            budget,
        ),
    ];
    let per_bug: Vec<Vec<Option<f64>>> = per_bug.into_iter().flatten().collect();
    let mut rates: Vec<(Stage, f64)> = Stage::DEFAULT_ORDER
        .iter()
        .enumerate()
        .map(|(i, &stage)| {
            let found = per_bug.iter().filter(|b| b[i].is_some()).count();
            // A stage that misses a bug costs its share of a default run's budget.
            let share = lineup::DEFAULT_TIME_BUDGET.as_secs_f64() / Stage::DEFAULT_ORDER.len() as f64;
            let seconds: f64 = per_bug.iter().map(|b| b[i].unwrap_or(share)).sum();
            let rate = found as f64 / seconds.max(0.01);
            println!(
                "{{\"bench\":\"depth_stage_rate\",\"stage\":\"{stage}\",\"bugs_found\":{found},\"of\":{},\"stage_seconds\":{seconds:.2},\
                 \"bugs_per_second\":{rate:.3}}}",
                per_bug.len()
            );
            (stage, rate)
        })
        .collect();
    rates.sort_by(|a, b| {
        (a.0 == Stage::AutoCheck)
            .cmp(&(b.0 == Stage::AutoCheck))
            .then(b.1.total_cmp(&a.1))
    });
    let order: Vec<String> = rates.iter().map(|(s, _)| format!("\"{s}\"")).collect();
    println!("{{\"bench\":\"depth_order\",\"order\":[{}]}}", order.join(","));
}

/// `depth [--stages]`.
pub(crate) fn run(args: &[String]) {
    eprintln!("depth: seed {SEED}, 2 workers, default settings otherwise");
    if args.first().map(String::as_str) == Some("--stages") {
        let budget = std::env::var("LINEUP_BENCH_STAGE_BUDGET")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(20);
        stages(Duration::from_secs(budget));
        return;
    }
    buggy("a third preemption", deep::third_preemption());
    buggy("a fourth thread", deep::fourth_thread());
    buggy("a fourth operation on one thread", deep::fourth_operation());
    buggy("only sampling reaches it", deep::sampling_only());
    buggy(
        "a thread that runs again right after its own yield",
        deep::yield_to_self(),
    );
    buggy(
        "several non-default choices at yields in one execution",
        deep::several_yield_choices(),
    );
    twin(deep::third_preemption_twin());
    twin(deep::fourth_thread_twin());
    twin(deep::fourth_operation_twin());
    twin(deep::sampling_only_twin());
    twin(deep::yield_to_self_twin());
    twin(deep::several_yield_choices_twin());
}

//! The deep-bug objects (examples/objects/deep.rs): each bug lies beyond the default sample
//! (3x3 matrices at preemption bound 2), so the sample alone passes it and a deepening stage
//! finds it; each correct twin passes every stage. Budgets are explicit and small; a buggy object
//! stops at its first failure.

#[path = "../examples/objects/mod.rs"]
mod objects;

use std::time::Duration;

use lineup::{check, Config, LineupTest, MatrixOrigin, Stage, Subject, TestFailure, TestMatrix, TestSummary, Verdict};
use objects::deep;

/// A small test of `subject` (10 matrices up to 3x1, seed 1, two workers) with only `stages`
/// after the sample, and `budget` for them.
fn run<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    stages: &[Stage],
    budget: Option<Duration>,
) -> Result<TestSummary, TestFailure> {
    LineupTest::new(&format!("deep_bugs::{}", subject.name()))
        .seed(1)
        .workers(2)
        .samples(10)
        .ops(1)
        .stages(stages)
        .time_budget(budget)
        .check_subject(subject)
}

/// The stage that found the bug: the run must fail in a deepening stage.
fn found_by<O: Send + Sync + 'static>(subject: &Subject<O>, stage: Stage) -> String {
    match run(subject, &[stage], Some(Duration::from_secs(120))) {
        Ok(summary) => panic!("{} passed {stage}: {summary:?}", subject.name()),
        Err(TestFailure::Violation {
            origin: MatrixOrigin::Deepening { stage, .. },
            ..
        }) => stage,
        Err(other) => panic!("{} failed outside the deepening: {other}", subject.name()),
    }
}

/// The sample alone passes `subject`: its bug is deep.
fn sample_passes<O: Send + Sync + 'static>(subject: &Subject<O>) {
    let summary = run(subject, &[], None).unwrap_or_else(|f| panic!("the sample alone failed {}: {f}", subject.name()));
    assert!(summary.matrices > 0);
}

#[test]
fn a_third_preemption_finds_the_gated_counter_and_the_sample_does_not() {
    sample_passes(&deep::third_preemption());
    let stage = found_by(&deep::third_preemption(), Stage::IterativeDeepening);
    assert!(stage.contains("bound 3"), "{stage}");
    assert!(found_by(&deep::third_preemption(), Stage::MorePreemptions).contains("bound 3"));
}

#[test]
fn four_threads_find_the_shared_wait_slot_and_the_sample_does_not() {
    sample_passes(&deep::fourth_thread());
    assert_eq!(
        found_by(&deep::fourth_thread(), Stage::FourThreads),
        "4x1 and 4x2 matrices"
    );
}

#[test]
fn a_fourth_operation_on_a_thread_finds_the_batch_fold_and_the_sample_does_not() {
    sample_passes(&deep::fourth_operation());
    assert_eq!(found_by(&deep::fourth_operation(), Stage::FourOps), "2x4 matrices");
}

#[test]
fn random_scheduling_finds_three_racy_gates_and_bound_3_does_not() {
    sample_passes(&deep::sampling_only());
    let stage = found_by(&deep::sampling_only(), Stage::Random);
    assert!(stage.starts_with("random:"), "{stage}");
    // One preemption more does not reach it, even on its smallest matrix.
    let config = Config {
        preemption_bound: 3,
        ..Config::default()
    };
    let two_increments = TestMatrix::new(vec![vec![0], vec![0]]);
    assert!(matches!(
        check(&deep::sampling_only(), &two_increments, &config),
        Ok(Verdict::Pass(_))
    ));
}

#[test]
fn the_twins_pass_every_stage_and_the_summary_lists_them() {
    let budget = Some(Duration::from_millis(1000));
    let all = Stage::DEFAULT_ORDER;
    let summaries = [
        run(&deep::third_preemption_twin(), &all, budget),
        run(&deep::fourth_thread_twin(), &all, budget),
        run(&deep::fourth_operation_twin(), &all, budget),
        run(&deep::sampling_only_twin(), &all, budget),
    ];
    for summary in summaries {
        let summary = summary.unwrap_or_else(|f| panic!("a twin failed: {f}"));
        assert!(!summary.deepening.is_empty(), "{summary:?}");
    }
}

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
    run_on(3, subject, stages, budget)
}

/// [`run`] on matrices of up to `threads` threads.
fn run_on<O: Send + Sync + 'static>(
    threads: usize,
    subject: &Subject<O>,
    stages: &[Stage],
    budget: Option<Duration>,
) -> Result<TestSummary, TestFailure> {
    LineupTest::new(&format!("deep_bugs::{threads}::{}", subject.name()))
        .seed(1)
        .workers(2)
        .samples(10)
        .threads(threads)
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
    // Iterative deepening reaches it during the sample: its small matrices are deepened as soon
    // as they pass.
    let stage = found_by(&deep::third_preemption(), Stage::IterativeDeepening);
    assert!(stage.contains("at once (bound 3)"), "{stage}");
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

/// [`run`] on two threads: with a third one, the least recently run thread after the waiter's
/// yield can be the third, and the default sample finds the lost wake-up itself.
fn run_on_two_threads<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    stages: &[Stage],
    budget: Option<Duration>,
) -> Result<TestSummary, TestFailure> {
    run_on(2, subject, stages, budget)
}

#[test]
fn the_yields_stage_finds_the_lost_wake_up_of_a_spinner_that_runs_again_and_the_sample_does_not() {
    let alone = run_on_two_threads(&deep::yield_to_self(), &[], None);
    assert!(alone.is_ok(), "the sample alone found it: {}", alone.unwrap_err());
    match run_on_two_threads(&deep::yield_to_self(), &[Stage::Yields], Some(Duration::from_secs(120))) {
        Err(TestFailure::Violation {
            origin: MatrixOrigin::Deepening { stage, .. },
            ..
        }) => assert!(
            stage.contains("with the yielding thread and 2 yield choices"),
            "{stage}"
        ),
        other => panic!("the yields stage missed it: {other:?}"),
    }
    let twin = run_on_two_threads(
        &deep::yield_to_self_twin(),
        &[Stage::Yields],
        Some(Duration::from_secs(20)),
    );
    assert!(twin.is_ok(), "{}", twin.unwrap_err());
}

#[test]
fn a_failure_of_the_yields_stage_replays_from_its_token_alone() {
    let Err(TestFailure::Violation { smallest, .. }) =
        run_on_two_threads(&deep::yield_to_self(), &[Stage::Yields], Some(Duration::from_secs(120)))
    else {
        panic!("the yields stage missed the lost wake-up");
    };
    let token = smallest.replay.to_string();
    assert!(token.starts_with("lineup:p2-b2-y2s:"), "{token}");
    assert_replays_by_default(&deep::yield_to_self(), &smallest);
}

/// The violation's token alone replays it under the default settings: the token carries the
/// yield settings of the search that found it.
fn assert_replays_by_default<O: Send + Sync + 'static>(subject: &Subject<O>, violation: &lineup::Violation) {
    let replayed =
        lineup::replay(subject, &violation.matrix, &violation.replay, &Config::default()).expect("the token replays");
    assert!(replayed.violation.is_some(), "{replayed:?}");
}

#[test]
fn several_choices_at_yields_find_the_long_spinning_waiter_at_once_and_the_sample_does_not() {
    let alone = run_on_two_threads(&deep::several_yield_choices(), &[], None);
    assert!(alone.is_ok(), "the sample alone found it: {}", alone.unwrap_err());
    // Two preemptions and one choice at yields (the sample), or three preemptions, do not reach
    // it on its smallest matrix: the waiter must run again right after two of its own yields.
    let wait_and_set = TestMatrix::new(vec![vec![0], vec![1]]);
    for preemption_bound in [2, 3] {
        let config = Config {
            preemption_bound,
            ..Config::default()
        };
        let verdict = check(&deep::several_yield_choices(), &wait_and_set, &config).unwrap();
        assert!(
            matches!(verdict, Verdict::Pass(_)),
            "bound {preemption_bound}: {verdict:?}"
        );
    }
    // Deepening the sample's small matrices at once goes to more choices at yields too.
    let Err(TestFailure::Violation {
        origin: MatrixOrigin::Deepening { stage, .. },
        smallest,
        ..
    }) = run_on_two_threads(
        &deep::several_yield_choices(),
        &[Stage::IterativeDeepening],
        Some(Duration::from_secs(120)),
    )
    else {
        panic!("deepening at once missed the long spinning waiter");
    };
    assert!(
        stage.contains("at once (bound 2, ") && stage.contains("choices at yields, the yielding thread too"),
        "{stage}"
    );
    // The failure was shrunk with the deeper settings, and its token replays them.
    let token = smallest.replay.to_string();
    assert!(token.starts_with("lineup:p2-b2-y") && token.contains("s:"), "{token}");
    assert_replays_by_default(&deep::several_yield_choices(), &smallest);
}

#[test]
fn the_twins_pass_every_stage_and_the_summary_lists_them() {
    // The budget covers the sample too.
    let budget = Some(Duration::from_secs(8));
    let all = Stage::DEFAULT_ORDER;
    let summaries = [
        run(&deep::third_preemption_twin(), &all, budget),
        run(&deep::fourth_thread_twin(), &all, budget),
        run(&deep::fourth_operation_twin(), &all, budget),
        run(&deep::sampling_only_twin(), &all, budget),
        // Three spinning waiters make trees too large for the budget in a debug build.
        run_on_two_threads(&deep::yield_to_self_twin(), &all, budget),
        run_on_two_threads(&deep::several_yield_choices_twin(), &all, budget),
    ];
    for (i, summary) in summaries.into_iter().enumerate() {
        let summary = summary.unwrap_or_else(|f| panic!("a twin failed: {f}"));
        // How many stages fit in the budget depends on the machine's speed; the sample's
        // deepening at once always runs (the listing of every stage is checked below).
        assert!(!summary.deepening.is_empty(), "twin {i}: {summary:?}");
        // The sample's small matrices went deeper at once, and the PASS line says to which bound.
        let at_once = &summary.deepening[0];
        assert!(at_once.name.contains("small matrices at once"), "twin {i}: {at_once:?}");
        assert!(summary.to_string().contains("to bound"), "twin {i}: {summary}");
        assert!(
            summary.to_string().contains("at yields, the yielding thread too: "),
            "twin {i}: {summary}"
        );
    }
}

#[test]
fn the_summary_lists_every_stage_that_ran_with_its_count() {
    // Two stages of fixed size and a budget they do not reach: the listing does not depend on
    // the machine's speed (a regression test for an assertion that did).
    let stages = [Stage::FourOps, Stage::MoreMatrices];
    let summary = run(&deep::third_preemption_twin(), &stages, Some(Duration::from_secs(600)))
        .unwrap_or_else(|f| panic!("the twin failed: {f}"));
    let names: Vec<&str> = summary.deepening.iter().map(|stage| stage.name.as_str()).collect();
    assert_eq!(names.len(), 2, "{summary:?}");
    for (stage, listed) in stages.iter().zip(&summary.deepening) {
        assert_eq!(Some(listed.checked), listed.of, "{stage} was cut: {listed}");
        assert!(summary.to_string().contains(&listed.to_string()), "{summary}");
    }
}

//! RandomCheck through `LineupTest` (what `#[lineup_test]` expands to): the Fig. 1 bug found in a
//! random sample and shrunk, a correct queue passing 100 random 3x3 matrices, the same first
//! failure with one worker and with two, failures saved and re-run first, and committed
//! specifications that fail with a diff when the object's serial behaviour changes.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::spec_snapshot::{compare_or_bless, SnapshotError, SnapshotOutcome};
use lineup::{check, lineup_test, synthesize_spec, Config, LineupTest, MatrixOrigin, Subject, TestFailure, Verdict};
use objects::queues::{stack_under_queue_labels, BlockingQueue, GiveUpQueue, NonBlockingQueue};

/// The failure of a run that must fail.
fn failure<T: std::fmt::Debug>(result: Result<T, TestFailure>) -> TestFailure {
    match result {
        Ok(summary) => panic!("expected a failure, got {summary:?}"),
        Err(failure) => failure,
    }
}

#[test]
fn the_fig1_bug_is_found_in_a_random_2x2_sample_and_shrunk() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("queue_test.rs");
    std::fs::write(&source, "// a test source file").unwrap();
    let run = || {
        LineupTest::new("random_check::fig1")
            .time_budget(None)
            .source_file(source.to_str().unwrap())
            .threads(2)
            .ops(2)
            .seed(3)
            .check(GiveUpQueue::default)
    };
    let TestFailure::Violation {
        smallest,
        original,
        origin,
        saved_in,
        ..
    } = failure(run())
    else {
        panic!("expected a violation");
    };
    let (threads, ops) = smallest.matrix.dimensions();
    assert!(threads <= 2 && ops <= 2, "shrunk to {threads}x{ops}");
    assert!(smallest.matrix.op_count() <= original.matrix.op_count());
    assert!(matches!(origin, MatrixOrigin::Sampled { seed: 3, .. }), "{origin}");
    // The smallest matrix really fails, with a violation of the same kind.
    let subject = Subject::of("GiveUpQueue", GiveUpQueue::default);
    let Verdict::Fail(again) = check(&subject, &smallest.matrix, &Config::default()).unwrap() else {
        panic!("the shrunk matrix does not fail");
    };
    assert!(lineup::same_kind(&again.kind, &smallest.kind));

    // Saved beside the source file, and re-run first on the next run.
    let saved = saved_in.expect("the failing matrix is saved");
    assert_eq!(saved, dir.path().join("lineup-regressions/queue_test.jsonl"));
    let TestFailure::Violation { origin, .. } = failure(run()) else {
        panic!("expected a violation")
    };
    assert!(matches!(origin, MatrixOrigin::Saved { seed: Some(3), .. }), "{origin}");
}

#[test]
fn the_report_shows_the_smallest_matrix_first_and_the_original_after_it() {
    // 3x3 samples: the first failing one is larger than the smallest failing matrix.
    let failure = failure(
        LineupTest::new("random_check::report")
            .time_budget(None)
            .threads(3)
            .ops(3)
            .seed(11)
            .check(GiveUpQueue::default),
    );
    let TestFailure::Violation {
        smallest,
        original,
        shrink_steps,
        ..
    } = &failure
    else {
        panic!("expected a violation: {failure}");
    };
    assert!(*shrink_steps > 0 && smallest.matrix.op_count() < original.matrix.op_count());
    let report = failure.to_string();
    let shrunk_at = report.find("Shrunk from").expect("the shrinking line");
    let kind_at = report.find("kind: ").expect("the smallest matrix's report");
    let original_at = report.find("The original failing matrix").expect("the original matrix");
    assert!(shrunk_at < kind_at && kind_at < original_at, "{report}");
    assert!(report.contains("LINEUP_SEED=11"), "{report}");
}

#[test]
fn one_worker_and_two_report_the_same_first_failure() {
    let run = |workers| {
        LineupTest::new("random_check::workers")
            .time_budget(None)
            .threads(2)
            .ops(2)
            .seed(5)
            .workers(workers)
    };
    let (one, two) = (
        failure(run(1).check(GiveUpQueue::default)),
        failure(run(2).check(GiveUpQueue::default)),
    );
    match (&one, &two) {
        (
            TestFailure::Violation {
                origin: o1,
                smallest: s1,
                original: a1,
                ..
            },
            TestFailure::Violation {
                origin: o2,
                smallest: s2,
                original: a2,
                ..
            },
        ) => {
            assert_eq!(o1, o2);
            assert_eq!(a1.matrix, a2.matrix);
            assert_eq!(s1.matrix, s2.matrix);
        }
        _ => panic!("expected violations:\n{one}\n{two}"),
    }
}

/// The paper's setting: 100 random 3x3 matrices at bound 2 (seconds in a release build; .ci/run
/// runs it with `--release`).
#[test]
#[cfg_attr(debug_assertions, ignore = "slow in debug builds: .ci/run runs it with --release")]
fn a_correct_queue_passes_100_random_3x3_matrices() {
    for (name, summary) in [
        (
            "blocking",
            LineupTest::new("random_check::blocking")
                .time_budget(None)
                .seed(1)
                .check(BlockingQueue::default),
        ),
        (
            "non-blocking",
            LineupTest::new("random_check::non_blocking")
                .time_budget(None)
                .seed(1)
                .check(NonBlockingQueue::default),
        ),
    ] {
        let summary = summary.unwrap_or_else(|f| panic!("{name}: {f}"));
        assert_eq!(summary.matrices, 100, "{name}");
    }
}

/// A correct queue passes a small random sample in every build.
#[lineup_test(time_budget = "off", threads = 2, ops = 3, samples = 20, seed = 7)]
fn non_blocking_queue_passes_a_random_sample() -> NonBlockingQueue {
    NonBlockingQueue::default()
}

/// Under `#[lineup_test]` with default settings but the dimensions, the Fig. 1 bug fails the
/// test (the failing matrix is saved in `tests/lineup-regressions/random_check.jsonl`).
#[lineup_test(time_budget = "off", threads = 2, ops = 2)]
#[should_panic(expected = "FULL HISTORY WITHOUT SERIAL WITNESS")]
fn the_fig1_bug_fails_a_lineup_test() -> GiveUpQueue {
    GiveUpQueue::default()
}

#[test]
fn a_committed_specification_fails_with_a_diff_when_serial_behaviour_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("observations/queue-0.xml");
    let matrix = lineup::TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    let queue = synthesize_spec(
        &Subject::of("q", NonBlockingQueue::default),
        &matrix,
        &Config::default(),
    )
    .unwrap();
    assert_eq!(
        compare_or_bless(&path, &queue.spec, false).unwrap(),
        SnapshotOutcome::Written(path.clone())
    );
    assert_eq!(
        compare_or_bless(&path, &queue.spec, false).unwrap(),
        SnapshotOutcome::Unchanged(path.clone())
    );

    let lifo = synthesize_spec(&stack_under_queue_labels(), &matrix, &Config::default()).unwrap();
    let err = compare_or_bless(&path, &lifo.spec, false).unwrap_err();
    let SnapshotError::Differs {
        appeared, disappeared, ..
    } = &err
    else {
        panic!("{err}")
    };
    assert!(*appeared > 0 && *disappeared > 0);
    let message = err.to_string();
    assert!(message.contains("queue-0.xml"), "{message}");
    assert!(
        message
            .contains("  + 1[ ]1 3[ ]3 4[ ]4 2[ ]2   [1 add(200) -> (); 3 add(400) -> (); 4 try_take() -> Some(400)"),
        "{message}"
    );
    assert!(message.contains("LINEUP_BLESS=1"), "{message}");
    // Blessing rewrites it.
    assert_eq!(
        compare_or_bless(&path, &lifo.spec, true).unwrap(),
        SnapshotOutcome::Written(path.clone())
    );
    assert_eq!(
        compare_or_bless(&path, &lifo.spec, false).unwrap(),
        SnapshotOutcome::Unchanged(path)
    );
}

/// The default sample draws every shape up to the configured one (about half full size), and the
/// summary says how many of each it checked; `Shapes::Exact` is the paper's sample.
#[test]
fn the_default_sample_mixes_smaller_shapes_and_says_which() {
    let summary = lineup::LineupTest::new("shapes_mix")
        .time_budget(None)
        .threads(3)
        .ops(3)
        .samples(40)
        .seed(5)
        .check_subject(&objects::counters::atomic_counter())
        .unwrap();
    let shapes = &summary.shapes.0;
    assert_eq!(shapes.values().sum::<usize>(), 40, "{}", summary.shapes);
    assert!(shapes.len() > 3, "{}", summary.shapes);
    assert!(shapes.get(&(3, 3)).copied().unwrap_or(0) >= 10, "{}", summary.shapes);
    let exact = lineup::LineupTest::new("shapes_exact")
        .time_budget(None)
        .threads(3)
        .ops(3)
        .samples(10)
        .seed(5)
        .shapes(lineup::Shapes::Exact)
        .check_subject(&objects::counters::atomic_counter())
        .unwrap();
    assert_eq!(exact.shapes.to_string(), "3x3 \u{d7}10");
}

/// With a time budget, a passing sample is followed by deeper stages (here the sample with PCT,
/// then AutoCheck), and the summary says how far each got.
#[test]
fn the_time_budget_deepens_after_the_sample_and_says_what_it_covered() {
    let summary = lineup::LineupTest::new("deepening_pass")
        .threads(2)
        .ops(1)
        .samples(3)
        .seed(3)
        // The budget covers the sample too.
        .time_budget(std::time::Duration::from_secs(3))
        .stages(&[lineup::Stage::Pct, lineup::Stage::AutoCheck])
        .check_subject(&objects::counters::atomic_counter())
        .unwrap();
    let first = summary.deepening.first().expect("a stage ran");
    assert!(first.name.starts_with("pct:3:2000:3 on the sample"), "{first}");
    assert_eq!(first.of, Some(3));
    assert!(first.checked >= 1, "{first}");
}

/// A bug the sample cannot reach (Counter1's lost update needs a preemption; the sample runs at
/// bound 0) is found by a deeper stage, which the failure names.
#[test]
fn a_deeper_stage_finds_what_the_sample_cannot_and_names_itself() {
    let failure = lineup::LineupTest::new("deepening_fail")
        .threads(2)
        .ops(2)
        .samples(4)
        .seed(1)
        .preemption_bound(0)
        .time_budget(std::time::Duration::from_secs(60))
        .stages(&[lineup::Stage::Pct])
        .check_subject(&objects::counters::counter1())
        .unwrap_err();
    let TestFailure::Violation { origin, .. } = &failure else {
        panic!("expected a violation: {failure}");
    };
    assert!(
        matches!(origin, MatrixOrigin::Deepening { stage, .. } if stage.starts_with("pct:3")),
        "{origin}"
    );
}

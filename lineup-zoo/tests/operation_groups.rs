//! Operation groups (`#[invoke(group = "...")]`, `Invocation::group`) on a multi-producer
//! single-consumer queue: with `pop` in the group `consumer` the correct queue passes the
//! sample and the deepening stages; the same queue with `pop` in no group fails, on a matrix with
//! two consumers (so the group is what changes the matrices, and the check is still real); a
//! real bug between producers and the consumer fails with the group, and its shrunk matrix keeps
//! the group; an explicit or saved matrix that breaks the group is an error that names it.

use std::time::Duration;

use lineup::regressions::{Regression, RegressionFile};
use lineup::{Invocations, LineupTest, Subject, TestFailure, TestMatrix};
use lineup_zoo::single_consumer::{MpscQueue, SingleConsumerQueue, SingleConsumerQueueEarlyTail};

/// The queue with `pop` in no group: the matrices may put it on several threads.
#[derive(Default)]
struct Ungrouped(SingleConsumerQueue);

#[lineup::invocations]
impl Ungrouped {
    #[invoke(1, 2)]
    fn push(&self, value: u32) {
        self.0.push(value)
    }

    #[invoke]
    fn pop(&self) -> Option<u32> {
        self.0.pop()
    }
}

/// A fixed run: the sample of 20 matrices of up to 3x2, no deepening.
fn fixed(name: &str) -> LineupTest {
    LineupTest::new(name)
        .threads(3)
        .ops(2)
        .samples(20)
        .seed(26)
        .time_budget(None)
}

/// The columns of `matrix` that hold invocation `pop()` of `O`.
fn threads_with_pop<O: Invocations>(matrix: &TestMatrix) -> usize {
    let pop = O::invocations()
        .iter()
        .position(|i| i.label().to_string() == "pop()")
        .unwrap();
    matrix.threads.iter().filter(|column| column.contains(&pop)).count()
}

/// The smallest and the original failing matrix of a run that must fail with a violation.
fn violation(result: Result<lineup::TestSummary, TestFailure>) -> (TestMatrix, TestMatrix) {
    match result {
        Err(TestFailure::Violation { smallest, original, .. }) => (smallest.matrix.clone(), original.matrix.clone()),
        Err(other) => panic!("expected a violation, got: {other}"),
        Ok(summary) => panic!("expected FAIL, got {summary}"),
    }
}

#[test]
fn the_single_consumer_queue_passes_with_pop_in_its_group() {
    let subject = Subject::of("SingleConsumerQueue", SingleConsumerQueue::default);
    assert_eq!(subject.invocations()[2].group_name(), Some("consumer"));
    let summary = fixed("single_consumer_fixed").check_subject(&subject).unwrap();
    assert_eq!(summary.matrices, 20, "{summary}");
}

#[test]
fn the_single_consumer_queue_passes_the_deepening_stages_with_pop_in_its_group() {
    // Every stage (four threads, four operations, more matrices, AutoCheck, ...) within 4 s.
    let summary = LineupTest::new("single_consumer_deepening")
        .samples(20)
        .seed(7)
        .time_budget(Duration::from_secs(4))
        .check(SingleConsumerQueue::default)
        .unwrap();
    assert!(!summary.deepening.is_empty(), "{summary}");
}

#[test]
fn without_the_group_a_matrix_with_two_consumers_fails() {
    let (smallest, original) = violation(fixed("single_consumer_ungrouped").check(Ungrouped::default));
    assert!(threads_with_pop::<Ungrouped>(&original) >= 2, "{original:?}");
    assert_eq!(threads_with_pop::<Ungrouped>(&smallest), 2, "{smallest:?}");
}

#[test]
fn a_bug_between_producers_and_the_consumer_fails_with_the_group_and_shrinking_keeps_it() {
    let subject = Subject::of("SingleConsumerQueueEarlyTail", SingleConsumerQueueEarlyTail::default);
    let (smallest, original) = violation(fixed("single_consumer_early_tail").check_subject(&subject));
    let groups = subject.groups();
    assert!(groups.respects(&original), "{original:?}");
    assert!(groups.respects(&smallest), "{smallest:?}");
    // `[push(1)] | [pop()]`, or the same with push(2).
    assert_eq!(smallest.op_count(), 2, "{smallest:?}");
    assert_eq!(threads_with_pop::<MpscQueue<true>>(&smallest), 1);
}

#[test]
fn an_explicit_matrix_that_breaks_the_group_is_an_error_that_names_it() {
    let broken = fixed("single_consumer_explicit")
        .samples(0)
        .matrix(&[&["push(1)"], &["pop()"]])
        .matrix(&[&["pop()"], &["push(1)", "pop()"]])
        .check(SingleConsumerQueue::default);
    match broken {
        Err(TestFailure::Setup { problem, .. }) => assert_eq!(
            problem,
            "regression matrix #1 of the test: the matrix breaks operation group `consumer`: `pop()` on thread A and \
             `pop()` on thread B; a group's invocations must all be on one thread"
        ),
        other => panic!("expected a setup error, got {other:?}"),
    }
    // The same operations with the pops on one thread are checked.
    let kept = fixed("single_consumer_explicit_kept")
        .samples(0)
        .matrix(&[&["pop()", "pop()"], &["push(1)"]])
        .check(SingleConsumerQueue::default)
        .unwrap();
    assert_eq!(kept.matrices, 1);
}

#[test]
fn a_saved_matrix_that_breaks_the_group_is_an_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("queue.rs");
    std::fs::write(&source, "").unwrap();
    let file = RegressionFile::beside(source.to_str().unwrap());
    let labels = Subject::of("q", SingleConsumerQueue::default).labels();
    let two_consumers = TestMatrix::new(vec![vec![2], vec![0, 2]]);
    file.add(&Regression::new("single_consumer_saved", None, &two_consumers, &labels))
        .unwrap();
    let result = fixed("single_consumer_saved")
        .samples(0)
        .source_file(source.to_str().unwrap())
        .check(SingleConsumerQueue::default);
    let message = result.unwrap_err().to_string();
    assert!(
        message.contains("the matrix breaks operation group `consumer`: `pop()` on thread A and `pop()` on thread B"),
        "{message}"
    );
    assert!(message.contains("delete this line"), "{message}");
}

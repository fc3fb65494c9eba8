//! The collections of the zoo under lineup: each correct class passes small explicit matrices
//! (with committed phase-1 specifications in `observations/zoo/`), each variant fails with the
//! expected kind on a matrix no larger than the paper's smallest failing test while its serial
//! behaviour equals the correct class's, and a small random sample of every registered entry
//! agrees with its `Expected`.

use std::collections::BTreeSet;
use std::path::Path;

use lineup::spec_snapshot::{bless_requested, compare_or_bless};
use lineup::{
    check, check_matrices, sample_matrices, synthesize_spec, BatchFailure, Config, Invocations, Progress, Subject,
    TestMatrix, Verdict, ViolationKind,
};
use lineup_zoo::collections::*;
use lineup_zoo::{Expected, ZooEntry};

/// The matrix with these columns of invocation labels (`"enqueue(10)"`).
fn matrix<O: Invocations + Default>(columns: &[&[&str]]) -> TestMatrix {
    let labels: Vec<String> = O::invocations().iter().map(|i| i.label().to_string()).collect();
    let index = |label: &str| {
        labels
            .iter()
            .position(|l| l == label)
            .unwrap_or_else(|| panic!("no invocation {label} in {labels:?}"))
    };
    TestMatrix::new(columns.iter().map(|c| c.iter().map(|l| index(l)).collect()).collect())
}

fn subject<O: Invocations + Default>() -> Subject<O> {
    Subject::of(std::any::type_name::<O>(), O::default)
}

fn config() -> Config {
    Config::default()
}

/// Checks that `O` passes `columns` and that the phase-1 specification equals the committed
/// `observations/zoo/<file>.xml`.
fn assert_pass<O: Invocations + Default>(file: &str, columns: &[&[&str]]) {
    let matrix = matrix::<O>(columns);
    let subject = subject::<O>();
    match check(&subject, &matrix, &config()).unwrap() {
        Verdict::Pass(_) => {}
        Verdict::Fail(v) => panic!("{file}: expected PASS, got:\n{v}"),
    }
    let spec = synthesize_spec(&subject, &matrix, &config()).unwrap().spec;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../observations/zoo/{file}.xml"));
    compare_or_bless(&path, &spec, bless_requested()).unwrap();
}

/// The serial histories of `O` on `matrix`, as text.
fn serial_behaviour<O: Invocations + Default>(matrix: &TestMatrix) -> BTreeSet<String> {
    let synthesis = synthesize_spec(&subject::<O>(), matrix, &config()).unwrap();
    assert!(synthesis.nondeterminism.is_none());
    synthesis
        .spec
        .histories()
        .map(|h| format!("{} {:?}", h.notation(), h.responses()))
        .collect()
}

#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Full,
    Stuck,
}

/// Checks that the variant `V` fails `columns` with a violation of `kind`, and that serially it
/// behaves exactly like the correct class `C` (the defect is a concurrency defect).
fn assert_fail<V: Invocations + Default, C: Invocations + Default>(columns: &[&[&str]], kind: Kind) {
    let matrix = matrix::<V>(columns);
    let verdict = check(&subject::<V>(), &matrix, &config()).unwrap();
    let violation = match verdict {
        Verdict::Pass(stats) => panic!("{columns:?}: expected FAIL, got PASS ({stats:?})"),
        Verdict::Fail(v) => v,
    };
    let found = match &violation.kind {
        ViolationKind::NotLinearizable { .. } => Kind::Full,
        ViolationKind::StuckNotLinearizable { .. } => Kind::Stuck,
        ViolationKind::Nondeterministic(_) => panic!("serial nondeterminism:\n{violation}"),
    };
    assert_eq!(found, kind, "{violation}");
    assert_eq!(
        serial_behaviour::<V>(&matrix),
        serial_behaviour::<C>(&matrix),
        "{columns:?}: the variant's serial behaviour differs from the correct class's"
    );
}

// ConcurrentQueue

#[test]
fn concurrent_queue_passes() {
    type Q = ConcurrentQueue;
    assert_pass::<Q>(
        "ConcurrentQueue-0",
        &[&["enqueue(10)", "try_dequeue()"], &["enqueue(20)", "try_dequeue()"]],
    );
    assert_pass::<Q>(
        "ConcurrentQueue-1",
        &[
            &["enqueue(10)", "enqueue(20)"],
            &["to_array()", "try_dequeue()", "count()"],
        ],
    );
    assert_pass::<Q>(
        "ConcurrentQueue-2",
        &[
            &["enqueue(10)", "try_dequeue()"],
            &["enqueue(20)", "is_empty()"],
            &["try_peek()", "count()"],
        ],
    );
}

#[test]
fn concurrent_queue_pre_fails_with_bug_b() {
    assert_fail::<ConcurrentQueuePre, ConcurrentQueue>(
        &[&["enqueue(10)", "try_dequeue()"], &["enqueue(20)", "try_dequeue()"]],
        Kind::Full,
    );
}

// ConcurrentStack

#[test]
fn concurrent_stack_passes() {
    type S = ConcurrentStack;
    assert_pass::<S>(
        "ConcurrentStack-0",
        &[
            &["push(10)", "try_pop()"],
            &["push_range([20, 30])", "try_pop_range(2)"],
        ],
    );
    assert_pass::<S>(
        "ConcurrentStack-1",
        &[
            &["push(10)", "clear()"],
            &["push_range([20, 30])", "count()", "try_peek()"],
        ],
    );
}

#[test]
fn treiber_stack_passes() {
    type S = TreiberStack;
    assert_pass::<S>(
        "TreiberStack-0",
        &[
            &["push(10)", "try_pop()"],
            &["push_range([20, 30])", "try_pop_range(2)"],
        ],
    );
    assert_pass::<S>(
        "TreiberStack-1",
        &[
            &["push(10)", "clear()"],
            &["push_range([20, 30])", "count()", "try_peek()"],
        ],
    );
    assert_pass::<S>(
        "TreiberStack-2",
        &[
            &["push(10)", "try_pop()"],
            &["push(10)", "try_pop_range(2)"],
            &["try_pop()", "count()"],
        ],
    );
}

#[test]
fn treiber_stack_behaves_serially_like_the_locked_stack() {
    let columns: &[&[&str]] = &[
        &["push(10)", "try_pop()", "clear()"],
        &["push_range([20, 30])", "try_pop_range(2)", "count()"],
    ];
    assert_eq!(
        serial_behaviour::<TreiberStack>(&matrix::<TreiberStack>(columns)),
        serial_behaviour::<ConcurrentStack>(&matrix::<ConcurrentStack>(columns)),
    );
}

// ConcurrentLinkedList

#[test]
fn concurrent_linked_list_passes() {
    type L = ConcurrentLinkedList;
    assert_pass::<L>(
        "ConcurrentLinkedList-0",
        &[&["add_first(10)", "remove_last()"], &["add_last(20)", "count()"]],
    );
    assert_pass::<L>(
        "ConcurrentLinkedList-1",
        &[
            &["add_first(10)", "remove_first()"],
            &["add_last(20)", "remove_last()"],
            &["count()", "remove_last()"],
        ],
    );
}

#[test]
fn concurrent_linked_list_pre_fails_with_bug_c() {
    assert_fail::<ConcurrentLinkedListPre, ConcurrentLinkedList>(
        &[&["add_first(10)", "remove_last()"], &["add_last(20)", "count()"]],
        Kind::Full,
    );
}

// BlockingCollection

#[test]
fn blocking_collection_passes() {
    type B = BlockingCollection;
    // take blocks serially on an empty collection: the stuck histories need stuck witnesses.
    assert_pass::<B>("BlockingCollection-0", &[&["take()"], &["add(10)"]]);
    assert_pass::<B>(
        "BlockingCollection-1",
        &[&["take()", "count()"], &["complete_adding()", "add(10)"]],
    );
    assert_pass::<B>(
        "BlockingCollection-2",
        &[
            &["add(10)", "take()"],
            &["take()", "try_take()"],
            &["add(20)", "count()"],
        ],
    );
    assert_pass::<B>(
        "BlockingCollection-3",
        &[
            &["add(10)", "count()"],
            &["add(20)", "try_take()"],
            &["complete_adding()", "is_completed()"],
        ],
    );
}

#[test]
fn blocking_collection_pre_fails_with_bug_d() {
    assert_fail::<BlockingCollectionPre, BlockingCollection>(&[&["take()"], &["add(10)"]], Kind::Stuck);
}

#[test]
fn blocking_collection_pre_fails_with_nonlinearizability_k() {
    assert_fail::<BlockingCollectionPre, BlockingCollection>(&[&["take()"], &["complete_adding()"]], Kind::Stuck);
}

#[test]
fn blocking_collection_beta2_fails_with_nondeterminism_h() {
    assert_fail::<BlockingCollectionBeta2, BlockingCollection>(
        &[&["add(10)", "count()"], &["add(20)", "try_take()"]],
        Kind::Full,
    );
}

#[test]
fn blocking_collection_beta2_fails_with_nondeterminism_i() {
    assert_fail::<BlockingCollectionBeta2, BlockingCollection>(&[&["add(10)", "try_take()"], &["add(20)"]], Kind::Full);
}

#[test]
fn blocking_collection_beta2_fails_with_nonlinearizability_k() {
    assert_fail::<BlockingCollectionBeta2, BlockingCollection>(&[&["take()"], &["complete_adding()"]], Kind::Stuck);
}

#[test]
fn blocking_collection_beta2_has_no_lost_wake_up() {
    // D is not planted in beta 2: a take waiting for an add is woken.
    let matrix = matrix::<BlockingCollectionBeta2>(&[&["take()"], &["add(10)"]]);
    let verdict = check(&subject::<BlockingCollectionBeta2>(), &matrix, &config()).unwrap();
    assert!(verdict.violation().is_none(), "{}", verdict.violation().unwrap());
}

// ConcurrentBag

#[test]
fn concurrent_bag_passes() {
    type G = ConcurrentBag;
    assert_pass::<G>(
        "ConcurrentBag-0",
        &[&["add(10)", "try_take()"], &["try_take()", "count()"]],
    );
    assert_pass::<G>(
        "ConcurrentBag-1",
        &[&["add(10)", "try_take()"], &["add(20)", "count()"]],
    );
    assert_pass::<G>(
        "ConcurrentBag-2",
        &[
            &["add(10)", "try_peek()"],
            &["add(20)", "try_take()"],
            &["try_take()", "is_empty()"],
        ],
    );
}

#[test]
fn concurrent_bag_pre_fails_with_bug_e() {
    assert_fail::<ConcurrentBagPre, ConcurrentBag>(&[&["add(10)", "try_take()"], &["try_take()"]], Kind::Full);
}

#[test]
fn concurrent_bag_pre_fails_with_nondeterminism_j() {
    assert_fail::<ConcurrentBagPre, ConcurrentBag>(&[&["add(10)", "try_take()"], &["add(20)", "count()"]], Kind::Full);
}

#[test]
fn concurrent_bag_beta2_fails_with_nondeterminism_j() {
    assert_fail::<ConcurrentBagBeta2, ConcurrentBag>(
        &[&["add(10)", "try_take()"], &["add(20)", "count()"]],
        Kind::Full,
    );
}

#[test]
fn concurrent_bag_beta2_steals_each_value_once() {
    // E is not planted in beta 2.
    let matrix = matrix::<ConcurrentBagBeta2>(&[&["add(10)", "try_take()"], &["try_take()"]]);
    let verdict = check(&subject::<ConcurrentBagBeta2>(), &matrix, &config()).unwrap();
    assert!(verdict.violation().is_none(), "{}", verdict.violation().unwrap());
}

// ConcurrentDictionary

#[test]
fn concurrent_dictionary_passes() {
    type D = ConcurrentDictionary;
    assert_pass::<D>(
        "ConcurrentDictionary-0",
        &[&["try_add(10)", "count()"], &["add_or_update(10)", "try_remove(10)"]],
    );
    assert_pass::<D>(
        "ConcurrentDictionary-1",
        &[
            &["try_add(20)", "clear()"],
            &["try_add(10)", "try_get_value(20)", "count()"],
        ],
    );
}

// The registry

/// The first failure of `entry`'s type `O` on a seeded random sample: 30 matrices of 2x2 for a
/// class expected to pass, up to 10 of 3x3 (the paper's dimension; the first failure ends the
/// run) for one expected to fail.
fn first_failure_in_sample<O: Invocations + Default>(entry: &ZooEntry) -> Option<BatchFailure> {
    let subject = Subject::of(entry.class, O::default);
    let config = Config {
        preemption_bound: entry.preemption_bound,
        ..Config::default()
    };
    let (threads, ops, samples) = match entry.expected {
        Expected::Pass => (2, 2, 30),
        Expected::Fail => (3, 3, 10),
    };
    let matrices = sample_matrices(subject.invocations().len(), threads, ops, samples, 1);
    check_matrices(&subject, &matrices, &config, 2, &Progress::hidden(), None, None).first_failure
}

#[test]
fn every_entry_agrees_with_its_expectation_on_a_random_sample() {
    let entries = lineup_zoo::collections::entries();
    assert_eq!(entries.len(), 13);
    for entry in &entries {
        let started = std::time::Instant::now();
        let first_failure = match (entry.class, entry.version) {
            ("ConcurrentDictionary", "correct") => first_failure_in_sample::<ConcurrentDictionary>(entry),
            ("ConcurrentQueue", "Pre") => first_failure_in_sample::<ConcurrentQueuePre>(entry),
            ("ConcurrentQueue", "correct") => first_failure_in_sample::<ConcurrentQueue>(entry),
            ("ConcurrentLinkedList", "Pre") => first_failure_in_sample::<ConcurrentLinkedListPre>(entry),
            ("ConcurrentLinkedList", "correct") => first_failure_in_sample::<ConcurrentLinkedList>(entry),
            ("ConcurrentStack", "correct") => first_failure_in_sample::<ConcurrentStack>(entry),
            ("ConcurrentStack", "lock-free") => first_failure_in_sample::<TreiberStack>(entry),
            ("BlockingCollection", "Pre") => first_failure_in_sample::<BlockingCollectionPre>(entry),
            ("BlockingCollection", "beta2") => first_failure_in_sample::<BlockingCollectionBeta2>(entry),
            ("BlockingCollection", "correct") => first_failure_in_sample::<BlockingCollection>(entry),
            ("ConcurrentBag", "Pre") => first_failure_in_sample::<ConcurrentBagPre>(entry),
            ("ConcurrentBag", "beta2") => first_failure_in_sample::<ConcurrentBagBeta2>(entry),
            ("ConcurrentBag", "correct") => first_failure_in_sample::<ConcurrentBag>(entry),
            other => panic!("no type for the entry {other:?}"),
        };
        eprintln!("{entry:?}: {:?}", started.elapsed());
        match (entry.expected, first_failure) {
            (Expected::Pass, None) => {}
            (Expected::Pass, Some((index, result))) => match result {
                Ok(violation) => panic!("{entry:?} failed sample matrix {index}:\n{violation}"),
                Err(error) => panic!("{entry:?}: sample matrix {index}: {error}"),
            },
            (Expected::Fail, Some((_, Ok(_)))) => {}
            (Expected::Fail, Some((index, Err(error)))) => panic!("{entry:?}: sample matrix {index}: {error}"),
            (Expected::Fail, None) => panic!("{entry:?} passed the whole sample"),
        }
    }
}

//! `#[invocations]`: the generated invocation sets, their labels and order, equivalence with a
//! hand-written set, and checks of correct and buggy objects described with the macro.

use std::collections::VecDeque;
use std::fmt::Debug;

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::invocations;
use lineup::observation_file::to_xml_string;
use lineup::shuttle::sync::Mutex;
use lineup::{
    check, synthesize_spec, Config, Invocation, Invocations, Response, Subject, TestMatrix, Verdict, ViolationKind,
};
use objects::queues::GiveUpQueue;

/// A queue with operations of every shape `#[invoke]` supports.
#[derive(Default)]
struct Queue {
    items: Mutex<VecDeque<u32>>,
}

#[invocations]
impl Queue {
    /// Appends a value (no-arg methods below, single-arg with several values here).
    #[invoke(200, 400)]
    fn add(&self, value: u32) {
        self.items.lock().unwrap().push_back(value);
    }

    #[invoke]
    fn try_take(&self) -> Option<u32> {
        self.items.lock().unwrap().pop_front()
    }

    /// Several arguments: one tuple per invocation, in parameter order.
    #[invoke((1, 10), (2, 20))]
    fn add_pair(&self, first: u32, second: u32) {
        let mut items = self.items.lock().unwrap();
        items.push_back(first);
        items.push_back(second);
    }

    /// A `Result`: both variants are responses.
    #[invoke(0, 5)]
    fn remove_at(&self, index: usize) -> Result<u32, String> {
        let mut items = self.items.lock().unwrap();
        let len = items.len();
        items
            .remove(index)
            .ok_or_else(|| format!("index {index} out of range (len {len})"))
    }

    /// A `String` argument, built by an arbitrary expression.
    #[invoke(String::from("x"), ["y", "z"].concat())]
    fn add_len(&self, text: String) -> usize {
        let mut items = self.items.lock().unwrap();
        items.push_back(u32::try_from(text.len()).unwrap());
        items.len()
    }

    /// Renamed, and a value that is an expression.
    #[invoke(name = "push_front", 3 + 4)]
    fn add_first(&self, value: u32) {
        self.items.lock().unwrap().push_front(value);
    }

    /// Compiled out: its invocations go with it.
    #[cfg(any())]
    #[invoke]
    fn absent(&self) {}

    /// Not marked (and without receiver): not an invocation, but still kept in the block.
    fn new() -> Self {
        Self::default()
    }
}

const LABELS: [&str; 10] = [
    "add(200)",
    "add(400)",
    "try_take()",
    "add_pair(1, 10)",
    "add_pair(2, 20)",
    "remove_at(0)",
    "remove_at(5)",
    "add_len(\"x\")",
    "add_len(\"yz\")",
    "push_front(7)",
];

fn labels<O: Invocations>() -> Vec<String> {
    O::invocations().iter().map(|i| i.label().to_string()).collect()
}

/// What `#[invocations]` is documented to generate for `Queue`, written by hand.
fn hand_written() -> Vec<Invocation<Queue>> {
    let mut set = Vec::new();
    for value in [200u32, 400] {
        set.push(Invocation::new("add", move |q: &Queue| q.add(value)).arg(value));
    }
    set.push(Invocation::new("try_take", Queue::try_take));
    for (first, second) in [(1u32, 10u32), (2, 20)] {
        set.push(
            Invocation::new("add_pair", move |q: &Queue| q.add_pair(first, second))
                .arg(first)
                .arg(second),
        );
    }
    for index in [0usize, 5] {
        set.push(Invocation::new("remove_at", move |q: &Queue| q.remove_at(index)).arg(index));
    }
    for text in [String::from("x"), String::from("yz")] {
        set.push(
            Invocation::new("add_len", {
                let t = text.clone();
                move |q: &Queue| q.add_len(t.clone())
            })
            .arg(text),
        );
    }
    set.push(Invocation::new("push_front", |q: &Queue| q.add_first(7)).arg(7));
    set
}

#[test]
fn labels_follow_method_order_then_value_order() {
    assert_eq!(labels::<Queue>(), LABELS);
}

#[test]
fn generated_labels_equal_the_hand_written_ones() {
    let hand: Vec<String> = hand_written().iter().map(|i| i.label().to_string()).collect();
    assert_eq!(labels::<Queue>(), hand);
}

/// One thread runs every invocation once: the generated closures call the right method with
/// the right arguments, and every result type is rendered.
#[test]
fn generated_invocations_call_the_methods_with_their_values() {
    // push_front(7), add_pair(1, 10), add(400), remove_at(0), remove_at(5), add_len("yz"),
    // try_take(), add_len("x")
    let column = vec![9, 3, 1, 5, 6, 8, 2, 7];
    let matrix = TestMatrix::new(vec![column]);
    let synthesis = synthesize_spec(&Subject::of("Queue", Queue::default), &matrix, &Config::default()).unwrap();
    let histories: Vec<_> = synthesis.spec.histories().collect();
    assert_eq!(histories.len(), 1, "one thread: one serial history");
    let history = histories[0];
    let responses: Vec<String> = (1..=8)
        .map(|id| match history.response(id) {
            Some(Response::Returned(text)) => text.clone(),
            other => panic!("operation {id}: {other:?}"),
        })
        .collect();
    assert_eq!(
        responses,
        [
            "()",
            "()",
            "()",
            "Ok(7)",
            "Err(\"index 5 out of range (len 3)\")",
            "4",
            "Some(1)",
            "4",
        ]
    );
}

/// Phase 1 of the generated set and of the hand-written one agree on every serial history of a
/// two-thread matrix that uses every shape of invocation.
#[test]
fn generated_set_behaves_like_the_hand_written_one() {
    let matrix = TestMatrix::new(vec![vec![3, 5, 8], vec![9, 6, 2]]);
    let config = Config::default();
    let generated = synthesize_spec(&Subject::of("Queue", Queue::default), &matrix, &config).unwrap();
    let hand = hand_written()
        .into_iter()
        .fold(Subject::new("Queue", Queue::default), Subject::with);
    let by_hand = synthesize_spec(&hand, &matrix, &config).unwrap();
    assert_eq!(
        generated.spec.full_count(),
        20,
        "3 + 3 operations: 6!/(3!3!) serial orders"
    );
    assert_eq!(to_xml_string(&generated.spec), to_xml_string(&by_hand.spec));
}

#[test]
fn a_correct_queue_described_by_the_macro_passes() {
    // add(200), try_take() | add_pair(1, 10), remove_at(0)
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![3, 5]]);
    let verdict = check(&Subject::of("Queue", Queue::new), &matrix, &Config::default()).unwrap();
    if let Some(v) = verdict.violation() {
        panic!("expected PASS, got:\n{v}");
    }
    assert!(verdict.stats().concurrent_executions > verdict.stats().serial_executions);
}

#[test]
fn the_give_up_queue_described_by_the_macro_fails() {
    assert_eq!(labels::<GiveUpQueue>(), ["add(200)", "add(400)", "try_take()"]);
    // add(200), try_take() | add(400), try_take()
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    let verdict = check(
        &Subject::of("GiveUpQueue", GiveUpQueue::default),
        &matrix,
        &Config::default(),
    )
    .unwrap();
    match verdict {
        Verdict::Pass(stats) => panic!("the Fig. 1 bug was not found: {stats:?}"),
        Verdict::Fail(violation) => {
            assert!(
                matches!(violation.kind, ViolationKind::NotLinearizable { .. }),
                "expected a full history without serial witness:\n{violation}"
            );
            let report = violation.to_string();
            assert!(report.contains("add(200)") && report.contains("try_take()"), "{report}");
        }
    }
}

/// A generic `impl` block: the generated impl carries `Self: Send + Sync + 'static`.
struct Stack<T> {
    items: Mutex<Vec<T>>,
}

#[invocations]
impl<T> Stack<T>
where
    T: From<u8> + Debug + Send,
{
    #[invoke(1, 2)]
    fn push(&self, value: u8) {
        self.items.lock().unwrap().push(T::from(value));
    }

    #[invoke]
    fn pop(&self) -> Option<T> {
        self.items.lock().unwrap().pop()
    }
}

#[test]
fn a_generic_impl_block_gets_an_impl_for_every_instance() {
    assert_eq!(labels::<Stack<u32>>(), ["push(1)", "push(2)", "pop()"]);
    assert_eq!(labels::<Stack<i64>>(), ["push(1)", "push(2)", "pop()"]);
    let subject = Subject::of("Stack<u64>", || Stack::<u64> {
        items: Mutex::new(Vec::new()),
    });
    // push(1), pop() | push(2), pop()
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    let verdict = check(&subject, &matrix, &Config::default()).unwrap();
    if let Some(v) = verdict.violation() {
        panic!("expected PASS, got:\n{v}");
    }
}

//! The four queue histories of Herlihy & Wing 1990, Fig. 1 (as modelled in the TLA+ notes,
//! ../shared/papers/tla-linearizability.md): H1 and H3 are linearizable, H2 and H4 are not.

use lineup_histories::models::{QueueInput as I, QueueModel, QueueOutput as O};
mod common;

use common::run_online;
use lineup_histories::{check, verify_linearization, CheckOptions, Event, History, OnlineStatus};

const A: u64 = 0;
const B: u64 = 1;
const C: u64 = 2;

type E = Event<I<char>, O<char>>;

/// (a): A enq(x) and B enq(y) overlap; B deq() → x; A deq() → y; A enq(z) still pending.
fn h1() -> Vec<E> {
    vec![
        Event::call(A, I::Enqueue('x')),
        Event::call(B, I::Enqueue('y')),
        Event::ret(B, O::Ok),
        Event::ret(A, O::Ok),
        Event::call(B, I::Dequeue),
        Event::ret(B, O::Dequeued('x')),
        Event::call(A, I::Dequeue),
        Event::ret(A, O::Dequeued('y')),
        Event::call(A, I::Enqueue('z')),
    ]
}

/// (b): A enq(x) completes before B enq(y); A's deq() returns y: not FIFO.
fn h2() -> Vec<E> {
    vec![
        Event::call(A, I::Enqueue('x')),
        Event::ret(A, O::Ok),
        Event::call(B, I::Enqueue('y')),
        Event::call(A, I::Dequeue),
        Event::ret(B, O::Ok),
        Event::ret(A, O::Dequeued('y')),
    ]
}

/// (c): A enq(x) pending; B deq() → x: the enqueue took effect.
fn h3() -> Vec<E> {
    vec![
        Event::call(A, I::Enqueue('x')),
        Event::call(B, I::Dequeue),
        Event::ret(B, O::Dequeued('x')),
    ]
}

/// (d): enq(x) and enq(y) overlap; two overlapping dequeues both return y.
fn h4() -> Vec<E> {
    vec![
        Event::call(A, I::Enqueue('x')),
        Event::call(B, I::Enqueue('y')),
        Event::ret(A, O::Ok),
        Event::ret(B, O::Ok),
        Event::call(A, I::Dequeue),
        Event::call(C, I::Dequeue),
        Event::ret(A, O::Dequeued('y')),
        Event::ret(C, O::Dequeued('y')),
    ]
}

fn verdict(events: Vec<E>) -> bool {
    let history = History::from_events(events.clone()).unwrap();
    let model = QueueModel::new();
    let report = check(&model, &history, &CheckOptions::default());
    assert!(!report.outcome.is_unknown());
    if let Some(order) = report.outcome.order() {
        verify_linearization(&model, &history, order).unwrap();
    }
    // The online checker agrees.
    let status = run_online(QueueModel::new(), &events);
    assert_eq!(
        status == OnlineStatus::Consistent,
        report.outcome.is_linearizable(),
        "online disagrees"
    );
    report.outcome.is_linearizable()
}

#[test]
fn h1_is_linearizable() {
    assert!(verdict(h1()));
}

#[test]
fn h2_is_not_linearizable() {
    assert!(!verdict(h2()));
}

#[test]
fn h3_is_linearizable_with_the_pending_enqueue_taking_effect() {
    let history = History::from_events(h3()).unwrap();
    let report = check(&QueueModel::new(), &history, &CheckOptions::default());
    let order = report.outcome.order().expect("linearizable");
    assert_eq!(order.len(), 2, "the pending enqueue must be in the linearization");
    assert!(verdict(h3()));
}

#[test]
fn h4_is_not_linearizable_and_the_explanation_names_the_second_dequeue() {
    assert!(!verdict(h4()));
    let history = History::from_events(h4()).unwrap();
    let report = check(&QueueModel::new(), &history, &CheckOptions::default());
    let violation = report.outcome.violation().unwrap();
    // Both enqueues and one dequeue of y linearize; the other dequeue cannot be placed.
    assert_eq!(violation.prefix.len(), 3);
    let text = violation.to_string();
    assert!(text.contains("client 2"), "{text}");
    assert!(text.contains("Dequeued('y')"), "{text}");
    println!("{text}");
}

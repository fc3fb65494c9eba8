//! Every built-in model has a history it must accept and one it must reject (checked whole,
//! online, and partitioned for the P-compositional ones).

mod common;

use common::run_online;
use lineup_histories::models::*;
use lineup_histories::{check, check_partitioned, CheckOptions, Event, History, Model, OnlineStatus, PartitionedModel};

fn verdict<M: Model + Clone>(model: &M, events: Vec<Event<M::Input, M::Output>>) -> bool {
    let history = History::from_events(events.iter().cloned()).unwrap();
    let outcome = check(model, &history, &CheckOptions::default()).outcome;
    assert!(!outcome.is_unknown());
    assert_eq!(
        run_online(model.clone(), &events) == OnlineStatus::Consistent,
        outcome.is_linearizable()
    );
    outcome.is_linearizable()
}

fn verdict_partitioned<M: PartitionedModel + Clone>(model: &M, events: Vec<Event<M::Input, M::Output>>) -> bool {
    let whole = verdict(model, events.clone());
    let history = History::from_events(events).unwrap();
    let parted = check_partitioned(model, &history, &CheckOptions::default())
        .unwrap()
        .outcome;
    assert_eq!(parted.is_linearizable(), whole);
    whole
}

/// Two clients: `a` and `b` overlap, then `c` runs alone.
fn overlap_then<I, O>(a: (I, O), b: (I, O), c: (I, O)) -> Vec<Event<I, O>> {
    vec![
        Event::call(0, a.0),
        Event::call(1, b.0),
        Event::ret(0, a.1),
        Event::ret(1, b.1),
        Event::call(0, c.0),
        Event::ret(0, c.1),
    ]
}

#[test]
fn register() {
    use RegisterInput as I;
    use RegisterOutput as O;
    let m = RegisterModel::new(0i64);
    // The read overlaps the write: it may see either value; the later read must see 1.
    assert!(verdict(
        &m,
        overlap_then((I::Write(1), O::Ok), (I::Read, O::Value(0)), (I::Read, O::Value(1)))
    ));
    assert!(!verdict(
        &m,
        overlap_then((I::Write(1), O::Ok), (I::Read, O::Value(0)), (I::Read, O::Value(0)))
    ));
    // The initial value is configurable.
    assert!(verdict(
        &RegisterModel::new(7i64),
        vec![Event::call(0, I::Read), Event::ret(0, O::Value(7))]
    ));
    assert!(!verdict(
        &RegisterModel::new(7i64),
        vec![Event::call(0, I::Read), Event::ret(0, O::Value(0))]
    ));
}

#[test]
fn key_value_map() {
    let put = |k: &str, v: &str| (KvInput::put(k, v), KvOutput::Ok);
    let append = |k: &str, v: &str| (KvInput::append(k, v), KvOutput::Ok);
    let get = |k: &str, v: &str| (KvInput::get(k), KvOutput::Value(v.to_string()));
    // Missing key reads as "".
    assert!(verdict_partitioned(
        &KvModel,
        overlap_then(get("a", ""), put("b", "1"), get("b", "1"))
    ));
    // Two overlapping appends: either order.
    assert!(verdict_partitioned(
        &KvModel,
        overlap_then(append("a", "x"), append("a", "y"), get("a", "yx"))
    ));
    assert!(verdict_partitioned(
        &KvModel,
        overlap_then(append("a", "x"), append("a", "y"), get("a", "xy"))
    ));
    assert!(!verdict_partitioned(
        &KvModel,
        overlap_then(append("a", "x"), append("a", "y"), get("a", "x"))
    ));
    // Keys are independent.
    assert!(!verdict_partitioned(
        &KvModel,
        overlap_then(put("a", "1"), put("b", "2"), get("a", "2"))
    ));
    // put "" is the same as missing.
    assert!(verdict_partitioned(
        &KvModel,
        overlap_then(put("a", "1"), put("a", ""), get("a", ""))
    ));
}

#[test]
fn set() {
    use SetInput as I;
    let m = SetModel::<i64>::new();
    // The paper's Fig. 1: insert(1):true overlaps remove(1):false; then contains(1):true.
    assert!(verdict_partitioned(
        &m,
        overlap_then((I::Insert(1), true), (I::Remove(1), false), (I::Contains(1), true))
    ));
    // remove(1):true must come after the insert, so contains(1) must be false.
    assert!(!verdict_partitioned(
        &m,
        overlap_then((I::Insert(1), true), (I::Remove(1), true), (I::Contains(1), true))
    ));
    // Two successful inserts of one element are impossible without a remove.
    assert!(!verdict_partitioned(
        &m,
        overlap_then((I::Insert(1), true), (I::Insert(2), true), (I::Insert(1), true))
    ));
    assert!(verdict_partitioned(
        &m,
        overlap_then((I::Insert(1), true), (I::Insert(2), true), (I::Insert(1), false))
    ));
}

#[test]
fn queue() {
    use QueueInput as I;
    use QueueOutput as O;
    let m = QueueModel::<u8>::new();
    assert!(verdict(
        &m,
        overlap_then(
            (I::Enqueue(1), O::Ok),
            (I::Dequeue, O::Empty),
            (I::Dequeue, O::Dequeued(1))
        )
    ));
    assert!(!verdict(
        &m,
        overlap_then((I::Enqueue(1), O::Ok), (I::Dequeue, O::Empty), (I::Dequeue, O::Empty))
    ));
    // FIFO: after enqueue 1 then 2 (sequential), a dequeue cannot return 2.
    let fifo = |second| {
        vec![
            Event::call(0, I::Enqueue(1)),
            Event::ret(0, O::Ok),
            Event::call(0, I::Enqueue(2)),
            Event::ret(0, O::Ok),
            Event::call(1, I::Dequeue),
            Event::ret(1, O::Dequeued(second)),
        ]
    };
    assert!(verdict(&m, fifo(1)));
    assert!(!verdict(&m, fifo(2)));
}

#[test]
fn stack() {
    use StackInput as I;
    use StackOutput as O;
    let m = StackModel::<u8>::new();
    let lifo = |popped| {
        vec![
            Event::call(0, I::Push(1)),
            Event::ret(0, O::Ok),
            Event::call(0, I::Push(2)),
            Event::ret(0, O::Ok),
            Event::call(1, I::Pop),
            Event::ret(1, O::Popped(popped)),
        ]
    };
    assert!(verdict(&m, lifo(2)));
    assert!(!verdict(&m, lifo(1)));
    assert!(verdict(
        &m,
        overlap_then((I::Push(1), O::Ok), (I::Pop, O::Empty), (I::Pop, O::Popped(1)))
    ));
    assert!(!verdict(
        &m,
        overlap_then((I::Push(1), O::Ok), (I::Pop, O::Popped(1)), (I::Pop, O::Popped(1)))
    ));
}

#[test]
fn counter() {
    use CounterInput as I;
    use CounterOutput as O;
    let m = CounterModel::default();
    assert!(verdict(
        &m,
        overlap_then((I::Increment, O::Ok), (I::Add(5), O::Ok), (I::Get, O::Value(6)))
    ));
    assert!(!verdict(
        &m,
        overlap_then((I::Increment, O::Ok), (I::Add(5), O::Ok), (I::Get, O::Value(5)))
    ));
    assert!(verdict(
        &m,
        overlap_then((I::Increment, O::Ok), (I::Get, O::Value(1)), (I::Get, O::Value(1)))
    ));
    assert!(!verdict(
        &m,
        overlap_then((I::Increment, O::Ok), (I::Get, O::Value(2)), (I::Get, O::Value(1)))
    ));
}

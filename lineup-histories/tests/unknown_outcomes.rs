//! Operations whose outcome is unknown (Jepsen `:info`, calls pending at the end): they may
//! take effect at any point after their call, or never; definite outcomes constrain.

mod common;

use common::run_online;
use lineup_histories::models::{
    KvInput, KvModel, KvOutput, QueueInput, QueueModel, QueueOutput, RegisterInput as R, RegisterModel,
    RegisterOutput as RO,
};
use lineup_histories::{check, verify_linearization, CheckOptions, Event, History, Model, OnlineStatus, OpId};

/// WGL verdict (checked against the online checker and, when linearizable, the order).
fn linearizable<M: Model + Clone>(model: &M, events: &[Event<M::Input, M::Output>]) -> (bool, Vec<OpId>) {
    let history = History::from_events(events.iter().cloned()).unwrap();
    let report = check(model, &history, &CheckOptions::default());
    assert!(!report.outcome.is_unknown());
    let online = run_online(model.clone(), events);
    assert_eq!(
        online == OnlineStatus::Consistent,
        report.outcome.is_linearizable(),
        "online disagrees"
    );
    let order = report.outcome.order().map(<[OpId]>::to_vec).unwrap_or_default();
    if report.outcome.is_linearizable() {
        verify_linearization(model, &history, &order).unwrap();
    }
    (report.outcome.is_linearizable(), order)
}

fn register() -> RegisterModel<Option<i64>> {
    RegisterModel::new(None)
}

#[test]
fn an_all_pending_history_is_linearizable_with_nothing_to_linearize() {
    let events = vec![
        Event::call(0, R::Write(Some(1))),
        Event::call(1, R::Read),
        Event::call(
            2,
            R::Cas {
                from: Some(5),
                to: Some(6),
            },
        ),
    ];
    let (ok, order) = linearizable(&register(), &events);
    assert!(ok);
    assert!(
        order.is_empty(),
        "no definite operation, so nothing has to be linearized: {order:?}"
    );
    // Same on a queue, where a pending dequeue from an empty queue could not return anything.
    let events = vec![
        Event::call(0, QueueInput::Dequeue),
        Event::call(1, QueueInput::<u8>::Dequeue),
    ];
    assert!(linearizable(&QueueModel::new(), &events).0);
}

#[test]
fn the_empty_history_is_linearizable() {
    assert!(linearizable(&register(), &[]).0);
}

#[test]
fn an_info_write_must_be_assumed_to_have_happened_when_a_later_read_sees_it() {
    let events = vec![
        Event::call(0, R::Write(Some(1))),
        Event::info(0),
        Event::call(1, R::Read),
        Event::ret(1, RO::Value(Some(1))),
    ];
    let (ok, order) = linearizable(&register(), &events);
    assert!(ok);
    assert_eq!(order, vec![OpId(0), OpId(1)], "the write is linearized before the read");
}

#[test]
fn an_info_write_that_happened_cannot_be_undone() {
    let events = vec![
        Event::call(0, R::Write(Some(1))),
        Event::info(0),
        Event::call(1, R::Read),
        Event::ret(1, RO::Value(Some(1))),
        Event::call(1, R::Read),
        Event::ret(1, RO::Value(None)),
    ];
    assert!(!linearizable(&register(), &events).0);
}

#[test]
fn an_info_write_must_be_assumed_not_to_have_happened_when_later_reads_see_the_old_value() {
    let events = vec![
        Event::call(0, R::Write(Some(1))),
        Event::info(0),
        Event::call(1, R::Read),
        Event::ret(1, RO::Value(None)),
        Event::call(2, R::Read),
        Event::ret(2, RO::Value(None)),
    ];
    let (ok, order) = linearizable(&register(), &events);
    assert!(ok);
    // (It could only go after the last read, where it changes nothing: the search leaves it out.)
    assert_eq!(order, vec![OpId(1), OpId(2)], "the timed-out write is left out");
}

#[test]
fn an_info_append_that_never_happened_and_one_that_did() {
    // append(k, "x") times out; later gets see "" and then "y" after an append of "y":
    // the "x" append never happened (it can only go at the very end).
    let never = vec![
        Event::call(0, KvInput::append("k", "x")),
        Event::info(0),
        Event::call(1, KvInput::get("k")),
        Event::ret(1, KvOutput::Value(String::new())),
        Event::call(1, KvInput::append("k", "y")),
        Event::ret(1, KvOutput::Ok),
        Event::call(1, KvInput::get("k")),
        Event::ret(1, KvOutput::Value("y".into())),
    ];
    let (ok, order) = linearizable(&KvModel, &never);
    assert!(ok);
    assert!(!order.contains(&OpId(0)));
    // The same, but the last get sees "yx": the append happened between the two.
    let mut happened = never.clone();
    happened[7] = Event::ret(1, KvOutput::Value("yx".into()));
    let (ok, order) = linearizable(&KvModel, &happened);
    assert!(ok);
    assert_eq!(order, vec![OpId(1), OpId(2), OpId(0), OpId(3)]);
    // "xyx" would need it twice: impossible.
    let mut twice = never;
    twice[7] = Event::ret(1, KvOutput::Value("xyx".into()));
    assert!(!linearizable(&KvModel, &twice).0);
}

#[test]
fn an_unknown_operation_takes_effect_only_after_its_call() {
    // The read returns before the write is even called: it cannot see it.
    let events = vec![
        Event::call(1, R::Read),
        Event::ret(1, RO::Value(Some(1))),
        Event::call(0, R::Write(Some(1))),
        Event::info(0),
    ];
    assert!(!linearizable(&register(), &events).0);
}

#[test]
fn a_pending_dequeue_must_have_taken_the_element() {
    // enqueue(1) completes; a dequeue stays pending; a later dequeue finds the queue empty.
    let events = vec![
        Event::call(0, QueueInput::Enqueue(1u8)),
        Event::ret(0, QueueOutput::Ok),
        Event::call(1, QueueInput::Dequeue),
        Event::call(0, QueueInput::Dequeue),
        Event::ret(0, QueueOutput::Empty),
    ];
    let (ok, order) = linearizable(&QueueModel::new(), &events);
    assert!(ok);
    assert_eq!(order, vec![OpId(0), OpId(1), OpId(2)]);
}

#[test]
fn a_read_with_an_unknown_outcome_constrains_nothing() {
    let events = vec![
        Event::call(0, R::Write(Some(1))),
        Event::ret(0, RO::Ok),
        Event::call(1, R::Read),
        Event::info(1),
        Event::call(2, R::Read),
        Event::ret(2, RO::Value(Some(1))),
    ];
    assert!(linearizable(&register(), &events).0);
}

#[test]
fn cas_ok_and_fail() {
    let write = |v| [Event::call(0, R::Write(Some(v))), Event::ret(0, RO::Ok)];
    let cas = |from, to, out| {
        [
            Event::call(
                1,
                R::Cas {
                    from: Some(from),
                    to: Some(to),
                },
            ),
            Event::ret(1, out),
        ]
    };
    let read = |v| [Event::call(2, R::Read), Event::ret(2, RO::Value(Some(v)))];
    // ok when the value matches; the read sees the new value.
    let pass: Vec<_> = [write(1), cas(1, 2, RO::Ok), read(2)].concat();
    assert!(linearizable(&register(), &pass).0);
    // fail when it does not match; the value is unchanged.
    let pass: Vec<_> = [write(1), cas(3, 2, RO::Fail), read(1)].concat();
    assert!(linearizable(&register(), &pass).0);
    // ok although the value did not match.
    let fail: Vec<_> = [write(1), cas(3, 2, RO::Ok)].concat();
    assert!(!linearizable(&register(), &fail).0);
    // fail although the value matched.
    let fail: Vec<_> = [write(1), cas(1, 2, RO::Fail)].concat();
    assert!(!linearizable(&register(), &fail).0);
    // a failed cas changes nothing.
    let fail: Vec<_> = [write(1), cas(3, 2, RO::Fail), read(2)].concat();
    assert!(!linearizable(&register(), &fail).0);
}

#[test]
fn an_info_cas_may_have_swapped() {
    // Jepsen style: cas(1→2) times out; a read then sees 2.
    let events = vec![
        Event::call(0, R::Write(Some(1))),
        Event::ret(0, RO::Ok),
        Event::call(
            1,
            R::Cas {
                from: Some(1),
                to: Some(2),
            },
        ),
        Event::info(1),
        Event::call(2, R::Read),
        Event::ret(2, RO::Value(Some(2))),
    ];
    assert!(linearizable(&register(), &events).0);
    // But not to a value it could not produce.
    let mut bad = events;
    bad[5] = Event::ret(2, RO::Value(Some(3)));
    assert!(!linearizable(&register(), &bad).0);
}

/// Unknown operations that change nothing (a read, a compare-and-set that cannot swap) are
/// never worth linearizing, and a configuration with more unknown operations linearized than
/// one already seen (same definite ones, same state) adds nothing: the search skips both, so
/// 24 such operations open across a history that is not linearizable (the search must rule out
/// everything) do not multiply its configurations by 2^24. (Jepsen's etcd_002 went from 1.15
/// million steps to about a hundred.)
#[test]
fn unknown_operations_that_change_nothing_do_not_multiply_the_search() {
    let mut events = Vec::new();
    for client in 0..24u64 {
        let input = if client % 2 == 0 {
            R::Read
        } else {
            R::Cas {
                from: Some(99),
                to: Some(100),
            }
        };
        events.push(Event::call(100 + client, input));
    }
    for i in 0..40i64 {
        events.push(Event::call(0, R::Write(Some(i))));
        events.push(Event::ret(0, RO::Ok));
        events.push(Event::call(1, R::Read));
        events.push(Event::ret(1, RO::Value(Some(i))));
    }
    events.push(Event::call(1, R::Read));
    events.push(Event::ret(1, RO::Value(Some(1000)))); // never written
    let history = History::from_events(events.iter().cloned()).unwrap();
    let options = CheckOptions::default().with_max_cache_entries(1_000_000);
    let report = check(&register(), &history, &options);
    assert!(report.outcome.violation().is_some(), "{:?}", report.outcome);
    assert!(report.stats.steps < 10_000, "{} steps", report.stats.steps);
}

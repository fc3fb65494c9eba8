//! Building histories: malformed event sequences are errors that name the event; explicit
//! times are validated.

use lineup_histories::models::{CounterInput as I, CounterModel, CounterOutput as O};
use lineup_histories::{
    check, CheckOptions, Event, History, HistoryBuilder, HistoryError, OpId, Operation, Outcome, NEVER,
};

#[test]
fn a_return_without_a_call_names_the_event() {
    let err = History::<I, O>::from_events([Event::call(0, I::Get), Event::ret(0, O::Value(0)), Event::ret(0, O::Ok)])
        .unwrap_err();
    assert_eq!(err, HistoryError::ReturnWithoutCall { event: 2, client: 0 });
    assert!(err.to_string().starts_with("event 2:"), "{err}");
}

#[test]
fn a_second_call_while_pending_names_both() {
    let err = History::<I, O>::from_events([
        Event::call(3, I::Get),
        Event::call(4, I::Get),
        Event::call(3, I::Increment),
    ])
    .unwrap_err();
    assert_eq!(
        err,
        HistoryError::CallWhilePending {
            event: 2,
            client: 3,
            pending: OpId(0),
            pending_call: 0
        }
    );
    assert!(err.to_string().contains("op#0"));
}

#[test]
fn an_info_without_a_call_is_an_error_and_an_info_frees_the_client() {
    let mut b = HistoryBuilder::<I, O>::new();
    assert_eq!(b.info(1), Err(HistoryError::InfoWithoutCall { event: 0, client: 1 }));
    b.call(1, I::Increment).unwrap();
    b.info(1).unwrap();
    b.call(1, I::Get).unwrap(); // allowed after info
    b.ret(1, O::Value(1)).unwrap();
    let h = b.build();
    assert_eq!(h[OpId(0)].outcome, Outcome::Unknown);
    assert_eq!(h[OpId(0)].ret, NEVER);
    assert_eq!(h[OpId(1)].call, 2);
    assert_eq!(h[OpId(1)].ret, 3);
    assert!(check(&CounterModel::default(), &h, &CheckOptions::default())
        .outcome
        .is_linearizable());
}

#[test]
fn pending_calls_become_unknown() {
    let h = History::<I, O>::from_events([
        Event::call(0, I::Increment),
        Event::call(1, I::Get),
        Event::ret(1, O::Value(1)),
    ])
    .unwrap();
    assert_eq!(h.unknown_count(), 1);
    assert!(h[OpId(0)].outcome.is_unknown());
}

#[test]
fn explicit_times_are_validated() {
    let ok = History::from_operations(vec![
        Operation::returned(0, I::Increment, O::Ok, 10, 20),
        Operation::returned(1, I::Get, O::Value(1), 15, 25),
        Operation::unknown(0, I::Increment, 21),
    ]);
    assert!(ok.is_ok());
    assert_eq!(
        History::from_operations(vec![Operation::returned(0, I::Get, O::Value(0), 5, 4)]),
        Err(HistoryError::ReturnBeforeCall {
            op: OpId(0),
            call: 5,
            ret: 4
        })
    );
    let mut unknown_with_ret = Operation::<I, O>::unknown(0, I::Get, 1);
    unknown_with_ret.ret = 3;
    assert_eq!(
        History::from_operations(vec![unknown_with_ret]),
        Err(HistoryError::UnknownWithReturn { op: OpId(0), ret: 3 })
    );
    assert_eq!(
        History::from_operations(vec![Operation::returned(0, I::Get, O::Value(0), 1, NEVER)]),
        Err(HistoryError::ReturnedAtNever { op: OpId(0) })
    );
    let overlap = History::from_operations(vec![
        Operation::returned(7, I::Increment, O::Ok, 10, 20),
        Operation::returned(7, I::Get, O::Value(1), 20, 30),
    ]);
    assert_eq!(
        overlap,
        Err(HistoryError::ClientOverlap {
            client: 7,
            first: OpId(0),
            second: OpId(1),
            first_ret: 20,
            second_call: 20
        })
    );
}

#[test]
fn equal_times_of_different_clients_are_concurrent() {
    // The get is called exactly when the increment returns: concurrent, so it may read 0.
    let h = History::from_operations(vec![
        Operation::returned(0, I::Increment, O::Ok, 10, 20),
        Operation::returned(1, I::Get, O::Value(0), 20, 30),
    ])
    .unwrap();
    assert!(check(&CounterModel::default(), &h, &CheckOptions::default())
        .outcome
        .is_linearizable());
    // One tick later, it must read 1.
    let h = History::from_operations(vec![
        Operation::returned(0, I::Increment, O::Ok, 10, 20),
        Operation::returned(1, I::Get, O::Value(0), 21, 30),
    ])
    .unwrap();
    assert!(check(&CounterModel::default(), &h, &CheckOptions::default())
        .outcome
        .is_violation());
}

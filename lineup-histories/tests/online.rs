//! The online checker: violations are reported at the event that makes them certain.

use lineup_histories::models::{
    QueueInput as Q, QueueModel, QueueOutput as QO, RegisterInput as R, RegisterModel, RegisterOutput as RO,
};
use lineup_histories::{HistoryError, OnlineChecker, OnlineStatus, OnlineVerdict, OpId};

#[test]
fn a_stale_read_is_reported_at_its_return_when_nothing_is_pending() {
    let mut c = OnlineChecker::new(RegisterModel::new(0));
    c.call(0, R::Write(1)).unwrap();
    assert_eq!(c.ret(0, RO::Ok).unwrap(), OnlineStatus::Consistent);
    c.call(1, R::Read).unwrap();
    assert_eq!(c.ret(1, RO::Value(0)).unwrap(), OnlineStatus::Violated);
    let OnlineVerdict::Violation(v) = c.verdict() else {
        panic!("violation expected")
    };
    assert_eq!(v.event, 3);
    assert_eq!(v.due, vec![OpId(1)]);
    let text = v.to_string();
    assert!(text.contains("op#1") && text.contains("Read -> Value(0)"), "{text}");
    // Later events are still recorded (and checked for well-formedness).
    c.call(1, R::Read).unwrap();
    assert_eq!(c.ret(1, RO::Value(1)).unwrap(), OnlineStatus::Violated);
    assert_eq!(
        c.ret(1, RO::Value(1)),
        Err(HistoryError::ReturnWithoutCall { event: 6, client: 1 })
    );
    let (history, verdict) = c.finish();
    assert_eq!(history.len(), 3);
    assert!(matches!(verdict, OnlineVerdict::Violation(_)));
}

#[test]
fn a_read_waits_for_the_writes_that_overlap_it() {
    // The read of 5 returns while a write is pending: the write may turn out to be write(5)
    // ... but it is write(7): the violation is reported when the write returns.
    let mut c = OnlineChecker::new(RegisterModel::new(0));
    c.call(0, R::Write(7)).unwrap();
    c.call(1, R::Read).unwrap();
    assert_eq!(c.ret(1, RO::Value(7)).unwrap(), OnlineStatus::Consistent);
    c.call(1, R::Read).unwrap();
    assert_eq!(
        c.ret(1, RO::Value(5)).unwrap(),
        OnlineStatus::Consistent,
        "write(7) still pending"
    );
    assert_eq!(c.ret(0, RO::Ok).unwrap(), OnlineStatus::Violated);
}

#[test]
fn pending_operations_at_the_end_may_have_taken_effect() {
    let mut c = OnlineChecker::new(QueueModel::new());
    c.call(0, Q::Enqueue(1u8)).unwrap();
    c.call(1, Q::Dequeue).unwrap();
    assert_eq!(c.ret(1, QO::Dequeued(1)).unwrap(), OnlineStatus::Consistent);
    let (history, verdict) = c.finish();
    assert_eq!(verdict, OnlineVerdict::Consistent);
    assert_eq!(history.unknown_count(), 1);
}

#[test]
fn the_final_check_at_finish_catches_what_was_not_yet_due() {
    // The dequeue of 2 overlaps a pending enqueue that never returns: not due until finish,
    // where the pending enqueue of 1 cannot explain it.
    let mut c = OnlineChecker::new(QueueModel::new());
    c.call(0, Q::Enqueue(1u8)).unwrap();
    c.call(1, Q::Dequeue).unwrap();
    assert_eq!(c.ret(1, QO::Dequeued(2)).unwrap(), OnlineStatus::Consistent);
    assert!(matches!(c.finish().1, OnlineVerdict::Violation(_)));
}

#[test]
fn possibilities_collapse_when_operations_settle() {
    let mut c = OnlineChecker::new(RegisterModel::new(0));
    for client in 0..3 {
        c.call(client, R::Write(client as i64)).unwrap();
    }
    for client in 0..3 {
        c.ret(client, RO::Ok).unwrap();
    }
    assert_eq!(c.possibilities(), 3, "any of the three writes may be last");
    c.call(0, R::Read).unwrap();
    c.ret(0, RO::Value(2)).unwrap();
    assert_eq!(c.possibilities(), 1);
}

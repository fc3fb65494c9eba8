//! Limits give "unknown", never a guessed verdict.

use std::time::Duration;

use lineup_histories::models::{RegisterInput as R, RegisterModel, RegisterOutput as RO, SetInput, SetModel};
use lineup_histories::{check, check_partitioned, CheckOptions, Event, History, OnlineChecker, UnknownReason};

/// `n` overlapping writes of distinct values, then a read of a value none wrote: not
/// linearizable, but the search must try every subset of the writes (n · 2^n configurations).
fn pathological(n: u64) -> History<R<i64>, RO<i64>> {
    let mut events = Vec::new();
    for c in 0..n {
        events.push(Event::call(c, R::Write(c as i64 + 1)));
    }
    events.push(Event::call(n, R::Read));
    for c in 0..n {
        events.push(Event::ret(c, RO::Ok));
    }
    events.push(Event::ret(n, RO::Value(-1)));
    History::from_events(events).unwrap()
}

#[test]
fn a_tiny_time_limit_on_a_pathological_history_gives_unknown() {
    let h = pathological(22);
    let options = CheckOptions::default().with_time_limit(Duration::from_millis(20));
    let report = check(&RegisterModel::new(0), &h, &options);
    assert!(!report.outcome.is_linearizable(), "never a wrong verdict");
    assert_eq!(
        report.outcome,
        lineup_histories::CheckOutcome::Unknown {
            reason: UnknownReason::TimeLimit {
                limit: Duration::from_millis(20)
            }
        }
    );
    assert!(report.outcome.to_string().starts_with("unknown"));
}

#[test]
fn a_small_pathological_history_gets_its_verdict_without_limits() {
    let report = check(&RegisterModel::new(0), &pathological(8), &CheckOptions::default());
    assert!(report.outcome.is_violation());
    assert!(
        report.stats.cache_entries > 256,
        "every subset of the 8 writes is visited: {}",
        report.stats.cache_entries
    );
}

#[test]
fn a_cache_limit_gives_unknown() {
    let options = CheckOptions::default().with_max_cache_entries(100);
    let report = check(&RegisterModel::new(0), &pathological(12), &options);
    assert_eq!(
        report.outcome,
        lineup_histories::CheckOutcome::Unknown {
            reason: UnknownReason::CacheLimit { entries: 100 }
        }
    );
}

#[test]
fn a_limit_in_one_partition_gives_unknown_unless_another_partition_fails() {
    // Element 1: a long linearizable run; element 2: a direct violation.
    let mut events = Vec::new();
    for _ in 0..200 {
        events.push(Event::call(0, SetInput::Insert(1)));
        events.push(Event::ret(0, true));
        events.push(Event::call(0, SetInput::Remove(1)));
        events.push(Event::ret(0, true));
    }
    let h = History::from_events(events.clone()).unwrap();
    let tight = CheckOptions::default().with_max_cache_entries(10);
    let report = check_partitioned(&SetModel::<u8>::new(), &h, &tight).unwrap();
    assert!(report.outcome.is_unknown());
    events.push(Event::call(1, SetInput::Contains(2)));
    events.push(Event::ret(1, true));
    let h = History::from_events(events).unwrap();
    let report = check_partitioned(&SetModel::<u8>::new(), &h, &tight).unwrap();
    assert!(
        report.outcome.is_violation(),
        "a violation found in one part is definite"
    );
}

#[test]
fn the_online_checker_gives_up_past_its_bound() {
    let mut c = OnlineChecker::new(RegisterModel::new(0)).with_max_possibilities(4);
    for client in 0..6 {
        c.call(client, R::Write(client as i64 + 1)).unwrap();
    }
    for client in 0..6 {
        c.ret(client, RO::Ok).unwrap();
    }
    assert_eq!(c.status(), lineup_histories::OnlineStatus::GaveUp);
    assert!(c.verdict_text().starts_with("unknown"));
}

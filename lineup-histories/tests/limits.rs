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

/// Issue 12: the search has a memory budget; past it the verdict is unknown, with what was
/// explored, never an out-of-memory kill. (`pathological(24)` needs about 24 · 2^24
/// configurations, several GiB.)
#[test]
fn a_small_memory_budget_gives_unknown_with_what_was_explored() {
    let budget = 4 << 20;
    let options = CheckOptions::default().with_max_memory(budget);
    let report = check(&RegisterModel::new(0), &pathological(24), &options);
    assert_eq!(
        report.outcome,
        lineup_histories::CheckOutcome::Unknown {
            reason: UnknownReason::MemoryLimit { bytes: budget }
        }
    );
    assert!(
        report.outcome.to_string().contains("memory budget of 4.0 MiB"),
        "{}",
        report.outcome
    );
    assert!(report.stats.cache_entries > 10_000, "{:?}", report.stats);
    assert!(report.stats.peak_memory <= budget, "{:?}", report.stats);
    // The budget is used, not wildly undershot: the cache is its hash table (keys of a word or
    // two are kept in the entries), and a table that would double past the budget (old and new
    // table both live while it moves: three times the old one) stops the search, so the peak
    // is at least about a third of the budget.
    assert!(report.stats.peak_memory > budget / 3, "{:?}", report.stats);
}

#[test]
fn the_memory_budget_is_shared_by_the_partitions_and_a_failure_elsewhere_still_wins() {
    // Elements 0..4: each n overlapping inserts... a set element has two states, so use
    // registers by key: the kv model with puts of distinct values on keys "a" and "b".
    use lineup_histories::models::{KvInput, KvModel, KvOutput};
    let hard = |keys: &[&str], n: u64| {
        let mut events = Vec::new();
        let mut client = 0;
        for key in keys {
            for c in 0..n {
                events.push(Event::call(client + c, KvInput::put(*key, c.to_string())));
            }
            events.push(Event::call(client + n, KvInput::get(*key)));
            for c in 0..n {
                events.push(Event::ret(client + c, KvOutput::Ok));
            }
            events.push(Event::ret(client + n, KvOutput::Value("never written".into())));
            client += n + 1;
        }
        events
    };
    let budget = 4 << 20;
    for workers in [1, 2] {
        let options = CheckOptions::default().with_max_memory(budget).with_workers(workers);
        let h = History::from_events(hard(&["a", "b"], 22)).unwrap();
        let report = check_partitioned(&KvModel, &h, &options).unwrap();
        assert_eq!(
            report.outcome,
            lineup_histories::CheckOutcome::Unknown {
                reason: UnknownReason::MemoryLimit { bytes: budget }
            },
            "workers = {workers}"
        );
        // Each search reports what it holds every 64 KiB (1/64 of the budget) or so.
        assert!(report.stats.peak_memory <= budget + (64 << 10), "{:?}", report.stats);
        // A small failing part after the hard ones: the verdict is its failure.
        let mut events = hard(&["a", "b"], 22);
        events.push(Event::call(100, KvInput::get("c")));
        events.push(Event::ret(100, KvOutput::Value("x".into())));
        let h = History::from_events(events).unwrap();
        let report = check_partitioned(&KvModel, &h, &options).unwrap();
        let violation = report.outcome.violation().expect("c was never written");
        assert_eq!(violation.partition.as_deref(), Some("\"c\""));
    }
}

#[test]
fn the_default_memory_budget_is_a_fraction_of_the_machine() {
    assert_eq!(CheckOptions::default().max_memory, lineup_histories::MemoryLimit::Auto);
    let budget = lineup_histories::default_memory_budget();
    assert!(budget > 0);
    if let Ok(meminfo) = std::fs::read_to_string("/proc/meminfo") {
        let total_kib: u64 = meminfo
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap();
        assert!(budget <= total_kib * 1024 / 2, "{budget} > half of {total_kib} KiB");
    }
}

/// Issue 12: the online checker has a memory budget too; past it, no verdict (never a guess).
#[test]
fn the_online_checker_gives_up_past_its_memory_budget() {
    let run = |budget: u64| {
        let mut c = OnlineChecker::new(RegisterModel::new(0)).with_max_memory(budget);
        for client in 0..12 {
            c.call(client, R::Write(client as i64 + 1)).unwrap();
        }
        c.call(12, R::Read).unwrap();
        for client in 0..12 {
            c.ret(client, RO::Ok).unwrap();
        }
        c.ret(12, RO::Value(5)).unwrap();
        c
    };
    let small = run(64 << 10);
    assert_eq!(small.status(), lineup_histories::OnlineStatus::GaveUp);
    assert_eq!(
        small.verdict(),
        &lineup_histories::OnlineVerdict::Unknown(UnknownReason::MemoryLimit { bytes: 64 << 10 })
    );
    assert!(
        small.verdict_text().starts_with("unknown: memory budget"),
        "{}",
        small.verdict_text()
    );
    // With room, the same history is consistent so far (write 5 may have gone last).
    let roomy = run(256 << 20);
    assert_eq!(roomy.status(), lineup_histories::OnlineStatus::Consistent);
    assert!(roomy.held_memory() > 0);
}

//! P-compositional partitioning: refused when an operation has no key, the first failure stops
//! the other parts, the failing partition reported, ids of the original history, and the same
//! verdict as the whole check.

use lineup_histories::models::{KvInput, KvModel, KvOutput, SetInput, SetModel};
use lineup_histories::{
    check, check_partitioned, partition_history, CheckOptions, Event, History, Model, OpId, PartitionError,
    PartitionedModel, Successors,
};

/// A set with a `Size` operation: `Size` spans every element, so it has no partition key.
#[derive(Clone)]
struct SizedSet;

#[derive(Clone, Debug, PartialEq, Eq)]
enum SizedInput {
    Insert(u8),
    Size,
}

impl Model for SizedSet {
    type State = std::collections::BTreeSet<u8>;
    type Input = SizedInput;
    type Output = usize;

    fn init(&self) -> Self::State {
        Default::default()
    }

    fn step(&self, state: &Self::State, input: &SizedInput, output: &usize) -> Successors<Self::State> {
        match input {
            SizedInput::Insert(x) => Successors::accept_if(*output == usize::from(!state.contains(x)), || {
                let mut next = state.clone();
                next.insert(*x);
                next
            }),
            SizedInput::Size => Successors::accept_if(*output == state.len(), || state.clone()),
        }
    }

    fn step_unknown(&self, state: &Self::State, input: &SizedInput) -> Successors<Self::State> {
        let mut next = state.clone();
        if let SizedInput::Insert(x) = input {
            next.insert(*x);
        }
        Successors::one(next)
    }
}

impl PartitionedModel for SizedSet {
    type Key = u8;
    type Part = SizedSet;

    fn partition_key(&self, input: &SizedInput) -> Option<u8> {
        match input {
            SizedInput::Insert(x) => Some(*x),
            SizedInput::Size => None,
        }
    }

    fn part_model(&self, _key: &u8) -> SizedSet {
        SizedSet
    }
}

#[test]
fn partitioning_is_refused_when_an_operation_spans_keys() {
    // Linearizable only as a whole: size 2 after two inserts of different elements.
    let h = History::from_events([
        Event::call(0, SizedInput::Insert(1)),
        Event::ret(0, 1),
        Event::call(0, SizedInput::Insert(2)),
        Event::ret(0, 1),
        Event::call(1, SizedInput::Size),
        Event::ret(1, 2),
    ])
    .unwrap();
    let err = check_partitioned(&SizedSet, &h, &CheckOptions::default()).unwrap_err();
    assert_eq!(
        err,
        PartitionError::MissingKey {
            op: OpId(2),
            input: "Size".into()
        }
    );
    assert!(err.to_string().contains("op#2"), "{err}");
    // Whole, it is checked (and linearizable).
    assert!(check(&SizedSet, &h, &CheckOptions::default()).outcome.is_linearizable());
    // With partitioning off, check_partitioned checks it whole too.
    let whole = check_partitioned(&SizedSet, &h, &CheckOptions::default().with_partitioning(false)).unwrap();
    assert!(whole.outcome.is_linearizable());
    assert_eq!(whole.stats.partitions, 1);
}

fn kv_history_failing_on_keys_b_and_d() -> History<KvInput, KvOutput> {
    let mut events = Vec::new();
    for (client, key) in ["d", "a", "b", "c"].iter().enumerate() {
        events.push(Event::call(client as u64, KvInput::put(*key, "1")));
    }
    for client in 0..4u64 {
        events.push(Event::ret(client, KvOutput::Ok));
    }
    for (client, (key, seen)) in [("d", "2"), ("a", "1"), ("b", "3"), ("c", "1")].iter().enumerate() {
        events.push(Event::call(client as u64, KvInput::get(*key)));
        events.push(Event::ret(client as u64, KvOutput::Value(seen.to_string())));
    }
    History::from_events(events).unwrap()
}

#[test]
fn small_failing_parts_report_the_first_failing_one_in_key_order_whatever_the_workers() {
    let h = kv_history_failing_on_keys_b_and_d();
    for workers in 1..=4 {
        let report = check_partitioned(&KvModel, &h, &CheckOptions::default().with_workers(workers)).unwrap();
        let violation = report.outcome.violation().expect("b and d are stale");
        assert_eq!(violation.partition.as_deref(), Some("\"b\""), "workers = {workers}");
        // Ids are those of the original history: put(b) is op 2, get(b) is op 6.
        assert_eq!(violation.prefix, vec![OpId(2)]);
        assert_eq!(violation.blocking, Some(OpId(6)));
        assert!(violation.to_string().contains("in partition \"b\""));
    }
}

#[test]
fn partitions_are_in_key_order_and_cover_the_history() {
    let h = kv_history_failing_on_keys_b_and_d();
    let parts = partition_history(&KvModel, &h).unwrap();
    let keys: Vec<&str> = parts.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["a", "b", "c", "d"]);
    let mut all: Vec<OpId> = parts.iter().flat_map(|(_, ids)| ids.iter().copied()).collect();
    all.sort();
    assert_eq!(all, (0..h.len()).map(OpId).collect::<Vec<_>>());
}

#[test]
fn a_linearizable_partitioned_history_gets_a_merged_order() {
    // Fig. 1 of Horn & Kroening, with a second element interleaved.
    let h = History::from_events([
        Event::call(0, SetInput::Insert(1)),
        Event::call(1, SetInput::Remove(1)),
        Event::call(2, SetInput::Insert(2)),
        Event::ret(0, true),
        Event::ret(1, false),
        Event::call(0, SetInput::Contains(1)),
        Event::ret(2, true),
        Event::ret(0, true),
        Event::call(1, SetInput::Contains(2)),
        Event::ret(1, true),
    ])
    .unwrap();
    let report = check_partitioned(&SetModel::<u8>::new(), &h, &CheckOptions::default()).unwrap();
    assert_eq!(report.stats.partitions, 2);
    let order = report.outcome.order().unwrap();
    lineup_histories::verify_linearization(&SetModel::<u8>::new(), &h, order).unwrap();
}

#[test]
fn an_empty_history_has_no_partition_and_is_linearizable() {
    let h: History<KvInput, KvOutput> = History::from_events([]).unwrap();
    let report = check_partitioned(&KvModel, &h, &CheckOptions::default()).unwrap();
    assert!(report.outcome.is_linearizable());
    assert_eq!(report.stats.partitions, 0);
}

/// Key "a": `n` overlapping puts of distinct values, then a get of a value none of them wrote:
/// not linearizable, but the search must try every subset of the puts (about n · 2^n
/// configurations) before it can say so. Key "b": a put, then a get that misses it: not
/// linearizable, found in a few steps.
fn hard_a_and_fast_failing_b(n: u64, with_b: bool) -> History<KvInput, KvOutput> {
    let mut events = Vec::new();
    for client in 0..n {
        events.push(Event::call(client, KvInput::put("a", client.to_string())));
    }
    events.push(Event::call(n, KvInput::get("a")));
    for client in 0..n {
        events.push(Event::ret(client, KvOutput::Ok));
    }
    events.push(Event::ret(n, KvOutput::Value("never written".into())));
    if !with_b {
        return History::from_events(events).unwrap();
    }
    events.push(Event::call(n + 1, KvInput::put("b", "1")));
    events.push(Event::ret(n + 1, KvOutput::Ok));
    events.push(Event::call(n + 1, KvInput::get("b")));
    events.push(Event::ret(n + 1, KvOutput::Value(String::new())));
    History::from_events(events).unwrap()
}

/// Regression (issue 12): a partition that fails fast stops every other one, also those
/// earlier in key order (porcupine's behaviour). A hard partition earlier in key order used to
/// keep working until it ended, however long that took and however much memory it needed.
#[test]
fn a_fast_failing_partition_stops_a_hard_one_earlier_in_key_order() {
    let h = hard_a_and_fast_failing_b(15, true);
    assert_eq!(partition_history(&KvModel, &h).unwrap()[0].0, "a");
    // The full search of "a" alone, for scale.
    let a_alone = check(
        &KvModel,
        &hard_a_and_fast_failing_b(15, false),
        &CheckOptions::default(),
    );
    assert!(a_alone.outcome.is_violation());
    let full = a_alone.stats.steps;
    assert!(full > 400_000, "{full}");
    for workers in [1, 2, 4] {
        let report = check_partitioned(&KvModel, &h, &CheckOptions::default().with_workers(workers)).unwrap();
        let violation = report.outcome.violation().expect("b is stale");
        assert_eq!(violation.partition.as_deref(), Some("\"b\""), "workers = {workers}");
        assert!(
            report.stats.steps < full / 3,
            "workers = {workers}: {} steps, where the full search of \"a\" takes {full}: it was not stopped",
            report.stats.steps
        );
    }
}

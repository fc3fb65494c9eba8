//! Property tests: on random histories (seeded, the seed is printed), the WGL search agrees
//! with a brute-force reference, with the online checker, and, for P-compositional models,
//! with the partitioned check; every linearization it returns is valid.

mod common;

use common::*;
use lineup_histories::models::{CounterModel, KvModel, QueueModel, RegisterModel, SetModel, StackModel};
use lineup_histories::{
    check, check_partitioned, verify_linearization, CheckOptions, Event, History, Model, OnlineStatus, PartitionedModel,
};

/// Checks one history every way; returns the verdict.
fn agree<M: Model + Clone>(model: &M, events: &[Event<M::Input, M::Output>], brute: bool, case: usize) -> bool {
    let history = History::from_events(events.iter().cloned()).unwrap();
    let report = check(model, &history, &CheckOptions::default());
    assert!(!report.outcome.is_unknown(), "case {case}: no limit, so a verdict");
    let verdict = report.outcome.is_linearizable();
    if let Some(order) = report.outcome.order() {
        verify_linearization(model, &history, order).unwrap_or_else(|e| panic!("case {case}: {e}"));
    }
    if brute {
        assert_eq!(
            brute_force(model, &history),
            verdict,
            "case {case}: WGL disagrees with brute force\n{history:?}"
        );
    }
    let online = run_online(model.clone(), events);
    assert_eq!(
        online == OnlineStatus::Consistent,
        verdict,
        "case {case}: online disagrees\n{history:?}"
    );
    verdict
}

fn agree_partitioned<M: PartitionedModel + Clone>(model: &M, events: &[Event<M::Input, M::Output>], case: usize) {
    let history = History::from_events(events.iter().cloned()).unwrap();
    let whole = check(model, &history, &CheckOptions::default()).outcome;
    for workers in [1, 3] {
        let parted = check_partitioned(model, &history, &CheckOptions::default().with_workers(workers)).unwrap();
        assert_eq!(
            parted.outcome.is_linearizable(),
            whole.is_linearizable(),
            "case {case}: partitioned disagrees"
        );
        if let Some(order) = parted.outcome.order() {
            // The merged order is a linearization of the whole history for the whole model.
            verify_linearization(model, &history, order).unwrap_or_else(|e| panic!("case {case}: {e}"));
        }
    }
}

/// Runs `cases` random histories; asserts that both verdicts occur.
fn property<M: Model + Clone, S, F>(name: &str, default_seed: u64, cases: usize, model: M, sim: F, brute: bool)
where
    F: Fn(&mut rand_chacha::ChaCha8Rng) -> Vec<Event<M::Input, M::Output>>,
{
    let seed = seed(default_seed);
    let mut rng = rng(seed);
    let (mut yes, mut no) = (0, 0);
    for case in 0..cases {
        let events = sim(&mut rng);
        if agree(&model, &events, brute, case) {
            yes += 1;
        } else {
            no += 1;
        }
    }
    println!("{name}: {yes} linearizable, {no} not");
    assert!(
        yes > 0 && no > 0,
        "{name}: the generator should produce both verdicts ({yes}/{no})"
    );
    let _ = std::marker::PhantomData::<S>;
}

#[test]
fn register_small_histories_agree_with_brute_force_and_online() {
    property::<_, (), _>(
        "register",
        1,
        300,
        RegisterModel::new(None),
        |rng| register_sim(3, 6, 0.15, 0.2).run(rng),
        true,
    );
}

#[test]
fn queue_small_histories_agree_with_brute_force_and_online() {
    property::<_, (), _>(
        "queue",
        2,
        300,
        QueueModel::<u8>::new(),
        |rng| queue_sim(3, 6, 0.1, 0.2).run(rng),
        true,
    );
}

#[test]
fn stack_small_histories_agree_with_brute_force_and_online() {
    property::<_, (), _>(
        "stack",
        3,
        300,
        StackModel::<u8>::new(),
        |rng| stack_sim(3, 6, 0.1, 0.2).run(rng),
        true,
    );
}

#[test]
fn counter_small_histories_agree_with_brute_force_and_online() {
    property::<_, (), _>(
        "counter",
        4,
        300,
        CounterModel::default(),
        |rng| counter_sim(3, 6, 0.1, 0.2).run(rng),
        true,
    );
}

#[test]
fn set_small_histories_agree_with_brute_force_and_online() {
    property::<_, (), _>(
        "set",
        5,
        300,
        SetModel::<i64>::new(),
        |rng| set_sim(3, 6, 2, 0.1, 0.2).run(rng),
        true,
    );
}

#[test]
fn kv_small_histories_agree_with_brute_force_and_online() {
    property::<_, (), _>("kv", 6, 300, KvModel, |rng| kv_sim(3, 6, 0.1, 0.2).run(rng), true);
}

#[test]
fn medium_register_histories_wgl_and_online_agree() {
    property::<_, (), _>(
        "register-40",
        7,
        60,
        RegisterModel::new(None),
        |rng| register_sim(4, 40, 0.05, 0.02).run(rng),
        false,
    );
}

#[test]
fn medium_queue_histories_wgl_and_online_agree() {
    property::<_, (), _>(
        "queue-40",
        8,
        60,
        QueueModel::<u8>::new(),
        |rng| queue_sim(4, 40, 0.02, 0.02).run(rng),
        false,
    );
}

#[test]
fn partitioned_and_whole_agree_on_sets() {
    let seed = seed(9);
    let mut rng = rng(seed);
    for case in 0..150 {
        let events = set_sim(4, 30, 3, 0.05, 0.03).run(&mut rng);
        agree_partitioned(&SetModel::<i64>::new(), &events, case);
    }
}

#[test]
fn partitioned_and_whole_agree_on_maps() {
    let seed = seed(10);
    let mut rng = rng(seed);
    for case in 0..150 {
        let events = kv_sim(4, 30, 0.05, 0.03).run(&mut rng);
        agree_partitioned(&KvModel, &events, case);
    }
}

/// Many operations with an unknown outcome (the search skips configurations subsumed by one
/// with fewer unknown operations linearized): still the brute-force verdict.
#[test]
fn histories_with_many_unknown_outcomes_agree_with_brute_force() {
    property::<_, (), _>(
        "register-info",
        11,
        300,
        RegisterModel::new(None),
        |rng| register_sim(3, 7, 0.4, 0.2).run(rng),
        true,
    );
    property::<_, (), _>("kv-info", 12, 300, KvModel, |rng| kv_sim(3, 7, 0.4, 0.2).run(rng), true);
    property::<_, (), _>(
        "queue-info",
        13,
        300,
        QueueModel::<u8>::new(),
        |rng| queue_sim(3, 7, 0.4, 0.2).run(rng),
        true,
    );
}

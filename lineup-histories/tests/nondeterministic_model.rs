//! Nondeterministic models: a step may lead to several states, and the checkers branch.

mod common;

use common::*;
use lineup_histories::models::{RegisterInput as R, RegisterOutput as RO};
use lineup_histories::{check, verify_linearization, CheckOptions, Event, History, Model, OnlineStatus, Successors};

/// A register whose writes may be lost: a write that returned `Ok` leaves either the new
/// value or the old one (a deliberately weak specification).
#[derive(Clone)]
struct LossyRegister;

impl Model for LossyRegister {
    type State = Option<i64>;
    type Input = R<Option<i64>>;
    type Output = RO<Option<i64>>;

    fn init(&self) -> Option<i64> {
        None
    }

    fn step(&self, state: &Option<i64>, input: &Self::Input, output: &Self::Output) -> Successors<Option<i64>> {
        match (input, output) {
            (R::Read, RO::Value(v)) => Successors::accept_if(v == state, || *state),
            // The old value first, so that the search must also try the second branch.
            (R::Write(v), RO::Ok) => Successors::many(vec![*state, *v]),
            (R::Cas { from, to }, RO::Ok) => Successors::accept_if(from == state, || *to),
            (R::Cas { from, .. }, RO::Fail) => Successors::accept_if(from != state, || *state),
            _ => Successors::rejected(),
        }
    }

    fn step_unknown(&self, state: &Option<i64>, input: &Self::Input) -> Successors<Option<i64>> {
        match input {
            R::Read => Successors::one(*state),
            R::Write(v) => Successors::many(vec![*state, *v]),
            R::Cas { from, to } if from == state => Successors::one(*to),
            R::Cas { .. } => Successors::one(*state),
        }
    }
}

/// A model that picks one of two values on `Write(_)` whatever its argument: only a later read
/// tells which.
#[derive(Clone)]
struct Coin;

impl Model for Coin {
    type State = Option<i64>;
    type Input = R<Option<i64>>;
    type Output = RO<Option<i64>>;

    fn init(&self) -> Option<i64> {
        None
    }

    fn step(&self, state: &Option<i64>, input: &Self::Input, output: &Self::Output) -> Successors<Option<i64>> {
        match (input, output) {
            (R::Read, RO::Value(v)) => Successors::accept_if(v == state, || *state),
            (R::Write(_), RO::Ok) => Successors::many(vec![Some(1), Some(2), Some(1)]),
            _ => Successors::rejected(),
        }
    }

    fn step_unknown(&self, state: &Option<i64>, input: &Self::Input) -> Successors<Option<i64>> {
        match input {
            R::Write(_) => Successors::many(vec![Some(1), Some(2)]),
            _ => Successors::one(*state),
        }
    }
}

fn verdict<M: Model + Clone>(model: &M, events: &[Event<M::Input, M::Output>]) -> bool {
    let history = History::from_events(events.iter().cloned()).unwrap();
    let outcome = check(model, &history, &CheckOptions::default()).outcome;
    assert!(!outcome.is_unknown());
    assert_eq!(
        brute_force(model, &history),
        outcome.is_linearizable(),
        "brute force disagrees"
    );
    assert_eq!(
        run_online(model.clone(), events) == OnlineStatus::Consistent,
        outcome.is_linearizable()
    );
    if let Some(order) = outcome.order() {
        verify_linearization(model, &history, order).unwrap();
    }
    outcome.is_linearizable()
}

#[test]
fn the_search_tries_every_next_state() {
    let write_then_read = |v| {
        vec![
            Event::call(0, R::Write(None)),
            Event::ret(0, RO::Ok),
            Event::call(1, R::Read),
            Event::ret(1, RO::Value(v)),
        ]
    };
    assert!(verdict(&Coin, &write_then_read(Some(1))));
    assert!(verdict(&Coin, &write_then_read(Some(2))), "the second branch");
    assert!(!verdict(&Coin, &write_then_read(Some(3))));
    assert!(!verdict(&Coin, &write_then_read(None)));
}

#[test]
fn a_lost_write_is_allowed_by_the_lossy_model_only() {
    let events = vec![
        Event::call(0, R::Write(Some(1))),
        Event::ret(0, RO::Ok),
        Event::call(1, R::Read),
        Event::ret(1, RO::Value(None)),
    ];
    assert!(verdict(&LossyRegister, &events));
    assert!(!verdict(&lineup_histories::models::RegisterModel::new(None), &events));
    // Even a lossy register cannot invent a value.
    let mut invented = events;
    invented[3] = Event::ret(1, RO::Value(Some(5)));
    assert!(!verdict(&LossyRegister, &invented));
}

#[test]
fn random_histories_on_a_nondeterministic_model_agree_with_brute_force_and_online() {
    let seed = seed(21);
    let mut rng = rng(seed);
    let (mut yes, mut no) = (0, 0);
    for _ in 0..300 {
        let events = register_sim(3, 6, 0.15, 0.3).run(&mut rng);
        if verdict(&LossyRegister, &events) {
            yes += 1;
        } else {
            no += 1;
        }
    }
    println!("{yes} linearizable, {no} not");
    assert!(yes > 0 && no > 0);
}

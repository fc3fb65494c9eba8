//! Explanations: a violation's prefix is a valid linearization prefix, the blocking operation
//! is not in it, and the timeline shows the operations involved.

mod common;

use common::*;
use lineup_histories::models::{RegisterInput as R, RegisterModel, RegisterOutput as RO};
use lineup_histories::{check, CheckOptions, Event, History, Model, OpId, TimelineMark};

/// Replays `prefix` on the model (any branch), checking real time among its operations and
/// against the operations left out: none of those may have returned before a prefix operation
/// was called.
fn assert_valid_prefix<M: Model>(model: &M, history: &History<M::Input, M::Output>, prefix: &[OpId]) {
    let mut states = vec![model.init()];
    for (i, &id) in prefix.iter().enumerate() {
        let op = &history[id];
        for &later in &prefix[i + 1..] {
            assert!(
                !history[later].precedes(op),
                "{later} precedes {id} but is ordered after it"
            );
        }
        for (other, o) in history.iter() {
            if !prefix.contains(&other) && !o.outcome.is_unknown() {
                assert!(
                    !o.precedes(op),
                    "{other} is left out, but it precedes {id} which is placed"
                );
            }
        }
        let mut next = Vec::new();
        for s in &states {
            let successors = match op.output() {
                Some(output) => model.step(s, &op.input, output),
                None => model.step_unknown(s, &op.input),
            };
            next.extend(successors);
        }
        assert!(!next.is_empty(), "the model rejects {id} at position {i} of the prefix");
        states = next;
    }
}

#[test]
fn violations_of_random_histories_have_valid_prefixes_and_blocking_operations() {
    let seed = seed(31);
    let mut rng = rng(seed);
    let model = RegisterModel::new(None);
    let mut violations = 0;
    for case in 0..200 {
        let events = register_sim(4, 25, 0.05, 0.05).run(&mut rng);
        let history = History::from_events(events).unwrap();
        let outcome = check(&model, &history, &CheckOptions::default()).outcome;
        let Some(v) = outcome.violation() else { continue };
        violations += 1;
        assert_valid_prefix(&model, &history, &v.prefix);
        let blocking = v
            .blocking
            .unwrap_or_else(|| panic!("case {case}: a definite operation blocks"));
        assert!(!v.prefix.contains(&blocking));
        assert!(!history[blocking].outcome.is_unknown());
        for id in &v.unplaced {
            assert!(!v.prefix.contains(id));
        }
        let text = v.to_string();
        assert!(
            text.contains(&format!("{blocking} returned before it could be placed")),
            "{text}"
        );
        let shown: Vec<OpId> = v.timeline.ops.iter().map(|op| op.id).collect();
        assert!(shown.contains(&blocking));
        assert!(v
            .timeline
            .ops
            .iter()
            .any(|op| op.id == blocking && op.mark == TimelineMark::Blocking));
        for op in &v.timeline.ops {
            assert!(text.contains(&format!("client {}", op.client)));
        }
    }
    println!("{violations} violations explained");
    assert!(violations > 10);
}

#[test]
fn a_timeline_draws_unknown_outcomes_as_open_intervals() {
    let events = vec![
        Event::call(0, R::Write(Some(1))),
        Event::info(0),
        Event::call(1, R::Read),
        Event::ret(1, RO::Value(Some(1))),
        Event::call(2, R::Read),
        Event::ret(2, RO::Value(None)),
    ];
    let history = History::from_events(events).unwrap();
    let outcome = check(&RegisterModel::new(None), &history, &CheckOptions::default()).outcome;
    let v = outcome.violation().expect("the write cannot be undone");
    assert_eq!(v.prefix, vec![OpId(0), OpId(1)]);
    assert_eq!(v.blocking, Some(OpId(2)));
    assert_eq!(v.state, "Some(1)");
    let text = v.to_string();
    assert!(text.contains("Write(Some(1)) -> ?"), "{text}");
    assert!(text.contains(">"), "an open-ended interval: {text}");
    assert!(text.contains("[0, never]"), "{text}");
}

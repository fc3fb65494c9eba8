//! Replay tokens: the schedule of a reported violation re-runs exactly (`lineup::replay`), tokens
//! print and parse back, and bad tokens are rejected with a message that says what is wrong.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, replay, CheckError, Config, Phase, ReplayToken, StuckKind, TestMatrix, Violation, ViolationKind};
use objects::counters::{counter1, counter2};
use objects::spin::race;

/// inc, get | inc, get
fn inc_get_2x2() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 1], vec![0, 1]])
}

/// The violation `check` reports for Counter1 on `inc_get_2x2` (a lost update).
fn counter1_violation(config: &Config) -> Violation {
    let verdict = check(&counter1(), &inc_get_2x2(), config).unwrap();
    let violation = verdict.violation().expect("Counter1 loses updates").clone();
    assert!(
        matches!(violation.kind, ViolationKind::NotLinearizable { .. }),
        "expected a full history without serial witness:\n{violation}"
    );
    violation
}

/// The message of a token that does not parse.
fn parse_error(token: &str) -> String {
    match token.parse::<ReplayToken>() {
        Ok(t) => panic!("`{token}` parsed as {t:?}"),
        Err(e @ CheckError::BadReplayToken { .. }) => e.to_string(),
        Err(e) => panic!("expected BadReplayToken, got {e:?}"),
    }
}

#[test]
fn replaying_the_token_of_a_violation_reproduces_its_history_and_verdict() {
    let config = Config::default();
    let violation = counter1_violation(&config);
    assert_eq!(
        violation.replay.phase,
        Phase::Concurrent {
            preemption_bound: config.preemption_bound
        }
    );

    let replayed = replay(&counter1(), &inc_get_2x2(), &violation.replay, &config).unwrap();
    assert_eq!(&replayed.history, violation.kind.history());
    assert_eq!(replayed.history.notation(), violation.kind.history().notation());
    assert_eq!(replayed.stuck, None);
    let kind = replayed
        .violation
        .expect("the replayed history violates the specification");
    assert!(matches!(kind, ViolationKind::NotLinearizable { .. }), "{kind:?}");
    assert_eq!(kind, violation.kind, "the same violation, observation group included");

    // Replaying is deterministic.
    let again = replay(&counter1(), &inc_get_2x2(), &violation.replay, &config).unwrap();
    assert_eq!(again.history, replayed.history);
}

#[test]
fn the_token_of_a_violation_prints_in_the_report_and_parses_back() {
    let violation = counter1_violation(&Config::default());
    let text = violation.replay.to_string();
    assert!(text.starts_with("lineup:p2-b2:"), "{text}");
    assert!(violation.to_string().contains(&format!("LINEUP_REPLAY={text}")));
    let parsed: ReplayToken = text.parse().unwrap();
    assert_eq!(parsed, violation.replay);
    assert_eq!(parsed.to_string(), text);
}

#[test]
fn tokens_round_trip() {
    for token in [
        ReplayToken {
            phase: Phase::Serial,
            choices: vec![],
        },
        ReplayToken {
            phase: Phase::Serial,
            choices: vec![0, 2, 1],
        },
        ReplayToken {
            phase: Phase::Concurrent { preemption_bound: 0 },
            choices: vec![7],
        },
        ReplayToken {
            phase: Phase::Concurrent { preemption_bound: 13 },
            choices: vec![0, 1, 0, 0, 4294967295],
        },
    ] {
        let text = token.to_string();
        assert_eq!(text.parse::<ReplayToken>().unwrap(), token, "{text}");
    }
    assert_eq!(
        ReplayToken {
            phase: Phase::Serial,
            choices: vec![]
        }
        .to_string(),
        "lineup:p1:"
    );
    // Surrounding whitespace (as pasted from a terminal) is ignored.
    let parsed: ReplayToken = "  lineup:p2-b1:3.0\n".parse().unwrap();
    assert_eq!(parsed.phase, Phase::Concurrent { preemption_bound: 1 });
    assert_eq!(parsed.choices, vec![3, 0]);
}

#[test]
fn bad_tokens_say_what_is_wrong() {
    assert_eq!(
        parse_error("lineup-p2-b2:0.1"),
        "bad replay token `lineup-p2-b2:0.1`: it does not start with `lineup:`"
    );
    assert_eq!(
        parse_error("lineup:p3:0.1"),
        "bad replay token `lineup:p3:0.1`: the phase must be `p1`, `p2-b<preemption bound>`, `p2-b<bound>-y<yield choices>[s]` or `p2-s`"
    );
    assert_eq!(
        parse_error("lineup:p2-bx:0"),
        "bad replay token `lineup:p2-bx:0`: the phase must be `p1`, `p2-b<preemption bound>`, `p2-b<bound>-y<yield choices>[s]` or `p2-s`"
    );
    assert_eq!(
        parse_error("lineup:p2-b2:0.x.1"),
        "bad replay token `lineup:p2-b2:0.x.1`: `x` is not a choice index"
    );
    assert_eq!(
        parse_error("lineup:p2-b2:0..1"),
        "bad replay token `lineup:p2-b2:0..1`: `` is not a choice index"
    );
    assert_eq!(
        parse_error("lineup:p1"),
        "bad replay token `lineup:p1`: the choices are missing"
    );
    assert_eq!(parse_error("lineup"), "bad replay token `lineup`: the phase is missing");
}

#[test]
fn a_serial_token_replays_a_serial_execution_without_judging_it() {
    let config = Config::default();
    // Phase 1 branches only at gates; the first choice at every branch point runs A first.
    let token: ReplayToken = "lineup:p1:".parse().unwrap();
    let replayed = replay(&counter1(), &inc_get_2x2(), &token, &config).unwrap();
    assert!(replayed.history.is_serial(), "{}", replayed.history);
    assert!(replayed.history.is_complete());
    assert_eq!(replayed.violation, None, "serial executions are the specification");
}

#[test]
fn replaying_a_stuck_violation_reproduces_the_deadlock() {
    // get() | inc(), inc(): Counter2 leaks its lock on the contended path of get.
    let matrix = TestMatrix::new(vec![vec![1], vec![0, 0]]);
    let config = Config::default();
    let verdict = check(&counter2(), &matrix, &config).unwrap();
    let violation = verdict.violation().expect("Counter2 leaks its lock");
    let ViolationKind::StuckNotLinearizable { stuck, .. } = &violation.kind else {
        panic!("expected a stuck history without stuck serial witness:\n{violation}");
    };
    assert_eq!(*stuck, StuckKind::Deadlock);

    let replayed = replay(&counter2(), &matrix, &violation.replay, &config).unwrap();
    assert_eq!(&replayed.history, violation.kind.history());
    assert!(replayed.history.is_stuck());
    assert_eq!(replayed.stuck, Some(StuckKind::Deadlock));
    assert_eq!(replayed.violation.as_ref(), Some(&violation.kind));
}

#[test]
fn the_serial_token_of_a_nondeterminism_violation_replays_the_second_serial_history() {
    let matrix = TestMatrix::new(vec![vec![0]]);
    let config = Config::default();
    let verdict = check(&race(), &matrix, &config).unwrap();
    let violation = verdict.violation().expect("race() depends on the schedule");
    let ViolationKind::Nondeterministic(n) = &violation.kind else {
        panic!("expected nondeterminism:\n{violation}");
    };
    assert_eq!(violation.replay.phase, Phase::Serial);
    assert!(violation.to_string().contains(&format!("\"{}\"", violation.replay)));

    let replayed = replay(&race(), &matrix, &violation.replay, &config).unwrap();
    assert_eq!(replayed.history, n.second);
    assert_ne!(replayed.history.response(n.op), n.first.response(n.op));
    assert_eq!(replayed.violation, None, "a serial replay is not judged");
}

/// Regression (fixed): a token whose choice index is out of range at a branch point (a typo, or a token
/// of another matrix) is reported as `UncontrolledNondeterminism` ("the same schedule behaved
/// differently on re-execution (branch point 0: 10 options before, 2 now). The object uses
/// something shuttle does not control ..."), blaming the object and inventing an option count
/// (`chosen + 1`). `DecisionTree::choose` turns the out-of-range choice into a `Divergence`,
/// which `explore` maps to `UncontrolledNondeterminism`; `replay` only reports
/// `BadReplayToken` ("the schedule does not fit this matrix") when no execution completed.
#[test]
fn a_token_with_an_out_of_range_choice_is_a_bad_token() {
    let token: ReplayToken = "lineup:p2-b2:9".parse().unwrap();
    let err = replay(&counter1(), &inc_get_2x2(), &token, &Config::default()).unwrap_err();
    assert!(
        matches!(err, CheckError::BadReplayToken { .. }),
        "expected BadReplayToken, got: {err}"
    );
}

/// Regression (fixed): a token with more choices than the execution has branch points is accepted: the
/// extra choices are silently ignored (`DecisionTree::choices` only returns the ones used), so
/// a token of another matrix or a corrupted token can "replay" some other schedule without
/// any error.
#[test]
fn a_token_with_unused_choices_is_a_bad_token() {
    let config = Config::default();
    let violation = counter1_violation(&config);
    let mut token = violation.replay.clone();
    token.choices.extend([1, 1, 1]);
    let result = replay(&counter1(), &inc_get_2x2(), &token, &config);
    assert!(
        matches!(result, Err(CheckError::BadReplayToken { .. })),
        "expected BadReplayToken for {token}, got {result:?}"
    );
}

//! lineup's verdicts on the tokio twins of DS2's systems (`src/ds2_tokio/`, tasks over
//! shuttle-tokio's `mpsc` and `oneshot`), on the same matrices and the same config as
//! `tests/ds2_verdicts.rs` checks the originals with: every buggy twin FAILs and every correct
//! one PASSes. lineup's `vendor/shuttle-tokio-impl-inner` names the channels' steps to the
//! reduction (docs/partial-order-reduction.md §2.7), and each twin explores what its original
//! explores: the same serial and concurrent executions, so that each check takes 1.3 to 1.4 times
//! as long as the original's (the tasks' polls cost more than threads' steps); on DS2's 2R+2W
//! harness, phase 1 runs as many serial executions as the original's and PCT finds EDR's bug.

use lineup::{check, Config, Invocations, Subject, Verdict};
use lineup_actors::ds2::matrix;
use lineup_actors::ds2_tokio::another_register::AnotherDistributedRegister;
use lineup_actors::ds2_tokio::chord::OpenChord;
use lineup_actors::ds2_tokio::paxos::PaxosMap;
use lineup_actors::ds2_tokio::register::{DistributedRegister, ErroneousDistributedRegister};

/// The matrices of `tests/ds2_verdicts.rs`, the smallest that show each system's bug (or, for a
/// correct one, its original's): EDR's, DR's, ADR's, Open Chord's (both variants), Paxos's.
const EDR: &[&[&str]] = &[&["write(1)"], &["read(1)", "read(2)"]];
const DR: &[&[&str]] = &[&["write(1)"], &["read(1)"]];
const ADR: &[&[&str]] = &[&["write(0, 1)"], &["read(1)"]];
const OC: &[&[&str]] = &[&["join()"], &[r#"put("k1", 1)"#, r#"get("k1")"#]];
const PX: &[&[&str]] = &[&[r#"put("k", 1)"#], &[r#"get("k")"#, r#"get("k")"#]];

fn verdict<O: Invocations>(name: &str, build: fn() -> O, columns: &[&[&str]]) -> Verdict {
    let subject = Subject::of(name, build);
    let config = Config {
        reduction: lineup::Reduction::On,
        ..Config::default()
    };
    check(&subject, &matrix::<O>(columns), &config).unwrap()
}

#[test]
fn edr_serves_a_stale_read_from_a_backup() {
    let v = verdict("EDR", ErroneousDistributedRegister::new, EDR);
    assert!(!v.is_pass(), "EDR passed: {:?}", v.stats());
}

#[test]
fn dr_forwards_reads_to_the_leader() {
    let v = verdict("DR", DistributedRegister::new, DR);
    assert!(v.is_pass(), "{}", v.violation().unwrap());
    // Phase 1 ran the actors' schedules inside each serial operation, and stayed small.
    assert!(v.stats().serial_executions > 2, "{:?}", v.stats());
}

#[test]
fn adr_orders_writes_by_timestamp() {
    let v = verdict("ADR", AnotherDistributedRegister::new, ADR);
    assert!(v.is_pass(), "{}", v.violation().unwrap());
}

#[test]
fn oc_answers_from_an_empty_store_while_joining() {
    let v = verdict("OC", OpenChord::new, OC);
    assert!(!v.is_pass(), "OC passed: {:?}", v.stats());
}

#[test]
fn oc_relaying_while_joining_is_correct() {
    let v = verdict("OC-fixed", OpenChord::relaying_while_joining, OC);
    assert!(v.is_pass(), "{}", v.violation().unwrap());
}

#[test]
fn px_is_linearizable() {
    let v = verdict("PX", PaxosMap::new, PX);
    assert!(v.is_pass(), "{}", v.violation().unwrap());
}

/// A check of the twin `build` and one of its original, `original`, on the same matrix and
/// `config` (the reduction on).
fn twin_and_original<O: Invocations, P: Invocations>(
    name: &str,
    build: fn() -> O,
    original: fn() -> P,
    columns: &[&[&str]],
    config: Config,
) -> (Verdict, Verdict) {
    let config = Config {
        reduction: lineup::Reduction::On,
        ..config
    };
    let twin = check(&Subject::of(name, build), &matrix::<O>(columns), &config).unwrap();
    let original = check(&Subject::of(name, original), &matrix::<P>(columns), &config).unwrap();
    (twin, original)
}

/// The distinct histories of a passing check of `build` and of its original, `original`.
fn distinct<O: Invocations, P: Invocations>(
    name: &str,
    build: fn() -> O,
    original: fn() -> P,
    columns: &[&[&str]],
) -> (usize, usize) {
    let (twin, original) = twin_and_original(name, build, original, columns, Config::default());
    assert!(twin.is_pass() && original.is_pass(), "{name}");
    (twin.stats().distinct_histories, original.stats().distinct_histories)
}

/// The twins explore every history of the originals, at the same bound: tokio's primitives, as
/// lineup's `vendor/shuttle-tokio-impl-inner` schedules them, lose no order of messages that
/// `lineup::sync`'s channels have. (Before the unbounded send's scheduling point moved before its
/// message, DR's twin found 8 distinct histories of the original's 10: a reply and the next send
/// were one step. The oneshot's switch after a receive that finds its value was removed with it:
/// the receive commutes with every step but its sender's, which came before it.)
#[test]
fn the_twins_find_every_history_of_the_originals() {
    use lineup_actors::ds2;
    let pairs = [
        (
            "DR",
            distinct(
                "DR",
                DistributedRegister::new,
                ds2::register::DistributedRegister::new,
                DR,
            ),
        ),
        (
            "ADR",
            distinct(
                "ADR",
                AnotherDistributedRegister::new,
                ds2::another_register::AnotherDistributedRegister::new,
                ADR,
            ),
        ),
        (
            "OC-fixed",
            distinct(
                "OC-fixed",
                OpenChord::relaying_while_joining,
                ds2::chord::OpenChord::relaying_while_joining,
                OC,
            ),
        ),
        ("PX", distinct("PX", PaxosMap::new, ds2::paxos::PaxosMap::new, PX)),
    ];
    for (system, (twin, original)) in pairs {
        assert_eq!(
            twin, original,
            "{system}: the twin's distinct histories against the original's"
        );
    }
}

/// What a check of `build` explored on one worker, and what one of the original did: serial
/// executions, then concurrent ones, each as (twin, original).
fn explored<O: Invocations, P: Invocations>(
    name: &str,
    build: fn() -> O,
    original: fn() -> P,
    columns: &[&[&str]],
) -> [(u64, u64); 2] {
    let config = Config {
        workers: 1,
        ..Config::default()
    };
    let (twin, original) = twin_and_original(name, build, original, columns, config);
    assert_eq!(twin.is_pass(), original.is_pass(), "{name}");
    let (t, o) = (twin.stats(), original.stats());
    [
        (t.serial_executions, o.serial_executions),
        (t.concurrent_executions, o.concurrent_executions),
    ]
}

/// The reduction sees as much of the twins as of the originals: phase 1 and phase 2 explore no
/// more than a tenth more executions (today exactly as many). A send of tokio's (an unbounded
/// channel's, a oneshot's) touches its channel only from its scheduling point on
/// (`lineup_signals::footprint::touching_after_switch`): when it counted in the step before as
/// well, that step of a backup (its receive of the leader's message) conflicted with the other
/// backup's answer to the leader, and EDR's twin ran 231 serial executions of
/// `[write(1)] | [read(1), read(2)]` against the original's 60, and 39,635 on 2R+2W against about
/// 3,600.
#[test]
fn the_twins_explore_what_the_originals_explore() {
    use lineup_actors::ds2;
    let rows = [
        (
            "EDR",
            explored(
                "EDR",
                ErroneousDistributedRegister::new,
                ds2::register::ErroneousDistributedRegister::new,
                EDR,
            ),
        ),
        (
            "DR",
            explored(
                "DR",
                DistributedRegister::new,
                ds2::register::DistributedRegister::new,
                DR,
            ),
        ),
        (
            "ADR",
            explored(
                "ADR",
                AnotherDistributedRegister::new,
                ds2::another_register::AnotherDistributedRegister::new,
                ADR,
            ),
        ),
        (
            "OC-fixed",
            explored(
                "OC-fixed",
                OpenChord::relaying_while_joining,
                ds2::chord::OpenChord::relaying_while_joining,
                OC,
            ),
        ),
        ("PX", explored("PX", PaxosMap::new, ds2::paxos::PaxosMap::new, PX)),
    ];
    for (system, [serial, concurrent]) in rows {
        assert!(
            serial.0 * 10 <= serial.1 * 11,
            "{system}: the twin's phase 1 ran {} serial executions, the original's {}",
            serial.0,
            serial.1
        );
        assert!(
            concurrent.0 * 10 <= concurrent.1 * 11,
            "{system}: the twin's phase 2 ran {} executions, the original's {}",
            concurrent.0,
            concurrent.1
        );
    }
}

/// The default settings find the twin's stale read on DS2's 2R+2W harness, as they find the
/// original's (`ds2_verdicts.rs`'s `the_default_settings_find_edr_on_2r2w`). The interlude's
/// first round, PCT's first 1,000 executions with seed 0, misses it (the twin's executions are a
/// third longer than the original's, 49 steps against 37, and PCT's odds fall with the square of
/// that for a bug of depth 3); its second round, after the search's first 20,000 executions in
/// depth-first order, continues the sample and finds it at its 1,423rd execution.
#[test]
fn the_default_settings_find_edr_s_twin_on_2r2w() {
    let subject = Subject::of("EDR", ErroneousDistributedRegister::new);
    let matrix = ErroneousDistributedRegister::harness_2r2w();
    let verdict = check(&subject, &matrix, &Config::default()).unwrap();
    let violation = verdict.violation().expect("the default settings find the stale read");
    assert!(!violation.kind.is_nondeterminism());
    let (interlude, sampled) = violation.stats.interlude.expect("found by the interlude");
    assert_eq!(interlude.rounds_for(sampled), 2, "{:?}", violation.stats);
    let report = violation.to_string();
    assert!(
        report.contains("of them by the interlude pct:3:1000:0 in 2 rounds, after 10000 of the search"),
        "{report}"
    );
}

/// DS2's 2R+2W harness, on the twin: phase 1 runs as many serial executions as the original's
/// (about 3,500), and PCT at depth 3 finds EDR's stale read (seed 0 at its 1,423rd execution).
#[test]
fn pct_finds_edr_s_twin_on_2r2w() {
    let subject = Subject::of("EDR", ErroneousDistributedRegister::new);
    let matrix = ErroneousDistributedRegister::harness_2r2w();
    let config = Config {
        strategy: lineup::Strategy::Pct {
            depth: 3,
            executions: 20_000,
            seed: 0,
        },
        interlude: None,
        ..Config::default()
    };
    let verdict = check(&subject, &matrix, &config).unwrap();
    let violation = verdict.violation().expect("PCT finds the stale read");
    assert!(!violation.kind.is_nondeterminism());
    assert!(violation.stats.serial_executions < 5_000, "{:?}", violation.stats);
}

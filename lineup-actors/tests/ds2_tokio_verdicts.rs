//! lineup's verdicts on the tokio twins of DS2's systems (`src/ds2_tokio/`, tasks over
//! shuttle-tokio's `mpsc` and `oneshot`), on the same matrices and the same config as
//! `tests/ds2_verdicts.rs` checks the originals with: every buggy twin FAILs and every correct
//! one PASSes. The timings against the originals are in `docs/actors.md`.

use lineup::{check, Config, Invocations, Subject, Verdict};
use lineup_actors::ds2::matrix;
use lineup_actors::ds2_tokio::another_register::AnotherDistributedRegister;
use lineup_actors::ds2_tokio::chord::OpenChord;
use lineup_actors::ds2_tokio::paxos::PaxosMap;
use lineup_actors::ds2_tokio::register::{DistributedRegister, ErroneousDistributedRegister};

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
    let v = verdict(
        "EDR",
        ErroneousDistributedRegister::new,
        &[&["write(1)"], &["read(1)", "read(2)"]],
    );
    assert!(!v.is_pass(), "EDR passed: {:?}", v.stats());
}

#[test]
fn dr_forwards_reads_to_the_leader() {
    let v = verdict("DR", DistributedRegister::new, &[&["write(1)"], &["read(1)"]]);
    assert!(v.is_pass(), "{}", v.violation().unwrap());
    // Phase 1 ran the actors' schedules inside each serial operation, and stayed small.
    assert!(v.stats().serial_executions > 2, "{:?}", v.stats());
}

#[test]
fn adr_orders_writes_by_timestamp() {
    let v = verdict(
        "ADR",
        AnotherDistributedRegister::new,
        &[&["write(0, 1)"], &["read(1)"]],
    );
    assert!(v.is_pass(), "{}", v.violation().unwrap());
}

#[test]
fn oc_answers_from_an_empty_store_while_joining() {
    let v = verdict(
        "OC",
        OpenChord::new,
        &[&["join()"], &[r#"put("k1", 1)"#, r#"get("k1")"#]],
    );
    assert!(!v.is_pass(), "OC passed: {:?}", v.stats());
}

#[test]
fn oc_relaying_while_joining_is_correct() {
    let v = verdict(
        "OC-fixed",
        OpenChord::relaying_while_joining,
        &[&["join()"], &[r#"put("k1", 1)"#, r#"get("k1")"#]],
    );
    assert!(v.is_pass(), "{}", v.violation().unwrap());
}

#[test]
fn px_is_linearizable() {
    let v = verdict(
        "PX",
        PaxosMap::new,
        &[&[r#"put("k", 1)"#], &[r#"get("k")"#, r#"get("k")"#]],
    );
    assert!(v.is_pass(), "{}", v.violation().unwrap());
}

/// The issue's bar: lineup's default settings find the erroneous register's bug on DS2's 2R+2W
/// harness (the reduction on by `Reduction::Auto`, the search, then the interlude's PCT), on any
/// number of workers, in fewer phase-2 executions than DS2's runs took (28,517 at the least).
#[test]
fn the_default_settings_find_edr_on_2r2w() {
    let subject = Subject::of("EDR", ErroneousDistributedRegister::new);
    let matrix = ErroneousDistributedRegister::harness_2r2w();
    let verdict = check(&subject, &matrix, &Config::default()).unwrap();
    let violation = verdict.violation().expect("the default settings find the stale read");
    assert!(!violation.kind.is_nondeterminism());
    assert!(violation.stats.concurrent_executions < 28_517, "{:?}", violation.stats);
}

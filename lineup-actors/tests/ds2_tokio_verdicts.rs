//! lineup's verdicts on the tokio twins of DS2's systems (`src/ds2_tokio/`, tasks over
//! shuttle-tokio's `mpsc` and `oneshot`), on the same matrices and the same config as
//! `tests/ds2_verdicts.rs` checks the originals with: every buggy twin FAILs and every correct
//! one PASSes. lineup's `vendor/shuttle-tokio-impl-inner` names the channels' steps to the
//! reduction (docs/partial-order-reduction.md §2.7): each check takes 0.09 to 1.2 s in a release
//! build (the originals 0.02 to 0.05 s; before, none ended within 60 s). The originals' 2R+2W
//! default-settings test has no twin here yet.

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

/// The distinct histories of a passing check of `build` and of its original, `original`.
fn distinct<O: Invocations, P: Invocations>(
    name: &str,
    build: fn() -> O,
    original: fn() -> P,
    columns: &[&[&str]],
) -> (usize, usize) {
    let twin = verdict(name, build, columns);
    let subject = Subject::of(name, original);
    let config = Config {
        reduction: lineup::Reduction::On,
        ..Config::default()
    };
    let original = check(&subject, &matrix::<P>(columns), &config).unwrap();
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
    let dr: &[&[&str]] = &[&["write(1)"], &["read(1)"]];
    let adr: &[&[&str]] = &[&["write(0, 1)"], &["read(1)"]];
    let oc: &[&[&str]] = &[&["join()"], &[r#"put("k1", 1)"#, r#"get("k1")"#]];
    let px: &[&[&str]] = &[&[r#"put("k", 1)"#], &[r#"get("k")"#, r#"get("k")"#]];
    let pairs = [
        (
            "DR",
            distinct(
                "DR",
                DistributedRegister::new,
                ds2::register::DistributedRegister::new,
                dr,
            ),
        ),
        (
            "ADR",
            distinct(
                "ADR",
                AnotherDistributedRegister::new,
                ds2::another_register::AnotherDistributedRegister::new,
                adr,
            ),
        ),
        (
            "OC-fixed",
            distinct(
                "OC-fixed",
                OpenChord::relaying_while_joining,
                ds2::chord::OpenChord::relaying_while_joining,
                oc,
            ),
        ),
        ("PX", distinct("PX", PaxosMap::new, ds2::paxos::PaxosMap::new, px)),
    ];
    for (system, (twin, original)) in pairs {
        assert_eq!(
            twin, original,
            "{system}: the twin's distinct histories against the original's"
        );
    }
}

//! lineup's verdicts on DS2's systems (`src/ds2/`), on what phase 1 finishes in seconds.
//!
//! Phase 1 runs every schedule of every actor inside each serial operation and is never
//! bounded, and every send and receive is a scheduling point: without a partial-order reduction
//! that sees `lineup::sync::mpsc` steps, one operation already costs tens of thousands of serial
//! executions, and no 2R+1W harness finishes (numbers in `docs/actors.md`). So these tests check
//! one operation of two systems (about 50 s each in a debug build, 5 s in release): a PASS whose
//! phase 1 found one serial history, i.e. the operation's answer is the same in every schedule
//! of the actors, and lineup's harness runs the actor threads and ends their executions. That the buggy systems' bugs are schedules of the
//! systems is in `ds2_witnesses.rs`; their FAIL on the harnesses is `examples/ds2_cost.rs`'s to
//! show once the reduction makes phase 1 tractable.

use lineup::{check, Config, Invocations, Subject};
use lineup_actors::ds2::chord::OpenChord;
use lineup_actors::ds2::matrix;
use lineup_actors::ds2::register::DistributedRegister;

/// Checks `[label]` alone: PASS, with one serial history.
fn one_operation<O: Invocations>(name: &str, build: fn() -> O, label: &str) {
    let subject = Subject::of(name, build);
    let verdict = check(&subject, &matrix::<O>(&[&[label]]), &Config::default()).unwrap();
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
    let stats = verdict.stats();
    assert_eq!(stats.serial_full, 1, "{stats:?}");
    assert!(stats.serial_executions > 1, "the actors' schedules: {stats:?}");
}

#[test]
fn dr_read_at_the_leader() {
    one_operation("DR", DistributedRegister::new, "read(0)");
}

#[test]
fn oc_join() {
    one_operation("OC", OpenChord::new, "join()");
}

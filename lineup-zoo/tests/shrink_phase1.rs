//! Shrinking a phase-1 violation: the smaller matrices of one size go through phase 1 first, so
//! the first nondeterministic one is taken without a phase 2 for those before it
//! (`lineup-core/src/runner/shrink.rs`).

use lineup::{LineupTest, TestFailure};

/// The register replicated over actors, with a stale read, is nondeterministic already on
/// `read() | write(1)`; its first sample (2x3) fails. Two of the first smaller matrices pass phase
/// 1, and their phase 2s (a register of three actors) used to take all of the shrinking's time:
/// it stopped at 2x1, cut short, after 6.7 s in a release build. It now ends there complete.
#[test]
fn a_nondeterministic_register_shrinks_to_two_operations_before_its_time_runs_out() {
    let (register, _) = lineup_zoo::native::registers(true);
    match LineupTest::new("stale register").seed(1).check_subject(&register) {
        Err(TestFailure::Violation {
            smallest,
            shrink_complete,
            shrink_ms,
            ..
        }) => {
            assert_eq!(smallest.matrix.op_count(), 2, "{smallest}");
            assert!(shrink_complete, "shrinking was cut short after {shrink_ms} ms");
        }
        Err(other) => panic!("expected a violation, got {other}"),
        Ok(summary) => panic!("expected a violation, got a PASS: {summary:?}"),
    }
}

//! The compile errors of `#[invocations]` and `#[lineup_test]`: each case in `tests/ui/` must
//! fail to compile with exactly the message in its `.stderr` file, pointing at the user's tokens.
//! After a deliberate change of a message, regenerate the snapshots with
//! `TRYBUILD=overwrite cargo test --test compile_fail` and review the diff.

#[test]
fn macro_errors_point_at_the_users_tokens() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}

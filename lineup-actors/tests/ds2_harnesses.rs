//! DS2's harnesses (`src/ds2/`) as test matrices: one column per client, one operation each
//! (DS2's synthetic clients send one request and wait for its response), the labels the paper's
//! harnesses name. Cheap: no exploration.

use lineup::{Invocations, TestMatrix};
use lineup_actors::ds2::another_register::AnotherDistributedRegister;
use lineup_actors::ds2::chord::OpenChord;
use lineup_actors::ds2::paxos::PaxosMap;
use lineup_actors::ds2::register::{DistributedRegister, ErroneousDistributedRegister};

/// The matrix's columns as invocation labels.
fn columns<O: Invocations>(matrix: &TestMatrix) -> Vec<Vec<String>> {
    let labels: Vec<String> = O::invocations().iter().map(|i| i.label().to_string()).collect();
    assert!(matrix.initial.is_empty() && matrix.finals.is_empty(), "clients only");
    matrix
        .threads
        .iter()
        .map(|column| column.iter().map(|&i| labels[i].clone()).collect())
        .collect()
}

fn assert_columns<O: Invocations>(matrix: TestMatrix, expected: &[&str]) {
    let got = columns::<O>(&matrix);
    let got: Vec<String> = got.iter().map(|c| c.join("; ")).collect();
    assert_eq!(got, expected);
}

#[test]
fn the_registers_read_twice_and_write_once_or_twice() {
    assert_columns::<DistributedRegister>(DistributedRegister::harness_2r1w(), &["read(0)", "read(1)", "write(1)"]);
    assert_columns::<DistributedRegister>(
        DistributedRegister::harness_2r2w(),
        &["read(0)", "read(1)", "write(1)", "write(2)"],
    );
    assert_columns::<ErroneousDistributedRegister>(
        ErroneousDistributedRegister::harness_2r1w(),
        &["read(1)", "read(2)", "write(1)"],
    );
    assert_columns::<ErroneousDistributedRegister>(
        ErroneousDistributedRegister::harness_2r2w(),
        &["read(1)", "read(2)", "write(1)", "write(2)"],
    );
    assert_columns::<AnotherDistributedRegister>(
        AnotherDistributedRegister::harness_2r1w(),
        &["read(0)", "read(1)", "write(0, 1)"],
    );
    assert_columns::<AnotherDistributedRegister>(
        AnotherDistributedRegister::harness_2r2w(),
        &["read(0)", "read(1)", "write(0, 1)", "write(1, 2)"],
    );
}

#[test]
fn chord_adds_the_join_and_paxos_uses_one_key() {
    assert_columns::<OpenChord>(
        OpenChord::harness_2r1w(),
        &["join()", r#"put("k1", 1)"#, r#"get("k1")"#, r#"get("k1")"#],
    );
    assert_columns::<OpenChord>(
        OpenChord::harness_2r2w(),
        &[
            "join()",
            r#"put("k1", 1)"#,
            r#"put("k2", 2)"#,
            r#"get("k1")"#,
            r#"get("k2")"#,
        ],
    );
    assert_columns::<PaxosMap>(
        PaxosMap::harness_2r1w(),
        &[r#"get("k")"#, r#"get("k")"#, r#"put("k", 1)"#],
    );
    assert_columns::<PaxosMap>(
        PaxosMap::harness_2r2w(),
        &[r#"get("k")"#, r#"get("k")"#, r#"put("k", 1)"#, r#"put("k", 2)"#],
    );
}

#[test]
#[should_panic(expected = "no invocation `read(3)`")]
fn a_harness_names_only_known_invocations() {
    lineup_actors::ds2::matrix::<DistributedRegister>(&[&["read(3)"]]);
}

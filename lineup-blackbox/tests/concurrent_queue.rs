//! concurrent-queue 2.5.0 under loom (see `docs/black-box-crates.md`).
#![cfg(loom)]

use lineup::{Config, TestMatrix};
use lineup_blackbox::expectation::{expect_verdict, Expected};
use lineup_blackbox::queues::{self, op::*};

#[test]
fn single_slot_push_pop_passes() {
    expect_verdict(
        &queues::bounded(1),
        &TestMatrix::new(vec![vec![PUSH_1, POP], vec![PUSH_2, IS_FULL]]),
        &Config::default(),
        Expected::Pass,
    );
}

//! A memory budget for the engine's sets of distinct executions (`Config::max_memory`): past it
//! the check ends with `CheckError::MemoryLimit` (no verdict, with what was explored), never in
//! the kernel's out-of-memory killer.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, CheckError, Config, MemoryLimit, TestMatrix};
use objects::queues::blocking_queue;

fn budget(bytes: u64) -> Config {
    Config {
        max_memory: MemoryLimit::Bytes(bytes),
        ..Config::default()
    }
}

#[test]
fn phase_1_past_its_budget_is_unknown_not_a_verdict() {
    // 3x3: 1680 serial histories, far more than 64 KiB of them.
    let matrix = TestMatrix::new(vec![vec![0, 2, 1], vec![1, 2, 0], vec![2, 0, 2]]);
    let error = check(&blocking_queue(), &matrix, &budget(64 << 10)).unwrap_err();
    let CheckError::MemoryLimit {
        phase,
        limit,
        held,
        executions,
    } = &error
    else {
        panic!("expected a memory limit: {error}")
    };
    assert!(phase.contains("phase 1"), "{error}");
    assert_eq!(*limit, 64 << 10);
    assert!(*held > *limit && *executions > 0, "{error}");
    assert!(error.to_string().contains("Config::max_memory"), "{error}");
}

#[test]
fn phase_2_past_its_budget_is_unknown_not_a_verdict() {
    // The smallest budget phase 1 fits in (found by bisection) holds the specification, and
    // nothing more: phase 2, which keeps the specification and adds a fingerprint per distinct
    // history, goes past it.
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    let phase_1_fails = |bytes: u64| {
        matches!(
            check(&blocking_queue(), &matrix, &budget(bytes)),
            Err(CheckError::MemoryLimit { phase, .. }) if phase.contains("phase 1")
        )
    };
    let (mut low, mut high) = (0u64, 16 << 20);
    assert!(phase_1_fails(low) && !phase_1_fails(high));
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if phase_1_fails(mid) {
            low = mid;
        } else {
            high = mid;
        }
    }
    let error = check(&blocking_queue(), &matrix, &budget(high)).unwrap_err();
    let CheckError::MemoryLimit { phase, executions, .. } = &error else {
        panic!("expected a memory limit: {error}")
    };
    assert!(phase.contains("phase 2"), "{error}");
    assert!(*executions >= 1, "{error}");
}

#[test]
fn the_default_budget_lets_ordinary_checks_pass() {
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    assert!(check(&blocking_queue(), &matrix, &Config::default()).unwrap().is_pass());
}

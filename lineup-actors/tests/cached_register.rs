//! The cached register, written against tokio (a register actor behind `mpsc` and `oneshot`
//! channels, a `tokio::sync::Mutex` cache), checked under shuttle-tokio's `shuttle` feature
//! (turned on by this crate's dev-dependency): the correct one passes, the one that invalidates
//! its cache too early answers a read from a stale copy and fails.

use lineup::{check, Config, Invocation, Subject, TestMatrix, ViolationKind};
use lineup_actors::cached_register::{CachedRegister, Invalidation};

/// Invocations 0 `swap(1)`, 1 `swap(2)`, 2 `read()`.
fn subject(name: &str, build: fn() -> CachedRegister) -> Subject<CachedRegister> {
    Subject::new(name, build)
        .with(Invocation::new_async("swap", async |r: &CachedRegister| r.swap(1).await).arg(1))
        .with(Invocation::new_async("swap", async |r: &CachedRegister| r.swap(2).await).arg(2))
        .with(Invocation::new_async("read", CachedRegister::read))
}

fn correct() -> Subject<CachedRegister> {
    subject("CachedRegister", || CachedRegister::new(Invalidation::WhileLocked))
}

fn early() -> Subject<CachedRegister> {
    subject("EarlyInvalidationRegister", || CachedRegister::new(Invalidation::Early))
}

/// swap(1) | read(), then read() on the main thread.
fn swap_vs_read() -> TestMatrix {
    TestMatrix::new(vec![vec![0], vec![2]]).with_final(vec![2])
}

#[test]
fn the_correct_cache_is_linearizable() {
    for matrix in [swap_vs_read(), TestMatrix::new(vec![vec![0, 2], vec![1]])] {
        let verdict = check(&correct(), &matrix, &Config::default()).unwrap();
        assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
        assert!(verdict.stats().concurrent_executions > 1, "{:?}", verdict.stats());
    }
}

#[test]
fn early_invalidation_answers_from_a_stale_copy() {
    let verdict = check(&early(), &swap_vs_read(), &Config::default()).unwrap();
    let violation = verdict.violation().expect("the stale read is found");
    assert!(
        matches!(violation.kind, ViolationKind::NotLinearizable { .. }),
        "a full history without witness, not a phase-1 nondeterminism: serial runs are right\n{violation}"
    );
    let report = violation.to_string();
    assert!(report.contains("swap(1)  -> 0"), "{report}");
    assert!(
        report.contains("main  read()  -> 0"),
        "the final read is stale: {report}"
    );
    // One operation at a time is right.
    let serial = TestMatrix::new(vec![vec![0, 2]]);
    assert!(check(&early(), &serial, &Config::default()).unwrap().is_pass());
}

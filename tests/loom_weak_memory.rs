//! Weak-memory evidence without tracked atomics (under `--cfg loom`; no tests on shuttle): an
//! object whose atomics are loom's own (as a published crate's are) fails in loom's bare C11
//! model; lineup re-checks it with real-time order as happens-before, where it passes, and the
//! report says that the violating history is serial, so the failure needs weak memory, and never
//! that it is an interleaving bug.

#[cfg(loom)]
mod on_loom {
    use lineup::{check, Config, Invocation, Subject, TestMatrix};
    use loom::sync::atomic::{AtomicU64, Ordering};

    fn loom_counter() -> Subject<AtomicU64> {
        Subject::new("counter on loom's own atomics", || AtomicU64::new(0))
            .with(Invocation::new("inc", |c: &AtomicU64| {
                c.fetch_add(1, Ordering::SeqCst);
            }))
            .with(Invocation::new("get", |c: &AtomicU64| c.load(Ordering::SeqCst)))
    }

    #[test]
    fn a_c11_only_failure_is_rechecked_and_labelled() {
        let matrix = TestMatrix::new(vec![vec![0], vec![1]]);
        let c11 = Config {
            real_time_happens_before: false,
            ..Config::default()
        };
        let verdict = check(&loom_counter(), &matrix, &c11).expect("the check runs");
        let violation = verdict.violation().expect("get after a returned inc may read 0 in C11");
        let evidence = violation.loom.as_ref().expect("loom evidence");
        assert!(evidence.weak_loads.is_empty(), "loom's own atomics are not tracked");
        assert_eq!(
            evidence.other_setting_fails,
            Some(false),
            "with real-time order it passes"
        );
        let report = violation.to_string();
        assert!(
            report.contains("re-checked with real-time order as happens-before: PASSES"),
            "{report}"
        );
        assert!(report.contains("needs weak memory"), "{report}");
        assert!(
            report.contains("no evidence that this is an interleaving bug"),
            "{report}"
        );

        // The default (real-time order as happens-before) passes.
        assert!(check(&loom_counter(), &matrix, &Config::default()).unwrap().is_pass());
    }
}

//! The steps of a violating execution under loom (`--cfg loom`; no tests on shuttle, whose steps
//! tests/trace.rs checks): loom's stored path of the violation is replayed once more in a child
//! process with step recording on. lineup's loom primitives record their values and the user's
//! source line; loom's own primitives, used directly, appear as loom's events name them.

#[cfg(loom)]
mod under_loom {
    use lineup::sync::atomic::{AtomicU64, Ordering};
    use lineup::sync::Mutex;
    use lineup::{check, Action, Config, Interleaving, Invocation, Step, Subject, SwitchReason, TestMatrix};

    const FILE: &str = file!();

    /// A counter whose increment is a load and a store: two increments can lose one.
    #[derive(Default)]
    struct LostUpdate(AtomicU64);

    const LOAD_LINE: u32 = line!() + 4;
    const STORE_LINE: u32 = line!() + 4;
    impl LostUpdate {
        fn inc(&self) {
            let v = self.0.load(Ordering::SeqCst);
            self.0.store(v + 1, Ordering::SeqCst);
        }
        fn get(&self) -> u64 {
            self.0.load(Ordering::SeqCst)
        }
    }

    /// The same counter behind a mutex taken twice: read under the lock, write under it again.
    #[derive(Default)]
    struct TwoCriticalSections(Mutex<u64>);

    const LOCK_LINE: u32 = line!() + 3;
    impl TwoCriticalSections {
        fn inc(&self) {
            let v = *self.0.lock().unwrap();
            *self.0.lock().unwrap() = v + 1;
        }
        fn get(&self) -> u64 {
            *self.0.lock().unwrap()
        }
    }

    /// A counter whose contended `get` forgets to release the lock (the paper's Counter2): a later
    /// `inc` blocks for good, which no serial execution does.
    #[derive(Default)]
    struct ForgottenGuard(Mutex<u64>);

    impl ForgottenGuard {
        fn inc(&self) {
            *self.0.lock().unwrap() += 1;
        }
        fn get(&self) -> u64 {
            match self.0.try_lock() {
                Ok(guard) => *guard,
                Err(_) => {
                    let guard = self.0.lock().unwrap();
                    let value = *guard;
                    std::mem::forget(guard);
                    value
                }
            }
        }
    }

    /// The lost update on loom's own atomic, which lineup does not wrap.
    #[derive(Default)]
    struct LoomOwn(loom::sync::atomic::AtomicUsize);

    impl LoomOwn {
        fn inc(&self) {
            let v = self.0.load(std::sync::atomic::Ordering::SeqCst);
            self.0.store(v + 1, std::sync::atomic::Ordering::SeqCst);
        }
        fn get(&self) -> usize {
            self.0.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    fn matrix() -> TestMatrix {
        TestMatrix::new(vec![vec![0, 1], vec![0, 1]])
    }

    /// The violation's recorded steps (the check must fail and record them).
    fn steps_of<O: Send + Sync + 'static>(subject: &Subject<O>) -> (Interleaving, String) {
        let verdict = check(subject, &matrix(), &Config::default()).expect("the check runs");
        let violation = verdict.violation().expect("the object loses an update");
        let interleaving = violation
            .interleaving
            .clone()
            .unwrap_or_else(|| panic!("the steps are recorded under loom:\n{violation}"));
        (interleaving, violation.to_string())
    }

    fn in_this_file(step: &Step) -> bool {
        step.location
            .as_ref()
            .is_some_and(|l| l.file.ends_with(FILE.rsplit('/').next().unwrap()))
    }

    #[test]
    fn a_lost_update_on_lineups_atomics_shows_its_loads_stores_values_and_lines() {
        let subject = Subject::new("LostUpdate", LostUpdate::default)
            .with(Invocation::new("inc", |c: &LostUpdate| c.inc()))
            .with(Invocation::new("get", |c: &LostUpdate| c.get()));
        let (interleaving, report) = steps_of(&subject);
        let loads: Vec<&Step> = interleaving
            .actions()
            .filter(|s| {
                matches!(s.action, Action::Load { .. }) && s.location.as_ref().is_some_and(|l| l.line == LOAD_LINE)
            })
            .collect();
        assert!(loads.len() >= 2, "both increments load at line {LOAD_LINE}:\n{report}");
        assert!(loads.iter().all(|s| in_this_file(s)), "{loads:?}");
        assert!(
            loads
                .iter()
                .all(|s| s.object.as_ref().is_some_and(|o| o.kind == "AtomicU64")),
            "{loads:?}"
        );
        // The two increments read the same value: that is the lost update.
        let read: Vec<&Action> = loads.iter().map(|s| &s.action).collect();
        assert!(
            read.windows(2).any(|w| w[0] == w[1]),
            "two loads read the same value: {read:?}"
        );
        let stores = interleaving
            .actions()
            .filter(|s| {
                matches!(s.action, Action::Store { .. }) && s.location.as_ref().is_some_and(|l| l.line == STORE_LINE)
            })
            .count();
        assert!(stores >= 2, "both increments store at line {STORE_LINE}:\n{report}");
        let threads: std::collections::BTreeSet<usize> = loads.iter().map(|s| s.task).collect();
        assert!(threads.len() >= 2, "the loads are two threads': {loads:?}");
        assert!(
            loads.iter().all(|s| s.op.is_some()),
            "each load belongs to its operation"
        );
        assert!(
            interleaving.steps.iter().any(|s| matches!(
                s.action,
                Action::Switch {
                    reason: SwitchReason::Preemption,
                    ..
                }
            )),
            "the lost update needs a preemption between a load and its store:\n{report}"
        );
        assert!(interleaving.preemptions >= 1);
        assert!(report.contains("interleaving"), "{report}");
        assert!(!report.contains("interleaving: not recorded"), "{report}");
    }

    #[test]
    fn lineups_loom_mutex_records_its_locks_where_the_user_takes_them() {
        let subject = Subject::new("TwoCriticalSections", TwoCriticalSections::default)
            .with(Invocation::new("inc", |c: &TwoCriticalSections| c.inc()))
            .with(Invocation::new("get", |c: &TwoCriticalSections| c.get()));
        let (interleaving, report) = steps_of(&subject);
        let locks: Vec<&Step> = interleaving
            .actions()
            .filter(|s| matches!(s.action, Action::Lock { kind: "lock" }))
            .collect();
        assert!(
            locks
                .iter()
                .any(|s| in_this_file(s) && s.location.as_ref().unwrap().line == LOCK_LINE),
            "a lock at line {LOCK_LINE}:\n{report}"
        );
        assert!(
            locks
                .iter()
                .all(|s| s.object.as_ref().is_some_and(|o| o.kind == "Mutex")),
            "{locks:?}"
        );
        assert!(
            interleaving.actions().any(|s| s.action == Action::Unlock),
            "a guard's drop unlocks:\n{report}"
        );
        // No step of loom's own atomic inside lineup's mutex is shown: the mutex's steps are its own.
        assert!(
            !interleaving
                .actions()
                .any(|s| matches!(s.action, Action::Backend { .. })),
            "{report}"
        );
    }

    #[test]
    fn a_stuck_violation_shows_the_busy_try_lock_and_the_thread_that_blocked() {
        let subject = Subject::new("ForgottenGuard", ForgottenGuard::default)
            .with(Invocation::new("inc", |c: &ForgottenGuard| c.inc()))
            .with(Invocation::new("get", |c: &ForgottenGuard| c.get()));
        let verdict = check(
            &subject,
            &TestMatrix::new(vec![vec![0, 0], vec![1, 0]]),
            &Config::default(),
        )
        .expect("the check runs");
        let violation = verdict.violation().expect("a later inc blocks for good");
        assert!(violation.kind.history().is_stuck(), "{violation}");
        let interleaving = violation
            .interleaving
            .as_ref()
            .unwrap_or_else(|| panic!("the stuck execution's steps are recorded:\n{violation}"));
        assert!(
            interleaving.actions().any(|s| matches!(
                s.action,
                Action::TryLock {
                    kind: "try_lock",
                    acquired: false
                }
            ) && in_this_file(s)),
            "get's try_lock found the lock busy:\n{violation}"
        );
        assert!(
            interleaving.steps.iter().any(|s| matches!(
                s.action,
                Action::Switch {
                    reason: SwitchReason::Blocked,
                    ..
                }
            )),
            "an inc blocked:\n{violation}"
        );
    }

    #[test]
    fn loom_s_own_atomics_appear_as_loom_names_them_without_values_or_lines() {
        let subject = Subject::new("LoomOwn", LoomOwn::default)
            .with(Invocation::new("inc", |c: &LoomOwn| c.inc()))
            .with(Invocation::new("get", |c: &LoomOwn| c.get()));
        let (interleaving, report) = steps_of(&subject);
        let own: Vec<&Step> = interleaving
            .actions()
            .filter(|s| matches!(s.action, Action::Backend { .. }))
            .collect();
        assert!(own.len() >= 4, "two loads and two stores of loom's atomic:\n{report}");
        assert!(
            own.iter()
                .all(|s| s.object.as_ref().is_some_and(|o| o.kind == "loom atomic")
                    && s.location.is_none()
                    && s.op.is_some()),
            "{own:?}"
        );
        assert!(
            own.iter()
                .any(|s| matches!(&s.action, Action::Backend { event } if event.contains("Load"))),
            "{own:?}"
        );
        assert!(report.contains("loom's own primitive"), "{report}");
    }
}

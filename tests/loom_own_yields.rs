//! loom's own yields (under `--cfg loom`; no tests on shuttle): an object on loom's own atomics
//! whose spin loop yields with `loom::thread::yield_now()` or `loom::hint::spin_loop()`, as a
//! published crate's does, counts as yielding just as one on `lineup::thread::yield_now` does
//! (`lineup-core/src/loom_backend/loom_yields.rs`). So a spin that a racy interleaving leaves
//! unable to exit reaches loom's branch limit as a livelock, a stuck history that fails, not as
//! an inconclusive execution that passes in silence; and a spin that exits passes.

#[cfg(loom)]
mod on_loom {
    use lineup::{check, Config, Invocation, StuckKind, Subject, TestMatrix, Verdict, ViolationKind};
    use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};

    /// How a spin loop waits: loom's own calls, never lineup's.
    #[derive(Clone, Copy, Debug)]
    enum LoomSpin {
        YieldNow,
        SpinLoop,
    }

    impl LoomSpin {
        fn pause(self) {
            match self {
                LoomSpin::YieldNow => loom::thread::yield_now(),
                LoomSpin::SpinLoop => loom::hint::spin_loop(),
            }
        }
    }

    /// `arrive()` counts an arrival; the second one sets `done`. `wait()` spins until `done`.
    /// With `racy`, the count is a load and a store: a lost update leaves it at 1, `done` is never
    /// set and `wait()` spins for ever.
    struct Arrivals {
        count: AtomicUsize,
        done: AtomicBool,
        racy: bool,
        spin: LoomSpin,
    }

    impl Arrivals {
        fn arrive(&self) {
            let n = if self.racy {
                let n = self.count.load(SeqCst) + 1;
                self.count.store(n, SeqCst);
                n
            } else {
                self.count.fetch_add(1, SeqCst) + 1
            };
            if n == 2 {
                self.done.store(true, SeqCst);
            }
        }

        fn wait(&self) {
            while !self.done.load(SeqCst) {
                self.spin.pause();
            }
        }
    }

    fn arrivals(racy: bool, spin: LoomSpin) -> Subject<Arrivals> {
        let name = format!("{} arrivals ({spin:?})", if racy { "racy" } else { "atomic" });
        Subject::new(&name, move || Arrivals {
            count: AtomicUsize::new(0),
            done: AtomicBool::new(false),
            racy,
            spin,
        })
        .with(Invocation::new("arrive", Arrivals::arrive))
        .with(Invocation::new("wait", Arrivals::wait))
    }

    /// arrive() | arrive(), then wait() on the main thread: serially it always returns.
    fn arrive_arrive_wait() -> TestMatrix {
        TestMatrix::new(vec![vec![0], vec![0]]).with_final(vec![1])
    }

    fn config(bound: u32) -> Config {
        Config {
            preemption_bound: bound,
            ..Config::default()
        }
    }

    fn stuck_kind(verdict: &Verdict) -> StuckKind {
        match verdict {
            Verdict::Fail(v) => match &v.kind {
                ViolationKind::StuckNotLinearizable { stuck, .. } => *stuck,
                _ => panic!("expected a stuck-history violation, got:\n{v}"),
            },
            Verdict::Pass(stats) => panic!("expected FAIL, got PASS ({stats:?})"),
        }
    }

    /// Passes, with no stuck history and no inconclusive execution.
    fn assert_clean_pass(verdict: &Verdict, what: &str) {
        if let Some(v) = verdict.violation() {
            panic!("{what}: expected PASS, got:\n{v}");
        }
        let stats = verdict.stats();
        assert_eq!(stats.stuck_histories, 0, "{what}: {stats:?}");
        assert_eq!(stats.inconclusive_executions, 0, "{what}: {stats:?}");
    }

    // One spin kind per test: a loom child re-runs the checks that come before its own in the
    // same test, so each test keeps to a few checks.

    fn a_lost_update_that_the_spin_never_exits_is_a_livelock(spin: LoomSpin) {
        let verdict = check(&arrivals(true, spin), &arrive_arrive_wait(), &config(1)).expect("the check runs");
        assert_eq!(stuck_kind(&verdict), StuckKind::Livelock, "{spin:?}");
        let report = verdict.violation().unwrap().to_string();
        assert!(report.contains("livelock"), "{report}");
    }

    #[test]
    fn a_lost_update_that_a_loom_yield_now_spin_never_exits_is_a_livelock() {
        a_lost_update_that_the_spin_never_exits_is_a_livelock(LoomSpin::YieldNow);
    }

    #[test]
    fn a_lost_update_that_a_loom_spin_loop_spin_never_exits_is_a_livelock() {
        a_lost_update_that_the_spin_never_exits_is_a_livelock(LoomSpin::SpinLoop);
    }

    /// A user's own subscriber, interested in every event and span (loom's included).
    struct UsersSubscriber;

    impl tracing::Subscriber for UsersSubscriber {
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, _: &tracing::Event<'_>) {}
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }

    #[test]
    fn a_users_global_subscriber_does_not_hide_loom_s_own_yields() {
        // The loom child re-runs this test, so the user's subscriber is the global default there
        // too when the check starts; lineup's is scoped to the thread loom runs on and wins.
        tracing::subscriber::set_global_default(UsersSubscriber).expect("the only global subscriber");
        a_lost_update_that_the_spin_never_exits_is_a_livelock(LoomSpin::YieldNow);
    }

    fn the_atomic_twin_passes(spin: LoomSpin) {
        for bound in 0..=2 {
            let verdict = check(&arrivals(false, spin), &arrive_arrive_wait(), &config(bound)).unwrap();
            assert_clean_pass(&verdict, &format!("{spin:?}, bound {bound}"));
        }
    }

    #[test]
    fn the_atomic_twin_on_loom_yield_now_passes() {
        the_atomic_twin_passes(LoomSpin::YieldNow);
    }

    #[test]
    fn the_atomic_twin_on_loom_spin_loop_passes() {
        the_atomic_twin_passes(LoomSpin::SpinLoop);
    }

    /// A counter behind a spin lock on loom's atomics: `inc()` spins (with loom's own yield)
    /// while another thread holds the lock.
    struct SpinLockCounter {
        locked: AtomicBool,
        value: AtomicUsize,
        spin: LoomSpin,
    }

    impl SpinLockCounter {
        fn inc(&self) {
            while self.locked.compare_exchange(false, true, SeqCst, SeqCst).is_err() {
                self.spin.pause();
            }
            let v = self.value.load(SeqCst);
            self.value.store(v + 1, SeqCst);
            self.locked.store(false, SeqCst);
        }

        fn get(&self) -> usize {
            self.value.load(SeqCst)
        }
    }

    fn spin_lock_counter(spin: LoomSpin) -> Subject<SpinLockCounter> {
        Subject::new(&format!("spin-lock counter ({spin:?})"), move || SpinLockCounter {
            locked: AtomicBool::new(false),
            value: AtomicUsize::new(0),
            spin,
        })
        .with(Invocation::new("inc", SpinLockCounter::inc))
        .with(Invocation::new("get", SpinLockCounter::get))
    }

    /// inc() | inc(), then get(): with a preemption inside the holder's critical section the
    /// other thread spins, yielding, until the holder runs again and unlocks.
    fn a_spin_that_exits_is_not_a_livelock(spin: LoomSpin) {
        let matrix = TestMatrix::new(vec![vec![0], vec![0]]).with_final(vec![1]);
        for bound in 0..=3 {
            let verdict = check(&spin_lock_counter(spin), &matrix, &config(bound)).unwrap();
            assert_clean_pass(&verdict, &format!("{spin:?}, bound {bound}"));
        }
    }

    #[test]
    fn a_loom_yield_now_spin_that_exits_is_not_mistaken_for_a_livelock() {
        a_spin_that_exits_is_not_a_livelock(LoomSpin::YieldNow);
    }

    #[test]
    fn a_loom_spin_loop_spin_that_exits_is_not_mistaken_for_a_livelock() {
        a_spin_that_exits_is_not_a_livelock(LoomSpin::SpinLoop);
    }
}

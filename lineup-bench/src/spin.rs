//! `spin`: correct spinning objects checked at `LineupTest::new(..).seed(1)`'s defaults (the
//! random sample of 3x3 matrices, two workers), with the spin pruning
//! ([`Config::spin_pruning`](lineup::Config)) on (the default) and off (the baseline, in the same
//! run):
//! `{"bench":"spin_pass","object":..,"seconds":..,"executions":..,"baseline_seconds":..,"baseline_executions":..}`.
//! Target: at most 10 s for the ticket lock on `std::hint::spin_loop()`.

use std::time::Instant;

use lineup::{Config, Invocation, LineupTest, Subject};
use shuttle::sync::atomic::{AtomicU64, Ordering};

use crate::objects::spin::ticket_lock_counter;

/// A correct ticket-lock counter on shuttle's own atomics (which lineup's footprints cannot see),
/// spinning on `std::hint::spin_loop()` (no yield).
#[derive(Default)]
pub struct ShuttleTicketLock {
    next_ticket: AtomicU64,
    now_serving: AtomicU64,
    value: AtomicU64,
}

impl ShuttleTicketLock {
    fn locked<R>(&self, f: impl FnOnce() -> R) -> R {
        let ticket = self.next_ticket.fetch_add(1, Ordering::SeqCst);
        while self.now_serving.load(Ordering::SeqCst) != ticket {
            std::hint::spin_loop();
        }
        let result = f();
        self.now_serving.store(ticket + 1, Ordering::SeqCst);
        result
    }

    fn inc(&self) {
        self.locked(|| {
            let v = self.value.load(Ordering::SeqCst);
            self.value.store(v + 1, Ordering::SeqCst);
        });
    }

    fn get(&self) -> u64 {
        self.locked(|| self.value.load(Ordering::SeqCst))
    }
}

fn shuttle_ticket_lock() -> Subject<ShuttleTicketLock> {
    Subject::new("ShuttleTicketLock", ShuttleTicketLock::default)
        .with(Invocation::new("inc", ShuttleTicketLock::inc))
        .with(Invocation::new("get", ShuttleTicketLock::get))
}

/// Seconds and executions of the default check of `subject` with `config`.
fn measure<O: Send + Sync + 'static>(subject: &Subject<O>, config: Config) -> (f64, u64) {
    let start = Instant::now();
    let summary = LineupTest::new("spin_pass")
        .seed(1)
        .workers(2)
        .config(config)
        .check_subject(subject)
        .unwrap_or_else(|failure| panic!("a correct spinning object failed:\n{failure}"));
    (start.elapsed().as_secs_f64(), summary.executions)
}

fn line<O: Send + Sync + 'static>(object: &str, subject: &Subject<O>, baseline: Option<Config>) {
    let (seconds, executions) = measure(subject, Config::default());
    let mut out = format!(
        "{{\"bench\":\"spin_pass\",\"object\":\"{object}\",\"seconds\":{seconds:.2},\"executions\":{executions}"
    );
    if let Some(baseline) = baseline {
        let (s, e) = measure(subject, baseline);
        out.push_str(&format!(",\"baseline_seconds\":{s:.2},\"baseline_executions\":{e}"));
    }
    out.push_str(",\"target_seconds\":10}");
    println!("{out}");
}

/// Runs the `spin` lines.
pub fn run(args: &[String]) {
    let baseline = !args.iter().any(|a| a == "--no-baseline");
    let base = baseline.then(Config::default);
    line(
        "ticket lock (std::hint::spin_loop)",
        &ticket_lock_counter(),
        base.clone(),
    );
    line(
        "ticket lock on shuttle atomics (std::hint::spin_loop)",
        &shuttle_ticket_lock(),
        base,
    );
}


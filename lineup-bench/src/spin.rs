//! `spin`: correct spinning objects checked at `LineupTest::new(..).seed(1)`'s defaults (the
//! random sample, two workers, the default spin bound [`SpinPruning::SwitchAfter`]`(8)`; the
//! sample only, without the deepening budget), then with the opt-in prunings
//! ([`Config::spin_pruning`](lineup::Config) at `preemptions` and at `switch`), and, on the
//! sample's first ten matrices, the default against the baseline (`off`: every step of a spin a
//! preemption point up to the fair switch after 64 steps) in the same run:
//! `{"bench":"spin_pass","object":..,"samples":..,"seconds":..,"executions":..,"preemptions_seconds":..,"preemptions_executions":..,"switch_seconds":..,"switch_executions":..,"small_samples":10,"small_seconds":..,"small_executions":..,"baseline_small_seconds":..,"baseline_small_executions":..}`.
//! Target: at most 10 s for the ticket lock on `std::hint::spin_loop()` (`seconds`).

use std::time::Instant;

use lineup::{Config, Invocation, LineupTest, SpinPruning, Subject};
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

/// Seconds and executions of `LineupTest::new(..).seed(1)` (two workers) on `subject` with
/// `spin_pruning`, on the default sample or on its first `samples` matrices.
fn measure<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    spin_pruning: SpinPruning,
    samples: Option<usize>,
) -> (f64, u64) {
    let start = Instant::now();
    let mut test = LineupTest::new("spin_pass")
        .seed(1)
        .workers(2)
        .time_budget(None)
        .config(Config {
            spin_pruning,
            ..Config::default()
        });
    if let Some(k) = samples {
        test = test.samples(k);
    }
    let summary = test
        .check_subject(subject)
        .unwrap_or_else(|failure| panic!("a correct spinning object failed:\n{failure}"));
    (start.elapsed().as_secs_f64(), summary.executions)
}

/// One `spin_pass` line: the default sample at the default spin bound, with
/// `SpinPruning::Preemptions` and with `SpinPruning::Switch` (unless `full` is false: then on
/// `SMALL` matrices only), and the baseline (`SpinPruning::Off`) against the default on the first
/// `SMALL` matrices.
fn line<O: Send + Sync + 'static>(object: &str, subject: &Subject<O>, full: bool) {
    let sample = if full { None } else { Some(SMALL) };
    let (seconds, executions) = measure(subject, SpinPruning::default(), sample);
    let (pre_s, pre_e) = measure(subject, SpinPruning::Preemptions, sample);
    let (switch_s, switch_e) = measure(subject, SpinPruning::Switch, sample);
    let (small_s, small_e) = measure(subject, SpinPruning::default(), Some(SMALL));
    let (base_s, base_e) = measure(subject, SpinPruning::Off, Some(SMALL));
    println!(
        "{{\"bench\":\"spin_pass\",\"object\":\"{object}\",\"samples\":\"{}\",\"seconds\":{seconds:.2},\"executions\":{executions},\
         \"preemptions_seconds\":{pre_s:.2},\"preemptions_executions\":{pre_e},\"switch_seconds\":{switch_s:.2},\"switch_executions\":{switch_e},\"small_samples\":{SMALL},\
         \"small_seconds\":{small_s:.2},\"small_executions\":{small_e},\"baseline_small_seconds\":{base_s:.2},\
         \"baseline_small_executions\":{base_e},\"target_seconds\":10}}",
        if full { "default".to_string() } else { SMALL.to_string() }
    );
}

/// The matrices of the sample on which the baseline runs (the whole sample takes it minutes).
const SMALL: usize = 10;

/// Runs the `spin` lines.
pub fn run() {
    line("ticket lock (std::hint::spin_loop)", &ticket_lock_counter(), true);
    // shuttle's atomics name no call site for the spin pruning (the reduction sees them only
    // through lineup's vendor/shuttle-std): nothing to prune, and minutes for the whole sample.
    line(
        "ticket lock on shuttle atomics (std::hint::spin_loop)",
        &shuttle_ticket_lock(),
        false,
    );
}

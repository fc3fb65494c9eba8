//! A progress bar for long runs: matrices done, failures so far, executions per second, ETA, and,
//! ticking twice a second, the executions of each phase so far, so that one long matrix (a phase 1
//! that takes minutes) shows its progress too.
//! Shown only when standard error is a terminal, `CI` is not set and the test harness does not
//! capture output (`cargo test -- --nocapture`), so that captured test output and CI logs stay
//! clean. `LINEUP_PROGRESS=1` forces it on, `LINEUP_PROGRESS=0` off (see
//! [`RunSettings::progress`](crate::environment::RunSettings::progress)).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::environment::Environment;
use crate::judge::live;

/// Whether the test harness lets output through: libtest captures it unless it was started
/// with `--nocapture` / `--show-output` or `RUST_TEST_NOCAPTURE` is set. The bar writes to the
/// terminal directly, around any capture, so it stays off while output is captured.
fn output_not_captured(environment: &Environment) -> bool {
    environment.host.test_nocapture || std::env::args().any(|a| a == "--nocapture" || a == "--show-output")
}

/// Progress of a run over many matrices.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    /// Set when the bar is removed: the ticker thread ends.
    done: Arc<AtomicBool>,
}

impl Progress {
    /// A bar for `total` matrices, visible only on an interactive terminal outside CI (as
    /// `environment` says; `LINEUP_PROGRESS` forces it on or off).
    pub fn new(total: usize, title: &str, environment: &Environment) -> Self {
        let interactive = environment.run.progress.unwrap_or_else(|| {
            std::io::stderr().is_terminal() && !environment.host.ci && output_not_captured(environment)
        });
        let bar = interactive.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} matrices, {msg}, ETA {eta}")
                .expect("a valid template")
                .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix(title.to_string());
            bar
        });
        let done = Arc::new(AtomicBool::new(false));
        if let Some(bar) = &bar {
            tick(bar.clone(), Arc::clone(&done));
        }
        Self {
            bar,
            start: Instant::now(),
            done,
        }
    }

    /// A bar that is never shown.
    pub fn hidden() -> Self {
        Self {
            bar: None,
            start: Instant::now(),
            done: Arc::new(AtomicBool::new(true)),
        }
    }

    /// Reports `done` matrices checked, `failures` so far and `executions` in all.
    pub fn update(&self, done: usize, failures: usize, executions: u64) {
        if let Some(bar) = &self.bar {
            let rate = executions as f64 / self.start.elapsed().as_secs_f64().max(1e-9);
            bar.set_position(done as u64);
            bar.set_message(format!("{failures} failing, {rate:.0} executions/s"));
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
    }
}

/// Twice a second until `done`, the executions of each phase since the bar began, after the
/// bar's message: a long phase 1 moves the bar's line even though no matrix is done.
fn tick(bar: ProgressBar, done: Arc<AtomicBool>) {
    let (serial_base, concurrent_base) = live::executions();
    let ticker = std::thread::Builder::new().name("lineup-progress".into());
    let spawned = ticker.spawn(move || {
        let message = bar.message();
        while !done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(500));
            let (serial, concurrent) = live::executions();
            bar.set_message(format!(
                "{} (phase 1: {} serial executions, phase 2: {} executions so far)",
                message_head(&bar, &message),
                serial - serial_base,
                concurrent - concurrent_base
            ));
        }
    });
    // Without the thread, the bar still moves at each matrix.
    drop(spawned);
}

/// The bar's message without what the ticker added to it.
fn message_head(bar: &ProgressBar, initial: &str) -> String {
    let message = bar.message();
    let head = message.split(" (phase 1:").next().unwrap_or(initial);
    head.to_string()
}

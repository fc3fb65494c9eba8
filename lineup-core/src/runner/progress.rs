//! A progress bar for long runs: matrices done, failures so far, executions per second, ETA.
//! Shown only when standard error is a terminal, `CI` is not set and the test harness does not
//! capture output (`cargo test -- --nocapture`), so that captured test output and CI logs stay
//! clean. `LINEUP_PROGRESS=1` forces it on, `LINEUP_PROGRESS=0` off (see
//! [`RunSettings::progress`](crate::environment::RunSettings::progress)).

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::environment::Environment;

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
        Self {
            bar,
            start: Instant::now(),
        }
    }

    /// A bar that is never shown.
    pub fn hidden() -> Self {
        Self {
            bar: None,
            start: Instant::now(),
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
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

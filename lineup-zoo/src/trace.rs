//! What the report's "interleaving" section of a zoo class's violation costs: the schedule
//! shortened, the steps of the violating execution recorded by one more replay of it, how many the
//! short section shows, the preemptions of the schedule found and of the one shown, and the time
//! the shortening, the recording and the rendering take.

use std::time::Instant;

use lineup::{check, record_steps, sample_matrices, shorten_schedule, shrink, Config, Invocations, Subject, Verdict};

use crate::table::ZooEntry;

/// The report of one class's violation.
#[derive(Clone, Debug)]
pub struct TraceRow {
    /// `class version`.
    pub object: String,
    /// Steps recorded (switches not counted).
    pub steps: usize,
    /// Steps the short section shows (folded or not).
    pub steps_shown: usize,
    /// Preemptions in the schedule phase 2 found.
    pub preemptions_before: usize,
    /// Preemptions in the schedule the report shows, after shortening it (never more).
    pub preemptions_after: usize,
    /// Milliseconds of the shortening, the recording replay and the rendering of the section.
    pub report_ms: f64,
}

/// For a class that fails: the first of `tries` 3x3 matrices sampled from `seed` that the default
/// check fails, shrunk, and its violation's steps recorded again and rendered (`None` when no
/// sampled matrix fails, or the failure is phase 1's nondeterminism, whose serial token is
/// recorded too but has no preemptions).
pub(crate) fn measure<O: Invocations + Default>(entry: &ZooEntry, seed: u64, tries: usize) -> Option<TraceRow> {
    let subject = Subject::of(entry.class, O::default);
    let config = Config {
        preemption_bound: entry.preemption_bound,
        workers: 1,
        ..Config::default()
    };
    let sample = sample_matrices(subject.invocations().len(), 3, 3, tries, seed);
    let (failing, violation) = sample.into_iter().find_map(|m| match check(&subject, &m, &config) {
        Ok(Verdict::Fail(v)) => Some((m, v)),
        _ => None,
    })?;
    let (matrix, mut violation) = match shrink(&subject, &failing, violation.clone(), &config) {
        Ok(shrunk) => (shrunk.matrix, shrunk.violation),
        Err(_) => (failing, violation),
    };
    // As a test does after shrinking: the shortest schedule of the smallest matrix's violation.
    let start = Instant::now();
    shorten_schedule(&subject, &mut violation, &config, config.shortest_schedule).ok()?;
    let interleaving = record_steps(&subject, &matrix, &violation, &config).ok()??;
    let rendered = interleaving.render(violation.kind.history());
    let report_ms = start.elapsed().as_secs_f64() * 1e3;
    // A violation without a shortening (nondeterminism, found in phase 1: its schedule is a serial
    // order, not shortened; or a schedule the search could not replay) is shown as found.
    let (before, after) = violation
        .schedule
        .as_ref()
        .map_or((interleaving.preemptions, interleaving.preemptions), |shown| {
            (shown.preemptions_before() as usize, shown.preemptions_after() as usize)
        });
    Some(TraceRow {
        object: format!("{} {}", entry.class, entry.version),
        steps: interleaving.actions().count(),
        steps_shown: rendered.steps_shown,
        preemptions_before: before,
        preemptions_after: after,
        report_ms,
    })
}

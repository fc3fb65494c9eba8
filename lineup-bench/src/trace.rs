//! `trace`: what the report's "interleaving" section costs for each failing class of the zoo
//! (lineup-zoo): the first failing 3x3 matrix of 20 sampled from seed 1, shrunk and its schedule
//! shortened as a test does, its violation's steps recorded by one more replay and rendered. One
//! line per class:
//!
//! `{"bench":"trace","object":..,"steps":..,"steps_shown":..,"preemptions_before":..,"preemptions_after":..,"report_ms":..}`
//!
//! `steps`: the steps recorded; `steps_shown`: those the short section shows (folded or not);
//! `preemptions_before`/`_after`: the preemptions in the schedule phase 2 found, and in the one the
//! report shows after shortening it (never more); `report_ms`: the shortening, the recording replay
//! and the rendering. Target: at most a few hundred milliseconds per violation.

use lineup_zoo::{entries, measure_trace, Expected};

/// The sample's seed.
const SEED: u64 = 1;
/// Matrices sampled per class until one fails.
const TRIES: usize = 20;

/// One line per failing class of the zoo.
pub(crate) fn run() {
    for entry in entries().iter().filter(|e| e.expected == Expected::Fail) {
        let Some(row) = measure_trace(entry, SEED, TRIES) else {
            eprintln!(
                "trace: {} {}: no failing matrix among {TRIES} (or no steps)",
                entry.class, entry.version
            );
            continue;
        };
        println!(
            "{{\"bench\":\"trace\",\"object\":{:?},\"steps\":{},\"steps_shown\":{},\"preemptions_before\":{},\"preemptions_after\":{},\"report_ms\":{:.2}}}",
            row.object, row.steps, row.steps_shown, row.preemptions_before, row.preemptions_after, row.report_ms
        );
    }
}

//! `shapes`: how often a random matrix of each shape (threads x operations, up to 3x3) fails, and
//! what one costs, for every buggy zoo class: the measurement behind the default sample's mix of
//! shapes (`docs/strategies.md`).

use std::time::Instant;

use lineup_zoo::{entries, run_entry, Expected, TableSettings};

/// Prints one line per buggy zoo class and shape:
/// `{"bench":"shapes","class":..,"version":..,"shape":"2x2","samples":..,"failed":..,"ms_per_matrix":..}`,
/// then, per shape, the classes found (at least one failing matrix) and the total time.
pub fn run(samples: usize) {
    let shapes = [(2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (3, 3)];
    let mut found = vec![0usize; shapes.len()];
    let mut time = vec![0f64; shapes.len()];
    let mut rate_sum = vec![0f64; shapes.len()];
    let mut classes = 0;
    for entry in entries() {
        if matches!(entry.expected, Expected::Pass) {
            continue;
        }
        classes += 1;
        for (k, &(threads, ops)) in shapes.iter().enumerate() {
            let settings = TableSettings {
                samples,
                threads,
                ops,
                seed: 20261124,
                workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            };
            let start = Instant::now();
            let row = run_entry(&entry, &settings);
            let ms = start.elapsed().as_secs_f64() * 1e3;
            let checked = (row.passed + row.failed).max(1);
            found[k] += usize::from(row.failed > 0);
            time[k] += ms;
            rate_sum[k] += row.failed as f64 / checked as f64;
            println!(
                "{{\"bench\":\"shapes\",\"class\":\"{}\",\"version\":\"{}\",\"shape\":\"{threads}x{ops}\",\
                 \"samples\":{samples},\"failed\":{},\"errors\":{},\"ms_per_matrix\":{:.1}}}",
                entry.class,
                entry.version,
                row.failed,
                row.errors,
                ms / checked as f64
            );
        }
    }
    for (k, &(threads, ops)) in shapes.iter().enumerate() {
        println!(
            "{{\"bench\":\"shapes_total\",\"shape\":\"{threads}x{ops}\",\"buggy_classes\":{classes},\
             \"classes_found\":{},\"mean_fail_rate\":{:.3},\"total_s\":{:.1}}}",
            found[k],
            rate_sum[k] / classes.max(1) as f64,
            time[k] / 1e3
        );
    }
}

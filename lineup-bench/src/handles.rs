//! `handles`: the objects on per-thread handles and operation groups of
//! `examples/objects/handles.rs` (an SPSC ring, a work-stealing deque, an MPSC channel, each
//! correct and with its buggy twin) at default `LineupTest` settings (the default time budget,
//! `lineup::DEFAULT_TIME_BUDGET`; a fresh test per object, seed 1, two workers, as `depth`), one
//! line each:
//!
//! `{"bench":"handles","object":..,"verdict":"PASS"|"FAIL","seconds_to_first_failure":..}`
//!
//! `seconds_to_first_failure` is the time until the failing matrix was found (without the
//! shrinking the test does before it returns), `null` for a PASS. The PASS line of a passing
//! object, or the failing matrix, goes to stderr.

use std::time::Instant;

use lineup::{Invocations, LineupTest, Subject, TestFailure};

use crate::objects::handles::{
    MpscChannel, MpscChannelEarlyPublish, SpscRing, SpscRingEarlyHead, WorkStealingDeque, WorkStealingDequeNoCas,
};

/// The seed of every run.
const SEED: u64 = 1;

/// Seconds to the first failure of `name` at default settings, or `None` when it passes.
fn first_failure<O: Invocations>(name: &str, build: fn() -> O) -> Option<f64> {
    let subject = Subject::of(name, build);
    let start = Instant::now();
    let result = LineupTest::new(&format!("handles::{name}"))
        .seed(SEED)
        .workers(2)
        .check_subject(&subject);
    let seconds = start.elapsed().as_secs_f64();
    match result {
        Ok(summary) => {
            eprintln!("{name}: {summary}");
            None
        }
        Err(TestFailure::Violation {
            original, shrink_ms, ..
        }) => {
            let matrix = original.matrix.display(&original.labels).to_string();
            eprintln!("{name}: FAIL on {}", matrix.trim().replace('\n', " / "));
            Some(seconds - shrink_ms as f64 / 1000.0)
        }
        Err(other) => panic!("{name}: {other}"),
    }
}

/// One object's line.
fn line<O: Invocations>(name: &str, build: fn() -> O) {
    let (verdict, seconds) = match first_failure(name, build) {
        Some(seconds) => ("FAIL", format!("{seconds:.2}")),
        None => ("PASS", "null".to_string()),
    };
    println!(
        "{{\"bench\":\"handles\",\"object\":{name:?},\"verdict\":\"{verdict}\",\"seconds_to_first_failure\":{seconds}}}"
    );
}

/// The six objects, correct ones first.
pub(crate) fn run() {
    eprintln!("handles: seed {SEED}, 2 workers, default settings otherwise");
    line("SpscRing", SpscRing::default);
    line("WorkStealingDeque", WorkStealingDeque::default);
    line("MpscChannel", MpscChannel::default);
    line("SpscRingEarlyHead", SpscRingEarlyHead::default);
    line("WorkStealingDequeNoCas", WorkStealingDequeNoCas::default);
    line("MpscChannelEarlyPublish", MpscChannelEarlyPublish::default);
}

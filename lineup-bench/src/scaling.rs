//! `scaling [MAX_WORKERS]`: how the checks that users run overnight scale with the number of
//! workers ([`Config::workers`](lineup::Config::workers), `LineupTest::workers`): one expensive
//! matrix (both phases split among the workers) and RandomCheck (matrices on the workers), at 1,
//! 2, 4, ... workers up to `MAX_WORKERS` (default: the number of cores), best of two runs each.
//!
//! Each line: the check, the workers, the executions, the seconds, the speedup over one worker,
//! `serial_share` (the fraction of the one-worker run's time spent outside the parts that run on
//! every worker, from [`lineup::profile::parallel_time`]: what bounds the speedup, readable on a
//! machine with few cores), and whether the verdict (with its executions and histories, or the
//! violation and its replay token) is the one-worker run's.

use std::time::{Duration, Instant};

use lineup::{check, Config, Subject, TestMatrix, Verdict};

use crate::objects::queues::{BlockingQueue, NonBlockingQueue};

/// One timed run: seconds, the share of it outside parallel sections, executions, and what must
/// not depend on the number of workers.
struct Run {
    seconds: f64,
    serial_share: f64,
    executions: u64,
    key: String,
}

/// Times `check` (best of two), which gives its executions and its verdict's key.
fn best_of_two(check: &dyn Fn() -> (u64, String)) -> Run {
    let mut best: Option<Run> = None;
    for _ in 0..2 {
        let parallel_before = lineup::profile::parallel_time();
        let start = Instant::now();
        let (executions, key) = check();
        let elapsed = start.elapsed();
        let parallel = lineup::profile::parallel_time().saturating_sub(parallel_before);
        let run = Run {
            seconds: elapsed.as_secs_f64(),
            serial_share: 1.0
                - parallel.min(elapsed).as_secs_f64() / elapsed.max(Duration::from_nanos(1)).as_secs_f64(),
            executions,
            key,
        };
        if best.as_ref().is_none_or(|b| run.seconds < b.seconds) {
            best = Some(run);
        }
    }
    best.expect("two runs")
}

fn verdict_key(verdict: &Verdict) -> (u64, String) {
    let s = verdict.stats();
    let key = match verdict {
        Verdict::Pass(s) => format!(
            "PASS {} {} {} {}",
            s.serial_executions, s.serial_full, s.concurrent_executions, s.distinct_histories
        ),
        Verdict::Fail(v) => format!(
            "FAIL {:?} {} {}",
            v.kind,
            v.replay,
            v.schedule.as_ref().map_or(&v.replay, |shown| &shown.found)
        ),
    };
    (s.serial_executions + s.concurrent_executions, key)
}

/// The lines of one check at every number of workers.
fn lines(name: &str, worker_counts: &[usize], run: &dyn Fn(usize) -> (u64, String)) {
    let mut alone: Option<Run> = None;
    for &workers in worker_counts {
        let timed = best_of_two(&|| run(workers));
        let one = alone.get_or_insert_with(|| Run {
            key: timed.key.clone(),
            ..timed
        });
        println!(
            "{{\"bench\":\"scaling\",\"check\":\"{name}\",\"workers\":{workers},\"executions\":{},\"s\":{:.3},\
             \"speedup\":{:.2},\"serial_share\":{:.3},\"same_verdict\":{}}}",
            timed.executions,
            timed.seconds,
            one.seconds / timed.seconds,
            one.serial_share,
            timed.key == one.key
        );
    }
}

fn one_matrix(matrix: &TestMatrix, bound: u32, workers: usize) -> (u64, String) {
    let queue = Subject::of("NonBlockingQueue", NonBlockingQueue::default);
    let config = Config {
        workers,
        preemption_bound: bound,
        ..Config::default()
    };
    verdict_key(&check(&queue, matrix, &config).unwrap_or_else(|e| panic!("{e}")))
}

fn random_check<O: lineup::Invocations>(name: &str, build: fn() -> O, workers: usize) -> (u64, String) {
    let outcome = lineup::LineupTest::new(name)
        .threads(3)
        .ops(3)
        .samples(100)
        .shapes(lineup::Shapes::Exact)
        .seed(20261122)
        .workers(workers)
        .time_budget(None)
        .check(build);
    match outcome {
        Ok(summary) => (
            summary.executions,
            format!("PASS {} {}", summary.matrices, summary.executions),
        ),
        Err(failure) => (0, format!("FAIL {failure}")),
    }
}

/// The numbers of workers measured: 1, 2, 4, ... up to `max`, and `max`.
fn worker_counts(max: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |n| Some(n * 2))
        .take_while(|&n| n <= max)
        .collect();
    if counts.last() != Some(&max) {
        counts.push(max);
    }
    counts
}

/// Prints the lines of the four checks, up to `max_workers` workers.
pub fn run(max_workers: Option<usize>) {
    let max = max_workers.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let counts = worker_counts(max.max(1));
    // add(200), add(400), try_take() in every column, rotated, and a fourth thread.
    let four_by_three = TestMatrix::new(vec![vec![0, 2, 1], vec![1, 0, 2], vec![2, 1, 0], vec![0, 2, 2]]);
    lines("one matrix, 4x3 NonBlockingQueue, bound 2", &counts, &|w| {
        one_matrix(&four_by_three, 2, w)
    });
    let three_by_four = TestMatrix::new(vec![vec![0, 2, 1, 2], vec![1, 0, 2, 0], vec![2, 1, 0, 1]]);
    lines("one matrix, 3x4 NonBlockingQueue, bound 3", &counts, &|w| {
        one_matrix(&three_by_four, 3, w)
    });
    lines("RandomCheck, 100 random 3x3, non-blocking queue", &counts, &|w| {
        random_check("scaling_nonblocking", NonBlockingQueue::default, w)
    });
    lines("RandomCheck, 100 random 3x3, blocking queue", &counts, &|w| {
        random_check("scaling_blocking", BlockingQueue::default, w)
    });
}

//! `one_matrix_workers`: expensive matrices checked by one worker and by two
//! ([`Config::workers`]), which split the trees of both phases by prefix. The same check, the
//! same executions: the line says whether the verdicts (and, for a failure, the violation and its
//! replay token) are the same.

use std::time::Instant;

use lineup::{check, Config, Subject, TestMatrix, Verdict};

use crate::objects::queues::{give_up_queue, NonBlockingQueue};

/// What must not depend on the number of workers: PASS with its executions and histories, or the
/// violation with its replay token. With the partial-order reduction (`reduced`), the executions
/// may: two workers explore some of the schedules that one worker prunes with the records of
/// siblings explored before (docs/partial-order-reduction.md, section 3.13), never fewer, so the
/// histories and the violation are compared, not the executions.
fn verdict_key(verdict: &Verdict, reduced: bool) -> String {
    match verdict {
        Verdict::Pass(s) if reduced => format!("PASS {} {}", s.serial_full, s.distinct_histories),
        Verdict::Pass(s) => format!(
            "PASS {} {} {} {}",
            s.serial_executions, s.serial_full, s.concurrent_executions, s.distinct_histories
        ),
        Verdict::Fail(v) => format!("FAIL {:?} {}", v.kind, v.replay),
    }
}

fn line<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix, shape: &str, bound: u32, reduced: bool) {
    let run = |workers: usize| {
        let config = Config {
            workers,
            preemption_bound: bound,
            ..Config::default()
        };
        let start = Instant::now();
        let verdict = check(subject, matrix, &config).unwrap_or_else(|e| panic!("{e}"));
        (start.elapsed().as_secs_f64(), verdict)
    };
    // Each twice, alternating, the faster run of each counted: the first check in the process
    // pays for growing the heap, which the later ones reuse.
    let (one_a, alone) = run(1);
    let (two_a, split) = run(2);
    let (one_b, _) = run(1);
    let (two_b, split_b) = run(2);
    let (one, two) = (one_a.min(one_b), two_a.min(two_b));
    let total = |v: &Verdict| v.stats().serial_executions + v.stats().concurrent_executions;
    let executions = total(&alone);
    // The executions of the faster two-worker run (with the reduction they vary from run to run).
    let executions_2 = if two_a <= two_b { total(&split) } else { total(&split_b) };
    println!(
        "{{\"bench\":\"one_matrix_workers\",\"matrix\":\"{shape} {}\",\"verdict\":\"{}\",\"bound\":{bound},\
         \"reduction\":{reduced},\"executions\":{executions},\"executions_2\":{executions_2},\"workers_1_s\":{one:.3},\
         \"workers_2_s\":{two:.3},\"speedup\":{:.2},\"same_verdict\":{},\"target_speedup\":1.7}}",
        subject.name(),
        if alone.is_pass() { "PASS" } else { "FAIL" },
        one / two,
        verdict_key(&alone, reduced) == verdict_key(&split, reduced)
            && verdict_key(&alone, reduced) == verdict_key(&split_b, reduced)
    );
}

/// Prints the passing lines (a correct queue: 4x3 at bound 2, and 3x4 at bound 3) and the failing
/// one (the paper's Fig. 1 queue, 3x4, whose first violation lies deep in the tree).
pub fn run() {
    // add(200), add(400), try_take() in every column, rotated, and a fourth thread.
    let passing = TestMatrix::new(vec![vec![0, 2, 1], vec![1, 0, 2], vec![2, 1, 0], vec![0, 2, 2]]);
    let queue = Subject::of("NonBlockingQueue", NonBlockingQueue::default);
    let bound = Config::default().preemption_bound;
    line(&queue, &passing, "4x3", bound, false);
    let failing = TestMatrix::new(vec![vec![0, 0, 1, 1], vec![2, 2, 0, 1], vec![1, 2, 2, 0]]);
    line(&give_up_queue(), &failing, "3x4", bound, false);
    // The expensive matrix the strategies issue opens up: a third preemption, where phase 2
    // (75,672 executions) outweighs phase 1 (34,650), whose end (sorting the serial traces and
    // building the specification) is the part that stays on one core.
    let three = TestMatrix::new(vec![vec![0, 2, 1, 2], vec![1, 0, 2, 0], vec![2, 1, 0, 1]]);
    line(&queue, &three, "3x4", 3, false);
    // An object with threads of its own, where the reduction is on by default: a register
    // replicated over a primary and two backup actors on `lineup::sync::mpsc`.
    let (register, _) = lineup_zoo::native::registers(false);
    let writes_and_reads = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    line(&register, &writes_and_reads, "2x2", bound, true);
}

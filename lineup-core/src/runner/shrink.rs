//! Shrinking a failing matrix: drop operations, then threads, while the matrix still fails with
//! a violation of the same kind. Line-Up did this by hand (paper §5.1); lineup does it for you.

use crate::check::check;
use crate::config::Config;
use crate::error::CheckError;
use crate::judge::verdict::Verdict;
use crate::judge::verdict::Violation;
use crate::judge::verdict::ViolationKind;
use crate::model::matrix::TestMatrix;
use crate::model::subject::Subject;

/// A failing matrix made as small as single removals can make it.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The smallest failing matrix found.
    pub matrix: TestMatrix,
    /// Its violation (of the same kind as the original one).
    pub violation: Box<Violation>,
    /// How many removals succeeded.
    pub steps: usize,
    /// How many smaller matrices were checked.
    pub attempts: usize,
}

/// Whether two violations are of the same kind (nondeterminism, full history, stuck history).
pub fn same_kind(a: &ViolationKind, b: &ViolationKind) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// Every matrix with one operation fewer than `m`: each initial, worker and final operation in
/// turn, dropping a column that becomes empty.
fn without_one_op(m: &TestMatrix) -> Vec<TestMatrix> {
    let mut smaller = Vec::new();
    for i in 0..m.initial.len() {
        let mut c = m.clone();
        c.initial.remove(i);
        smaller.push(c);
    }
    for t in 0..m.threads.len() {
        for i in 0..m.threads[t].len() {
            let mut c = m.clone();
            c.threads[t].remove(i);
            if c.threads[t].is_empty() {
                c.threads.remove(t);
            }
            smaller.push(c);
        }
    }
    for i in 0..m.finals.len() {
        let mut c = m.clone();
        c.finals.remove(i);
        smaller.push(c);
    }
    smaller
}

/// Every matrix with one worker thread fewer than `m`.
fn without_one_thread(m: &TestMatrix) -> Vec<TestMatrix> {
    (0..m.threads.len())
        .map(|t| {
            let mut c = m.clone();
            c.threads.remove(t);
            c
        })
        .collect()
}

/// Shrinks `matrix`, whose check failed with `violation`: repeatedly drops the first operation
/// (then, when no single operation can go, the first thread) whose removal still fails with a
/// violation of the same kind. Every matrix reported was checked and fails.
pub fn shrink<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    violation: Box<Violation>,
    config: &Config,
) -> Result<Shrunk, CheckError> {
    let mut best = Shrunk {
        matrix: matrix.clone(),
        violation,
        steps: 0,
        attempts: 0,
    };
    loop {
        let candidates = without_one_op(&best.matrix)
            .into_iter()
            .chain(without_one_thread(&best.matrix));
        let mut improved = false;
        for candidate in candidates {
            if candidate.op_count() == 0 {
                continue;
            }
            best.attempts += 1;
            if let Verdict::Fail(v) = check(subject, &candidate, config)? {
                if same_kind(&v.kind, &best.violation.kind) {
                    best = Shrunk {
                        matrix: candidate,
                        violation: v,
                        steps: best.steps + 1,
                        attempts: best.attempts,
                    };
                    improved = true;
                    break;
                }
            }
        }
        if !improved {
            return Ok(best);
        }
    }
}

//! Shrinking a failing matrix: drop operations, then threads, while the matrix still fails; then
//! drop the cancellations of [cancellable](crate::Invocation::cancellable) operations where the
//! smallest matrix fails without them.
//! A smaller matrix that fails with another kind of violation is still a smaller failing test
//! (as proptest and Lincheck treat it); among matrices of the same size, one that fails with the
//! original kind is preferred. Line-Up did this by hand (paper §5.1); lineup does it for you.
//!
//! A smaller matrix that passes is explored to the end, which can take far longer than the
//! failing check did (it stopped at its first violation). So the smaller matrices of one size are
//! first run through phase 1 alone, which finds every nondeterminism: where the original
//! violation is one, the first of them that is nondeterministic too is the one the full checks
//! would take, found without a phase 2 (a nondeterministic replicated register, found on its first
//! sample, was reported after 6.7 s, two passing smaller matrices having taken the time to
//! explore; now after 0.04 s, `lineup-bench native`). The search that takes a failure of any kind
//! goes down through phase-1 failures first too; where phase 1 finds none, the full checks go on
//! in order. With
//! [`Config::max_duration`](crate::Config::max_duration) set, the whole shrinking stops within it:
//! each smaller matrix's check gets a quarter of the time left (at least a sixteenth of the whole
//! while that much is left), a check cut short without a violation counts as no failure, and
//! [`Shrunk::complete`] says that a smaller failing matrix may have been missed.

use crate::check::check_without_report as check;
use crate::check::phase1_failure;
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
    /// Its violation (of the original kind where a matrix of that size had one).
    pub violation: Box<Violation>,
    /// How many removals succeeded.
    pub steps: usize,
    /// How many smaller matrices were checked.
    pub attempts: usize,
    /// Whether every smaller matrix tried was checked to a verdict. `false` when the time given
    /// ([`Config::max_duration`](crate::Config::max_duration)) ran out, or a smaller matrix's
    /// check was cut short by it or by the memory limit: `matrix` still fails, but a smaller
    /// failing matrix may exist.
    pub complete: bool,
}

/// The time shrinking may take, and how much of it one smaller matrix's check gets.
#[derive(Clone, Copy, Debug)]
struct ShrinkBudget {
    /// When shrinking stops; `None`: it runs until every smaller matrix is checked.
    deadline: Option<std::time::Instant>,
    /// The least one check gets while that much is left: a slice too thin to end a check is
    /// wasted on every candidate after a slow one.
    least: std::time::Duration,
}

/// The share of the time left that one smaller matrix's check gets.
const SHARE_OF_WHAT_IS_LEFT: u32 = 4;

/// The share of the whole time that one check gets at least.
const LEAST_SHARE_OF_THE_WHOLE: u32 = 16;

impl ShrinkBudget {
    /// From `config.max_duration`, counted from now.
    fn of(config: &Config) -> Self {
        Self {
            deadline: config.max_duration.map(|limit| std::time::Instant::now() + limit),
            least: config.max_duration.unwrap_or_default() / LEAST_SHARE_OF_THE_WHOLE,
        }
    }

    /// `config` for the check of one smaller matrix: a quarter of the time left, at least a
    /// sixteenth of the whole while that much is left; `None` once the time is spent.
    fn candidate_config(&self, config: &Config) -> Option<Config> {
        let Some(deadline) = self.deadline else {
            return Some(config.clone());
        };
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return None;
        }
        let slice = (left / SHARE_OF_WHAT_IS_LEFT).max(self.least).min(left);
        Some(Config {
            max_duration: Some(slice),
            ..config.clone()
        })
    }
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

/// Shrinks `matrix`, whose check failed with `violation`: repeatedly moves to the first smaller
/// matrix (one operation fewer, then, when no single operation can go, one thread fewer) that
/// fails with a violation of the original kind, or, if none of that size does, to the first one
/// that fails with any violation. Every matrix reported was checked and fails; a smaller matrix
/// whose check reaches no verdict (a [`CheckError`], such as a vacuous check) is skipped. Every
/// smaller matrix keeps the subject's [operation groups](crate::Invocation::group) (a removal
/// cannot put a group on a second thread); one that did not would be skipped unchecked.
///
/// With [`Config::max_duration`](crate::Config::max_duration), the whole shrinking stops within
/// it (see the module's docs) and [`Shrunk::complete`] says whether it was cut short.
pub fn shrink<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    violation: Box<Violation>,
    config: &Config,
) -> Result<Shrunk, CheckError> {
    let original = violation.kind.clone();
    let groups = subject.groups();
    let budget = ShrinkBudget::of(config);
    let complete = std::cell::Cell::new(true);
    // The config of one smaller matrix's check, `None` (and the shrinking incomplete) once the time
    // is spent or for a matrix that breaks the operation groups.
    let candidate_config = |candidate: &TestMatrix| {
        if !groups.respects(candidate) {
            return None;
        }
        let config = budget.candidate_config(config);
        complete.set(complete.get() && config.is_some());
        config
    };
    // A smaller matrix's violation, if its check found one, as the searches take it; a check
    // that did not reach a verdict for want of time or memory makes the shrinking incomplete.
    let answer = |found: Result<Option<Box<Violation>>, CheckError>| match found {
        Ok(Some(v)) => {
            let preferred = same_kind(&v.kind, &original);
            Some((v, preferred))
        }
        Ok(None) => None,
        Err(e) => {
            if matches!(e, CheckError::Unfinished { .. } | CheckError::MemoryLimit { .. }) {
                complete.set(false);
            }
            None
        }
    };
    let full = |candidate: &TestMatrix| {
        let config = candidate_config(candidate)?;
        answer(check(subject, candidate, &config).map(|verdict| match verdict {
            Verdict::Fail(v) => Some(v),
            Verdict::Pass(stats) => {
                complete.set(complete.get() && !stats.unfinished);
                None
            }
        }))
    };
    let phase1 = |candidate: &TestMatrix| {
        let config = candidate_config(candidate)?;
        answer(
            phase1_failure(subject, candidate, &config).map(|verdict| match verdict {
                Some(Verdict::Fail(v)) => Some(v),
                _ => None,
            }),
        )
    };
    // Phase 1 finds every failure of a phase-1 kind, and no other.
    let screen = Screen {
        check: phase1,
        finds_every_preferred: matches!(original, ViolationKind::Nondeterministic(_)),
    };
    let (matrix, mut violation, steps, mut attempts) = smallest(matrix.clone(), violation, full, screen);
    let complete = complete.get();
    // A cancellation is kept only where it is needed: the smallest matrix is checked once more
    // without cancellation points, and a violation found there replaces the one with a
    // cancellation (the same kind preferred, as above).
    let recheck = config.max_cancellations > 0 && violation.kind.history().has_cancelled();
    if let Some(base) = budget.candidate_config(config).filter(|_| recheck) {
        attempts += 1;
        let without = Config {
            max_cancellations: 0,
            ..base
        };
        if let Ok(Verdict::Fail(v)) = check(subject, &matrix, &without) {
            if same_kind(&v.kind, &violation.kind) || !same_kind(&violation.kind, &original) {
                violation = v;
            }
        }
    }
    Ok(Shrunk {
        matrix,
        violation,
        steps,
        attempts,
        complete,
    })
}

/// A check of a smaller matrix: its failure, if it fails, and whether that is of the preferred
/// kind.
type Answer<F> = Option<(F, bool)>;

/// A screen as [`shrink_with`] takes it: `None` for none.
type ScreenFn<'a, F> = Option<&'a mut dyn FnMut(&TestMatrix) -> Answer<F>>;

/// A cheap first look at a smaller matrix (phase 1 alone, for [`shrink`]): the failure it finds
/// (a violation of a phase-1 kind), if any, with whether it is of the preferred kind.
struct Screen<C> {
    check: C,
    /// Every failure of the preferred kind is one the screen finds (the original violation was
    /// found in phase 1), so that the first smaller matrix the screen finds failing with it is the
    /// first one whose full check would.
    finds_every_preferred: bool,
}

/// Two greedy searches from the same failing matrix, the smaller result kept: one that prefers
/// the original kind at every size (it keeps the original failure where it can), and one that
/// takes the first failing smaller matrix of any kind (a path through another kind can lead to a
/// smaller matrix). At equal size, the first (the original kind's) wins. Checked matrices are
/// remembered, so the second search checks no matrix twice.
///
/// `screen` looks at the smaller matrices of one size before any is checked in full: the
/// preferring search takes the first one the screen finds failing with the original kind when
/// the screen finds every such failure (the same matrix the full checks would find first, for the
/// price of phase 1: a smaller matrix that passes phase 1 costs a whole phase 2), and the search
/// of any kind takes the first one the screen finds failing at all (so it, too, goes down through
/// phase-1 failures first), before the full checks in order.
fn smallest<F: Clone, C: FnMut(&TestMatrix) -> Answer<F>>(
    matrix: TestMatrix,
    failure: F,
    fails: impl FnMut(&TestMatrix) -> Answer<F>,
    screen: Screen<C>,
) -> (TestMatrix, F, usize, usize) {
    let mut full = Memo::new(fails);
    let mut cheap = Memo::new(screen.check);
    let preferring = {
        let mut screened = |m: &TestMatrix| cheap.get(m);
        let screen: ScreenFn<'_, F> = if screen.finds_every_preferred {
            Some(&mut screened)
        } else {
            None
        };
        shrink_with(matrix.clone(), failure.clone(), |m| full.get(m), screen)
    };
    let any_kind = {
        let mut screened = |m: &TestMatrix| cheap.get(m).map(|(f, _)| (f, true));
        shrink_with(
            matrix,
            failure,
            |m| full.get(m).map(|(f, _)| (f, true)),
            Some(&mut screened),
        )
    };
    // Smaller matrices checked, in phase 1 alone or in full (or both, counted once).
    let checked = full.seen.len() + cheap.seen.keys().filter(|m| !full.seen.contains_key(*m)).count();
    let (m, f, steps, _) = if any_kind.0.op_count() < preferring.0.op_count() {
        any_kind
    } else {
        preferring
    };
    (m, f, steps, checked)
}

/// The answers of a check of smaller matrices, each matrix checked once.
struct Memo<F, C> {
    check: C,
    seen: std::collections::HashMap<TestMatrix, Answer<F>>,
}

impl<F: Clone, C: FnMut(&TestMatrix) -> Answer<F>> Memo<F, C> {
    fn new(check: C) -> Self {
        Self {
            check,
            seen: std::collections::HashMap::new(),
        }
    }

    /// The answer for `m`, checked now if it was not before.
    fn get(&mut self, m: &TestMatrix) -> Answer<F> {
        if let Some(answer) = self.seen.get(m) {
            return answer.clone();
        }
        let answer = (self.check)(m);
        self.seen.insert(m.clone(), answer.clone());
        answer
    }
}

/// The search of [`shrink`] over any failure type `F`: `fails` checks a smaller matrix and
/// answers its failure, and whether it is of the preferred (original) kind; `screen`, if any,
/// looks at every smaller matrix of a size first, and the first one it finds failing with the
/// preferred kind is taken without a full check (see [`smallest`]). Returns the smallest failing
/// matrix found, its failure, the removals that succeeded and the matrices checked.
fn shrink_with<F>(
    matrix: TestMatrix,
    failure: F,
    mut fails: impl FnMut(&TestMatrix) -> Option<(F, bool)>,
    mut screen: ScreenFn<'_, F>,
) -> (TestMatrix, F, usize, usize) {
    let (mut matrix, mut failure, mut steps, mut attempts) = (matrix, failure, 0, 0);
    loop {
        let mut next: Option<(TestMatrix, F)> = None;
        // One operation fewer first; a thread fewer only when no single operation can go. Within
        // each size, the first matrix of the original kind wins, else the first of any kind.
        for candidates in [without_one_op(&matrix), without_one_thread(&matrix)] {
            let candidates: Vec<TestMatrix> = candidates.into_iter().filter(|c| c.op_count() > 0).collect();
            if let Some(screen) = screen.as_mut() {
                next = candidates.iter().find_map(|candidate| {
                    attempts += 1;
                    match screen(candidate) {
                        Some((f, true)) => Some((candidate.clone(), f)),
                        _ => None,
                    }
                });
                if next.is_some() {
                    break;
                }
            }
            let mut other: Option<(TestMatrix, F)> = None;
            for candidate in candidates {
                attempts += 1;
                match fails(&candidate) {
                    Some((f, true)) => {
                        next = Some((candidate, f));
                        break;
                    }
                    Some((f, false)) if other.is_none() => other = Some((candidate, f)),
                    _ => {}
                }
            }
            if next.is_none() {
                next = other;
            }
            if next.is_some() {
                break;
            }
        }
        match next {
            Some((m, f)) => {
                matrix = m;
                failure = f;
                steps += 1;
            }
            None => return (matrix, failure, steps, attempts),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake object: a matrix fails with kind `'a'` if it holds invocation 1 and 2 in different
    /// threads, else with kind `'b'` if it holds invocation 3; the original failure is `'a'`.
    fn fake(m: &TestMatrix) -> Option<(char, bool)> {
        let thread_of = |inv: usize| m.threads.iter().position(|t| t.contains(&inv));
        match (thread_of(1), thread_of(2)) {
            (Some(x), Some(y)) if x != y => Some(('a', true)),
            _ if m.threads.iter().flatten().any(|&i| i == 3) => Some(('b', false)),
            _ => None,
        }
    }

    /// No screen: every smaller matrix is checked in full.
    fn no_screen() -> Screen<fn(&TestMatrix) -> Answer<char>> {
        Screen {
            check: |_| None,
            finds_every_preferred: false,
        }
    }

    /// A screen that finds exactly the failures of the preferred kind (as phase 1 finds a
    /// nondeterminism), counting the full checks made.
    fn screened_shrink(
        start: TestMatrix,
        fails: impl Fn(&TestMatrix) -> Option<(char, bool)> + Copy,
        finds_every_preferred: bool,
    ) -> (TestMatrix, char, usize) {
        let full_checks = std::cell::Cell::new(0);
        let full = |c: &TestMatrix| {
            full_checks.set(full_checks.get() + 1);
            fails(c)
        };
        let screen = Screen {
            check: |c: &TestMatrix| fails(c).filter(|&(_, preferred)| preferred),
            finds_every_preferred,
        };
        let (m, kind, _, _) = smallest(start, 'a', full, screen);
        (m, kind, full_checks.get())
    }

    #[test]
    fn the_screen_finds_the_matrix_the_full_checks_find_with_fewer_of_them() {
        // Kind a only (the preferred kind, which the screen finds): [1, 0] | [2, 3] goes down to
        // [1] | [2] either way; with the screen no full check is made on the way down.
        let only_a = |c: &TestMatrix| fake(c).filter(|&(_, preferred)| preferred);
        let start = TestMatrix::new(vec![vec![0, 1], vec![3, 2]]);
        let (plain, _, plain_checks) = screened_shrink(start.clone(), only_a, false);
        let (with_screen, kind, checks) = screened_shrink(start, only_a, true);
        assert_eq!((&with_screen, kind), (&plain, 'a'));
        assert_eq!(plain, TestMatrix::new(vec![vec![1], vec![2]]));
        assert!(
            checks < plain_checks,
            "{checks} full checks with the screen, {plain_checks} without"
        );
        // With kind b too, the screen leaves every result as it was: the smallest is [3] (b).
        for start in [
            TestMatrix::new(vec![vec![1, 0], vec![2, 3]]),
            TestMatrix::new(vec![vec![1, 3], vec![2]]),
            TestMatrix::new(vec![vec![0, 3, 1], vec![2, 0]]),
        ] {
            let (plain, plain_kind, _) = screened_shrink(start.clone(), fake, false);
            let (with_screen, kind, _) = screened_shrink(start, fake, true);
            assert_eq!((with_screen, kind), (plain, plain_kind));
        }
    }

    #[test]
    fn a_screen_that_misses_a_preferred_failure_would_change_the_path() {
        // Guard of the test above: the preferring search trusts a screen that claims to find
        // every preferred failure, which is why a screen is used so only for a phase-1 violation
        // (phase 1 finds it whenever it exists). Here a matrix fails if 1 and 2, or 4 and 5, are
        // on different threads; the full checks go down through [4] | [2, 5] to [4] | [5], and a
        // screen blind to the second pair takes [1] | [2, 5] and ends at [1] | [2].
        let apart = |m: &TestMatrix, x: usize, y: usize| {
            let thread_of = |inv: usize| m.threads.iter().position(|t| t.contains(&inv));
            matches!((thread_of(x), thread_of(y)), (Some(a), Some(b)) if a != b)
        };
        let full = |m: &TestMatrix| (apart(m, 1, 2) || apart(m, 4, 5)).then_some(('a', true));
        let mut blind = |m: &TestMatrix| apart(m, 1, 2).then_some(('a', true));
        let start = TestMatrix::new(vec![vec![1, 4], vec![2, 5]]);
        let (plain, _, _, _) = shrink_with(start.clone(), 'a', full, None);
        let (trusted, _, _, _) = shrink_with(start, 'a', full, Some(&mut blind));
        assert_eq!(plain, TestMatrix::new(vec![vec![4], vec![5]]));
        assert_eq!(trusted, TestMatrix::new(vec![vec![1], vec![2]]));
    }

    #[test]
    fn a_smaller_matrix_of_another_kind_is_still_a_smaller_failing_test() {
        // [1, 0] | [2, 3]: kind a needs 1 and 2 apart (2 ops); kind b needs only 3 (1 op).
        let (m, kind, _, _) = smallest(TestMatrix::new(vec![vec![1, 0], vec![2, 3]]), 'a', fake, no_screen());
        assert_eq!(m, TestMatrix::new(vec![vec![3]]));
        assert_eq!(kind, 'b');
    }

    #[test]
    fn at_equal_size_the_original_kind_is_preferred() {
        // [3, 1] | [2]: dropping 3 leaves kind a, dropping 1 or 2 leaves kind b; kind a comes
        // first although 3 is dropped first only in one of the three candidates.
        // [1, 3] | [2]: of size 2, [3] | [2] (b) comes before [1] | [2] (a); a is kept. Every
        // path ends at size 1 with [3] (b), so the smallest is that one; at size 2 the preferring
        // search took a.
        let (m, kind, steps, _) = shrink_with(TestMatrix::new(vec![vec![1, 3], vec![2]]), 'a', fake, None);
        assert_eq!((m, kind, steps), (TestMatrix::new(vec![vec![1], vec![2]]), 'a', 1));
        let (m, kind, _, _) = smallest(TestMatrix::new(vec![vec![1, 3], vec![2]]), 'a', fake, no_screen());
        assert_eq!((m, kind), (TestMatrix::new(vec![vec![3]]), 'b'));
        // Where both kinds end at the same size, the original one is reported.
        let only_two = |c: &TestMatrix| fake(c).filter(|_| c.op_count() >= 2);
        let (m, kind, _, _) = smallest(TestMatrix::new(vec![vec![1, 3], vec![2]]), 'a', only_two, no_screen());
        assert_eq!((m, kind), (TestMatrix::new(vec![vec![1], vec![2]]), 'a'));
    }

    #[test]
    fn every_smaller_matrix_keeps_the_groups() {
        use crate::model::groups::OperationGroups;
        use crate::runner::sampling::sample_matrices_grouped;
        let groups = OperationGroups::new([Some("consumer"), None, Some("producer"), Some("consumer"), None]);
        let mut candidates = 0;
        for matrix in sample_matrices_grouped(&groups, 3, 3, 500, 17) {
            let framed = matrix.with_initial(vec![0, 2]).with_final(vec![3]);
            for candidate in without_one_op(&framed).into_iter().chain(without_one_thread(&framed)) {
                assert!(groups.respects(&candidate), "{candidate:?} from {framed:?}");
                candidates += 1;
            }
        }
        assert_eq!(candidates, 500 * (2 + 9 + 1 + 3));
    }

    #[test]
    fn the_same_kind_only_search_would_stop_early() {
        // Guard of the first test: with kind b refused, [1] | [2] is where shrinking stops.
        let (m, _, _, _) = shrink_with(
            TestMatrix::new(vec![vec![1, 0], vec![2, 3]]),
            'a',
            |c| fake(c).filter(|&(_, preferred)| preferred),
            None,
        );
        assert_eq!(m, TestMatrix::new(vec![vec![1], vec![2]]));
    }
}

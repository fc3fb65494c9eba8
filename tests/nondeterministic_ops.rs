//! Operations that are nondeterministic by design, opt-in: `Invocation::nondeterministic` and
//! `#[invoke(nondeterministic)]`. Phase 1's determinism check tolerates their different results;
//! phase 2 accepts a history when some observed serial history is a witness of it. A correct bag
//! and a racy snapshot `len()` pass with the option and fail without it; a bag that hands out an
//! item twice fails with it.

use lineup::sync::atomic::{AtomicU64, Ordering};
use lineup::sync::{Arc, Mutex};
use lineup::{check, invocations, Config, Invocation, Subject, TestMatrix, Verdict, ViolationKind};

/// Which end of the bag `take` serves: decided by a race of two helper threads, so that even a
/// serial `take` may return either end.
fn race_for_an_end() -> u64 {
    let winner = Arc::new(AtomicU64::new(0));
    let helpers: Vec<_> = [1, 2]
        .into_iter()
        .map(|end| {
            let winner = Arc::clone(&winner);
            lineup::thread::spawn(move || {
                let _ = winner.compare_exchange(0, end, Ordering::SeqCst, Ordering::SeqCst);
            })
        })
        .collect();
    for helper in helpers {
        helper.join().unwrap();
    }
    winner.load(Ordering::SeqCst)
}

/// A correct bag: `try_take` removes some element (either end), atomically.
#[derive(Default)]
struct Bag(Mutex<Vec<u32>>);

#[invocations]
impl Bag {
    #[invoke(1, 2)]
    fn add(&self, value: u32) {
        self.0.lock().unwrap().push(value);
    }

    #[invoke(nondeterministic)]
    fn try_take(&self) -> Option<u32> {
        let end = race_for_an_end();
        let mut items = self.0.lock().unwrap();
        if end == 1 && !items.is_empty() {
            Some(items.remove(0))
        } else {
            items.pop()
        }
    }
}

/// A bag whose `try_take` reads the element, lets go of the lock, then removes "the element at
/// that end": two takes at once can both return the same element (and one other is lost).
#[derive(Default)]
struct TwiceBag(Mutex<Vec<u32>>);

impl TwiceBag {
    fn try_take(&self) -> Option<u32> {
        let end = race_for_an_end();
        let seen = {
            let items = self.0.lock().unwrap();
            if end == 1 {
                items.first().copied()
            } else {
                items.last().copied()
            }
        };
        let mut items = self.0.lock().unwrap();
        if items.is_empty() {
            return None;
        }
        if end == 1 {
            items.remove(0);
        } else {
            items.pop();
        }
        seen
    }
}

fn bag_subject(nondeterministic: bool) -> Subject<Bag> {
    let take = Invocation::new("try_take", Bag::try_take);
    Subject::new("Bag", Bag::default)
        .with(Invocation::new("add", |b: &Bag| b.add(1)).arg(1))
        .with(Invocation::new("add", |b: &Bag| b.add(2)).arg(2))
        .with(if nondeterministic {
            take.nondeterministic()
        } else {
            take
        })
}

fn twice_bag() -> Subject<TwiceBag> {
    Subject::new("TwiceBag", TwiceBag::default)
        .with(Invocation::new("add", |b: &TwiceBag| b.0.lock().unwrap().push(1)).arg(1))
        .with(Invocation::new("add", |b: &TwiceBag| b.0.lock().unwrap().push(2)).arg(2))
        .with(Invocation::new("try_take", TwiceBag::try_take).nondeterministic())
}

fn kind(verdict: &Verdict) -> Option<&ViolationKind> {
    verdict.violation().map(|v| &v.kind)
}

#[test]
fn a_correct_bag_fails_without_the_option() {
    // add(1), add(2), try_take(): serially the take may return 1 or 2.
    let matrix = TestMatrix::new(vec![vec![0, 1, 2]]);
    let verdict = check(&bag_subject(false), &matrix, &Config::default()).unwrap();
    assert!(
        matches!(kind(&verdict), Some(ViolationKind::Nondeterministic(_))),
        "{verdict:?}"
    );
}

#[test]
fn a_correct_bag_passes_with_the_option() {
    // add(1), add(2), try_take() | and add(1), try_take() | add(2) (with helper threads per take,
    // bigger matrices take minutes in a debug build).
    for matrix in [
        TestMatrix::new(vec![vec![0, 1, 2]]),
        TestMatrix::new(vec![vec![0, 2], vec![1]]),
    ] {
        let verdict = check(&bag_subject(true), &matrix, &Config::default()).unwrap();
        if let Some(v) = verdict.violation() {
            panic!("expected PASS:\n{v}");
        }
    }
}

#[test]
fn the_derive_marks_the_operation_too() {
    // Bag's #[invoke(nondeterministic)] try_take is invocation 2.
    let subject = Subject::of("Bag (derived)", Bag::default);
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1]]);
    assert!(check(&subject, &matrix, &Config::default()).unwrap().is_pass());
}

#[test]
fn a_bag_that_hands_out_an_item_twice_fails_with_the_option() {
    // initial add(1), add(2); then try_take() | try_take(): both may return the same item.
    let matrix = TestMatrix::new(vec![vec![2], vec![2]]).with_initial(vec![0, 1]);
    let verdict = check(&twice_bag(), &matrix, &Config::default()).unwrap();
    let Some(ViolationKind::NotLinearizable { history, .. }) = kind(&verdict) else {
        panic!("expected a history without a serial witness: {verdict:?}");
    };
    let takes: Vec<_> = history.called_ops().into_iter().filter(|&op| op > 2).collect();
    assert_eq!(
        history.response(takes[0]),
        history.response(takes[1]),
        "{}",
        history.notation()
    );
}

/// A counter kept in two stripes that a background thread rebalances (moves one unit from the
/// first to the second), and a `len()` that reads the stripes one after the other: only a
/// snapshot, which may count the moving unit twice or not at all.
struct StripedCounter {
    stripes: Arc<[AtomicU64; 2]>,
}

impl StripedCounter {
    fn new() -> Self {
        let stripes = Arc::new([AtomicU64::new(1), AtomicU64::new(0)]);
        let moving = Arc::clone(&stripes);
        lineup::thread::spawn(move || {
            moving[0].fetch_sub(1, Ordering::SeqCst);
            moving[1].fetch_add(1, Ordering::SeqCst);
        });
        Self { stripes }
    }

    fn len(&self) -> u64 {
        self.stripes[0].load(Ordering::SeqCst) + self.stripes[1].load(Ordering::SeqCst)
    }
}

fn striped_counter(nondeterministic: bool) -> Subject<StripedCounter> {
    let len = Invocation::new("len", StripedCounter::len);
    Subject::new("StripedCounter", StripedCounter::new)
        .with(Invocation::new("inc", |c: &StripedCounter| {
            c.stripes[0].fetch_add(1, Ordering::SeqCst);
        }))
        .with(if nondeterministic { len.nondeterministic() } else { len })
}

#[test]
fn a_racy_snapshot_len_fails_without_the_option_and_passes_with_it() {
    // len() | inc(): every result of len() is one a serial len() before or after the inc() can
    // give with the background move anywhere. (Two len()s at once are another matter: both can
    // count the moving unit twice, which no serial pair of len()s does; with the option that
    // still fails, as it must: linearizability with respect to the observed serial behaviours.)
    let matrix = TestMatrix::new(vec![vec![1], vec![0]]);
    let without = check(&striped_counter(false), &matrix, &Config::default()).unwrap();
    assert!(
        matches!(kind(&without), Some(ViolationKind::Nondeterministic(_))),
        "{without:?}"
    );
    let with = check(&striped_counter(true), &matrix, &Config::default()).unwrap();
    if let Some(v) = with.violation() {
        panic!("expected PASS:\n{v}");
    }
    let two_lens = TestMatrix::new(vec![vec![1], vec![1]]);
    let verdict = check(&striped_counter(true), &two_lens, &Config::default()).unwrap();
    assert!(
        matches!(kind(&verdict), Some(ViolationKind::NotLinearizable { .. })),
        "{verdict:?}"
    );
}

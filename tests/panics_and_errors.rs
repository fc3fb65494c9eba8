//! Panics inside operations are responses (`Response::Panicked`), not crashes of the checker;
//! a bad matrix and a panicking constructor stop the check with an error that says why.

use lineup::shuttle::sync::Mutex;
use lineup::{
    check, check_against_spec, replay, synthesize_spec, CheckError, Config, Invocation, ObservationSet, ReplayToken,
    Response, Subject, TestMatrix, Verdict, ViolationKind,
};

/// The message of `Option::unwrap` on `None`.
const UNWRAP_NONE: &str = "called `Option::unwrap()` on a `None` value";

/// A correct stack whose `pop` panics on an empty stack (the lock is released before the panic,
/// so the mutex is not poisoned).
#[derive(Default)]
struct PanickyStack {
    items: Mutex<Vec<u32>>,
}

impl PanickyStack {
    fn push(&self, value: u32) {
        self.items.lock().unwrap().push(value);
    }

    fn pop(&self) -> u32 {
        let top = self.items.lock().unwrap().pop();
        top.unwrap()
    }
}

/// Invocations 0: `push(1)`, 1: `pop()`.
fn panicky_stack() -> Subject<PanickyStack> {
    Subject::new("PanickyStack", PanickyStack::default)
        .with(Invocation::new("push", |s: &PanickyStack| s.push(1)).arg(1))
        .with(Invocation::new("pop", PanickyStack::pop))
}

/// A stack whose `pop` panics while holding the lock: the mutex is poisoned, and every later
/// operation panics on the `PoisonError` too. Deterministically so, hence linearizable.
#[derive(Default)]
struct PoisoningStack {
    items: Mutex<Vec<u32>>,
}

/// Invocations 0: `push(1)`, 1: `pop()`.
fn poisoning_stack() -> Subject<PoisoningStack> {
    Subject::new("PoisoningStack", PoisoningStack::default)
        .with(Invocation::new("push", |s: &PoisoningStack| s.items.lock().unwrap().push(1)).arg(1))
        .with(Invocation::new("pop", |s: &PoisoningStack| {
            s.items.lock().unwrap().pop().unwrap()
        }))
}

/// `push(1), pop() | pop()`: one of the two pops finds the stack empty in every serial order.
fn push_pop_pop() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 1], vec![1]])
}

/// Every response in the histories of `spec`.
fn all_responses(spec: &ObservationSet) -> Vec<Response> {
    spec.histories()
        .flat_map(|h| h.responses().iter().flatten().cloned())
        .collect()
}

fn assert_pass(verdict: &Verdict) {
    if let Some(v) = verdict.violation() {
        panic!("expected PASS, got:\n{v}");
    }
}

#[test]
fn a_panicking_operation_is_recorded_as_its_response() {
    let synthesis = synthesize_spec(&panicky_stack(), &push_pop_pop(), &Config::default()).unwrap();
    assert!(synthesis.nondeterminism.is_none());
    // Three serial orders: 1 2 3, 1 3 2, 3 1 2.
    assert_eq!(synthesis.spec.full_count(), 3);
    assert_eq!(synthesis.spec.stuck_count(), 0, "a panic is a return, not a block");
    let panicked = Response::Panicked(UNWRAP_NONE.to_string());
    for h in synthesis.spec.histories() {
        assert!(h.is_complete(), "{h}");
        let panics = h.responses().iter().filter(|r| r.as_ref() == Some(&panicked)).count();
        assert_eq!(
            panics,
            1,
            "exactly one pop finds the stack empty in {h}: {:?}",
            h.responses()
        );
    }
    // `3[ ]3 1[ ]1 2[ ]2`: B pops the empty stack first.
    let b_first = synthesis
        .spec
        .histories()
        .find(|h| h.serial_order() == [3, 1, 2])
        .expect("B can run first");
    assert_eq!(b_first.response(3), Some(&panicked));
    assert_eq!(b_first.response(2), Some(&Response::returned(&1u32)));
}

#[test]
fn a_correct_but_panicky_object_passes() {
    let verdict = check(&panicky_stack(), &push_pop_pop(), &Config::default()).unwrap();
    assert_pass(&verdict);
    let stats = verdict.stats();
    assert_eq!(stats.serial_full, 3);
    assert!(stats.concurrent_executions >= stats.serial_executions, "{stats:?}");
}

#[test]
fn a_panic_that_poisons_the_lock_is_recorded_and_judged_like_any_response() {
    let subject = poisoning_stack();
    let synthesis = synthesize_spec(&subject, &push_pop_pop(), &Config::default()).unwrap();
    assert!(synthesis.nondeterminism.is_none());
    let responses = all_responses(&synthesis.spec);
    assert!(
        responses.contains(&Response::Panicked(UNWRAP_NONE.to_string())),
        "{responses:?}"
    );
    // In `3[ ]3 1[ ]1 2[ ]2` the lock is poisoned by B's pop: A's push and pop panic on it.
    assert!(
        responses
            .iter()
            .any(|r| matches!(r, Response::Panicked(m) if m.contains("PoisonError"))),
        "{responses:?}"
    );
    assert_pass(&check(&subject, &push_pop_pop(), &Config::default()).unwrap());
}

#[test]
fn a_panic_that_depends_on_the_schedule_is_a_violation() {
    // pop() panics only when the concurrent push is half done: a check-then-act race.
    #[derive(Default)]
    struct RacyStack {
        len: lineup::shuttle::sync::atomic::AtomicUsize,
        items: Mutex<Vec<u32>>,
    }
    use lineup::shuttle::sync::atomic::Ordering::SeqCst;
    let subject = Subject::new("RacyStack", RacyStack::default)
        .with(
            Invocation::new("push", |s: &RacyStack| {
                s.len.fetch_add(1, SeqCst);
                s.items.lock().unwrap().push(1);
            })
            .arg(1),
        )
        .with(Invocation::new("pop", |s: &RacyStack| {
            if s.len.load(SeqCst) == 0 {
                return None;
            }
            let top = s.items.lock().unwrap().pop();
            s.len.fetch_sub(1, SeqCst);
            Some(top.unwrap())
        }));
    let matrix = TestMatrix::new(vec![vec![0], vec![1]]);
    let verdict = check(&subject, &matrix, &Config::default()).unwrap();
    let Some(violation) = verdict.violation() else {
        panic!("expected FAIL, got PASS: {:?}", verdict.stats());
    };
    let ViolationKind::NotLinearizable { history, .. } = &violation.kind else {
        panic!("expected a full history without serial witness:\n{violation}");
    };
    assert_eq!(history.response(2), Some(&Response::Panicked(UNWRAP_NONE.to_string())));
    assert!(violation.to_string().contains("panicked: "), "{violation}");
}

#[test]
fn a_matrix_with_an_unknown_invocation_is_rejected() {
    let subject = panicky_stack();
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![5]]);
    let config = Config::default();
    let expected = "the test matrix uses invocation #5, but subject `PanickyStack` has only 2 invocations";

    let err = check(&subject, &matrix, &config).unwrap_err();
    assert!(
        matches!(err, CheckError::UnknownInvocation { index: 5, count: 2, .. }),
        "{err:?}"
    );
    assert_eq!(err.to_string(), expected);

    // Every entry point validates the matrix.
    let err = synthesize_spec(&subject, &matrix, &config).unwrap_err();
    assert_eq!(err.to_string(), expected);
    let spec = synthesize_spec(&subject, &push_pop_pop(), &config).unwrap().spec;
    let err = check_against_spec(&subject, &matrix, &spec, &config).unwrap_err();
    assert_eq!(err.to_string(), expected);
    let token: ReplayToken = "lineup:p2-b2:".parse().unwrap();
    let err = replay(&subject, &matrix, &token, &config).unwrap_err();
    assert_eq!(err.to_string(), expected);

    // Initial and final sequences count too.
    let err = check(&subject, &push_pop_pop().with_final(vec![2]), &config).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the test matrix uses invocation #2, but subject `PanickyStack` has only 2 invocations"
    );
}

#[test]
fn a_panicking_constructor_stops_the_check() {
    let subject = Subject::new("ExplodingStack", || -> PanickyStack {
        panic!("the constructor exploded")
    })
    .with(Invocation::new("pop", PanickyStack::pop));
    let err = check(&subject, &TestMatrix::new(vec![vec![0]]), &Config::default()).unwrap_err();
    let CheckError::ExecutionFailed { phase, message } = &err else {
        panic!("expected ExecutionFailed, got {err:?}");
    };
    assert!(phase.starts_with("phase 1"), "{phase}");
    assert!(message.contains("the constructor exploded"), "{message}");
    let text = err.to_string();
    assert!(
        text.starts_with("phase 1 (serial executions): the execution failed outside any operation: "),
        "{text}"
    );
    assert!(text.contains("the constructor exploded"), "{text}");
}

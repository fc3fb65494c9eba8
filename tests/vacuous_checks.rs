//! A check that cannot fail is not a pass: when every operation panicked in every serial
//! execution, or when a response shows that the object's primitives belong to a runtime lineup
//! does not drive (another shuttle or loom), `check` returns `CheckError::Vacuous` naming the
//! cause and the fix, and a `LineupTest` fails. `Config::allow_all_panics` is the opt-out for an
//! object whose operations are all meant to panic.
#![cfg(not(loom))]

use lineup::{check, CheckError, Config, Invocation, LineupTest, Subject, TestMatrix};

fn always_panics() -> Subject<()> {
    Subject::new("AlwaysPanics", || ()).with(Invocation::new("get", |_: &()| -> u32 {
        panic!("not implemented yet")
    }))
}

/// An object built on loom's atomics, checked by lineup on shuttle: loom's runtime is not
/// running, so its primitives panic (here in the constructor, outside any operation).
struct LoomCounter(loom::sync::atomic::AtomicU64);

fn loom_counter() -> Subject<LoomCounter> {
    Subject::new("LoomCounter", || LoomCounter(loom::sync::atomic::AtomicU64::new(0))).with(Invocation::new(
        "inc",
        |c: &LoomCounter| {
            c.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        },
    ))
}

/// An object one of whose operations uses loom's primitives (its response is loom's panic) while
/// another returns a value.
fn half_loom() -> Subject<()> {
    Subject::new("HalfLoom", || ())
        .with(Invocation::new("inc", |_: &()| {
            loom::sync::atomic::AtomicU64::new(0).fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }))
        .with(Invocation::new("answer", |_: &()| 42))
}

#[test]
fn every_operation_panicking_is_an_error_that_names_the_cause_and_the_opt_out() {
    let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
    let error = check(&always_panics(), &matrix, &Config::default()).unwrap_err();
    assert!(matches!(error, CheckError::Vacuous { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("AlwaysPanics"), "{message}");
    assert!(message.contains("not implemented yet"), "{message}");
    assert!(message.contains("allow_all_panics"), "{message}");
}

#[test]
fn the_opt_out_lets_an_object_whose_operations_all_panic_pass() {
    let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
    let config = Config {
        allow_all_panics: true,
        ..Config::default()
    };
    assert!(check(&always_panics(), &matrix, &config).unwrap().is_pass());
}

fn assert_foreign_loom(error: CheckError) {
    let message = error.to_string();
    assert!(matches!(error, CheckError::Vacuous { .. }), "{message}");
    assert!(message.contains("loom runtime that lineup does not drive"), "{message}");
    assert!(message.contains("cargo tree -i loom"), "{message}");
}

#[test]
fn a_foreign_runtime_is_an_error_even_when_some_operations_return() {
    // inc() panics inside loom's missing runtime; answer() returns.
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![1]]);
    for allow_all_panics in [false, true] {
        let config = Config {
            allow_all_panics,
            ..Config::default()
        };
        assert_foreign_loom(check(&half_loom(), &matrix, &config).unwrap_err());
    }
}

#[test]
fn a_foreign_runtime_in_the_constructor_is_the_same_error() {
    let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
    assert_foreign_loom(check(&loom_counter(), &matrix, &Config::default()).unwrap_err());
}

#[test]
fn a_lineup_test_of_a_vacuous_check_fails() {
    let result = LineupTest::new("always_panics")
        .time_budget(None)
        .threads(2)
        .ops(1)
        .samples(2)
        .seed(1)
        .check_subject(&always_panics());
    let failure = result.expect_err("a vacuous check must fail the test");
    assert!(
        failure.to_string().contains("panicked in every serial execution"),
        "{failure}"
    );
}

/// An object whose operation is meant to panic (not written yet), with the opt-out.
#[derive(Default)]
struct Unwritten;

#[lineup::invocations]
impl Unwritten {
    #[invoke]
    fn get(&self) -> u32 {
        panic!("to be written")
    }
}

#[lineup::lineup_test(
    time_budget = "off",
    threads = 2,
    ops = 1,
    samples = 2,
    seed = 3,
    allow_all_panics = true
)]
fn an_object_meant_to_panic_passes_with_allow_all_panics() -> Unwritten {
    Unwritten
}

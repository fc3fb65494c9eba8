//! Two different objects checked under the same name on the same matrix in one test: each check
//! judges its own object. Under loom (`--cfg loom`), where each phase runs in a child process that
//! re-runs the test and looks for its check by name and matrix, the child must find the second
//! check, not the first: before checks were counted, the buggy second object silently passed.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::{check, Config, Invocation, Subject, TestMatrix};
use objects::counters::{AtomicCounter, Counter1};

#[test]
fn a_second_object_of_the_same_name_is_checked_itself() {
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
    let correct = Subject::new("Counter", AtomicCounter::default)
        .with(Invocation::new("inc", |c: &AtomicCounter| c.inc()))
        .with(Invocation::new("get", |c: &AtomicCounter| c.get()));
    let racy = Subject::new("Counter", Counter1::default)
        .with(Invocation::new("inc", |c: &Counter1| c.inc()))
        .with(Invocation::new("get", |c: &Counter1| c.get()));
    let config = Config::default();
    let first = check(&correct, &matrix, &config).unwrap();
    assert!(first.is_pass(), "{}", first.violation().unwrap());
    let second = check(&racy, &matrix, &config).unwrap();
    assert!(
        !second.is_pass(),
        "the racy counter loses an update, even under the correct one's name"
    );
}

//! `Reduction::Auto`, the default: the partial-order reduction is on for an object with threads of
//! its own (an actor), off for the others.
#[path = "../../examples/objects/mod.rs"]
mod objects;

use lineup::{check, CheckStats, Config, Reduction, Subject, TestMatrix};

fn stats<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix, reduction: Reduction) -> CheckStats {
    let config = Config {
        reduction,
        workers: 1,
        ..Config::default()
    };
    let verdict = check(subject, matrix, &config).expect("the check runs");
    assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
    verdict.stats().clone()
}

fn explored(s: &CheckStats) -> (u64, u64, u64) {
    (s.serial_executions, s.concurrent_executions, s.redundant_executions)
}

#[test]
fn auto_is_on_for_an_actor() {
    let subject = objects::actors::relay_queue();
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![2]]);
    let on = stats(&subject, &matrix, Reduction::On);
    let off = stats(&subject, &matrix, Reduction::Off);
    assert!(on.concurrent_executions < off.concurrent_executions);
    assert_eq!(explored(&stats(&subject, &matrix, Reduction::Auto)), explored(&on));
}

#[test]
fn auto_is_off_for_an_object_without_threads_of_its_own() {
    // The zoo's lock-free stack: its CAS retry loops' loads commute, so the reduction would prune.
    let subject = Subject::of("TreiberStack", lineup_zoo::collections::TreiberStack::default);
    let matrix = lineup::sample_matrices(subject.invocations().len(), 3, 2, 1, 20261124).remove(0);
    let off = stats(&subject, &matrix, Reduction::Off);
    assert_eq!(off.redundant_executions, 0);
    // (The reduction would change what is explored here, so the comparison can fail.)
    assert_ne!(explored(&stats(&subject, &matrix, Reduction::On)), explored(&off));
    assert_eq!(explored(&stats(&subject, &matrix, Reduction::Auto)), explored(&off));
}

//! Replaying a loom violation with the `LOOM_CHECKPOINT_FILE` the report names (under
//! `--cfg loom`; this file has no tests on shuttle, whose replay is `LINEUP_REPLAY`). Its own
//! test binary: the variable is process-wide, and the loom children inherit it.

#[path = "../examples/objects/mod.rs"]
mod objects;

#[cfg(loom)]
#[test]
fn the_reported_checkpoint_runs_the_violating_execution_first() {
    use lineup::{check, Config, TestMatrix};
    use objects::counters::counter1;

    let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
    let first = check(&counter1(), &matrix, &Config::default()).expect("the check runs");
    let violation = first.violation().expect("Counter1 loses an update");
    let stored = violation
        .loom
        .as_ref()
        .and_then(|l| l.checkpoint.clone())
        .expect("the report names loom's stored path");
    // Kept in cargo's target directory (the one that holds this test binary, `target/loom` in CI),
    // never under the current directory.
    let exe = std::env::current_exe().unwrap();
    let target = exe
        .ancestors()
        .find(|d| d.join("CACHEDIR.TAG").is_file())
        .expect("the test binary is in a cargo target directory");
    assert_eq!(
        stored.parent(),
        Some(target.join("lineup-loom").as_path()),
        "{}",
        stored.display()
    );
    assert!(violation
        .to_string()
        .contains(&format!("LOOM_CHECKPOINT_FILE={}", stored.display())));

    std::env::set_var("LOOM_CHECKPOINT_FILE", &stored);
    let again = check(&counter1(), &matrix, &Config::default()).expect("the replay runs");
    let replayed = again.violation().expect("the replay fails the same way");
    assert_eq!(replayed.kind.history(), violation.kind.history());
    assert_eq!(
        again.stats().concurrent_executions,
        1,
        "the stored execution runs first"
    );

    std::env::set_var("LOOM_CHECKPOINT_FILE", stored.with_extension("missing"));
    let err = check(&counter1(), &matrix, &Config::default()).unwrap_err();
    assert!(err.to_string().contains("LOOM_CHECKPOINT_FILE="), "{err}");
}

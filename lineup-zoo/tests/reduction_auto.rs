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

/// An object with threads of its own runs on every core, as any other: its threads finish at the
/// end of each execution (the quiet end), so two workers no longer free their stacks at once.
#[test]
fn an_object_with_threads_of_its_own_runs_on_every_core_unless_told() {
    if std::env::var_os("LINEUP_WORKERS").is_some() {
        return;
    }
    let run = |test: lineup::LineupTest| test.threads(2).ops(1).samples(2).seed(3);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let actor = run(lineup::LineupTest::new("actor").time_budget(None))
        .check_subject(&objects::actors::actor_queue())
        .unwrap();
    assert_eq!(actor.workers, cores);
    let told = run(lineup::LineupTest::new("actor_told").time_budget(None).workers(1))
        .check_subject(&objects::actors::actor_queue())
        .unwrap();
    assert_eq!(told.workers, 1);
}

/// A survey counts every execution up to each history, the redundant ones the reduction ended
/// included: surveying again with that many executions meets exactly the histories met up to it.
#[test]
fn a_survey_counts_the_redundant_executions_too() {
    let subject = objects::actors::relay_queue();
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]);
    let config = Config {
        reduction: Reduction::On,
        interlude: None,
        workers: 1,
        ..Config::default()
    };
    let whole = lineup::survey(&subject, &matrix, &config).unwrap();
    assert!(whole.verdict.stats().redundant_executions > 0);
    let k = whole.histories.len() - 1;
    let upto = whole.histories[k].executions;
    let part = lineup::survey(
        &subject,
        &matrix,
        &Config {
            max_executions: Some(upto),
            ..config.clone()
        },
    )
    .unwrap();
    let fingerprints = |h: &[lineup::SurveyedHistory]| h.iter().map(|h| h.fingerprint).collect::<Vec<_>>();
    assert_eq!(fingerprints(&part.histories), fingerprints(&whole.histories[..=k]));
}

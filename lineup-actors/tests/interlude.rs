//! The interlude (`Config::interlude`) on an actor system: a bug that pb-dfs's depth-first order
//! reaches only late (the free choices at every receive make even small harnesses' trees huge) is
//! found by the interlude's sample, and its token replays it.

use lineup::{check, Config, Interlude, Phase, Strategy, Subject};
use lineup_actors::ds2::chord::OpenChord;

fn pct(after: u64, executions: u64) -> Option<Interlude> {
    Some(Interlude {
        after,
        strategy: Strategy::Pct {
            depth: 3,
            executions,
            seed: 5,
        },
    })
}

/// Open Chord's 2R+1W harness: pb-dfs alone spends hundreds of executions on the free choices of
/// the actors' receives without meeting the bug; with the interlude after 200, PCT finds it, and
/// the report names the interlude and gives a token that replays the schedule (the shortest one
/// reaching the same history) and the one the sample found.
#[test]
fn the_interlude_finds_a_bug_the_search_reaches_late() {
    let subject = Subject::of("OC", OpenChord::new);
    let matrix = OpenChord::harness_2r1w();
    let search_alone = Config {
        interlude: None,
        max_executions: Some(400),
        ..Config::default()
    };
    assert!(check(&subject, &matrix, &search_alone).unwrap().is_pass());
    let config = Config {
        interlude: pct(200, 200),
        ..Config::default()
    };
    let verdict = check(&subject, &matrix, &config).unwrap();
    let violation = verdict.violation().expect("the interlude finds the bug");
    let (_, executions) = violation.stats.interlude.expect("the interlude ran");
    assert!(executions <= 200);
    // Found by the sample (a schedule by thread index), shown as the shortest schedule that
    // reaches the same history (a pb-dfs one); both replay it.
    let shown = violation.schedule.as_ref().expect("a schedule found in phase 2");
    assert_eq!(shown.found.phase, Phase::Scheduled);
    assert!(shown.preemptions_after() <= shown.preemptions_before());
    let found = lineup::replay(&subject, &matrix, &shown.found, &config).unwrap();
    assert_eq!(found.violation.as_ref(), Some(&violation.kind));
    let report = violation.to_string();
    assert!(
        report.contains("by the interlude pct:3:200:5, after 200 of the search"),
        "{report}"
    );
    let replayed = lineup::replay(&subject, &matrix, &violation.replay, &config).unwrap();
    assert_eq!(replayed.violation.as_ref(), Some(&violation.kind));
}

//! `Check(X, m)` (paper Fig. 5), checking phase 2 against a given specification, and replay.

use std::sync::Arc;

use crate::backend;
use crate::backend::Shortening;
use crate::config::Config;
use crate::environment::{Environment, REPLAY_ENV};
use crate::error::CheckError;
use crate::judge::history_judge::judge;
#[cfg(not(loom))]
use crate::judge::phase2_outcome::Phase2Observer;
use crate::judge::phase2_outcome::Phase2Outcome;
use crate::judge::verdict::CheckStats;
use crate::judge::verdict::ShownSchedule;
use crate::judge::verdict::Verdict;
use crate::judge::verdict::Violation;
use crate::judge::verdict::ViolationKind;
use crate::model::history::History;
use crate::model::interleaving::Interleaving;
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::Phase;
use crate::model::replay_token::{ReplayToken, ScheduleCost};
use crate::model::stuck_kind::StuckKind;
use crate::model::subject::Subject;
use crate::report::html::{attach_report, test_name};
use crate::spec::determinism::Nondeterminism;
use crate::spec::observation::ObservationSet;
use crate::spec::observation_file;
use crate::spec::synthesis::Synthesis;
use crate::spec::vacuity::{foreign_runtime, vacuity, Vacuity};

/// Runs phase 1 of `Check(X, m)`: every serial execution of `matrix` (no preemption inside an
/// operation; every order of operations; never bounded), recording full and stuck serial
/// histories, then the determinism check of §2.3 over all of them.
pub fn synthesize_spec<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
) -> Result<Synthesis, CheckError> {
    synthesize_in(subject, matrix, config, &Environment::from_env()?)
}

/// [`synthesize_spec`] in `environment`, read at the start of the check.
pub(crate) fn synthesize_in<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    environment: &Environment,
) -> Result<Synthesis, CheckError> {
    backend::serial_executions(subject, matrix, config, environment)
        .map_err(|e| foreign_runtime_error(subject.name(), e))
}

/// A panic outside any operation (the constructor, a destructor) that reports a foreign runtime
/// is [`CheckError::Vacuous`], with the cause and the fix.
fn foreign_runtime_error(subject: &str, error: CheckError) -> CheckError {
    match error {
        CheckError::ExecutionFailed { phase, message } => match foreign_runtime(&message) {
            Some(runtime) => CheckError::Vacuous {
                subject: subject.to_string(),
                cause: Vacuity::ForeignRuntime { runtime, message },
            },
            None => CheckError::ExecutionFailed { phase, message },
        },
        other => other,
    }
}

/// Runs `Check(X, m)`: phase 1 synthesizes the specification from every serial execution of
/// `matrix` and fails if it is nondeterministic; phase 2 explores concurrent schedules within
/// `config.preemption_bound` and fails on the first history without a serial witness (Def. 1)
/// or a stuck history with an unjustified pending operation (Def. 2).
///
/// If the environment variable [`REPLAY_ENV`] holds a replay token from a report, phase 2 runs
/// that one schedule instead of exploring.
///
/// ```
/// use lineup_core::{check, Config, Invocation, Subject, TestMatrix};
/// use shuttle::sync::atomic::{AtomicU64, Ordering};
///
/// let counter = Subject::new("atomic counter", || AtomicU64::new(0))
///     .with(Invocation::new("inc", |c: &AtomicU64| { c.fetch_add(1, Ordering::SeqCst); }))
///     .with(Invocation::new("get", |c: &AtomicU64| c.load(Ordering::SeqCst)));
/// let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
/// let verdict = check(&counter, &matrix, &Config::default()).unwrap();
/// assert!(verdict.is_pass(), "{}", verdict.violation().unwrap());
/// ```
///
/// When [`LINEUP_REPORT_DIR`](crate::report_html::REPORT_DIR_ENV) is set, a violation is also
/// written there as an HTML page, `<test>-<n>.html` (the test is the current thread's name, which
/// the test harness sets, else the subject's name), and its text report names the file.
pub fn check<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
) -> Result<Verdict, CheckError> {
    let environment = Environment::from_env()?;
    check_in(subject, matrix, config, &environment).map(|verdict| finish(verdict, subject, config, &environment))
}

/// A failing verdict with its schedule shortened (within [`Config::shortest_schedule`] executions,
/// unless it replays [`REPLAY_ENV`]'s) and its HTML
/// report written when [`LINEUP_REPORT_DIR`] is set. A search for a shorter schedule that fails
/// leaves the violation as phase 2 found it.
///
/// [`LINEUP_REPORT_DIR`]: crate::report_html::REPORT_DIR_ENV
fn finish<O: Send + Sync + 'static>(
    mut verdict: Verdict,
    subject: &Subject<O>,
    config: &Config,
    environment: &Environment,
) -> Verdict {
    if let Verdict::Fail(violation) = &mut verdict {
        if environment.run.replay.is_none() && config.shortest_schedule > 0 {
            let _ = shorten_schedule(subject, violation, config, config.shortest_schedule);
        }
        attach_report(
            violation,
            &test_name(subject.name()),
            environment.run.report_dir.as_deref(),
        );
    }
    verdict
}

/// Shows the shortest schedule of a phase-2 violation found on shuttle: replaces
/// `violation.replay` with a schedule of `violation.matrix` that reaches the same violating
/// history (the same stuck history, stuck the same way) with fewer preemptions, or as many and
/// fewer context switches, if the search finds one within `budget` executions, and records both
/// schedules and their costs in `violation.schedule` (see [`ShownSchedule`]); the steps of the
/// violation ([`Violation::interleaving`]) are recorded again on the new schedule. The new token is a
/// `pb-dfs` one (`lineup:p2-b<preemptions>:...`), replayed by [`replay`] and [`REPLAY_ENV`]
/// like any other, and replayed once more before it is kept. Nondeterminism and loom's
/// violations are left as they are. `config` must be the one the violation was found under (its
/// yield settings and step limits shape the schedules).
///
/// ```
/// use lineup_core::{check, shorten_schedule, Config, Invocation, Subject, TestMatrix};
/// use shuttle::sync::atomic::{AtomicU64, Ordering};
///
/// // A racy counter: `inc` reads, then writes.
/// let counter = Subject::new("racy counter", || AtomicU64::new(0))
///     .with(Invocation::new("inc", |c: &AtomicU64| {
///         let v = c.load(Ordering::SeqCst);
///         c.store(v + 1, Ordering::SeqCst);
///     }))
///     .with(Invocation::new("get", |c: &AtomicU64| c.load(Ordering::SeqCst)));
/// let matrix = TestMatrix::new(vec![vec![0], vec![0]]).with_final(vec![1]);
/// let verdict = check(&counter, &matrix, &Config::default()).unwrap();
/// let mut violation = verdict.violation().unwrap().clone();
/// // `check` has already shortened it; shortening again changes nothing.
/// let shown = violation.schedule.clone().unwrap();
/// assert!(shown.preemptions_after() <= shown.preemptions_before());
/// shorten_schedule(&counter, &mut violation, &Config::default(), 1_000).unwrap();
/// assert_eq!(violation.schedule.unwrap().shown_cost, shown.shown_cost);
/// ```
pub fn shorten_schedule<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    violation: &mut Violation,
    config: &Config,
    budget: u64,
) -> Result<(), CheckError> {
    let phase2_on_shuttle = matches!(
        violation.replay.phase,
        Phase::Concurrent { .. } | Phase::ConcurrentYields { .. } | Phase::Scheduled
    );
    if !phase2_on_shuttle || violation.kind.is_nondeterminism() {
        return Ok(());
    }
    let Some(shortening) = backend::shortest_schedule(subject, &violation.matrix, &violation.replay, config, budget)?
    else {
        return Ok(());
    };
    if &shortening.history != violation.kind.history() {
        // The token does not reach the violation's history (it cannot happen): leave both alone.
        return Ok(());
    }
    let shorter = shortening.shorter.is_some();
    show_schedule(violation, shortening);
    if shorter {
        // The steps shown are the shown schedule's.
        let full = violation.interleaving.as_ref().is_some_and(|steps| steps.full);
        violation.interleaving = record_steps(subject, &violation.matrix, violation, config)?.map(|mut steps| {
            steps.full = full;
            steps
        });
    }
    Ok(())
}

/// Shows the schedule `shortening` found, if it found one, in `violation`, and records both it
/// and the one phase 2 found (for a violation shortened before, the one first found).
fn show_schedule(violation: &mut Violation, shortening: Shortening) {
    let (shown, shown_cost) = shortening
        .shorter
        .unwrap_or_else(|| (violation.replay.clone(), shortening.found));
    let found = std::mem::replace(&mut violation.replay, shown);
    let (found, found_cost, before) = match violation.schedule.take() {
        Some(earlier) => (earlier.found, earlier.found_cost, earlier.executions),
        None => (found, shortening.found, 0),
    };
    violation.schedule = Some(ShownSchedule {
        found,
        found_cost,
        shown_cost,
        executions: before + shortening.executions,
    });
}

/// [`check`] without the HTML report: what the runner calls for every matrix it checks and
/// shrinks (it writes one report for the failure it reports).
pub(crate) fn check_without_report<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
) -> Result<Verdict, CheckError> {
    check_in(subject, matrix, config, &Environment::from_env()?)
}

/// Phase 1 of the check of `matrix` alone (every serial execution): the failing verdict of a
/// nondeterministic object, with the steps of its execution, or `None` when phase 1 found none
/// (phase 2 would decide). For the shrinking of a phase-1 violation, which looks for the first
/// smaller matrix that is nondeterministic too before it pays for any phase 2.
pub(crate) fn phase1_failure<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
) -> Result<Option<Verdict>, CheckError> {
    let environment = Environment::from_env()?;
    let synthesis = synthesize_in(subject, matrix, config, &environment)?;
    Ok(match conclude_phase1(subject, matrix, synthesis, config)? {
        Ok(_) => None,
        Err(nondeterministic) => Some(with_interleaving(
            nondeterministic,
            subject,
            matrix,
            config,
            &environment,
        )),
    })
}

/// [`check_without_report`] in `environment`, read at the start of the check; a violation comes
/// with the steps of its execution.
fn check_in<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    environment: &Environment,
) -> Result<Verdict, CheckError> {
    check_unrecorded(subject, matrix, config, environment)
        .map(|verdict| with_interleaving(verdict, subject, matrix, config, environment))
}

/// A failing verdict with the steps of its violating execution (see [`Violation::interleaving`]),
/// recorded by one more replay of its schedule. The check does not depend on it: a replay that
/// fails or gives another history leaves the violation without steps.
fn with_interleaving<O: Send + Sync + 'static>(
    mut verdict: Verdict,
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    environment: &Environment,
) -> Verdict {
    if let Verdict::Fail(violation) = &mut verdict {
        let recorded = backend::record_interleaving(subject, matrix, violation, config, environment);
        violation.interleaving = recorded.ok().flatten().map(|mut interleaving| {
            interleaving.full = environment.run.trace_full;
            interleaving
        });
    }
    verdict
}

/// Records every step of `violation`'s execution: its schedule (the replay token) replayed once more
/// with step recording on, as a failing check does for its report (see
/// [`Violation::interleaving`]). For a violation whose token changed after the check (a shorter
/// schedule), or one checked without its steps. `None` for a phase-1 loom token, or when the replay does
/// not give the violation's history. Under loom, the violation's stored path is replayed by loom
/// in a child process (see [`Violation::interleaving`]).
pub fn record_steps<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    violation: &Violation,
    config: &Config,
) -> Result<Option<Interleaving>, CheckError> {
    backend::record_interleaving(subject, matrix, violation, config, &Environment::from_env()?)
}

/// [`check_in`] without the steps.
fn check_unrecorded<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    environment: &Environment,
) -> Result<Verdict, CheckError> {
    let synthesis = synthesize_in(subject, matrix, config, environment)?;
    // Phase 2 has the check's time that phase 1 left.
    let config = &Config {
        max_duration: config.max_duration.map(|limit| limit.saturating_sub(synthesis.elapsed)),
        ..config.clone()
    };
    let (spec, mut stats) = match conclude_phase1(subject, matrix, synthesis, config)? {
        Ok(phase1) => phase1,
        Err(nondeterministic) => return Ok(nondeterministic),
    };
    let token = replay_token(environment)?;
    #[cfg(loom)]
    if let Some(token) = &token {
        return Err(CheckError::BadReplayToken {
            token: token.to_string(),
            problem: "this is a shuttle schedule, and the check runs under loom (--cfg loom)".into(),
        });
    }
    let spec = Arc::new(spec);
    let phase2 =
        backend::concurrent_executions(subject, matrix, Arc::clone(&spec), config, token.as_ref(), environment)
            .map_err(|e| name_token(e, token.as_ref()));
    ObservationSet::release(spec);
    Ok(conclude(subject, matrix, phase2?, &mut stats))
}

/// Runs phase 2 of `Check(X, m)` against a specification obtained earlier (typically read from
/// an observation file with [`read_observation_file`](crate::spec::observation_file::read_observation_file)),
/// without a fresh phase 1. The specification must belong to `matrix`.
///
/// A failure is confirmed against a fresh phase 1 before it is reported, so that a stale
/// specification (one the object no longer matches) is never reported as a bug of the object:
/// it is [`CheckError::StaleSpec`] instead. Passing checks pay for no phase 1.
pub fn check_against_spec<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: &ObservationSet,
    config: &Config,
) -> Result<Verdict, CheckError> {
    let environment = Environment::from_env()?;
    check_against_named_spec(subject, matrix, spec, "the given specification", config, &environment)
        .map(|verdict| finish(verdict, subject, config, &environment))
}

/// [`check_against_spec`] with the specification read from an observation file; errors name
/// the file.
pub fn check_against_file<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    path: &std::path::Path,
    config: &Config,
) -> Result<Verdict, CheckError> {
    let environment = Environment::from_env()?;
    let spec = observation_file::read_observation_file(path)?;
    check_against_named_spec(
        subject,
        matrix,
        &spec,
        &path.display().to_string(),
        config,
        &environment,
    )
    .map(|verdict| finish(verdict, subject, config, &environment))
}

fn check_against_named_spec<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: &ObservationSet,
    source: &str,
    config: &Config,
    environment: &Environment,
) -> Result<Verdict, CheckError> {
    check_against_named_spec_unrecorded(subject, matrix, spec, source, config, environment)
        .map(|verdict| with_interleaving(verdict, subject, matrix, config, environment))
}

/// [`check_against_named_spec`] without the steps.
fn check_against_named_spec_unrecorded<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: &ObservationSet,
    source: &str,
    config: &Config,
    environment: &Environment,
) -> Result<Verdict, CheckError> {
    subject.validate(matrix)?;
    observation_file::check_matches(spec, &subject.op_table(matrix), source)?;
    refuse_vacuous(subject.name(), spec, config)?;
    let stats = CheckStats {
        serial_full: spec.full_count(),
        serial_stuck: spec.stuck_count(),
        preemption_bound: config.preemption_bound,
        spec_from_file: true,
        ..CheckStats::default()
    };
    if let Some(nondeterminism) = crate::spec::determinism::find_nondeterminism_in(spec, &subject.tolerated_ops(matrix))
    {
        return confirm_nondeterminism(subject, matrix, &nondeterminism, source, config, environment, stats);
    }
    let token = replay_token(environment)?;
    let phase2 = backend::concurrent_executions(
        subject,
        matrix,
        Arc::new(spec.clone()),
        config,
        token.as_ref(),
        environment,
    )
    .map_err(|e| name_token(e, token.as_ref()))?;
    conclude_confirmed(subject, matrix, phase2, source, config, environment, stats)
}

/// A specification from elsewhere that is nondeterministic: confirmed (and given a replay token)
/// by the object's own serial executions, else [`CheckError::StaleSpec`].
fn confirm_nondeterminism<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    nondeterminism: &Nondeterminism,
    source: &str,
    config: &Config,
    environment: &Environment,
    mut stats: CheckStats,
) -> Result<Verdict, CheckError> {
    let synthesis = synthesize_in(subject, matrix, config, environment)?;
    stats.serial_executions = synthesis.executions;
    stats.phase1_time = synthesis.elapsed;
    match synthesis.nondeterminism {
        Some((n, replay)) => Ok(fail(subject, matrix, ViolationKind::Nondeterministic(n), replay, stats)),
        None => Err(CheckError::StaleSpec {
            origin: source.to_string(),
            problem: format!(
                "it is nondeterministic at operation {} (serial histories {} and {}), but the object's \
                 serial executions are not",
                nondeterminism.op,
                nondeterminism.first.notation(),
                nondeterminism.second.notation()
            ),
        }),
    }
}

/// The verdict of phase 2 against a specification from elsewhere: a pass as it is, a violation
/// once confirmed against the object's own serial executions (else [`CheckError::StaleSpec`]).
fn conclude_confirmed<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    mut phase2: Phase2Outcome,
    source: &str,
    config: &Config,
    environment: &Environment,
    mut stats: CheckStats,
) -> Result<Verdict, CheckError> {
    let Some((kind, replay)) = phase2.violation.clone() else {
        return Ok(conclude(subject, matrix, phase2, &mut stats));
    };
    let synthesis = synthesize_in(subject, matrix, config, environment)?;
    stats.serial_executions = synthesis.executions;
    stats.phase1_time = synthesis.elapsed;
    if let Some((n, replay)) = synthesis.nondeterminism {
        return Ok(fail(subject, matrix, ViolationKind::Nondeterministic(n), replay, stats));
    }
    let stuck = match &kind {
        ViolationKind::StuckNotLinearizable { stuck, .. } => Some(*stuck),
        other if other.history().is_stuck() => Some(StuckKind::Deadlock),
        _ => None,
    };
    match judge(&synthesis.spec, kind.history(), stuck, config.check_stuck) {
        Some(confirmed) => {
            phase2.violation = Some((confirmed, replay));
            Ok(conclude(subject, matrix, phase2, &mut stats))
        }
        None => Err(CheckError::StaleSpec {
            origin: source.to_string(),
            problem: format!(
                "the history {} has no serial witness in it, but the object's serial executions provide one",
                kind.history().notation()
            ),
        }),
    }
}

/// One execution re-run from a replay token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The history of the execution.
    pub history: History,
    /// Why it is stuck, if it is.
    pub stuck: Option<StuckKind>,
    /// For a phase-2 token: why the history violates the specification of a fresh phase 1, if it
    /// does.
    pub violation: Option<ViolationKind>,
    /// The execution reached the step limit ([`Config::max_steps`]): its history is not judged.
    pub inconclusive: bool,
    /// Its preemptions and context switches (see [`ScheduleCost`]).
    pub schedule: ScheduleCost,
}

/// Re-runs exactly the execution a [`ReplayToken`] from a report describes, and for a phase-2
/// token judges its history against a fresh phase 1.
pub fn replay<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    token: &ReplayToken,
    config: &Config,
) -> Result<Replayed, CheckError> {
    subject.validate(matrix)?;
    if let Phase::LoomSerial | Phase::LoomConcurrent { .. } = token.phase {
        return Err(loom_token(token));
    }
    let execution = backend::replay_execution(subject, matrix, token, config)
        .map_err(|e| name_token(e, Some(token)))?
        .ok_or_else(|| CheckError::BadReplayToken {
            token: token.to_string(),
            problem: "the schedule does not fit this matrix".into(),
        })?;
    // A phase-2 execution is judged against a fresh phase 1 (which a token's bound and strategy
    // do not change).
    let violation = match token.phase {
        _ if execution.inconclusive => None,
        Phase::Serial | Phase::LoomSerial | Phase::LoomConcurrent { .. } => None,
        Phase::Concurrent { .. } | Phase::ConcurrentYields { .. } | Phase::Scheduled => {
            let synthesis = synthesize_spec(subject, matrix, config)?;
            judge(&synthesis.spec, &execution.history, execution.stuck, config.check_stuck)
        }
    };
    Ok(Replayed {
        history: execution.history,
        stuck: execution.stuck,
        violation,
        inconclusive: execution.inconclusive,
        schedule: execution.cost,
    })
}

fn loom_token(token: &ReplayToken) -> CheckError {
    CheckError::BadReplayToken {
        token: token.to_string(),
        problem: "a loom execution is replayed by loom itself: run the test with LOOM_CHECKPOINT_FILE set to the \
                  stored path the report names"
            .into(),
    }
}

/// The schedule phase 2 replays instead of exploring, from [`REPLAY_ENV`], if any.
fn replay_token(environment: &Environment) -> Result<Option<ReplayToken>, CheckError> {
    match environment.run.replay.clone() {
        Some(token) => match token.phase {
            Phase::Concurrent { .. } | Phase::ConcurrentYields { .. } | Phase::Scheduled => {
                eprintln!("lineup: {REPLAY_ENV} is set: phase 2 replays the schedule {token} only");
                Ok(Some(token))
            }
            Phase::LoomSerial | Phase::LoomConcurrent { .. } => Err(loom_token(&token)),
            Phase::Serial => Err(CheckError::BadReplayToken {
                token: token.to_string(),
                problem: format!(
                    "{REPLAY_ENV} replays phase-2 schedules; phase 1 always runs every serial execution \
                     (use lineup::replay for a serial one)"
                ),
            }),
        },
        None => Ok(None),
    }
}

/// Names the replay token in a [`CheckError::BadReplayToken`] from an exploration.
fn name_token(error: CheckError, token: Option<&ReplayToken>) -> CheckError {
    match (error, token) {
        (CheckError::BadReplayToken { problem, .. }, Some(token)) => CheckError::BadReplayToken {
            token: token.to_string(),
            problem,
        },
        (error, _) => error,
    }
}

/// Phase 2 of a [`survey`](crate::survey::survey) after its phase 1.
#[cfg(not(loom))]
pub(crate) fn conclude_survey<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    synthesis: Synthesis,
    config: &Config,
    observer: &Arc<dyn Phase2Observer>,
) -> Result<Verdict, CheckError> {
    let (spec, mut stats) = match conclude_phase1(subject, matrix, synthesis, config)? {
        Ok(phase1) => phase1,
        Err(nondeterministic) => return Ok(nondeterministic),
    };
    let phase2 = backend::observed_concurrent_executions(subject, matrix, Arc::new(spec), config, observer)?;
    Ok(conclude(subject, matrix, phase2, &mut stats))
}

/// After phase 1: refuses a specification that cannot fail, and gives phase 1's statistics with the
/// specification, or (`Err`) the failing verdict when phase 1 proved the object nondeterministic.
fn conclude_phase1<O>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    synthesis: Synthesis,
    config: &Config,
) -> Result<Result<(ObservationSet, CheckStats), Verdict>, CheckError> {
    refuse_vacuous(subject.name(), &synthesis.spec, config)?;
    let stats = CheckStats {
        serial_executions: synthesis.executions,
        redundant_executions: synthesis.redundant,
        serial_full: synthesis.spec.full_count(),
        serial_stuck: synthesis.spec.stuck_count(),
        phase1_time: synthesis.elapsed,
        preemption_bound: config.preemption_bound,
        ..CheckStats::default()
    };
    Ok(match synthesis.nondeterminism {
        Some((nondeterminism, replay)) => Err(fail(
            subject,
            matrix,
            ViolationKind::Nondeterministic(nondeterminism),
            replay,
            stats,
        )),
        None => Ok((synthesis.spec, stats)),
    })
}

fn conclude<O>(subject: &Subject<O>, matrix: &TestMatrix, phase2: Phase2Outcome, stats: &mut CheckStats) -> Verdict {
    stats.concurrent_executions = phase2.executions;
    stats.redundant_executions += phase2.redundant;
    stats.cancellation_points = phase2.cancellation_points;
    stats.distinct_histories = phase2.distinct;
    stats.stuck_histories = phase2.stuck;
    stats.inconclusive_executions = phase2.inconclusive;
    stats.stuck_resumed = phase2.resumed;
    stats.phase2_time = phase2.elapsed;
    stats.interlude = phase2.interlude;
    stats.unfinished = phase2.unfinished;
    match phase2.violation {
        None => Verdict::Pass(stats.clone()),
        Some((kind, replay)) => {
            let mut verdict = fail(subject, matrix, kind, replay, stats.clone());
            if let Verdict::Fail(v) = &mut verdict {
                v.loom = phase2.loom;
            }
            verdict
        }
    }
}

fn fail<O>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    kind: ViolationKind,
    replay: ReplayToken,
    stats: CheckStats,
) -> Verdict {
    Verdict::Fail(Box::new(Violation {
        subject: subject.name().to_string(),
        matrix: matrix.clone(),
        labels: subject.labels(),
        kind,
        replay,
        stats,
        loom: None,
        schedule: None,
        html_report: None,
        interleaving: None,
    }))
}

/// [`CheckError::Vacuous`] if the check cannot fail (unless every operation panicking is
/// allowed, and that is the reason).
fn refuse_vacuous(subject: &str, spec: &ObservationSet, config: &Config) -> Result<(), CheckError> {
    match vacuity(spec) {
        Some(cause) if !(cause.may_be_intended() && config.allow_all_panics) => Err(CheckError::Vacuous {
            subject: subject.to_string(),
            cause,
        }),
        _ => Ok(()),
    }
}

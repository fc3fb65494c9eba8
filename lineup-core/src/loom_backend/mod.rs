//! The loom backend (built with `RUSTFLAGS="--cfg loom"`): the same two-phase check, API and
//! report as on shuttle, with loom's exploration (DPOR, preemption bound, weak memory).
//!
//! * Phase 1 enumerates every serial order of the matrix itself (never bounded) and runs each
//!   under loom with the operations handed on by a loom mutex and condition variables, so each
//!   operation happens after the previous one: loom's weak-memory loads cannot make two serial
//!   executions of the same order differ. An operation that blocks ends in loom's deadlock
//!   assertion: it becomes a stuck serial history, and every order that shares the prefix up to
//!   it is skipped.
//! * Phase 2 is loom's own exploration at the configured preemption bound, with real-time order
//!   as happens-before unless [`Config::real_time_happens_before`] is off. A stuck execution is
//!   judged by Def. 2. When every blocked worker waits in `lineup::sync`'s mutex or condition
//!   variable, lineup sees it ([`wait_registry`]), takes the stuck history and ends the execution
//!   normally, and loom's exploration goes on. A worker blocked elsewhere (loom's or a crate's own
//!   primitives) ends in loom's deadlock assertion, a spin loop in loom's branch limit: lineup
//!   then resumes the exploration from loom's stored path after that execution (schedules that
//!   only it would have led to are skipped, and a warning says so).
//! * Everything loom runs, runs in a child process (see [`child`]): loom's deadlock assertion
//!   loses its exploration state and can abort the process.

pub(crate) mod block_on;
pub(crate) mod child;
pub(crate) mod harness;
mod kept_files;
mod loom_yields;
pub mod observable_mutex;
mod path_step;
mod serial_orders;
pub(crate) mod steps;
pub(crate) mod task;
pub mod tracked_atomic;
pub(crate) mod wait_registry;
mod wire;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use child::{Job, JobKind};
use harness::{HookContext, HookPhase, Plan};
use serial_orders::SerialOrders;
use wire::Record;

use crate::config::Config;
use crate::environment::{Environment, LoomSettings, LOOM_CHECKPOINT_ENV};
use crate::error::CheckError;
use crate::judge::phase2_outcome::Phase2Outcome;
use crate::judge::verdict::{LoomEvidence, ViolationKind};
use crate::model::matrix::TestMatrix;
use crate::model::replay_token::Phase;
use crate::model::replay_token::ReplayToken;
use crate::model::stuck_kind::StuckKind;
use crate::model::subject::Subject;
use crate::spec::determinism::find_nondeterminism_tolerating;
use crate::spec::observation::ObservationSet;
use crate::spec::observation_file;
use crate::spec::synthesis::Synthesis;

/// loom models at most this many threads besides the main thread.
const MAX_WORKERS: usize = loom::MAX_THREADS - 1;

fn key<O>(subject: &Subject<O>, matrix: &TestMatrix) -> String {
    format!("{} :: {matrix:?}", subject.name())
}

/// How many checks (phase 1 runs) of each subject name and matrix each test of this process has
/// begun, by the test's thread name (libtest names a test's thread after the test, and lineup's
/// workers carry that name): a child re-runs one test only, so the counts are the test's own.
static BEGUN: std::sync::Mutex<std::collections::BTreeMap<(String, String), usize>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// The counter of [`BEGUN`] for this test and base key.
fn counted(base: &str) -> (String, String) {
    let test = std::thread::current().name().unwrap_or("main").to_string();
    (test, base.to_string())
}

/// The key of a check that begins now (its phase 1): the subject's name and the matrix, and how
/// many checks of them this test began before. A child re-runs the test from its start and
/// counts the same way, so it does the job of *this* check even when a test checks two objects
/// of the same name on the same matrix (it would otherwise do it at the first of them, and a
/// buggy second object would pass).
fn begin_check<O>(subject: &Subject<O>, matrix: &TestMatrix) -> String {
    let base = key(subject, matrix);
    let mut begun = BEGUN.lock().unwrap_or_else(|e| e.into_inner());
    let n = begun.entry(counted(&base)).or_insert(0);
    *n += 1;
    format!("{base} #{n}")
}

/// The key of the check whose phase 2 runs now: the last one begun with this subject name and
/// matrix (`#0` for a phase 2 against a specification read from a file, with no phase 1 before).
fn current_check<O>(subject: &Subject<O>, matrix: &TestMatrix) -> String {
    let base = key(subject, matrix);
    let n = BEGUN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&counted(&base))
        .copied()
        .unwrap_or(0);
    format!("{base} #{n}")
}

fn validate<O>(subject: &Subject<O>, matrix: &TestMatrix, phase: &'static str) -> Result<(), CheckError> {
    subject.validate(matrix)?;
    if matrix.threads.len() > MAX_WORKERS {
        return Err(CheckError::ExecutionFailed {
            phase,
            message: format!(
                "loom models at most {MAX_WORKERS} threads besides main, and the matrix has {}",
                matrix.threads.len()
            ),
        });
    }
    Ok(())
}

/// Does the job of this child process, if it is a loom child started for this check: never
/// returns then.
fn serve_child_job<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    check: &str,
    loom: &LoomSettings,
) {
    let Some(job) = child::job_for(check, loom.child_job.as_deref()) else {
        return;
    };
    harness::install_hook();
    // Held until the child exits: loom's own yields count as yields from here on.
    let _loom_yields = loom_yields::watch();
    let plan = Arc::new(Plan::new(subject, matrix));
    let mut builder = loom::model::Builder::new();
    builder.max_branches = job.max_branches;
    builder.checkpoint_file = None;
    builder.log = false;
    match job.kind {
        JobKind::Serial { resume_after } => serve_serial_job(&plan, builder, &job.results, resume_after),
        JobKind::Concurrent {
            spec,
            checkpoint,
            preemption_bound,
            max_executions,
        } => {
            let concurrent = ConcurrentJob {
                spec,
                checkpoint,
                preemption_bound,
                max_executions,
                check_stuck: job.check_stuck,
                real_time: job.real_time,
            };
            serve_concurrent_job(&plan, builder, &job.results, concurrent);
        }
        JobKind::Record {
            checkpoint,
            preemption_bound,
        } => serve_record_job(
            &plan,
            builder,
            &job.results,
            (checkpoint, preemption_bound),
            job.real_time,
        ),
    }
    std::process::exit(0);
}

/// Sets the harness's hook context of this child for `phase`, its counts at zero.
fn set_hook_context(results: &std::path::Path, phase: HookPhase) {
    harness::HOOK.with(|c| {
        *c.borrow_mut() = Some(HookContext {
            results: results.to_path_buf(),
            phase,
            executions: 0,
            distinct: HashSet::new(),
            weak_violations: HashSet::new(),
            stuck_histories: HashSet::new(),
        })
    });
}

/// A child's phase-1 job: every serial order after `resume_after` (from the first if `None`),
/// each explored by loom, then [`Record::SerialDone`].
fn serve_serial_job<O: Send + Sync + 'static>(
    plan: &Arc<Plan<O>>,
    mut builder: loom::model::Builder,
    results: &std::path::Path,
    resume_after: Option<Vec<usize>>,
) {
    let orders = SerialOrders::new(plan.worker_ops());
    let mut next = match resume_after {
        None => orders.first(),
        Some(prefix) => orders.next_after(&prefix),
    };
    // No preemption at all: the only choices left are the ones inside an operation. (A
    // thread an operation spawned therefore runs only when the serial thread blocks or
    // ends; shuttle's phase 1 also runs it at other points. Such an object has serial
    // histories this misses, which phase 2 may then report without a witness: the
    // verdict, not deterministically linearizable, stands, since the missed history and
    // the one found for the same order differ; the evidence is not the one shuttle gives,
    // nondeterminism. Without a bound the exploration of the turn hand-over explodes.)
    builder.preemption_bound = Some(0);
    while let Some(order) = next {
        set_hook_context(results, HookPhase::Serial { order: order.clone() });
        builder.check(harness::serial_body(Arc::clone(plan), Arc::new(order.clone())));
        next = orders.next_after(&order);
    }
    child::report(results, &Record::SerialDone);
}

/// What a child's phase-2 job explores (the fields of [`JobKind::Concurrent`] and the job's).
struct ConcurrentJob {
    spec: std::path::PathBuf,
    checkpoint: std::path::PathBuf,
    preemption_bound: u32,
    max_executions: Option<u64>,
    check_stuck: bool,
    real_time: bool,
}

/// A child's phase-2 job: loom explores from the stored path, judging against the specification
/// file, then [`Record::ConcurrentDone`] with the tally (or [`Record::Failed`] if the
/// specification cannot be read).
fn serve_concurrent_job<O: Send + Sync + 'static>(
    plan: &Arc<Plan<O>>,
    mut builder: loom::model::Builder,
    results: &std::path::Path,
    job: ConcurrentJob,
) {
    let spec = match observation_file::read_observation_file(&job.spec) {
        Ok(spec) => Arc::new(spec),
        Err(e) => {
            child::report(results, &Record::Failed { message: e.to_string() });
            std::process::exit(0);
        }
    };
    let ops = spec.ops().clone();
    let phase = HookPhase::Concurrent {
        spec,
        ops,
        check_stuck: job.check_stuck,
        checkpoint: job.checkpoint.clone(),
    };
    set_hook_context(results, phase);
    builder.preemption_bound = Some(job.preemption_bound as usize);
    builder.checkpoint_file = Some(job.checkpoint);
    builder.checkpoint_interval = 1;
    builder.check(harness::concurrent_body(
        Arc::clone(plan),
        job.max_executions,
        job.real_time,
    ));
    let tally = harness::HOOK.with(|c| c.borrow().as_ref().expect("the hook context is set").tally());
    child::report(results, &Record::ConcurrentDone { tally });
}

/// A child's step-recording job: the execution loom's stored path leads to, with step recording
/// on ([`steps`]); its first execution reports [`Record::Steps`] and ends the child.
fn serve_record_job<O: Send + Sync + 'static>(
    plan: &Arc<Plan<O>>,
    mut builder: loom::model::Builder,
    results: &std::path::Path,
    (checkpoint, preemption_bound): (std::path::PathBuf, u32),
    real_time: bool,
) {
    set_hook_context(results, HookPhase::Record);
    let _watch = steps::start();
    builder.preemption_bound = Some(preemption_bound as usize);
    builder.checkpoint_file = Some(checkpoint);
    builder.check(harness::concurrent_body(Arc::clone(plan), None, real_time));
    child::report(
        results,
        &Record::Failed {
            message: "the replay of loom's stored path ran no execution".to_string(),
        },
    );
}

/// The steps of a phase-2 violation under loom: the execution loom's stored path
/// ([`LoomEvidence::checkpoint`]) leads to, replayed once more in a child process with step
/// recording on ([`steps`]), if it gives the violation's history (`expected`). `None` when no
/// path was stored, or the replay did not give that history.
pub(crate) fn record_interleaving<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    evidence: &LoomEvidence,
    config: &Config,
    environment: &Environment,
    expected: &crate::model::history::History,
) -> Result<Option<crate::model::interleaving::Interleaving>, CheckError> {
    let Some(stored) = evidence.checkpoint.as_ref() else {
        return Ok(None);
    };
    let dir = child::scratch_dir().map_err(scratch_error)?;
    // loom writes its path back as it goes: a copy, the kept one stays as the report names it.
    let checkpoint = dir.join("loom-path.json");
    std::fs::copy(stored, &checkpoint).map_err(|e| CheckError::ExecutionFailed {
        phase: PHASE2,
        message: format!("cannot copy loom's stored path {}: {e}", stored.display()),
    })?;
    let job = Job {
        key: current_check(subject, matrix),
        kind: JobKind::Record {
            checkpoint,
            preemption_bound: config.preemption_bound,
        },
        results: dir.join("results.jsonl"),
        check_stuck: config.check_stuck,
        max_branches: environment.loom.max_branches,
        real_time: evidence.real_time_happens_before,
    };
    let report = child::run(&job, &dir, PHASE2, &environment.loom);
    let _ = std::fs::remove_dir_all(&dir);
    let Some(Record::Steps { history, steps, .. }) = report?.records.last().cloned() else {
        return Ok(None);
    };
    Ok(history
        .history(expected.ops())
        .ok()
        .filter(|replayed| replayed == expected)
        .map(|_| steps))
}

fn child_failure(phase: &'static str, report: &child::ChildReport, what: &str) -> CheckError {
    CheckError::ExecutionFailed {
        phase,
        message: format!(
            "{what}; the loom child process exited with {}. Its last output:\n{}",
            report.status, report.stderr_tail
        ),
    }
}

/// The error for a record a phase does not expect: a failure the child reported, or a record of
/// another phase.
fn record_error(phase: &'static str, report: &child::ChildReport, record: &Record) -> CheckError {
    match record {
        Record::Failed { message } => CheckError::ExecutionFailed {
            phase,
            message: message.clone(),
        },
        other => child_failure(phase, report, &format!("an unexpected record {other:?}")),
    }
}

/// Phase 1 under loom (see the module).
pub(crate) fn serial_executions<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
    environment: &Environment,
) -> Result<Synthesis, CheckError> {
    validate(subject, matrix, PHASE1)?;
    let check = begin_check(subject, matrix);
    serve_child_job(subject, matrix, &check, &environment.loom);
    let start = Instant::now();
    let dir = child::scratch_dir().map_err(|e| CheckError::ExecutionFailed {
        phase: PHASE1,
        message: format!("cannot create a scratch directory: {e}"),
    })?;
    let mut serial = SerialRun::new(subject.op_table(matrix));
    let mut resume_after = None;
    loop {
        let job = Job {
            key: check.clone(),
            kind: JobKind::Serial { resume_after },
            results: dir.join("results.jsonl"),
            check_stuck: config.check_stuck,
            max_branches: environment.loom.max_branches,
            real_time: config.real_time_happens_before,
        };
        let report = child::run(&job, &dir, PHASE1, &environment.loom)?;
        match serial.absorb(&report, environment.loom.max_branches)? {
            SerialNext::Done => break,
            SerialNext::ResumeAfter(prefix) => resume_after = Some(prefix),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(serial.synthesis(subject, matrix, start))
}

/// The name of phase 1 under loom in its errors.
const PHASE1: &str = "phase 1 (loom)";

/// What phase 1's children found so far: the specification, the executions, and the serial
/// order of each history (for the replay token of a nondeterminism).
struct SerialRun {
    ops: crate::model::history::OpTable,
    spec: ObservationSet,
    executions: u64,
    orders_of: Vec<(crate::model::history::History, Vec<usize>)>,
}

/// What follows a phase-1 child's run.
enum SerialNext {
    /// Every serial order has been explored.
    Done,
    /// A child stopped at a stuck serial execution: the next one resumes after this prefix.
    ResumeAfter(Vec<usize>),
}

impl SerialRun {
    fn new(ops: crate::model::history::OpTable) -> Self {
        SerialRun {
            spec: ObservationSet::new(ops.clone()),
            ops,
            executions: 0,
            orders_of: Vec::new(),
        }
    }

    /// Takes in the records of one child's run, and says what follows it.
    fn absorb(&mut self, report: &child::ChildReport, max_branches: usize) -> Result<SerialNext, CheckError> {
        for record in &report.records {
            match record {
                Record::Serial { order, history } => {
                    self.insert(report, history, order, "a malformed serial history")?;
                }
                Record::SerialStuck { prefix, history, .. } => {
                    self.insert(report, history, prefix, "a malformed stuck history")?;
                    if prefix.is_empty() {
                        return Ok(SerialNext::Done);
                    }
                    return Ok(SerialNext::ResumeAfter(prefix.clone()));
                }
                Record::SerialInconclusive { order } => {
                    return Err(CheckError::StepLimit {
                        phase: PHASE1,
                        limit: format!("loom's branch limit (LOOM_MAX_BRANCHES = {max_branches})"),
                        execution: format!("of the order {order:?}"),
                    })
                }
                Record::SerialDone => return Ok(SerialNext::Done),
                other => return Err(record_error(PHASE1, report, other)),
            }
        }
        Err(child_failure(
            PHASE1,
            report,
            "the child process ended before reaching the check, or without finishing phase 1",
        ))
    }

    /// One serial history a child reported, reached by `order`.
    fn insert(
        &mut self,
        report: &child::ChildReport,
        history: &wire::WireHistory,
        order: &[usize],
        malformed: &str,
    ) -> Result<(), CheckError> {
        let h = history
            .history(&self.ops)
            .map_err(|e| child_failure(PHASE1, report, &format!("{malformed}: {e}")))?;
        self.executions += 1;
        self.orders_of.push((h.clone(), order.to_vec()));
        self.spec.insert(h);
        Ok(())
    }

    /// The specification, with the determinism check of §2.3 (its replay token the serial order
    /// of the second history).
    fn synthesis<O>(self, subject: &Subject<O>, matrix: &TestMatrix, start: Instant) -> Synthesis {
        let orders_of = self.orders_of;
        let nondeterminism =
            find_nondeterminism_tolerating(self.spec.histories(), &subject.tolerated_ops(matrix)).map(|n| {
                let order = orders_of
                    .iter()
                    .find(|(h, _)| *h == n.second)
                    .map(|(_, o)| o.iter().map(|&op| op as u32).collect())
                    .unwrap_or_default();
                (
                    n,
                    ReplayToken {
                        phase: Phase::LoomSerial,
                        choices: order,
                    },
                )
            });
        Synthesis {
            redundant: 0,
            spec: self.spec,
            nondeterminism,
            executions: self.executions,
            elapsed: start.elapsed(),
        }
    }
}

/// Phase 2 under loom (see the module). A violation that no tracked load explains (the object's
/// atomics may be loom's own, which lineup does not track) is checked again in the other memory
/// setting ([`Config::real_time_happens_before`] flipped), so that the report can say whether the
/// failure survives real-time order as happens-before, and whether it needs the bare C11 model.
pub(crate) fn concurrent_executions<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: Arc<ObservationSet>,
    config: &Config,
    environment: &Environment,
) -> Result<Phase2Outcome, CheckError> {
    let mut found = explore_concurrent(subject, matrix, Arc::clone(&spec), config, environment)?;
    let replaying = environment.loom.checkpoint_file.is_some();
    if let Some(evidence) = found.loom.as_mut().filter(|e| !e.is_weak_memory() && !replaying) {
        let other = Config {
            real_time_happens_before: !config.real_time_happens_before,
            ..config.clone()
        };
        let again = explore_concurrent(subject, matrix, spec, &other, environment)?;
        evidence.other_setting_fails = Some(again.violation.is_some());
    }
    Ok(found)
}

/// The name of phase 2 under loom in its errors.
const PHASE2: &str = "phase 2 (loom)";

/// One phase-2 exploration under loom, to the first violation: children explore from loom's
/// stored path, one after the other, each until it ends (complete, at a violation, or at an
/// execution loom cannot go on past, after which the next resumes).
fn explore_concurrent<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: Arc<ObservationSet>,
    config: &Config,
    environment: &Environment,
) -> Result<Phase2Outcome, CheckError> {
    validate(subject, matrix, PHASE2)?;
    let check = current_check(subject, matrix);
    serve_child_job(subject, matrix, &check, &environment.loom);
    let start = Instant::now();
    let scratch = Scratch::new(&spec, &environment.loom)?;
    let mut totals = LoomTotals::default();
    let mut weak_candidate: Option<Record> = None;
    loop {
        let report = child::run(
            &scratch.job(&check, config, &totals),
            &scratch.dir,
            PHASE2,
            &environment.loom,
        )?;
        keep_weak_candidate(&report, &mut weak_candidate);
        let Some(last) = report.records.last().cloned() else {
            return Err(child_failure(PHASE2, &report, "the child process reported nothing"));
        };
        match deciding_record(last, &mut weak_candidate) {
            Record::ConcurrentDone { tally } => {
                totals.add(&tally);
                break;
            }
            record @ (Record::StuckJustified { .. } | Record::Inconclusive { .. }) => {
                totals.resume_after(&record);
                if !scratch.step_past_execution()? || config.max_executions.is_some_and(|m| totals.executions >= m) {
                    break;
                }
            }
            record @ Record::Violation { .. } => {
                let (violation, evidence) =
                    confirm_violation(&record, &spec, config, environment, &report, &mut totals)?;
                scratch.remove();
                let token = ReplayToken {
                    phase: Phase::LoomConcurrent {
                        preemption_bound: config.preemption_bound,
                    },
                    choices: Vec::new(),
                };
                return Ok(totals.outcome(start, Some((violation, token)), Some(evidence)));
            }
            other => return Err(record_error(PHASE2, &report, &other)),
        }
    }
    scratch.remove();
    warn_resumed(subject.name(), totals.resumed);
    Ok(totals.outcome(start, None, None))
}

/// A violation that needs a weak-memory load is kept while the exploration looks for one that
/// needs none; it is reported only if none turns up.
fn keep_weak_candidate(report: &child::ChildReport, weak_candidate: &mut Option<Record>) {
    for record in &report.records {
        if let Record::Violation { weak_loads, .. } = record {
            if !weak_loads.is_empty() && weak_candidate.is_none() {
                *weak_candidate = Some(record.clone());
            }
        }
    }
}

/// The record that decides what follows a child's run: its last one, except that an exploration
/// complete with a weak-memory violation kept ends with that violation (and the final tally).
fn deciding_record(last: Record, weak_candidate: &mut Option<Record>) -> Record {
    let Record::ConcurrentDone { tally } = &last else {
        return last;
    };
    match weak_candidate.take() {
        None => last,
        Some(Record::Violation {
            history,
            stuck,
            weak_loads,
            checkpoint,
            ..
        }) => Record::Violation {
            tally: tally.clone(),
            history,
            stuck,
            weak_loads,
            checkpoint,
        },
        Some(_) => unreachable!("only violations are kept"),
    }
}

/// The violation a child reported, confirmed by the parent's judge against `spec`, with what loom
/// knows about it (its stored path kept next to the user's build).
fn confirm_violation(
    record: &Record,
    spec: &ObservationSet,
    config: &Config,
    environment: &Environment,
    report: &child::ChildReport,
    totals: &mut LoomTotals,
) -> Result<(ViolationKind, LoomEvidence), CheckError> {
    let Record::Violation {
        tally,
        history,
        stuck,
        weak_loads,
        checkpoint: saved,
    } = record
    else {
        unreachable!("a violation")
    };
    totals.add(tally);
    let h = history
        .history(spec.ops())
        .map_err(|e| child_failure(PHASE2, report, &format!("a malformed history: {e}")))?;
    let kind = stuck.as_deref().map(|k| {
        if k == "Livelock" {
            StuckKind::Livelock
        } else {
            StuckKind::Deadlock
        }
    });
    let violation = crate::judge::history_judge::judge(spec, &h, kind, config.check_stuck).ok_or_else(|| {
        child_failure(
            PHASE2,
            report,
            "the child reported a violation that the parent does not confirm",
        )
    })?;
    // Keep the stored path of the violating execution next to the user's build.
    let kept = saved
        .as_ref()
        .and_then(|s| keep_checkpoint(std::path::Path::new(s), environment));
    let evidence = LoomEvidence {
        weak_loads: weak_loads.clone(),
        checkpoint: kept,
        real_time_happens_before: config.real_time_happens_before,
        other_setting_fails: None,
    };
    Ok((violation, evidence))
}

/// Says that phase 2 resumed from loom's stored path after `resumed` stuck executions, and what
/// that skipped.
fn warn_resumed(subject: &str, resumed: usize) {
    if resumed > 0 {
        eprintln!(
            "lineup (loom): {resumed} execution(s) of {subject} got stuck outside lineup::sync (in loom's or a crate's \
             own blocking primitives, or in a spin loop). loom cannot go on exploring past its deadlock assertion, \
             so phase 2 resumed from loom's stored path after each: schedules that only those executions would \
             have led to were not explored (shuttle explores them)"
        );
    }
}

/// Phase 2's scratch directory under loom: the specification the children judge against, and
/// loom's stored path, which each child explores from and leaves at the execution it stopped at.
struct Scratch {
    dir: std::path::PathBuf,
    spec_file: std::path::PathBuf,
    checkpoint: std::path::PathBuf,
    /// loom's branch limit ([`LoomSettings::max_branches`]).
    max_branches: usize,
}

impl Scratch {
    /// A fresh scratch directory with `spec` written in it, and the user's stored path
    /// (`LOOM_CHECKPOINT_FILE`) as the first to explore from, if set.
    fn new(spec: &ObservationSet, loom: &LoomSettings) -> Result<Self, CheckError> {
        let dir = child::scratch_dir().map_err(scratch_error)?;
        let spec_file = dir.join("spec.xml");
        observation_file::write_observation_file(&spec_file, spec)?;
        let checkpoint = dir.join("loom-path.json");
        start_from_user_checkpoint(&checkpoint, loom)?;
        Ok(Self {
            dir,
            spec_file,
            checkpoint,
            max_branches: loom.max_branches,
        })
    }

    /// The job of the next child: explore from the stored path, within what is left of
    /// [`Config::max_executions`].
    fn job(&self, check: &str, config: &Config, totals: &LoomTotals) -> Job {
        Job {
            key: check.to_string(),
            kind: JobKind::Concurrent {
                spec: self.spec_file.clone(),
                checkpoint: self.checkpoint.clone(),
                preemption_bound: config.preemption_bound,
                max_executions: config.max_executions.map(|m| m.saturating_sub(totals.executions)),
            },
            results: self.dir.join("results.jsonl"),
            check_stuck: config.check_stuck,
            max_branches: self.max_branches,
            real_time: config.real_time_happens_before,
        }
    }

    /// Moves the stored path past the execution the last child stopped at; `false` when none
    /// follows it.
    fn step_past_execution(&self) -> Result<bool, CheckError> {
        let path = std::fs::read_to_string(&self.checkpoint).map_err(scratch_error)?;
        let next = path_step::step_path(&path, self.max_branches).map_err(|problem| CheckError::ExecutionFailed {
            phase: PHASE2,
            message: format!(
                "loom's stored path {} is not in loom 0.7.2's format: {problem}",
                self.checkpoint.display()
            ),
        })?;
        match next {
            Some(next) => std::fs::write(&self.checkpoint, next).map_err(scratch_error)?,
            None => return Ok(false),
        }
        Ok(true)
    }

    fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn scratch_error(e: std::io::Error) -> CheckError {
    CheckError::ExecutionFailed {
        phase: PHASE2,
        message: format!("cannot write to the scratch directory: {e}"),
    }
}

/// The totals of phase 2's children under loom: executions, the distinct and stuck histories (by
/// fingerprint) they met together, and the executions after which the exploration resumed.
#[derive(Default)]
struct LoomTotals {
    executions: u64,
    distinct: HashSet<u64>,
    stuck_histories: HashSet<u64>,
    /// Stuck executions after which loom's exploration resumed from its stored path.
    resumed: usize,
    /// Executions that reached the branch limit without evidence of a livelock (also resumed).
    inconclusive: u64,
}

impl LoomTotals {
    fn add(&mut self, tally: &wire::Tally) {
        self.executions += tally.executions;
        self.distinct.extend(&tally.distinct);
        self.stuck_histories.extend(&tally.stuck_histories);
    }

    /// A child stopped at an execution loom cannot go on past (a justified stuck one, or one at the
    /// branch limit): its tally, and one more resumed or inconclusive.
    fn resume_after(&mut self, record: &Record) {
        match record {
            Record::StuckJustified { tally, .. } => {
                self.add(tally);
                self.resumed += 1;
            }
            Record::Inconclusive { tally } => {
                self.add(tally);
                self.inconclusive += 1;
            }
            _ => unreachable!("a resumable record"),
        }
    }

    /// Phase 2's outcome from these totals.
    fn outcome(
        &self,
        start: Instant,
        violation: Option<(ViolationKind, ReplayToken)>,
        loom: Option<LoomEvidence>,
    ) -> Phase2Outcome {
        Phase2Outcome {
            redundant: 0,
            // loom cancels nothing (see `Invocation::cancellable`).
            cancellation_points: 0,
            violation,
            executions: self.executions,
            distinct: self.distinct.len(),
            stuck: self.stuck_histories.len(),
            inconclusive: self.inconclusive,
            resumed: self.resumed,
            elapsed: start.elapsed(),
            loom,
            interlude: None,
            // loom explores with its own search and ignores `Config::max_duration`.
            unfinished: false,
        }
    }
}

/// If the user set `LOOM_CHECKPOINT_FILE` (the replay line of a report), phase 2 starts from that
/// stored path, so the execution it stores runs first. (The children's loom builders use a
/// scratch path of their own, which would override the variable.)
fn start_from_user_checkpoint(scratch: &std::path::Path, loom: &LoomSettings) -> Result<(), CheckError> {
    let Some(user) = &loom.checkpoint_file else {
        return Ok(());
    };
    let bad = |problem: String| CheckError::ExecutionFailed {
        phase: "phase 2 (loom)",
        message: format!("{LOOM_CHECKPOINT_ENV}={}: {problem}", user.display()),
    };
    let text = std::fs::read_to_string(user).map_err(|e| bad(format!("cannot read it: {e}")))?;
    path_step::step_path(&text, loom.max_branches)
        .map_err(|problem| bad(format!("not a loom 0.7.2 stored path: {problem}")))?;
    // loom 0.7.2 cannot load a path longer than its branch limit (see `path_step::step_path`):
    // it would panic with "capacity overflow" in the child, outside any execution.
    let branches =
        path_step::branch_count(&text).map_err(|problem| bad(format!("not a loom 0.7.2 stored path: {problem}")))?;
    if branches > loom.max_branches {
        return Err(bad(format!(
            "the stored path has {branches} branches, more than loom's branch limit (LOOM_MAX_BRANCHES = {}); \
             loom 0.7.2 cannot load it (its Path::set_max_branches computes the limit minus the length, which \
             wraps: \"capacity overflow\"). Run the replay with LOOM_MAX_BRANCHES={branches} or more",
            loom.max_branches
        )));
    }
    std::fs::write(scratch, text).map_err(|e| bad(format!("cannot copy it to {}: {e}", scratch.display())))?;
    eprintln!(
        "lineup (loom): phase 2 starts from the stored path in {} ({LOOM_CHECKPOINT_ENV})",
        user.display()
    );
    Ok(())
}

/// Copies a stored loom path out of the scratch directory into `lineup-loom/` of cargo's target
/// directory ([`kept_files::kept_files_dir`]), so that it outlives the check.
fn keep_checkpoint(path: &std::path::Path, environment: &Environment) -> Option<std::path::PathBuf> {
    let dir = kept_files::kept_files_dir(environment.host.cargo_target_dir.as_deref());
    std::fs::create_dir_all(&dir).ok()?;
    let name = format!(
        "violation-{}-{}.json",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    );
    let target = dir.join(name);
    std::fs::copy(path, &target).ok()?;
    Some(target)
}

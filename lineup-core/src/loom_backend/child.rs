//! Running loom in a child process: a loom deadlock, a branch-limit overflow or an abort inside
//! loom's engine ends the child, never the user's test process.
//!
//! The parent re-runs its own executable (the test binary, with `--exact <test name>`, or the
//! example with its arguments) with [`LOOM_CHILD_ENV`] naming a job file. The child runs normally until
//! it reaches the check of the same subject and matrix, does the job there, reports through a
//! results file (one JSON record per line, flushed) and exits. Checks that come earlier in the
//! same test are run by the child too, each in its own grandchild processes.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use super::wire::Record;
use crate::environment::{LoomSettings, LOOM_CHILD_ENV, LOOM_MAX_BRANCHES_ENV};
use crate::error::CheckError;

/// What a child does.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Job {
    /// The subject's name and the matrix, as the check that must do the job sees them.
    pub key: String,
    pub kind: JobKind,
    pub results: PathBuf,
    pub check_stuck: bool,
    pub max_branches: usize,
    /// [`Config::real_time_happens_before`](crate::Config::real_time_happens_before).
    pub real_time: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum JobKind {
    /// Phase 1, from the first serial order, or after every order that starts with the prefix.
    Serial { resume_after: Option<Vec<usize>> },
    /// Phase 2 against the specification in `spec` (an observation file), exploring from the
    /// path stored in `checkpoint` if it exists.
    Concurrent {
        spec: PathBuf,
        checkpoint: PathBuf,
        preemption_bound: u32,
        max_executions: Option<u64>,
    },
    /// The execution loom's path stored in `checkpoint` leads to, once, with step recording on
    /// (a violation's steps), then [`Record::Steps`](super::wire::Record::Steps).
    Record { checkpoint: PathBuf, preemption_bound: u32 },
}

/// The job of this process for the check identified by `key`, if this process is a loom child
/// started for it (`job_file`: [`LoomSettings::child_job`]).
pub(crate) fn job_for(key: &str, job_file: Option<&Path>) -> Option<Job> {
    let text = std::fs::read_to_string(job_file?).ok()?;
    let job: Job = serde_json::from_str(&text).ok()?;
    (job.key == key).then_some(job)
}

/// A private scratch directory for the jobs of one check.
pub(crate) fn scratch_dir() -> std::io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "lineup-loom-{}-{}-{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The arguments that make this executable run the current test (or program) again.
fn rerun_args() -> Vec<String> {
    match std::thread::current().name() {
        Some(name) if name != "main" => vec![
            name.to_string(),
            "--exact".into(),
            // The test may be an ignored one the user runs with `--ignored`.
            "--include-ignored".into(),
            "--nocapture".into(),
            "--test-threads=1".into(),
        ],
        _ => std::env::args().skip(1).collect(),
    }
}

/// What a child reported.
pub(crate) struct ChildReport {
    pub records: Vec<Record>,
    pub stderr_tail: String,
    pub status: String,
}

/// Runs `job` in a child process and collects its records (and prints them when `loom` says
/// [`debug`](LoomSettings::debug)).
pub(crate) fn run(job: &Job, dir: &Path, phase: &'static str, loom: &LoomSettings) -> Result<ChildReport, CheckError> {
    let failed = |message: String| CheckError::ExecutionFailed { phase, message };
    let job_file = dir.join("job.json");
    let _ = std::fs::remove_file(&job.results);
    std::fs::write(&job_file, serde_json::to_string(job).expect("a job serializes"))
        .map_err(|e| failed(format!("cannot write the loom job file {}: {e}", job_file.display())))?;
    let exe = std::env::current_exe().map_err(|e| failed(format!("cannot find the test executable: {e}")))?;
    let output = Command::new(&exe)
        .args(rerun_args())
        .env(LOOM_CHILD_ENV, &job_file)
        // loom's `Builder::new` in the child parses LOOM_MAX_BRANCHES itself and panics on a value
        // lineup reads as unset (empty) or with blanks: the child gets the value lineup read.
        .env(LOOM_MAX_BRANCHES_ENV, loom.max_branches.to_string())
        .env("RUST_BACKTRACE", "0")
        .output()
        .map_err(|e| failed(format!("cannot start the loom child process {}: {e}", exe.display())))?;
    let text = std::fs::read_to_string(&job.results).unwrap_or_default();
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate() {
        match serde_json::from_str::<Record>(line) {
            Ok(r) => records.push(r),
            // A child killed in the middle of a write leaves a partial last line.
            Err(_) if i + 1 == text.lines().count() => break,
            Err(e) => return Err(failed(format!("the loom child wrote a bad record `{line}`: {e}"))),
        }
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    if loom.debug {
        eprintln!(
            "lineup: loom child ({}) records:\n{text}stderr:\n{stderr}",
            output.status
        );
    }
    let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
    Ok(ChildReport {
        records,
        stderr_tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        status: output.status.to_string(),
    })
}

/// Appends one record to the results file and flushes it (the child may die right after).
pub(crate) fn report(results: &Path, record: &Record) {
    let line = serde_json::to_string(record).expect("a record serializes");
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(results)
        .expect("the loom results file can be opened");
    writeln!(file, "{line}").expect("the loom results file can be written");
    let _ = file.sync_data();
}

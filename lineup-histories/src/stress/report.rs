//! The verdict of a stress check, and its display.

use std::fmt;
use std::time::Duration;

use super::recording::seed_text;
use crate::{CheckOutcome, CheckReport};

/// The verdict of a stress check, in one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StressVerdict {
    /// The recorded history is linearizable.
    Pass,
    /// It is not: the object is not linearizable with respect to the model.
    Fail,
    /// A limit was reached first.
    Unknown,
}

/// The result of a stress check: the run's figures, the verdict and its explanation.
///
/// Its `Display` is a verdict line (with the seed) and, for a failure, the violation: the
/// longest linearizable prefix, the operations that could not be placed (with their threads,
/// invocations and responses) and a per-thread timeline.
#[derive(Clone, Debug)]
pub struct StressReport {
    /// The subject's name.
    pub subject: String,
    /// The seed of the run (`None` for a given matrix).
    pub seed: Option<u64>,
    /// The number of threads.
    pub threads: usize,
    /// The number of operations recorded.
    pub operations: usize,
    /// The wall-clock time of the run (recording only).
    pub run_time: Duration,
    /// The check's verdict, explanation and figures.
    pub check: CheckReport,
    /// For a failure: the operations that could not be placed, with thread, invocation and
    /// response.
    pub legend: Vec<String>,
}

impl StressReport {
    /// The verdict in one word.
    pub fn verdict(&self) -> StressVerdict {
        match self.check.outcome {
            CheckOutcome::Linearizable { .. } => StressVerdict::Pass,
            CheckOutcome::NotLinearizable(_) => StressVerdict::Fail,
            CheckOutcome::Unknown { .. } => StressVerdict::Unknown,
        }
    }
}

impl fmt::Display for StressReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = match self.verdict() {
            StressVerdict::Pass => "PASS",
            StressVerdict::Fail => "FAIL",
            StressVerdict::Unknown => "UNKNOWN",
        };
        writeln!(
            f,
            "lineup stress: {word}: `{}`, {} threads, {} operations, {} (run {:.3} s, check {:.3} s)",
            self.subject,
            self.threads,
            self.operations,
            seed_text(self.seed),
            self.run_time.as_secs_f64(),
            self.check.stats.elapsed.as_secs_f64()
        )?;
        match &self.check.outcome {
            CheckOutcome::Linearizable { .. } => Ok(()),
            CheckOutcome::Unknown { reason } => writeln!(f, "no verdict: {reason}"),
            CheckOutcome::NotLinearizable(violation) => {
                writeln!(f, "the recorded history is not linearizable:")?;
                for line in &self.legend {
                    writeln!(f, "  {line}")?;
                }
                write!(f, "{violation}")
            }
        }
    }
}

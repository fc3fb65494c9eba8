//! The record of a stress run, its history for a model, and its check.

use std::time::Duration;

use lineup_core::{InvocationLabel, Response};

use super::StressReport;
use crate::{check, check_partitioned, CheckOptions, CheckOutcome, CheckReport, History, Model, OpId, Operation};
use crate::{PartitionError, PartitionedModel};

/// One recorded operation of a stress run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedCall {
    /// The thread (0-based) that performed it; the calling thread (initial and final
    /// operations of a given matrix) is number `threads`.
    pub thread: usize,
    /// Its invocation (index into the subject's invocation list).
    pub invocation: usize,
    /// What it returned (or its panic).
    pub response: Response,
    /// Nanoseconds from the run's start to just before the call.
    pub call: u64,
    /// Nanoseconds from the run's start to just after the return.
    pub ret: u64,
}

/// The record of a stress run: every call with its response and times, in call order.
#[derive(Clone, Debug)]
pub struct StressRecording {
    /// The subject's name.
    pub subject: String,
    /// The subject's invocation labels (indexed by [`RecordedCall::invocation`]).
    pub labels: Vec<InvocationLabel>,
    /// The seed the matrix was drawn from (`None` for a given matrix).
    pub seed: Option<u64>,
    /// The number of threads.
    pub threads: usize,
    /// The operations, by call time.
    pub calls: Vec<RecordedCall>,
    /// The wall-clock time of the run.
    pub elapsed: Duration,
}

/// A recorded response that the mapping to a model refused.
#[derive(Debug, thiserror::Error)]
#[error(
    "stress run of `{subject}` ({run}): thread {thread}'s `{label}` returned `{response}`, which maps to no model \
     operation: {reason}",
    run = seed_text(*.seed)
)]
pub struct MappingError {
    /// The subject's name.
    pub subject: String,
    /// The run's seed (`None` for a given matrix).
    pub seed: Option<u64>,
    /// The thread.
    pub thread: usize,
    /// The invocation, as its label renders (`insert(3)`).
    pub label: String,
    /// Its response, as it renders.
    pub response: String,
    /// What the mapping said.
    pub reason: String,
}

impl StressRecording {
    /// The recorded history for a model: each (invocation, response) is mapped to a model input
    /// and output by `map`. Operation `i` of the history ([`OpId`]`(i)`) is `self.calls[i]`.
    ///
    /// Times become ticks that keep exactly the order the clock saw: a call at `t` ns gets tick
    /// `2t`, a return at `t` ns gets `2t + 1`, so an operation precedes another only if it
    /// returned at an earlier nanosecond than the other's call; equal readings are concurrent.
    pub fn history<I, Out, F>(&self, map: F) -> Result<History<I, Out>, MappingError>
    where
        F: Fn(&InvocationLabel, &Response) -> Result<(I, Out), String>,
    {
        let mut operations = Vec::with_capacity(self.calls.len());
        for call in &self.calls {
            let label = &self.labels[call.invocation];
            let (input, output) = map(label, &call.response).map_err(|reason| MappingError {
                subject: self.subject.clone(),
                seed: self.seed,
                thread: call.thread,
                label: label.to_string(),
                response: call.response.to_string(),
                reason,
            })?;
            operations.push(Operation::returned(
                call.thread as u64,
                input,
                output,
                2 * call.call,
                2 * call.ret + 1,
            ));
        }
        Ok(History::from_operations(operations).expect("a stress recording is a well-formed history"))
    }

    /// Checks the recording with `model` as a whole.
    pub fn check<M, F>(&self, model: &M, map: F, options: &CheckOptions) -> Result<StressReport, MappingError>
    where
        M: Model,
        F: Fn(&InvocationLabel, &Response) -> Result<(M::Input, M::Output), String>,
    {
        let history = self.history(map)?;
        Ok(self.report(check(model, &history, options)))
    }

    /// Checks the recording with a P-compositional `model`, partitioned by its key (unless
    /// `options.partition` is off). A model that refuses to partition the history is reported
    /// as [`StressCheckError::Partition`].
    pub fn check_partitioned<M, F>(
        &self,
        model: &M,
        map: F,
        options: &CheckOptions,
    ) -> Result<StressReport, StressCheckError>
    where
        M: PartitionedModel,
        F: Fn(&InvocationLabel, &Response) -> Result<(M::Input, M::Output), String>,
    {
        let history = self.history(map)?;
        let report = if options.partition {
            check_partitioned(model, &history, options)?
        } else {
            check(model, &history, options)
        };
        Ok(self.report(report))
    }

    fn report(&self, check: CheckReport) -> StressReport {
        let describe = |id: OpId| {
            let call = &self.calls[id.0];
            format!(
                "{id}: thread {} {} -> {}",
                call.thread, self.labels[call.invocation], call.response
            )
        };
        let legend = match &check.outcome {
            CheckOutcome::NotLinearizable(violation) => violation
                .unplaced
                .iter()
                .chain(violation.blocking.iter())
                .map(|&id| describe(id))
                .collect(),
            _ => Vec::new(),
        };
        StressReport {
            subject: self.subject.clone(),
            seed: self.seed,
            threads: self.threads,
            operations: self.calls.len(),
            run_time: self.elapsed,
            check,
            legend,
        }
    }
}

/// Why a partitioned stress check gave no report.
#[derive(Debug, thiserror::Error)]
pub enum StressCheckError {
    /// A response mapped to no model operation.
    #[error(transparent)]
    Mapping(#[from] MappingError),
    /// The model refused to partition the history.
    #[error(transparent)]
    Partition(#[from] PartitionError),
}

/// `seed N`, or `given matrix`.
pub(super) fn seed_text(seed: Option<u64>) -> String {
    seed.map_or_else(|| "given matrix".to_string(), |seed| format!("seed {seed}"))
}

//! Errors that stop a check before it reaches a verdict.

/// A check could not reach a verdict.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A matrix names an invocation the subject does not have.
    #[error("the test matrix uses invocation #{index}, but subject `{subject}` has only {count} invocations")]
    UnknownInvocation {
        /// The index used.
        index: usize,
        /// The subject's name.
        subject: String,
        /// How many invocations it has.
        count: usize,
    },
    /// An invocation runs on a per-thread handle ([`Invocation::on_handle`](crate::Invocation::on_handle))
    /// that the subject does not make: it has no handles, or handles of another type.
    #[error(
        "invocation `{invocation}` of subject `{subject}` runs on a per-thread handle of type `{wanted}`, but {}",
        match given {
            Some(given) => format!("the subject's handles are of type `{given}`"),
            None => "the subject makes no handles (add `Subject::with_handles`, or a `#[handles]` method to the \
                     `#[lineup::invocations]` block)".to_string(),
        }
    )]
    HandleMismatch {
        /// The subject's name.
        subject: String,
        /// The invocation's label.
        invocation: String,
        /// The handle type it runs on.
        wanted: &'static str,
        /// The type of the subject's handles, if it has any.
        given: Option<&'static str>,
    },
    /// The object panicked outside an operation (in its constructor or destructor), or the model
    /// checker failed.
    #[error("{phase}: the execution failed outside any operation: {message}")]
    ExecutionFailed {
        /// Which phase ran.
        phase: &'static str,
        /// The panic message.
        message: String,
    },
    /// Replaying a schedule prefix took a different shape than before: the object depends on
    /// something the model checker does not control.
    #[error(
        "{phase}: the same schedule behaved differently on re-execution (branch point {depth}: {expected} options \
         before, {found} now). The object uses something shuttle does not control (std::sync or std::thread \
         primitives, time, OS randomness, or global state kept across executions)"
    )]
    UncontrolledNondeterminism {
        /// Which phase ran.
        phase: &'static str,
        /// The branch point.
        depth: usize,
        /// Options there before.
        expected: u32,
        /// Options there now.
        found: u32,
    },
    /// Phase 1 did not finish within the check's time ([`Config::max_duration`](crate::Config), a
    /// test's share of its time budget): the specification needs every serial history, so the
    /// matrix is inconclusive, neither passed nor failed.
    #[error(
        "phase 1 (serial executions) did not finish within {limit:.1?}, so the matrix is inconclusive (phase 1 is \
         never cut short: the specification needs every serial history). It saw {executions} serial executions and \
         {histories} distinct serial histories. {cause}"
    )]
    Unfinished {
        /// The time it had.
        limit: std::time::Duration,
        /// Serial executions run.
        executions: u64,
        /// Distinct serial histories (full and stuck) met.
        histories: usize,
        /// What makes it long, as far as lineup can tell, and what to do about it.
        cause: String,
    },
    /// A serial execution of phase 1 reached the step limit (shuttle's `Config::max_steps`, loom's
    /// branch limit) without ending, blocking or livelocking: the specification would miss its
    /// history, so no verdict can be reached.
    #[error(
        "{phase}: the serial execution {execution} reached {limit} without ending, blocking, or livelocking; the \
         specification needs every serial history, so there is no verdict. Raise the limit if the operations \
         really run that long"
    )]
    StepLimit {
        /// Which phase ran.
        phase: &'static str,
        /// The limit and its value (`Config::max_steps = 100000`, ...).
        limit: String,
        /// Which serial execution (its schedule or order).
        execution: String,
    },
    /// The check cannot fail: every operation panicked in every serial execution, or the object's
    /// primitives belong to a runtime lineup does not drive (see [`Vacuity`](crate::Vacuity)). A
    /// pass would say nothing about the object.
    #[error("`{subject}`: the check cannot fail, so it is not a pass: {cause}")]
    Vacuous {
        /// The subject's name.
        subject: String,
        /// Why, with the fix.
        cause: crate::spec::vacuity::Vacuity,
    },
    /// The check's sets of distinct executions grew past its memory budget
    /// ([`Config::max_memory`](crate::Config)): no verdict (UNKNOWN), with what was explored.
    #[error(
        "{phase}: after {executions} executions the distinct executions held about {held} bytes, past the memory \
         budget of {limit} bytes (Config::max_memory): no verdict (UNKNOWN). Raise the budget, or check a smaller \
         matrix or a lower preemption bound"
    )]
    MemoryLimit {
        /// Which phase ran.
        phase: &'static str,
        /// The budget, in bytes.
        limit: u64,
        /// What the sets held, about, in bytes.
        held: u64,
        /// Executions run in that phase.
        executions: u64,
    },
    /// A replay token could not be read.
    #[error("bad replay token `{token}`: {problem}")]
    BadReplayToken {
        /// The token.
        token: String,
        /// What is wrong.
        problem: String,
    },
    /// A specification given to [`check_against_spec`](crate::check_against_spec) reports a
    /// failure that the object's own serial executions do not confirm: it is out of date.
    #[error(
        "{origin}: the specification is out of date: {problem}. Write it again from a fresh phase 1 \
         (lineup::synthesize_spec and observation_file::write_observation_file)"
    )]
    StaleSpec {
        /// Where the specification came from.
        origin: String,
        /// What the object does differently.
        problem: String,
    },
    /// An observation file could not be read or written, or belongs to another test.
    #[error(transparent)]
    ObservationFile(#[from] crate::spec::observation_file::ObservationFileError),
    /// An environment variable lineup reads is set to something it cannot read.
    #[error(transparent)]
    Environment(#[from] EnvironmentError),
}

/// An environment variable lineup reads (see [`environment`](crate::environment)) is set to
/// something it cannot read: `LINEUP_SHARD="8/8": expected i/n with 0 <= i < n, e.g. 0/4`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{variable}={value:?}: {problem}")]
pub struct EnvironmentError {
    /// The variable.
    pub variable: &'static str,
    /// Its value.
    pub value: String,
    /// What was expected.
    pub problem: String,
}

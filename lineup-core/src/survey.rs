//! A survey of a matrix: every distinct history phase 2 meets, judged, without stopping at the
//! first violation. It gives the columns of DS2's tables (schedules explored, unique histories,
//! non-linearizable ones, histories and time before the first bug), and lets tests compare the
//! histories two configurations reach (the partial-order reduction's superset test).
//!
//! ```
//! use lineup_core::{survey, Config, Invocation, Subject, TestMatrix};
//! use lineup_core::sync::atomic::{AtomicU64, Ordering};
//!
//! let subject = Subject::new("counter", || AtomicU64::new(0))
//!     .with(Invocation::new("inc", |c: &AtomicU64| c.fetch_add(1, Ordering::SeqCst)));
//! let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
//! let survey = survey(&subject, &matrix, &Config::default()).unwrap();
//! assert!(survey.verdict.is_pass());
//! assert_eq!(survey.histories.iter().filter(|h| h.violating).count(), 0);
//! ```

#[cfg(not(loom))]
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[cfg(not(loom))]
use crate::check::{conclude_survey, synthesize_spec};
#[cfg(not(loom))]
use crate::config::Config;
#[cfg(not(loom))]
use crate::error::CheckError;
use crate::judge::phase2_outcome::Phase2Observer;
use crate::judge::verdict::Verdict;
#[cfg(not(loom))]
#[cfg(not(loom))]
use crate::model::matrix::TestMatrix;
#[cfg(not(loom))]
use crate::model::subject::Subject;
#[cfg(not(loom))]
use crate::spec::observation::ObservationSet;
#[cfg(not(loom))]
use crate::spec::observation_file;
#[cfg(not(loom))]
use crate::spec::synthesis::Synthesis;

/// One distinct history of a survey, in the order the exploration met them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurveyedHistory {
    /// A 128-bit hash of the history (its events and response values): equal for the same history
    /// in any exploration of the same matrix.
    pub fingerprint: u128,
    /// It has no serial witness (or, stuck, no stuck one).
    pub violating: bool,
    /// It is a stuck history.
    pub stuck: bool,
    /// Phase-2 executions run when it was met (itself included, and the redundant ones the
    /// partial-order reduction ended before it).
    pub executions: u64,
    /// Time into phase 2 when it was met.
    pub elapsed: Duration,
}

/// What a [`survey`] found.
#[derive(Clone, Debug)]
#[cfg_attr(loom, allow(dead_code))]
pub struct Survey {
    /// The verdict of the check: the first violation in depth-first order, as
    /// [`check`](crate::check()) reports it, with the statistics of the whole survey.
    pub verdict: Verdict,
    /// Every distinct history of phase 2, in the order met.
    pub histories: Vec<SurveyedHistory>,
}

#[cfg_attr(loom, allow(dead_code))]
impl Survey {
    /// The first violating history met, if any.
    pub fn first_violation(&self) -> Option<(usize, &SurveyedHistory)> {
        self.histories.iter().enumerate().find(|(_, h)| h.violating)
    }
}

/// What phase 2 hands a survey as it goes (its [`Phase2Observer`]).
#[derive(Debug)]
#[cfg_attr(loom, allow(dead_code))]
pub(crate) struct SurveyLog {
    start: Instant,
    state: Mutex<(u64, Vec<SurveyedHistory>)>,
}

#[cfg_attr(loom, allow(dead_code))]
impl SurveyLog {
    pub fn new() -> Self {
        Self {
            start: Instant::now(),
            state: Mutex::new((0, Vec::new())),
        }
    }

    pub fn into_histories(self) -> Vec<SurveyedHistory> {
        self.state.into_inner().unwrap_or_else(|e| e.into_inner()).1
    }
}

impl Phase2Observer for SurveyLog {
    fn executions(&self, n: u64) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).0 += n;
    }

    fn history(&self, fingerprint: u128, violating: bool, stuck: bool) {
        let elapsed = self.start.elapsed();
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let executions = state.0;
        state.1.push(SurveyedHistory {
            fingerprint,
            violating,
            stuck,
            executions,
            elapsed,
        });
    }
}

#[cfg(not(loom))]
/// Checks `matrix` as [`check`](crate::check()) does, but explores every schedule of phase 2 (on
/// one worker, so that the order in which histories are met is depth-first) and judges every
/// distinct history instead of stopping at the first violation. A phase 1 that proves the object
/// nondeterministic ends the survey there, with no histories. Shuttle backend only.
pub fn survey<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    config: &Config,
) -> Result<Survey, CheckError> {
    let synthesis = synthesize_spec(subject, matrix, config)?;
    survey_after(subject, matrix, synthesis, config)
}

#[cfg(not(loom))]
/// [`survey`] against a specification obtained earlier (for example by
/// [`synthesize_spec`](crate::synthesize_spec) with other settings): phase 2 only. The
/// specification must belong to `matrix`.
pub fn survey_against_spec<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    spec: &ObservationSet,
    config: &Config,
) -> Result<Survey, CheckError> {
    subject.validate(matrix)?;
    observation_file::check_matches(spec, &subject.op_table(matrix), "the given specification")?;
    let synthesis = Synthesis {
        spec: spec.clone(),
        nondeterminism: None,
        executions: 0,
        redundant: 0,
        elapsed: Duration::ZERO,
    };
    survey_after(subject, matrix, synthesis, config)
}

#[cfg(not(loom))]
/// Phase 2 of a survey, after `synthesis`.
fn survey_after<O: Send + Sync + 'static>(
    subject: &Subject<O>,
    matrix: &TestMatrix,
    synthesis: Synthesis,
    config: &Config,
) -> Result<Survey, CheckError> {
    let log = Arc::new(SurveyLog::new());
    let observer: Arc<dyn Phase2Observer> = log.clone();
    let verdict = conclude_survey(subject, matrix, synthesis, config, &observer)?;
    drop(observer);
    let histories = Arc::try_unwrap(log)
        .map(SurveyLog::into_histories)
        .unwrap_or_else(|log| log.state.lock().unwrap_or_else(|e| e.into_inner()).1.clone());
    Ok(Survey { verdict, histories })
}

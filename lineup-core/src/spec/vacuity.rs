//! A check that cannot fail: every operation panicked in every serial execution, or a response
//! shows that the object's primitives belong to a runtime lineup does not drive.
//!
//! Then phase 2 compares panics with panics, and a pass says nothing about the object. The usual
//! cause is a crate built against another version of shuttle or loom than lineup's (such as
//! `quick_cache` 0.7.0's shuttle 0.8.1 under lineup's shuttle 0.9.9): its primitives find no
//! execution of *their* runtime and panic. [`check`](crate::check) turns this into
//! [`CheckError::Vacuous`](crate::CheckError::Vacuous), never a pass; an object whose operations
//! are all meant to panic opts out with [`Config::allow_all_panics`](crate::Config).

use std::fmt;

use crate::model::response::Response;
use crate::spec::observation::ObservationSet;

/// The shuttle version lineup drives (the workspace pins it exactly).
const SHUTTLE_VERSION: &str = "0.9.9";
/// The loom version lineup drives under `--cfg loom` (pinned exactly).
const LOOM_VERSION: &str = "0.7.2";

/// Why a check cannot fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Vacuity {
    /// Every operation panicked in every serial execution.
    AllPanicked {
        /// The first panic message.
        first: String,
    },
    /// An operation panicked because a model checker's runtime it uses is not the one running
    /// (another shuttle or loom, or loom's primitives in a shuttle check).
    ForeignRuntime {
        /// `shuttle` or `loom`.
        runtime: &'static str,
        /// The panic message.
        message: String,
    },
}

impl Vacuity {
    /// Whether the opt-out for objects whose operations all panic by design applies (it does not
    /// to a foreign runtime, which is never by design).
    pub fn may_be_intended(&self) -> bool {
        matches!(self, Vacuity::AllPanicked { .. })
    }
}

impl fmt::Display for Vacuity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Vacuity::ForeignRuntime { runtime, message } => {
                let version = if *runtime == "shuttle" {
                    SHUTTLE_VERSION
                } else {
                    LOOM_VERSION
                };
                write!(
                    f,
                    "an operation panicked with {message:?}: the object's synchronization runs on a {runtime} \
                     runtime that lineup does not drive, so no schedule of it is explored and the check cannot \
                     fail. lineup drives shuttle {SHUTTLE_VERSION} (and loom {LOOM_VERSION} under --cfg loom). \
                     `cargo tree -i {runtime}` shows whether two versions are in the build: the crate that pulls in \
                     the other one (not {runtime} {version}) cannot be checked by this lineup; use a version of it \
                     built against {runtime} {version}, or check it on the other backend"
                )
            }
            Vacuity::AllPanicked { first } => write!(
                f,
                "every operation panicked in every serial execution (first: {first:?}), so the check cannot fail \
                 and a pass would say nothing about the object. A common cause is a crate built against another \
                 version of the model checker than lineup's (its primitives panic outside their own runtime: \
                 `cargo tree -i shuttle`, `cargo tree -i loom`). If the operations are meant to panic, set \
                 Config::allow_all_panics (LineupTest::allow_all_panics, #[lineup_test(allow_all_panics = true)])"
            ),
        }
    }
}

/// The runtime whose missing execution a panic message reports, if it is one.
pub(crate) fn foreign_runtime(message: &str) -> Option<&'static str> {
    if message.contains("cannot access ExecutionState")
        || message.contains("access a Shuttle primitive from outside a Shuttle test")
    {
        Some("shuttle")
    } else if message.contains("cannot access Loom execution state from outside a Loom model")
        || message.contains("cannot access a scoped thread local variable without calling `set` first")
    {
        Some("loom")
    } else {
        None
    }
}

/// Why `spec` makes a check that cannot fail, if it does: a response that reports a foreign
/// runtime, or every response of every serial history a panic (and at least one).
///
/// ```
/// use lineup_core::{synthesize_spec, vacuity, Config, Invocation, Subject, TestMatrix, Vacuity};
///
/// let broken = Subject::new("broken", || ())
///     .with(Invocation::new("get", |_: &()| -> u32 { panic!("no runtime") }));
/// let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
/// let spec = synthesize_spec(&broken, &matrix, &Config::default()).unwrap().spec;
/// assert_eq!(vacuity(&spec), Some(Vacuity::AllPanicked { first: "no runtime".into() }));
/// ```
pub fn vacuity(spec: &ObservationSet) -> Option<Vacuity> {
    let mut first = None;
    let mut all_panicked = true;
    // Every history of a group has the group's responses: one look per group, in the order of the
    // histories (group by group), instead of one per history (a 4x3 matrix has 369,600 serial
    // histories in 74 groups).
    let responses = spec
        .observations()
        .iter()
        .flat_map(|group| group.key.responses.iter().flatten());
    for response in responses {
        match response {
            Response::Panicked(message) => {
                if let Some(runtime) = foreign_runtime(message) {
                    return Some(Vacuity::ForeignRuntime {
                        runtime,
                        message: message.clone(),
                    });
                }
                first.get_or_insert(message);
            }
            Response::Returned(_) => all_panicked = false,
            // Phase 1 leaves a skipped operation out of its history: never in a specification.
            Response::Cancelled { .. } => {}
        }
    }
    first
        .filter(|_| all_panicked)
        .map(|first| Vacuity::AllPanicked { first: first.clone() })
}

/// The warning text for `spec` if the check cannot fail ([`vacuity`]), naming the subject.
///
/// ```
/// use lineup_core::{vacuity_warning, synthesize_spec, Config, Invocation, Subject, TestMatrix};
///
/// let broken = Subject::new("broken", || ())
///     .with(Invocation::new("get", |_: &()| -> u32 { panic!("no runtime") }));
/// let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
/// let spec = synthesize_spec(&broken, &matrix, &Config::default()).unwrap().spec;
/// let warning = vacuity_warning(broken.name(), &spec).unwrap();
/// assert!(warning.contains("no runtime"));
/// ```
pub fn vacuity_warning(subject: &str, spec: &ObservationSet) -> Option<String> {
    vacuity(spec).map(|v| format!("lineup: `{subject}`: {v}"))
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::check::synthesize_spec;
    use crate::config::Config;
    use crate::model::invocation::Invocation;
    use crate::model::matrix::TestMatrix;
    use crate::model::subject::Subject;
    use shuttle::sync::atomic::{AtomicU64, Ordering};

    fn spec_of<O: Send + Sync + 'static>(subject: &Subject<O>) -> ObservationSet {
        let matrix = TestMatrix::new(vec![vec![0, 1], vec![1]]);
        synthesize_spec(subject, &matrix, &Config::default()).unwrap().spec
    }

    #[test]
    fn warns_when_every_operation_panics() {
        let broken = Subject::new("broken", || ())
            .with(Invocation::new("inc", |_: &()| -> u32 {
                panic!("no execution of this runtime")
            }))
            .with(Invocation::new("get", |_: &()| -> u64 {
                panic!("no execution of this runtime")
            }));
        let warning = vacuity_warning(broken.name(), &spec_of(&broken)).expect("a warning");
        assert!(warning.contains("`broken`") && warning.contains("no execution of this runtime"));
    }

    /// The group keys hold every history's responses: reading them finds what reading every
    /// history finds, the first panic included.
    #[test]
    fn reads_the_groups_as_it_would_read_every_history() {
        let all_panic = Subject::new("all panic", || AtomicU64::new(0))
            .with(Invocation::new("inc", |c: &AtomicU64| -> u64 {
                let n = c.fetch_add(1, Ordering::SeqCst);
                panic!("inc {n}")
            }))
            .with(Invocation::new("get", |_: &AtomicU64| -> u64 {
                panic!("get is broken")
            }));
        let spec = spec_of(&all_panic);
        let first = spec
            .histories()
            .flat_map(|h| h.responses().iter().flatten())
            .find_map(|r| match r {
                Response::Panicked(message) => Some(message.clone()),
                _ => None,
            })
            .expect("a panic");
        assert!(spec.observations().iter().any(|group| group.histories.len() > 1));
        assert_eq!(vacuity(&spec), Some(Vacuity::AllPanicked { first }));
    }

    #[test]
    fn is_silent_when_one_operation_returns() {
        let counter = Subject::new("counter", || AtomicU64::new(0))
            .with(Invocation::new("inc", |c: &AtomicU64| {
                c.fetch_add(1, Ordering::SeqCst);
            }))
            .with(Invocation::new("get", |_: &AtomicU64| -> u64 {
                panic!("get is broken")
            }));
        assert_eq!(vacuity_warning(counter.name(), &spec_of(&counter)), None);
    }
}

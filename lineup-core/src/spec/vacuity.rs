//! A check that cannot fail: every operation panicked in every serial execution.
//!
//! Then every history is made of panics, phase 2 compares panics with panics, and a pass says
//! nothing about the object. The usual cause is an object whose primitives do not belong to
//! lineup's model checker: a crate built against another version of shuttle or loom (such as
//! `quick_cache` 0.7.0's shuttle 0.8.1 under lineup's shuttle 0.9.9) panics at its first lock
//! because it finds no execution of *its* runtime. lineup warns instead of failing: an object
//! whose operations all panic by design is a legitimate (if odd) subject.

use crate::model::response::Response;
use crate::spec::observation::ObservationSet;

/// The warning for `spec` if every response of every serial history is a panic (and there is at
/// least one), naming the subject and the first panic message.
///
/// ```
/// use lineup_core::{check, vacuity_warning, synthesize_spec, Config, Invocation, Subject, TestMatrix};
///
/// let broken = Subject::new("broken", || ())
///     .with(Invocation::new("get", |_: &()| -> u32 { panic!("no runtime") }));
/// let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
/// let spec = synthesize_spec(&broken, &matrix, &Config::default()).unwrap().spec;
/// let warning = vacuity_warning(broken.name(), &spec).unwrap();
/// assert!(warning.contains("no runtime"));
/// ```
pub fn vacuity_warning(subject: &str, spec: &ObservationSet) -> Option<String> {
    let mut first = None;
    for response in spec.histories().flat_map(|h| h.responses().iter().flatten()) {
        match response {
            Response::Panicked(message) => {
                first.get_or_insert(message);
            }
            Response::Returned(_) => return None,
        }
    }
    first.map(|message| {
        format!(
            "lineup: WARNING: every operation of `{subject}` panicked in every serial execution (first: {message:?}), \
             so this check cannot fail and a pass says nothing about the object. A common cause is a crate built \
             against another version of the model checker than lineup's (its primitives panic outside their own \
             runtime)."
        )
    })
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

//! Stress mode: run an object's invocations on real OS threads, record every call and return
//! with a monotonic clock, and check the recorded history with a model.
//!
//! Unlike lineup's model-checked tests, nothing here controls the schedule: the object runs on
//! `std` threads at full speed, so it must be built from `std` primitives (`std::sync::Mutex`,
//! atomics, ...), not shuttle's (those panic outside a shuttle test). The test is a
//! [`TestMatrix`](lineup_core::TestMatrix) over the object's invocation set ([`lineup_core::Invocations`] or a
//! [`lineup_core::Subject`]), run once: by default a random one, `threads` columns of
//! `ops_per_thread` invocations drawn uniformly from a seed (printed when it is drawn), or one
//! you give ([`StressTest::matrix`]). Every call time is read just before the invocation and every
//! return time just after it, from one shared [`std::time::Instant`]; an operation that returned
//! before another was called (by the clock) must be linearized before it, and operations whose
//! times overlap or tie may be linearized in either order, so the recorded history never claims
//! more order than there was. A user-supplied mapping turns each (invocation, response) pair into
//! a model operation, and the history is checked with [`crate::check`], or partitioned with
//! [`crate::check_partitioned`] for a P-compositional model.
//!
//! Operations must not block forever: a thread stuck in an operation keeps the run from ending.
//!
//! ```
//! use std::collections::HashSet;
//! use std::sync::Mutex;
//! use lineup_core::{Invocation, InvocationLabel, Response, Subject};
//! use lineup_histories::models::{SetInput, SetModel};
//! use lineup_histories::stress::{StressTest, StressVerdict};
//! use lineup_histories::CheckOptions;
//!
//! let mut subject = Subject::new("Mutex<HashSet>", || Mutex::new(HashSet::<u8>::new()));
//! for x in 0..4u8 {
//!     subject = subject
//!         .with(Invocation::new("insert", move |s: &Mutex<HashSet<u8>>| s.lock().unwrap().insert(x)).arg(x))
//!         .with(Invocation::new("remove", move |s: &Mutex<HashSet<u8>>| s.lock().unwrap().remove(&x)).arg(x));
//! }
//! let map = |label: &InvocationLabel, response: &Response| -> Result<(SetInput<u8>, bool), String> {
//!     let x: u8 = label.args[0].parse().map_err(|e| format!("{e}"))?;
//!     let result = response.to_string() == "true";
//!     Ok((if label.name == "insert" { SetInput::Insert(x) } else { SetInput::Remove(x) }, result))
//! };
//! let recording = StressTest::new(subject).threads(2).ops_per_thread(500).seed(7).run();
//! let report = recording.check_partitioned(&SetModel::new(), map, &CheckOptions::default()).unwrap();
//! assert_eq!(report.verdict(), StressVerdict::Pass, "{report}");
//! assert_eq!(report.seed, Some(7));
//! ```

mod recording;
mod report;
mod run;

pub use recording::{MappingError, RecordedCall, StressCheckError, StressRecording};
pub use report::{StressReport, StressVerdict};
pub use run::StressTest;

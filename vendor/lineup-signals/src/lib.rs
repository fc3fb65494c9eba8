//! What lineup tells the threads that lineup's `vendor/shuttle-std` spawns, as a label on their
//! shuttle task (`shuttle::current::set_label_for_task`): a type that both crates name, so that
//! neither depends on the other.
//!
//! ```
//! use lineup_signals::{Guarded, QuietEnd};
//! assert_eq!(format!("{Guarded:?} {QuietEnd:?}"), "Guarded QuietEnd");
//! ```

/// Put by lineup's `vendor/shuttle-std` on every thread it spawns: a panic of the thread's
/// function while the thread has the label [`QuietEnd`] ends it quietly. lineup lets the object's
/// threads finish at the end of an execution only if every one of them has this label (a thread
/// of the published shuttle-std that panicked then would fail the execution).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guarded;

/// The execution's history is complete and the object is gone: lineup lets the object's threads
/// finish (its *quiet end*), so that shuttle reuses their stacks. A thread with this label that
/// panics (an actor that unwraps the receive of a mailbox whose last sender went with the object)
/// ends quietly instead of failing the execution: it waits for good, and lineup stops the
/// execution as it did before the quiet end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QuietEnd;

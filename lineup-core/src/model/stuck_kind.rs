//! Why a history is stuck (Def. 2 of the paper: an operation that cannot return under a fair
//! schedule).

use std::fmt;

/// Why a history is stuck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StuckKind {
    /// Every unfinished thread is blocked.
    Deadlock,
    /// Every thread that could run is spinning (yielding, or running without a yield until it is
    /// switched away from for fairness) inside an operation, and no operation returns however
    /// fairly they are scheduled.
    Livelock,
}

impl fmt::Display for StuckKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StuckKind::Deadlock => "deadlock: every unfinished thread is blocked",
            StuckKind::Livelock => "livelock: every thread that can run spins inside an operation without progress",
        })
    }
}

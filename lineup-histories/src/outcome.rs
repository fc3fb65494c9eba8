//! Verdicts with their explanations, and the figures of a check.

use std::fmt;
use std::time::Duration;

use crate::history::OpId;
use crate::timeline::Timeline;

/// The verdict of a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckOutcome {
    /// The history is linearizable.
    Linearizable {
        /// One linearization: every operation with a definite outcome, and the operations with
        /// an unknown outcome that were taken to have happened, in a valid sequential order.
        order: Vec<OpId>,
    },
    /// The history is not linearizable.
    NotLinearizable(Box<Violation>),
    /// No verdict: a limit was reached first.
    Unknown {
        /// Which limit.
        reason: UnknownReason,
    },
}

impl CheckOutcome {
    /// Whether the verdict is "linearizable".
    pub fn is_linearizable(&self) -> bool {
        matches!(self, CheckOutcome::Linearizable { .. })
    }

    /// Whether the verdict is "not linearizable".
    pub fn is_violation(&self) -> bool {
        matches!(self, CheckOutcome::NotLinearizable(_))
    }

    /// Whether there is no verdict.
    pub fn is_unknown(&self) -> bool {
        matches!(self, CheckOutcome::Unknown { .. })
    }

    /// The linearization, if linearizable.
    pub fn order(&self) -> Option<&[OpId]> {
        match self {
            CheckOutcome::Linearizable { order } => Some(order),
            _ => None,
        }
    }

    /// The violation, if not linearizable.
    pub fn violation(&self) -> Option<&Violation> {
        match self {
            CheckOutcome::NotLinearizable(violation) => Some(violation),
            _ => None,
        }
    }
}

impl fmt::Display for CheckOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckOutcome::Linearizable { order } => write!(f, "linearizable ({} operations linearized)", order.len()),
            CheckOutcome::NotLinearizable(violation) => write!(f, "NOT linearizable\n{violation}"),
            CheckOutcome::Unknown { reason } => write!(f, "unknown: {reason}"),
        }
    }
}

/// Why a check gave no verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownReason {
    /// The time limit was reached.
    TimeLimit {
        /// The limit.
        limit: Duration,
    },
    /// The memoization cache reached its entry limit.
    CacheLimit {
        /// The limit.
        entries: usize,
    },
    /// The search would have held more memory than its budget
    /// ([`crate::CheckOptions::max_memory`]).
    MemoryLimit {
        /// The budget, in bytes.
        bytes: u64,
    },
    /// The online checker's set of possibilities grew past its limit.
    PossibilityLimit {
        /// The limit.
        possibilities: usize,
    },
}

impl fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownReason::TimeLimit { limit } => write!(f, "time limit of {limit:?} reached"),
            UnknownReason::CacheLimit { entries } => write!(f, "cache limit of {entries} configurations reached"),
            UnknownReason::MemoryLimit { bytes } => write!(
                f,
                "memory budget of {:.1} MiB reached (--max-memory / CheckOptions::max_memory)",
                *bytes as f64 / (1u64 << 20) as f64
            ),
            UnknownReason::PossibilityLimit { possibilities } => {
                write!(f, "limit of {possibilities} possibilities reached")
            }
        }
    }
}

/// Why a history is not linearizable: the longest linearizable prefix the search found, and
/// the operations that could not be placed after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The longest prefix of a linearization that the search found (operation ids in order).
    pub prefix: Vec<OpId>,
    /// The operations that were candidates after that prefix (called before the earliest
    /// return among the remaining operations) but could not be placed: no output the model
    /// allows matched, or every placement led to a dead end.
    pub unplaced: Vec<OpId>,
    /// The remaining operation whose return was reached while it was still unplaced (it had to
    /// be linearized by then), if any.
    pub blocking: Option<OpId>,
    /// The model state after the prefix (`Debug`).
    pub state: String,
    /// For a partitioned check: the partition key (`Debug`) of the failing partition.
    pub partition: Option<String>,
    /// The operations around the failure, per client, for display.
    pub timeline: Timeline,
    /// The last steps of the prefix (up to 40) with the model's state before and after each
    /// (`Debug`), in order: the HTML report shows them on hover.
    pub steps: Vec<LinearizedStep>,
}

/// One step of the longest linearizable prefix, with the model's state around it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearizedStep {
    /// Its position in the prefix (from 0).
    pub position: usize,
    /// The operation linearized.
    pub op: OpId,
    /// The model's state before it (`Debug`).
    pub before: String,
    /// The model's state after it (`Debug`).
    pub after: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(key) = &self.partition {
            writeln!(f, "in partition {key}:")?;
        }
        write!(f, "longest linearizable prefix: {} operations", self.prefix.len())?;
        let shown = self.prefix.len().min(8);
        if shown > 0 {
            write!(f, " (last {shown}:")?;
            for id in &self.prefix[self.prefix.len() - shown..] {
                write!(f, " {id}")?;
            }
            write!(f, ")")?;
        }
        writeln!(f)?;
        writeln!(f, "state after it: {}", self.state)?;
        if let Some(id) = self.blocking {
            writeln!(f, "{id} returned before it could be placed")?;
        }
        if !self.unplaced.is_empty() {
            write!(f, "other candidates that could not be placed either:")?;
            for id in &self.unplaced {
                write!(f, " {id}")?;
            }
            writeln!(f)?;
        }
        write!(f, "{}", self.timeline)
    }
}

/// Figures of one check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckStats {
    /// Configurations memoized (summed over partitions).
    pub cache_entries: usize,
    /// Operations applied by the search (summed over partitions).
    pub steps: u64,
    /// The most memory the search held at once, in bytes, as counted for the memory budget
    /// (summed over the partitions checked at the same time).
    pub peak_memory: u64,
    /// Sub-histories checked (1 when checked whole).
    pub partitions: usize,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// The verdict of a check and its figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// The verdict, with its explanation.
    pub outcome: CheckOutcome,
    /// The figures.
    pub stats: CheckStats,
}

//! Replay tokens: the scheduling choices of one execution, so that it can be run again exactly.

use std::fmt;
use std::str::FromStr;

use crate::error::CheckError;

/// Which exploration a schedule belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The serial exploration that synthesizes the specification.
    Serial,
    /// The preemption-bounded exploration of concurrent schedules, with its bound (which
    /// decides what the options at each branch point are).
    Concurrent {
        /// The preemption bound of the exploration.
        preemption_bound: u32,
    },
    /// The preemption-bounded exploration with yield settings other than the defaults (a
    /// deepening stage's): the bound, how many non-default choices at yields an execution may make
    /// ([`Config::yield_choices`](crate::Config)) and whether the yielding thread is one of them
    /// ([`Config::yield_to_self`](crate::Config)), all of which decide the options at each branch
    /// point. Printed `p2-b2-y2` or, with the yielding thread, `p2-b2-y2s`.
    ConcurrentYields {
        /// The preemption bound of the exploration.
        preemption_bound: u32,
        /// Non-default choices at yields per execution.
        yield_choices: u32,
        /// The yielding thread is an option at a yield choice.
        yield_to_self: bool,
    },
    /// Phase 2 with a strategy other than `pb-dfs` (`db-dfs`, `random`, `pct`): at every
    /// scheduling point with more than one thread that can run, the index of the one that ran
    /// among them, in task order. Replays whatever strategy and bound found it.
    Scheduled,
    /// Phase 1 under loom: the choices are the serial order of the operations.
    LoomSerial,
    /// Phase 2 under loom: the execution is identified by loom's stored path (see
    /// [`LoomEvidence`](crate::LoomEvidence)), not by choices.
    LoomConcurrent {
        /// The preemption bound of phase 2.
        preemption_bound: u32,
    },
}

/// The choices at every branch point of one execution of a matrix, printed as
/// `lineup:p2-b2:0.1.0.2` (phase 2 with preemption bound 2, then the choice indices) or
/// `lineup:p1:0.2` (a serial execution of phase 1).
///
/// ```
/// use lineup_core::{Phase, ReplayToken};
/// let token: ReplayToken = "lineup:p2-b2:0.1.3".parse().unwrap();
/// assert_eq!(token.phase, Phase::Concurrent { preemption_bound: 2 });
/// assert_eq!(token.choices, vec![0, 1, 3]);
/// assert_eq!(token.to_string(), "lineup:p2-b2:0.1.3");
/// let deeper: ReplayToken = "lineup:p2-b2-y2s:0.4".parse().unwrap();
/// assert_eq!(
///     deeper.phase,
///     Phase::ConcurrentYields { preemption_bound: 2, yield_choices: 2, yield_to_self: true }
/// );
/// assert_eq!(deeper.to_string(), "lineup:p2-b2-y2s:0.4");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReplayToken {
    /// The exploration the execution belongs to.
    pub phase: Phase,
    /// The option taken at each branch point.
    pub choices: Vec<u32>,
}

impl fmt::Display for ReplayToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let phase = match self.phase {
            Phase::Serial => "p1".to_string(),
            Phase::Concurrent { preemption_bound } => format!("p2-b{preemption_bound}"),
            Phase::ConcurrentYields {
                preemption_bound,
                yield_choices,
                yield_to_self,
            } => format!(
                "p2-b{preemption_bound}-y{yield_choices}{}",
                if yield_to_self { "s" } else { "" }
            ),
            Phase::Scheduled => "p2-s".to_string(),
            Phase::LoomSerial => "loom-p1".to_string(),
            Phase::LoomConcurrent { preemption_bound } => format!("loom-p2-b{preemption_bound}"),
        };
        let choices: Vec<String> = self.choices.iter().map(u32::to_string).collect();
        write!(f, "lineup:{phase}:{}", choices.join("."))
    }
}

/// `2` (a bound) or `2-y2` / `2-y2s` (a bound and yield settings), after `p2-b`.
fn parse_bounds(text: &str) -> Option<Phase> {
    let Some((bound, yields)) = text.split_once("-y") else {
        return Some(Phase::Concurrent {
            preemption_bound: text.parse().ok()?,
        });
    };
    let (choices, yield_to_self) = match yields.strip_suffix('s') {
        Some(choices) => (choices, true),
        None => (yields, false),
    };
    Some(Phase::ConcurrentYields {
        preemption_bound: bound.parse().ok()?,
        yield_choices: choices.parse().ok()?,
        yield_to_self,
    })
}

impl FromStr for ReplayToken {
    type Err = CheckError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |problem: &str| CheckError::BadReplayToken {
            token: s.to_string(),
            problem: problem.to_string(),
        };
        let mut parts = s.trim().splitn(3, ':');
        if parts.next() != Some("lineup") {
            return Err(bad("it does not start with `lineup:`"));
        }
        let phase =
            match parts.next() {
                Some("p1") => Phase::Serial,
                Some("p2-s") => Phase::Scheduled,
                Some(p) => match p.strip_prefix("p2-b").map(parse_bounds) {
                    Some(Some(phase)) => phase,
                    _ => return Err(bad(
                        "the phase must be `p1`, `p2-b<preemption bound>`, `p2-b<bound>-y<yield choices>[s]` or `p2-s`",
                    )),
                },
                None => return Err(bad("the phase is missing")),
            };
        let choices = match parts.next() {
            None => return Err(bad("the choices are missing")),
            Some("") => Vec::new(),
            Some(list) => list
                .split('.')
                .map(|c| {
                    c.parse::<u32>()
                        .map_err(|_| bad(&format!("`{c}` is not a choice index")))
                })
                .collect::<Result<_, _>>()?,
        };
        Ok(Self { phase, choices })
    }
}

/// How much switching one execution's schedule does, as the scheduler counts it at the points
/// where it chooses among the threads that may run.
///
/// A *preemption* switches away from a thread that could go on (inside an operation, or at the
/// gate of its next one) without its giving way, as `pb-dfs` counts them against its bound; a
/// *context switch* is any choice that runs another thread than the previous choice ran
/// (preemptions, switches away from a blocked or finished thread, and switches at yields). Ordered
/// by preemptions, then context switches: the order in which a shown schedule is the shortest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScheduleCost {
    /// Switches away from a thread that could go on.
    pub preemptions: u32,
    /// Changes of the running thread at choice points, preemptions included.
    pub context_switches: u32,
}

impl fmt::Display for ScheduleCost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} preemption{}, {} context switch{}",
            self.preemptions,
            if self.preemptions == 1 { "" } else { "s" },
            self.context_switches,
            if self.context_switches == 1 { "" } else { "es" }
        )
    }
}

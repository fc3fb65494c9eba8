//! Which strategy phase 2 explores with: [`Strategy`], chosen per check
//! ([`Config::strategy`](crate::Config::strategy)), per test (`#[lineup_test(strategy = "...")]`,
//! [`LineupTest::strategy`](crate::LineupTest::strategy)) or per run
//! ([`STRATEGY_ENV`](crate::environment::STRATEGY_ENV)).

use std::fmt;
use std::str::FromStr;

/// How phase 2 explores the concurrent schedules of a matrix (see `docs/strategies.md`).
///
/// Written as `pb-dfs`, `db-dfs[:DELAYS]`, `random[:EXECUTIONS[:SEED]]` or
/// `pct[:DEPTH[:EXECUTIONS[:SEED]]]`:
///
/// ```
/// use lineup_core::Strategy;
/// let pct: Strategy = "pct:3:500".parse().unwrap();
/// assert_eq!(pct, Strategy::Pct { depth: 3, executions: 500, seed: 0 });
/// assert_eq!(pct.to_string(), "pct:3:500:0");
/// assert_eq!("db-dfs".parse::<Strategy>().unwrap(), Strategy::DbDfs { delays: 2 });
/// assert!("dfs".parse::<Strategy>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Strategy {
    /// Exhaustive preemption-bounded depth-first search (CHESS, the paper's), with
    /// [`Config::preemption_bound`](crate::Config::preemption_bound) preemptions and
    /// [`Config::yield_choices`](crate::Config::yield_choices) choices at yields. The default.
    #[default]
    PbDfs,
    /// Exhaustive delay-bounded depth-first search over a round-robin base schedule (Emmi, Qadeer,
    /// Rakamaric, POPL 2011): every schedule with at most `delays` delays.
    DbDfs {
        /// How many times the search may skip the thread round robin would run.
        delays: u32,
    },
    /// A uniformly random choice among the threads that can run at every point, `executions`
    /// times. Execution `i` of seed `s` is always the same one.
    Random {
        /// How many executions.
        executions: u64,
        /// The seed of the choices.
        seed: u64,
    },
    /// PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010): random thread priorities
    /// with `depth - 1` priority change points, `executions` times.
    Pct {
        /// The bug depth the search aims at (change points + 1).
        depth: u32,
        /// How many executions.
        executions: u64,
        /// The seed of the priorities and change points.
        seed: u64,
    },
}

impl Strategy {
    /// Whether the strategy explores every schedule within its bound (a PASS covers them all),
    /// rather than a sample.
    pub fn is_exhaustive(&self) -> bool {
        matches!(self, Strategy::PbDfs | Strategy::DbDfs { .. })
    }

    /// The same strategy with `seed` in place of its seed (for the sampling strategies).
    pub fn with_seed(self, seed: u64) -> Self {
        match self {
            Strategy::Random { executions, .. } => Strategy::Random { executions, seed },
            Strategy::Pct { depth, executions, .. } => Strategy::Pct {
                depth,
                executions,
                seed,
            },
            exhaustive => exhaustive,
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::PbDfs => write!(f, "pb-dfs"),
            Strategy::DbDfs { delays } => write!(f, "db-dfs:{delays}"),
            Strategy::Random { executions, seed } => write!(f, "random:{executions}:{seed}"),
            Strategy::Pct {
                depth,
                executions,
                seed,
            } => write!(f, "pct:{depth}:{executions}:{seed}"),
        }
    }
}

/// A strategy that could not be read from its name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{text}` is not a strategy: {problem} (write pb-dfs, db-dfs[:DELAYS], random[:EXECUTIONS[:SEED]] or \
     pct[:DEPTH[:EXECUTIONS[:SEED]]])"
)]
pub struct StrategyParseError {
    /// What was given.
    pub text: String,
    /// What is wrong with it.
    pub problem: String,
}

impl FromStr for Strategy {
    type Err = StrategyParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |problem: String| StrategyParseError {
            text: s.to_string(),
            problem,
        };
        let mut parts = s.trim().split(':');
        let name = parts.next().unwrap_or_default();
        let numbers: Vec<&str> = parts.collect();
        let number = |i: usize, what: &str, default: u64| -> Result<u64, StrategyParseError> {
            match numbers.get(i) {
                None => Ok(default),
                Some(n) => n
                    .parse()
                    .map_err(|_| bad(format!("the {what} `{n}` is not a whole number"))),
            }
        };
        let at_most = |count: usize| {
            if numbers.len() > count {
                Err(bad(format!("`{name}` takes at most {count} numbers")))
            } else {
                Ok(())
            }
        };
        let small = |n: u64, what: &str| u32::try_from(n).map_err(|_| bad(format!("the {what} {n} is too large")));
        match name {
            "pb-dfs" => {
                at_most(0)?;
                Ok(Strategy::PbDfs)
            }
            "db-dfs" => {
                at_most(1)?;
                Ok(Strategy::DbDfs {
                    delays: small(number(0, "delay bound", 2)?, "delay bound")?,
                })
            }
            "random" => {
                at_most(2)?;
                Ok(Strategy::Random {
                    executions: number(0, "number of executions", 1000)?,
                    seed: number(1, "seed", 0)?,
                })
            }
            "pct" => {
                at_most(3)?;
                Ok(Strategy::Pct {
                    depth: small(number(0, "depth", 3)?, "depth")?,
                    executions: number(1, "number of executions", 1000)?,
                    seed: number(2, "seed", 0)?,
                })
            }
            other => Err(bad(format!("`{other}` is not one of pb-dfs, db-dfs, random, pct"))),
        }
    }
}

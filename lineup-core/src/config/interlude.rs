//! The interlude: a sample of schedules that phase 2 runs in the middle of an exhaustive search
//! whose tree turns out large ([`Interlude`], [`Config::interlude`](crate::Config::interlude)).

use std::fmt;
use std::str::FromStr;

use crate::config::strategy::{Strategy, StrategyParseError};

/// When an exhaustive strategy (`pb-dfs`, `db-dfs`) has run `after` executions of a matrix without
/// finishing its tree or finding a violation, phase 2 pauses it, runs `strategy` (`pct` or
/// `random`, with its number of executions and its seed), and then resumes the search where it
/// stopped. A tree within `after` executions is explored exactly as without the interlude; a larger
/// one is still explored to the end (the PASS covers it all, and the interlude's executions too),
/// while a bug that the depth-first order would reach only late, as in actor systems whose free
/// choices at every blocking receive make the trees of even bound 0 huge, is found by the sample
/// first.
///
/// The interlude comes back in rounds: each time the search has run twice as many executions as
/// at its last pause (`2 × after`, `4 × after`, ...), it pauses again and the sample goes on with
/// twice as many executions as its last round (`2 × executions`, `4 × executions`, ...), from
/// where it stopped: its executions are those one run of the same strategy with the same seed has,
/// in order. So the sample takes the same share of the work however long the search goes on, and
/// a bug that needs more of the sample than its first round is found after the search's next
/// round instead of at its end.
///
/// The search runs on every worker and pauses once its first executions up to the round's count
/// in depth-first order are explored; each round of the sample runs on every worker too (its
/// executions split by index). The violation reported is the first in the order one worker meets
/// them: the search's first `after` executions, the sample's first round, the search's next
/// `after`, the sample's second round, and so on; so it does not depend on the number of workers.
///
/// Written as `AFTER:STRATEGY`, or `off` (see [`Interlude::parse_setting`]):
///
/// ```
/// use lineup_core::{Interlude, Strategy};
/// let interlude: Interlude = "10000:pct:3:1000:7".parse().unwrap();
/// assert_eq!(interlude.after, 10_000);
/// assert_eq!(interlude.strategy, Strategy::Pct { depth: 3, executions: 1000, seed: 7 });
/// assert_eq!(interlude.to_string(), "10000:pct:3:1000:7");
/// assert_eq!(Interlude::parse_setting("off").unwrap(), None);
/// assert!("10000:pb-dfs".parse::<Interlude>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interlude {
    /// How many executions the exhaustive strategy runs before the interlude.
    pub after: u64,
    /// The sampling strategy of the interlude (`random` or `pct`).
    pub strategy: Strategy,
}

impl Default for Interlude {
    /// 1,000 executions of PCT at depth 3 after 10,000 of the search (measured in
    /// `docs/strategies.md`).
    fn default() -> Self {
        Self {
            after: 10_000,
            strategy: Strategy::Pct {
                depth: 3,
                executions: 1_000,
                seed: 0,
            },
        }
    }
}

impl Interlude {
    /// Where round `round` of the interlude (0 the first) comes: once the search has run
    /// `after × 2^round` executions (an `after` of 0 counts as 1: the search runs one execution
    /// first, and the next round comes after two).
    ///
    /// ```
    /// use lineup_core::Interlude;
    /// let interlude = Interlude::default();
    /// assert_eq!((0..3).map(|r| interlude.pause_of_round(r)).collect::<Vec<_>>(), [10_000, 20_000, 40_000]);
    /// assert_eq!((0..3).map(|r| interlude.sample_through(r)).collect::<Vec<_>>(), [1_000, 3_000, 7_000]);
    /// assert_eq!((interlude.rounds_for(1_000), interlude.rounds_for(1_424)), (1, 2));
    /// ```
    pub fn pause_of_round(&self, round: u32) -> u64 {
        self.after
            .max(1)
            .saturating_mul(1u64.checked_shl(round).unwrap_or(u64::MAX))
    }

    /// How many executions the sample has run by the end of round `round`:
    /// `executions × (2^(round + 1) - 1)`.
    pub fn sample_through(&self, round: u32) -> u64 {
        let rounds = 1u64.checked_shl(round + 1).map_or(u64::MAX, |r| r - 1);
        self.executions().saturating_mul(rounds)
    }

    /// In how many rounds the sample ran `executions` executions.
    pub fn rounds_for(&self, executions: u64) -> u32 {
        (0..u64::BITS)
            .find(|&round| self.sample_through(round) >= executions)
            .map_or(u64::BITS, |round| round + 1)
    }

    /// The executions of the sample's first round.
    fn executions(&self) -> u64 {
        match self.strategy {
            Strategy::Random { executions, .. } | Strategy::Pct { executions, .. } => executions,
            _ => 0,
        }
    }

    /// Reads `off` (no interlude) or `AFTER:STRATEGY`.
    pub fn parse_setting(text: &str) -> Result<Option<Interlude>, StrategyParseError> {
        match text.trim() {
            "off" | "none" => Ok(None),
            other => other.parse().map(Some),
        }
    }
}

impl fmt::Display for Interlude {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.after, self.strategy)
    }
}

impl FromStr for Interlude {
    type Err = StrategyParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |problem: String| StrategyParseError {
            text: s.to_string(),
            problem,
        };
        let (after, strategy) = s
            .trim()
            .split_once(':')
            .ok_or_else(|| bad("an interlude is written AFTER:STRATEGY, for example 10000:pct:3:1000".into()))?;
        let after = after.parse().map_err(|_| {
            bad(format!(
                "the number of executions before the interlude `{after}` is not a whole number"
            ))
        })?;
        let strategy: Strategy = strategy.parse().map_err(|e: StrategyParseError| bad(e.problem))?;
        if strategy.is_exhaustive() {
            return Err(bad(format!(
                "the interlude's strategy must be a sample (random or pct), not `{strategy}`"
            )));
        }
        Ok(Interlude { after, strategy })
    }
}

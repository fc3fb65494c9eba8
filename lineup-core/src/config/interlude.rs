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
/// first. The search runs on every worker and pauses once its first `after` executions in
/// depth-first order are explored; the interlude runs on every worker too (its executions split
/// by index), and then the rest of the tree. A violation among those first executions is reported, else the interlude's, else the
/// search's first, so the violation reported does not depend on the number of workers.
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

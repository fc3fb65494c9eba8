//! Environment variables that change a `#[lineup_test]` run without changing code, for nightly
//! random-sample sweeps and for CI machines that split one sweep between them.

use std::time::Duration;

use crate::config::{Interlude, Strategy};

/// Sample count (`LINEUP_SAMPLES=1000`).
pub const SAMPLES_ENV: &str = "LINEUP_SAMPLES";
/// Seed of the random sample (`LINEUP_SEED=12345`); without it a random seed is drawn and printed.
pub const SEED_ENV: &str = "LINEUP_SEED";
/// Preemption bound of phase 2 (`LINEUP_PREEMPTION_BOUND=3`).
pub const PREEMPTION_BOUND_ENV: &str = "LINEUP_PREEMPTION_BOUND";
/// Time budget for the deeper stages after the sample (see `LineupTest::time_budget`) (`LINEUP_TIME_BUDGET=90s`, `15m`, `2h`, `500ms`).
pub const TIME_BUDGET_ENV: &str = "LINEUP_TIME_BUDGET";
/// The shard of the sample this machine checks (`LINEUP_SHARD=2/8`: the third of eight).
pub const SHARD_ENV: &str = "LINEUP_SHARD";
/// Worker threads (`LINEUP_WORKERS=4`); default: the number of cores.
pub const WORKERS_ENV: &str = "LINEUP_WORKERS";
/// Phase 2's strategy (`LINEUP_STRATEGY=pct:3:2000`, see [`Strategy`]); a sampling strategy
/// without a seed of its own takes the test's seed.
pub const STRATEGY_ENV: &str = "LINEUP_STRATEGY";

/// The partial-order reduction (`LINEUP_REDUCTION=on`, `off` or `auto`, also `1`/`0`, `true`/`false`; see
/// [`Config::reduction`](crate::Config::reduction)).
pub const REDUCTION_ENV: &str = "LINEUP_REDUCTION";

/// The interlude of phase 2 (`LINEUP_INTERLUDE=off`, or `AFTER:STRATEGY` such as
/// `5000:pct:3:2000`; see [`Interlude`]); a strategy without a seed of its own takes the test's.
pub const INTERLUDE_ENV: &str = "LINEUP_INTERLUDE";

/// The overrides set in the environment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepOverrides {
    /// [`SAMPLES_ENV`].
    pub samples: Option<usize>,
    /// [`SEED_ENV`].
    pub seed: Option<u64>,
    /// [`PREEMPTION_BOUND_ENV`].
    pub preemption_bound: Option<u32>,
    /// [`TIME_BUDGET_ENV`].
    pub time_budget: Option<Duration>,
    /// [`SHARD_ENV`]: `(index, count)`, index from 0.
    pub shard: Option<(usize, usize)>,
    /// [`WORKERS_ENV`].
    pub workers: Option<usize>,
    /// [`STRATEGY_ENV`].
    pub strategy: Option<Strategy>,
    /// [`REDUCTION_ENV`].
    pub reduction: Option<crate::config::Reduction>,
    /// [`INTERLUDE_ENV`]: `Some(None)` turns the interlude off.
    pub interlude: Option<Option<Interlude>>,
}

/// A variable that is set to something that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{variable}={value:?}: {problem}")]
pub struct SweepEnvError {
    /// The variable.
    pub variable: &'static str,
    /// Its value.
    pub value: String,
    /// What was expected.
    pub problem: String,
}

impl SweepOverrides {
    /// Reads the overrides from the process environment.
    pub fn from_env() -> Result<Self, SweepEnvError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the overrides through `lookup` (for tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, SweepEnvError> {
        let get = |name: &'static str| lookup(name).filter(|v| !v.trim().is_empty()).map(|v| (name, v));
        let number = |name: &'static str| -> Result<Option<u64>, SweepEnvError> {
            get(name)
                .map(|(variable, value)| {
                    value.trim().parse::<u64>().map_err(|_| SweepEnvError {
                        variable,
                        value: value.clone(),
                        problem: "expected a whole number".into(),
                    })
                })
                .transpose()
        };
        let shard = get(SHARD_ENV)
            .map(|(variable, value)| {
                let bad = || SweepEnvError {
                    variable,
                    value: value.clone(),
                    problem: "expected i/n with 0 <= i < n, e.g. 0/4".into(),
                };
                let (i, n) = value.trim().split_once('/').ok_or_else(bad)?;
                let (i, n) = (
                    i.parse::<usize>().map_err(|_| bad())?,
                    n.parse::<usize>().map_err(|_| bad())?,
                );
                if n == 0 || i >= n {
                    return Err(bad());
                }
                Ok((i, n))
            })
            .transpose()?;
        let time_budget = get(TIME_BUDGET_ENV)
            .map(|(variable, value)| {
                parse_duration(value.trim()).ok_or_else(|| SweepEnvError {
                    variable,
                    value: value.clone(),
                    problem: "expected a duration such as 500ms, 90s, 15m or 2h".into(),
                })
            })
            .transpose()?;
        let strategy = get(STRATEGY_ENV)
            .map(|(variable, value)| {
                value.trim().parse::<Strategy>().map_err(|e| SweepEnvError {
                    variable,
                    value: value.clone(),
                    problem: e.problem,
                })
            })
            .transpose()?;
        let reduction = get(REDUCTION_ENV)
            .map(|(variable, value)| {
                value.parse().map_err(|problem| SweepEnvError {
                    variable,
                    value: value.clone(),
                    problem,
                })
            })
            .transpose()?;
        let interlude = get(INTERLUDE_ENV)
            .map(|(variable, value)| {
                Interlude::parse_setting(&value).map_err(|e| SweepEnvError {
                    variable,
                    value: value.clone(),
                    problem: format!(
                        "{}: write off or AFTER:STRATEGY, for example 10000:pct:3:1000",
                        e.problem
                    ),
                })
            })
            .transpose()?;
        Ok(Self {
            interlude,
            samples: number(SAMPLES_ENV)?.map(|n| n as usize),
            seed: number(SEED_ENV)?,
            preemption_bound: number(PREEMPTION_BOUND_ENV)?.map(|n| n as u32),
            time_budget,
            shard,
            workers: number(WORKERS_ENV)?.map(|n| n as usize),
            strategy,
            reduction,
        })
    }
}

/// `500ms`, `90s`, `15m`, `2h`, or a bare number of seconds.
fn parse_duration(text: &str) -> Option<Duration> {
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: u64 = number.parse().ok()?;
    Some(match unit {
        "ms" => Duration::from_millis(n),
        "" | "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n * 60),
        "h" => Duration::from_secs(n * 3600),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Result<SweepOverrides, SweepEnvError> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        SweepOverrides::from_lookup(move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn reads_every_override() {
        let o = env(&[
            (SAMPLES_ENV, "1000"),
            (SEED_ENV, "42"),
            (PREEMPTION_BOUND_ENV, "3"),
            (TIME_BUDGET_ENV, "15m"),
            (SHARD_ENV, "2/8"),
            (WORKERS_ENV, "4"),
            (STRATEGY_ENV, "pct:3:200"),
        ])
        .unwrap();
        assert_eq!(o.samples, Some(1000));
        assert_eq!(o.seed, Some(42));
        assert_eq!(o.preemption_bound, Some(3));
        assert_eq!(o.time_budget, Some(Duration::from_secs(900)));
        assert_eq!(o.shard, Some((2, 8)));
        assert_eq!(o.workers, Some(4));
        assert_eq!(
            o.strategy,
            Some(Strategy::Pct {
                depth: 3,
                executions: 200,
                seed: 0
            })
        );
        assert_eq!(env(&[]).unwrap(), SweepOverrides::default());
    }

    #[test]
    fn bad_values_name_the_variable() {
        let err = env(&[(SHARD_ENV, "8/8")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LINEUP_SHARD=\"8/8\": expected i/n with 0 <= i < n, e.g. 0/4"
        );
        let err = env(&[(SAMPLES_ENV, "many")]).unwrap_err();
        assert_eq!(err.to_string(), "LINEUP_SAMPLES=\"many\": expected a whole number");
        assert!(env(&[(TIME_BUDGET_ENV, "10 years")]).is_err());
        let err = env(&[(STRATEGY_ENV, "pct:x")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LINEUP_STRATEGY=\"pct:x\": the depth `x` is not a whole number"
        );
    }

    #[test]
    fn reads_the_reduction_switch() {
        for (value, on) in [
            ("on", true),
            ("1", true),
            ("TRUE", true),
            ("off", false),
            ("0", false),
            ("no", false),
        ] {
            assert_eq!(
                env(&[(REDUCTION_ENV, value)]).unwrap().reduction,
                Some(on.into()),
                "{value}"
            );
        }
        assert_eq!(
            env(&[(REDUCTION_ENV, "auto")]).unwrap().reduction,
            Some(crate::config::Reduction::Auto)
        );
        assert_eq!(env(&[]).unwrap().reduction, None);
        let err = env(&[(REDUCTION_ENV, "sometimes")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LINEUP_REDUCTION=\"sometimes\": expected on, off or auto"
        );
    }

    #[test]
    fn reads_the_interlude() {
        assert_eq!(env(&[(INTERLUDE_ENV, "off")]).unwrap().interlude, Some(None));
        assert_eq!(
            env(&[(INTERLUDE_ENV, "500:random:200:3")]).unwrap().interlude,
            Some(Some(Interlude {
                after: 500,
                strategy: Strategy::Random {
                    executions: 200,
                    seed: 3
                }
            }))
        );
        assert_eq!(env(&[]).unwrap().interlude, None);
        let err = env(&[(INTERLUDE_ENV, "pct")]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("LINEUP_INTERLUDE=\"pct\": an interlude is written AFTER:STRATEGY"),
            "{err}"
        );
        let err = env(&[(INTERLUDE_ENV, "100:db-dfs")]).unwrap_err();
        assert!(err.to_string().contains("must be a sample"), "{err}");
    }
}

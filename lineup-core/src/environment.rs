//! Every environment variable lineup reads, declared once: [`Environment`], whose fields are the
//! variables, each named in its field's documentation (as loom's `Builder::new` reads every
//! `LOOM_*` variable into the field it sets). `docs/environment.md` has the same variables as a
//! table.
//!
//! The environment is read once at the start of a check ([`check`](crate::check()) and its
//! siblings, each check of a matrix a [`LineupTest`](crate::LineupTest) runs) or of a test
//! (a [`LineupTest`](crate::LineupTest) reads its sweep overrides, its report directory, blessing
//! and progress once), and the values are handed down from there: no other module reads a
//! variable.
//!
//! For every variable, an empty value (or one of blanks only) is the same as an unset variable.
//! A value that cannot be read is an [`EnvironmentError`] that names the variable and the value.
//! Switches (`LINEUP_BLESS`, `LINEUP_PROGRESS`, `LINEUP_LOOM_DEBUG`) take `1`, `on`, `true` or
//! `yes`, and `0`, `off`, `false` or `no`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use crate::config::{Interlude, Reduction, Strategy};
use crate::error::CheckError;
pub use crate::error::EnvironmentError;
use crate::model::replay_token::ReplayToken;

/// Sample count (`LINEUP_SAMPLES=1000`).
pub const SAMPLES_ENV: &str = "LINEUP_SAMPLES";
/// Seed of the random sample (`LINEUP_SEED=12345`); without it a random seed is drawn and printed.
pub const SEED_ENV: &str = "LINEUP_SEED";
/// Preemption bound of phase 2 (`LINEUP_PREEMPTION_BOUND=3`).
pub const PREEMPTION_BOUND_ENV: &str = "LINEUP_PREEMPTION_BOUND";
/// Time budget for the deeper stages after the sample (see `LineupTest::time_budget`) (`LINEUP_TIME_BUDGET=90s`, `15m`, `2h`, `500ms`; `off` for a fixed run).
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

/// A replay token from a report (`LINEUP_REPLAY=lineup:p2-b2:0.1.0`): phase 2 of a check runs that
/// one schedule instead of exploring.
pub const REPLAY_ENV: &str = "LINEUP_REPLAY";
/// The directory of HTML reports (`LINEUP_REPORT_DIR=target/lineup-reports`).
pub const REPORT_DIR_ENV: &str = "LINEUP_REPORT_DIR";
/// How much of a violating execution's steps the report shows (`LINEUP_TRACE=full`: every step).
pub const TRACE_ENV: &str = "LINEUP_TRACE";
/// Set to `1` to (re)write the observation files of regression matrices from a fresh phase 1.
pub const BLESS_ENV: &str = "LINEUP_BLESS";
/// Forces the progress bar on (`1`) or off (`0`).
pub const PROGRESS_ENV: &str = "LINEUP_PROGRESS";

/// loom's branch limit of one execution (`LOOM_MAX_BRANCHES=50000`).
pub const LOOM_MAX_BRANCHES_ENV: &str = "LOOM_MAX_BRANCHES";
/// A stored loom path to start phase 2 from (`LOOM_CHECKPOINT_FILE=...`); a loom report's replay
/// line names it.
pub const LOOM_CHECKPOINT_ENV: &str = "LOOM_CHECKPOINT_FILE";
/// Prints what each loom child process reported (`LINEUP_LOOM_DEBUG=1`).
pub const LOOM_DEBUG_ENV: &str = "LINEUP_LOOM_DEBUG";
/// The loom backend's protocol with its child processes: lineup sets it for a child, naming its
/// job file; never set it yourself.
pub const LOOM_CHILD_ENV: &str = "LINEUP_LOOM_CHILD";

/// Set on CI machines (`CI=true`); not lineup's own.
pub const CI_ENV: &str = "CI";
/// libtest's `--nocapture` as a variable; not lineup's own.
pub const NOCAPTURE_ENV: &str = "RUST_TEST_NOCAPTURE";
/// cargo's target directory; not lineup's own.
pub const CARGO_TARGET_DIR_ENV: &str = "CARGO_TARGET_DIR";

/// The loom backend's branch limit when [`LOOM_MAX_BRANCHES_ENV`] is not set: loom's own default,
/// 1000, is too small for a 3x3 matrix of a queue.
pub const DEFAULT_LOOM_MAX_BRANCHES: usize = 20_000;

/// Every variable lineup reads, parsed. [`Default`] is the environment with none of them set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Environment {
    /// The overrides of a [`LineupTest`](crate::LineupTest)'s settings, for sweeps.
    pub sweep: SweepOverrides,
    /// What a check or a test does besides exploring: replay, reports, blessing, progress.
    pub run: RunSettings,
    /// The loom backend's (built with `--cfg loom`).
    pub loom: LoomSettings,
    /// Variables of the machine, not lineup's own.
    pub host: HostSettings,
}

/// The overrides of a `#[lineup_test]` run set in the environment, for nightly random-sample
/// sweeps and for CI machines that split one sweep between them (shuttle and loom backends).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepOverrides {
    /// [`SAMPLES_ENV`]: how many matrices RandomCheck draws.
    pub samples: Option<usize>,
    /// [`SEED_ENV`]: the seed of the sample (and of a sampling strategy without its own).
    pub seed: Option<u64>,
    /// [`PREEMPTION_BOUND_ENV`]: phase 2's preemption bound.
    pub preemption_bound: Option<u32>,
    /// [`TIME_BUDGET_ENV`]: the time budget of the deeper stages after the sample (`Some(None)`:
    /// `off`, a fixed run).
    pub time_budget: Option<Option<Duration>>,
    /// [`SHARD_ENV`]: `(index, count)`, index from 0: this machine checks the sample indices
    /// `index, index + count, ...`.
    pub shard: Option<(usize, usize)>,
    /// [`WORKERS_ENV`]: worker threads.
    pub workers: Option<usize>,
    /// [`STRATEGY_ENV`]: phase 2's strategy.
    pub strategy: Option<Strategy>,
    /// [`REDUCTION_ENV`]: the partial-order reduction.
    pub reduction: Option<Reduction>,
    /// [`INTERLUDE_ENV`]: phase 2's interlude; `Some(None)` turns it off.
    pub interlude: Option<Option<Interlude>>,
}

/// What a check or a test does besides exploring.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunSettings {
    /// [`REPLAY_ENV`]: a replay token of a shuttle phase-2 schedule; phase 2 of every check runs
    /// that one schedule instead of exploring.
    pub replay: Option<ReplayToken>,
    /// [`REPORT_DIR_ENV`]: a failing check or test also writes its violation there as an HTML
    /// page, `<test>-<n>.html`, and its text report names the file.
    pub report_dir: Option<PathBuf>,
    /// [`TRACE_ENV`]: the report's interleaving shows every step of the violating execution
    /// (`full`) instead of the steps that matter (`short`, the default).
    pub trace_full: bool,
    /// [`BLESS_ENV`]: a test rewrites the committed specifications of its regression matrices
    /// from a fresh phase 1 instead of comparing them.
    pub bless: bool,
    /// [`PROGRESS_ENV`]: the progress bar of RandomCheck's sample forced on (`Some(true)`) or off;
    /// `None`: shown only on a terminal, outside CI, when the test harness does not capture output.
    pub progress: Option<bool>,
}

/// The loom backend's variables (built with `--cfg loom`; the shuttle backend ignores them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoomSettings {
    /// [`LOOM_MAX_BRANCHES_ENV`]: the branch limit of one loom execution, default
    /// [`DEFAULT_LOOM_MAX_BRANCHES`] (20,000).
    pub max_branches: usize,
    /// [`LOOM_CHECKPOINT_ENV`]: a stored loom path (the replay line of a loom report names it):
    /// phase 2 starts from it, so the execution it stores runs first, and a violation is not
    /// checked again in the other memory setting.
    pub checkpoint_file: Option<PathBuf>,
    /// [`LOOM_DEBUG_ENV`]: each loom child process's records and standard error are printed.
    pub debug: bool,
    /// [`LOOM_CHILD_ENV`]: the job file of this process when it is a loom child process (lineup
    /// sets it for its children).
    pub child_job: Option<PathBuf>,
}

impl Default for LoomSettings {
    fn default() -> Self {
        Self {
            max_branches: DEFAULT_LOOM_MAX_BRANCHES,
            checkpoint_file: None,
            debug: false,
            child_job: None,
        }
    }
}

/// Variables of the machine that lineup reads, not its own (any value is accepted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostSettings {
    /// [`CI_ENV`]: a CI machine; the progress bar stays off.
    pub ci: bool,
    /// [`NOCAPTURE_ENV`] set to anything but `0`: the test harness lets output through, so the
    /// progress bar may show.
    pub test_nocapture: bool,
    /// [`CARGO_TARGET_DIR_ENV`], if absolute: where the loom backend keeps a violation's stored
    /// path when the running executable is not inside a target directory cargo marked.
    pub cargo_target_dir: Option<PathBuf>,
}

impl Environment {
    /// Reads every variable from the process environment.
    pub fn from_env() -> Result<Self, EnvironmentError> {
        Self::read(&Reader {
            lookup: &|name| std::env::var_os(name),
        })
    }

    /// Reads every variable through `lookup` (for tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, EnvironmentError> {
        Self::read(&Reader {
            lookup: &|name| lookup(name).map(OsString::from),
        })
    }

    fn read(reader: &Reader<'_>) -> Result<Self, EnvironmentError> {
        Ok(Self {
            sweep: SweepOverrides::read(reader)?,
            run: RunSettings::read(reader)?,
            loom: LoomSettings::read(reader)?,
            host: HostSettings::read(reader),
        })
    }
}

impl SweepOverrides {
    fn read(reader: &Reader<'_>) -> Result<Self, EnvironmentError> {
        Ok(Self {
            samples: reader.number(SAMPLES_ENV)?,
            seed: reader.number(SEED_ENV)?,
            preemption_bound: reader.number(PREEMPTION_BOUND_ENV)?,
            time_budget: reader.parsed(TIME_BUDGET_ENV, |value| {
                parse_budget(value).ok_or_else(|| "expected off or a duration such as 500ms, 90s, 15m or 2h".into())
            })?,
            shard: reader.parsed(SHARD_ENV, parse_shard)?,
            workers: reader.number(WORKERS_ENV)?,
            strategy: reader.parsed(STRATEGY_ENV, |value| value.parse::<Strategy>().map_err(|e| e.problem))?,
            reduction: reader.parsed(REDUCTION_ENV, str::parse)?,
            interlude: reader.parsed(INTERLUDE_ENV, |value| {
                Interlude::parse_setting(value).map_err(|e| {
                    format!(
                        "{}: write off or AFTER:STRATEGY, for example 10000:pct:3:1000",
                        e.problem
                    )
                })
            })?,
        })
    }
}

impl RunSettings {
    fn read(reader: &Reader<'_>) -> Result<Self, EnvironmentError> {
        Ok(Self {
            replay: reader.parsed(REPLAY_ENV, |value| {
                value.parse::<ReplayToken>().map_err(|e| match e {
                    CheckError::BadReplayToken { problem, .. } => problem,
                    other => other.to_string(),
                })
            })?,
            report_dir: reader.path(REPORT_DIR_ENV),
            trace_full: reader
                .parsed(TRACE_ENV, |value| match value.to_ascii_lowercase().as_str() {
                    "full" => Ok(true),
                    "short" => Ok(false),
                    _ => Err("expected `full` or `short`".to_string()),
                })?
                .unwrap_or(false),
            bless: reader.switch(BLESS_ENV)?.unwrap_or(false),
            progress: reader
                .parsed(PROGRESS_ENV, |value| match value.to_ascii_lowercase().as_str() {
                    "auto" => Ok(None),
                    _ => parse_switch(value).map(Some),
                })?
                .flatten(),
        })
    }
}

impl LoomSettings {
    fn read(reader: &Reader<'_>) -> Result<Self, EnvironmentError> {
        Ok(Self {
            max_branches: reader
                .number(LOOM_MAX_BRANCHES_ENV)?
                .unwrap_or(DEFAULT_LOOM_MAX_BRANCHES),
            checkpoint_file: reader.path(LOOM_CHECKPOINT_ENV),
            debug: reader.switch(LOOM_DEBUG_ENV)?.unwrap_or(false),
            child_job: reader.path(LOOM_CHILD_ENV),
        })
    }
}

impl HostSettings {
    fn read(reader: &Reader<'_>) -> Self {
        Self {
            ci: reader.value(CI_ENV).is_some(),
            test_nocapture: reader
                .value(NOCAPTURE_ENV)
                .is_some_and(|v| v.to_string_lossy().trim() != "0"),
            cargo_target_dir: reader.path(CARGO_TARGET_DIR_ENV).filter(|p| p.is_absolute()),
        }
    }
}

/// Reads variables through a lookup, with the rules every variable follows.
struct Reader<'a> {
    lookup: &'a dyn Fn(&str) -> Option<OsString>,
}

impl Reader<'_> {
    /// The value of `name`; an empty value, or one of blanks only, is none.
    fn value(&self, name: &str) -> Option<OsString> {
        (self.lookup)(name).filter(|v| !v.to_string_lossy().trim().is_empty())
    }

    /// The value of `name` as a path, as it is written.
    fn path(&self, name: &str) -> Option<PathBuf> {
        self.value(name).map(PathBuf::from)
    }

    /// The value of `name` without surrounding blanks, read by `parse`.
    fn parsed<T>(
        &self,
        name: &'static str,
        parse: impl FnOnce(&str) -> Result<T, String>,
    ) -> Result<Option<T>, EnvironmentError> {
        let Some(raw) = self.value(name) else {
            return Ok(None);
        };
        let error = |problem: String| EnvironmentError {
            variable: name,
            value: raw.to_string_lossy().into_owned(),
            problem,
        };
        let text = raw.to_str().ok_or_else(|| error("not valid UTF-8".into()))?;
        parse(text.trim()).map(Some).map_err(error)
    }

    /// A whole number.
    fn number<T: FromStr>(&self, name: &'static str) -> Result<Option<T>, EnvironmentError> {
        self.parsed(name, |value| {
            value.parse().map_err(|_| "expected a whole number".into())
        })
    }

    /// A switch (see the module).
    fn switch(&self, name: &'static str) -> Result<Option<bool>, EnvironmentError> {
        self.parsed(name, parse_switch)
    }
}

/// `1`, `on`, `true`, `yes`, or `0`, `off`, `false`, `no`.
fn parse_switch(value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "on" | "true" | "yes" => Ok(true),
        "0" | "off" | "false" | "no" => Ok(false),
        _ => Err("expected 1 or 0 (also on/off, true/false, yes/no)".into()),
    }
}

/// `i/n` with `0 <= i < n`.
fn parse_shard(value: &str) -> Result<(usize, usize), String> {
    let bad = || "expected i/n with 0 <= i < n, e.g. 0/4".to_string();
    let (i, n) = value.split_once('/').ok_or_else(bad)?;
    let (i, n) = (
        i.parse::<usize>().map_err(|_| bad())?,
        n.parse::<usize>().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// A time budget: `off` (none, `Some(None)`) or a duration as [`parse_duration`] reads it.
pub(crate) fn parse_budget(text: &str) -> Option<Option<Duration>> {
    match text {
        "off" => Some(None),
        _ => parse_duration(text).map(Some),
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

    fn env(pairs: &[(&str, &str)]) -> Result<Environment, EnvironmentError> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Environment::from_lookup(move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    fn sweep(pairs: &[(&str, &str)]) -> Result<SweepOverrides, EnvironmentError> {
        env(pairs).map(|e| e.sweep)
    }

    /// Every variable the module declares: the `pub const NAME_ENV: &str = "VARIABLE";` lines.
    fn declared() -> std::collections::BTreeSet<String> {
        include_str!("environment.rs")
            .lines()
            .filter(|line| line.starts_with("pub const ") && line.contains("_ENV: &str = \""))
            .map(|line| line.split('"').nth(1).expect("a quoted name").to_string())
            .collect()
    }

    #[test]
    fn reads_every_override() {
        let o = sweep(&[
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
        assert_eq!(o.time_budget, Some(Some(Duration::from_secs(900))));
        assert_eq!(sweep(&[(TIME_BUDGET_ENV, "off")]).unwrap().time_budget, Some(None));
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
        assert_eq!(env(&[]).unwrap(), Environment::default());
    }

    #[test]
    fn reads_the_run_loom_and_host_settings() {
        let e = env(&[
            (REPLAY_ENV, " lineup:p2-b2:0.1.0 "),
            (REPORT_DIR_ENV, "target/reports"),
            (BLESS_ENV, "1"),
            (PROGRESS_ENV, "off"),
            (LOOM_MAX_BRANCHES_ENV, "50000"),
            (LOOM_CHECKPOINT_ENV, "/tmp/path.json"),
            (LOOM_DEBUG_ENV, "yes"),
            (LOOM_CHILD_ENV, "/tmp/job.json"),
            (CI_ENV, "true"),
            (NOCAPTURE_ENV, "1"),
            (CARGO_TARGET_DIR_ENV, "/tmp/target"),
        ])
        .unwrap();
        assert_eq!(e.run.replay, Some("lineup:p2-b2:0.1.0".parse().unwrap()));
        assert_eq!(e.run.report_dir, Some(PathBuf::from("target/reports")));
        assert!(e.run.bless);
        assert_eq!(e.run.progress, Some(false));
        assert_eq!(e.loom.max_branches, 50_000);
        assert_eq!(e.loom.checkpoint_file, Some(PathBuf::from("/tmp/path.json")));
        assert!(e.loom.debug);
        assert_eq!(e.loom.child_job, Some(PathBuf::from("/tmp/job.json")));
        assert!(e.host.ci && e.host.test_nocapture);
        assert_eq!(e.host.cargo_target_dir, Some(PathBuf::from("/tmp/target")));

        let defaults = Environment::default();
        assert_eq!(defaults.loom.max_branches, DEFAULT_LOOM_MAX_BRANCHES);
        assert_eq!(defaults.run.progress, None);
        assert_eq!(env(&[(PROGRESS_ENV, "1")]).unwrap().run.progress, Some(true));
        assert_eq!(env(&[(PROGRESS_ENV, "auto")]).unwrap().run.progress, None);
        assert!(!env(&[(BLESS_ENV, "0")]).unwrap().run.bless);
        assert!(!env(&[(NOCAPTURE_ENV, "0")]).unwrap().host.test_nocapture);
        // A relative CARGO_TARGET_DIR says nothing about where the executable's target is.
        assert_eq!(
            env(&[(CARGO_TARGET_DIR_ENV, "target")]).unwrap().host.cargo_target_dir,
            None
        );
    }

    #[test]
    fn an_empty_value_is_an_unset_variable_for_every_variable() {
        for name in declared() {
            for empty in ["", "  "] {
                assert_eq!(
                    env(&[(name.as_str(), empty)]).unwrap(),
                    Environment::default(),
                    "{name}={empty:?}"
                );
            }
        }
    }

    #[test]
    fn bad_values_name_the_variable() {
        let err = sweep(&[(SHARD_ENV, "8/8")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LINEUP_SHARD=\"8/8\": expected i/n with 0 <= i < n, e.g. 0/4"
        );
        let err = sweep(&[(SAMPLES_ENV, "many")]).unwrap_err();
        assert_eq!(err.to_string(), "LINEUP_SAMPLES=\"many\": expected a whole number");
        let err = sweep(&[(TIME_BUDGET_ENV, "10 years")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LINEUP_TIME_BUDGET=\"10 years\": expected off or a duration such as 500ms, 90s, 15m or 2h"
        );
        let err = sweep(&[(STRATEGY_ENV, "pct:x")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LINEUP_STRATEGY=\"pct:x\": the depth `x` is not a whole number"
        );
        let err = env(&[(REPLAY_ENV, "lineup:p3:0.1")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LINEUP_REPLAY=\"lineup:p3:0.1\": the phase must be `p1`, `p2-b<preemption bound>`, `p2-b<bound>-y<yield choices>[s]` or `p2-s`"
        );
        let err = env(&[(BLESS_ENV, "please")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LINEUP_BLESS=\"please\": expected 1 or 0 (also on/off, true/false, yes/no)"
        );
        let err = env(&[(LOOM_MAX_BRANCHES_ENV, "20k")]).unwrap_err();
        assert_eq!(err.to_string(), "LOOM_MAX_BRANCHES=\"20k\": expected a whole number");
        // A number too large for its field is not read as another one.
        assert_eq!(
            env(&[(PREEMPTION_BOUND_ENV, "4294967298")]).unwrap_err().variable,
            PREEMPTION_BOUND_ENV
        );
        for (name, bad) in [
            (SEED_ENV, "-1"),
            (WORKERS_ENV, "four"),
            (PROGRESS_ENV, "sometimes"),
            (LOOM_DEBUG_ENV, "loud"),
        ] {
            let err = env(&[(name, bad)]).unwrap_err();
            assert_eq!((err.variable, err.value.as_str()), (name, bad));
            assert!(err.to_string().starts_with(&format!("{name}=\"{bad}\": ")), "{err}");
        }
        // A bad value is an error of a check too.
        let check_error: CheckError = err.clone().into();
        assert_eq!(check_error.to_string(), err.to_string());
    }

    #[cfg(unix)]
    #[test]
    fn a_value_that_is_not_utf8_is_an_error_and_a_path_is_kept_as_it_is() {
        use std::os::unix::ffi::OsStringExt;
        let odd = OsString::from_vec(vec![b'd', 0xff]);
        let lookup = |name: &str| (name == SEED_ENV || name == REPORT_DIR_ENV).then(|| odd.clone());
        let err = Environment::read(&Reader { lookup: &lookup }).unwrap_err();
        assert_eq!((err.variable, err.problem.as_str()), (SEED_ENV, "not valid UTF-8"));
        let lookup = |name: &str| (name == REPORT_DIR_ENV).then(|| odd.clone());
        let e = Environment::read(&Reader { lookup: &lookup }).unwrap();
        assert_eq!(e.run.report_dir, Some(PathBuf::from(odd.clone())));
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
                sweep(&[(REDUCTION_ENV, value)]).unwrap().reduction,
                Some(on.into()),
                "{value}"
            );
        }
        assert_eq!(
            sweep(&[(REDUCTION_ENV, "auto")]).unwrap().reduction,
            Some(Reduction::Auto)
        );
        assert_eq!(sweep(&[]).unwrap().reduction, None);
        let err = sweep(&[(REDUCTION_ENV, "sometimes")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LINEUP_REDUCTION=\"sometimes\": expected on, off or auto"
        );
    }

    #[test]
    fn reads_the_interlude() {
        assert_eq!(sweep(&[(INTERLUDE_ENV, "off")]).unwrap().interlude, Some(None));
        assert_eq!(
            sweep(&[(INTERLUDE_ENV, "500:random:200:3")]).unwrap().interlude,
            Some(Some(Interlude {
                after: 500,
                strategy: Strategy::Random {
                    executions: 200,
                    seed: 3
                }
            }))
        );
        assert_eq!(sweep(&[]).unwrap().interlude, None);
        let err = sweep(&[(INTERLUDE_ENV, "pct")]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("LINEUP_INTERLUDE=\"pct\": an interlude is written AFTER:STRATEGY"),
            "{err}"
        );
        let err = sweep(&[(INTERLUDE_ENV, "100:db-dfs")]).unwrap_err();
        assert!(err.to_string().contains("must be a sample"), "{err}");
    }

    /// The variables of the table in `docs/environment.md`: the first column of its rows.
    fn documented() -> std::collections::BTreeSet<String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/environment.md");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        text.lines()
            .filter_map(|line| line.strip_prefix("| `"))
            .map(|rest| rest.split('`').next().expect("a closing backtick").to_string())
            .collect()
    }

    #[test]
    fn the_documentation_names_every_variable_and_no_other() {
        let declared = declared();
        assert!(declared.len() >= 20, "{declared:?}");
        let documented = documented();
        let undocumented: Vec<_> = declared.difference(&documented).collect();
        let unknown: Vec<_> = documented.difference(&declared).collect();
        assert!(
            undocumented.is_empty() && unknown.is_empty(),
            "docs/environment.md lacks {undocumented:?} and has variables the module does not declare: {unknown:?}"
        );
        // Every field's documentation names its variable.
        let source = include_str!("environment.rs");
        for line in source
            .lines()
            .filter(|l| l.starts_with("pub const ") && l.contains("_ENV: &str"))
        {
            let constant = line["pub const ".len()..].split(':').next().unwrap();
            assert!(
                source.contains(&format!("    /// [`{constant}`]")),
                "no field's documentation names {constant}"
            );
        }
    }

    #[test]
    fn no_other_module_reads_the_environment() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut readers = Vec::new();
        let mut dirs = vec![src.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") && path != src.join("environment.rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    if ["env::var(", "env::var_os(", "env::vars("]
                        .iter()
                        .any(|read| text.contains(read))
                    {
                        readers.push(path.display().to_string());
                    }
                }
            }
        }
        assert!(
            readers.is_empty(),
            "read the environment in environment.rs only: {readers:?}"
        );
    }
}

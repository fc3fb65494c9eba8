//! The deepening stages that a [`LineupTest`](crate::LineupTest) runs after its sample, within
//! its time budget: which stages there are, their default order (measured: most bugs found per
//! second first, see docs/strategies.md), the matrices and settings of each, and what each
//! covered.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::config::{Config, Strategy};
use crate::model::groups::OperationGroups;
use crate::model::matrix::TestMatrix;
use crate::runner::sampling::auto_matrices_grouped;
use crate::runner::shapes::{sample_shaped_grouped, Shapes};

/// One kind of deepening after the sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// The sample again with PCT (depth 3, 2000 executions per matrix).
    Pct,
    /// The sample again with random scheduling (2000 executions per matrix).
    Random,
    /// The sample again, exhaustively, with yields as a spinning core runs them: the yielding
    /// thread may run again right after its own yield ([`Config::yield_to_self`]), and an
    /// execution may make one more non-default choice at yields ([`Config::yield_choices`]).
    Yields,
    /// The sample again, exhaustively at one preemption more.
    MorePreemptions,
    /// Each distinct matrix of the sample, smallest first, at bound + 1, + 2, ... while its
    /// tree stays within its share of the budget (small matrices go deep).
    IterativeDeepening,
    /// Random matrices of four threads with one operation each, then with two.
    FourThreads,
    /// Random matrices of two threads with four operations each.
    FourOps,
    /// Another random sample of the test's shapes, with another seed.
    MoreMatrices,
    /// AutoCheck's growing square matrices (Fig. 6); endless, so it is last.
    AutoCheck,
}

impl Stage {
    /// Every stage, in the default order: the order measured by `lineup-bench -- depth
    /// --stages` to find the most of the deep-bug objects' bugs per second (docs/strategies.md).
    pub const DEFAULT_ORDER: [Stage; 9] = [
        Stage::FourOps,
        Stage::FourThreads,
        Stage::IterativeDeepening,
        Stage::Random,
        Stage::MorePreemptions,
        Stage::Yields,
        Stage::Pct,
        Stage::MoreMatrices,
        Stage::AutoCheck,
    ];

    /// The stage's name, as [`FromStr`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Pct => "pct",
            Stage::Random => "random",
            Stage::Yields => "yields",
            Stage::MorePreemptions => "more-preemptions",
            Stage::IterativeDeepening => "iterative-deepening",
            Stage::FourThreads => "four-threads",
            Stage::FourOps => "four-ops",
            Stage::MoreMatrices => "more-matrices",
            Stage::AutoCheck => "autocheck",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Stage {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Stage::DEFAULT_ORDER
            .into_iter()
            .find(|stage| stage.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Stage::DEFAULT_ORDER.iter().map(|s| s.name()).collect();
                format!("`{s}` is not a deepening stage; the stages are {}", names.join(", "))
            })
    }
}

/// The matrices of one deepening stage, in order (AutoCheck's are endless).
pub(crate) type Matrices<'a> = Box<dyn Iterator<Item = TestMatrix> + 'a>;

/// What a stage checks: its description, settings and matrices, and how many there are.
pub(crate) struct Plan<'a> {
    pub(crate) name: String,
    pub(crate) config: Config,
    pub(crate) matrices: Matrices<'a>,
    pub(crate) of: Option<usize>,
}

/// What a plan is made from: the run's settings, how to frame a matrix, the sample.
pub(crate) struct PlanInput<'a> {
    pub(crate) config: &'a Config,
    pub(crate) seed: u64,
    pub(crate) samples: usize,
    pub(crate) threads: usize,
    pub(crate) ops: usize,
    pub(crate) shapes: Shapes,
    /// The invocations and their operation groups, which every drawn matrix keeps.
    pub(crate) groups: &'a OperationGroups,
    pub(crate) sampled: &'a [TestMatrix],
    pub(crate) frame: &'a dyn Fn(TestMatrix) -> TestMatrix,
}

/// Executions per matrix of the sampling stages.
const SAMPLING_EXECUTIONS: u64 = 2000;

/// The plan of `stage` ([`Stage::IterativeDeepening`] has none: it is run matrix by matrix, see
/// [`distinct_smallest_first`]).
pub(crate) fn plan<'a>(stage: Stage, input: &PlanInput<'a>) -> Option<Plan<'a>> {
    let config = input.config;
    let with = |strategy: Strategy, bound: u32| Config {
        strategy,
        preemption_bound: bound,
        ..config.clone()
    };
    let bound = config.preemption_bound;
    let on_sample = |name: String, config: Config| Plan {
        name,
        config,
        matrices: Box::new(input.sampled.iter().cloned()),
        of: Some(input.sampled.len()),
    };
    let drawn = |name: &str, shapes: &[(usize, usize)], mix: Shapes, salt: u64| {
        let count = input.samples.max(20).div_ceil(shapes.len());
        let matrices: Vec<TestMatrix> = shapes
            .iter()
            .flat_map(|&(threads, ops)| {
                sample_shaped_grouped(input.groups, threads, ops, count, input.seed ^ salt, mix)
            })
            .map(input.frame)
            .collect();
        Plan {
            name: name.to_string(),
            config: config.clone(),
            of: Some(matrices.len()),
            matrices: Box::new(matrices.into_iter()),
        }
    };
    Some(match stage {
        Stage::Pct => {
            let pct = Strategy::Pct {
                depth: 3,
                executions: SAMPLING_EXECUTIONS,
                seed: input.seed,
            };
            on_sample(format!("{pct} on the sample"), with(pct, bound))
        }
        Stage::Random => {
            let random = Strategy::Random {
                executions: SAMPLING_EXECUTIONS,
                seed: input.seed,
            };
            on_sample(format!("{random} on the sample"), with(random, bound))
        }
        Stage::Yields => on_sample(
            format!(
                "pb-dfs bound {bound} with the yielding thread and {} yield choices on the sample",
                config.yield_choices + 1
            ),
            Config {
                yield_to_self: true,
                yield_choices: config.yield_choices + 1,
                ..with(Strategy::PbDfs, bound)
            },
        ),
        Stage::MorePreemptions => on_sample(
            format!("pb-dfs bound {} on the sample", bound + 1),
            with(Strategy::PbDfs, bound + 1),
        ),
        Stage::FourThreads => drawn("4x1 and 4x2 matrices", &[(4, 1), (4, 2)], Shapes::Exact, 4),
        Stage::FourOps => drawn("2x4 matrices", &[(2, 4)], Shapes::Exact, 24),
        Stage::MoreMatrices => drawn(
            &format!("more {}x{} matrices", input.threads, input.ops),
            &[(input.threads.max(1), input.ops.max(1))],
            input.shapes,
            0x5eed,
        ),
        Stage::AutoCheck => Plan {
            name: "AutoCheck".to_string(),
            config: config.clone(),
            matrices: Box::new(auto_matrices_grouped(input.groups).map(input.frame)),
            of: None,
        },
        Stage::IterativeDeepening => return None,
    })
}

/// The sample's distinct matrices, fewest operations first: the order of iterative deepening.
pub(crate) fn distinct_smallest_first(sampled: &[TestMatrix]) -> Vec<TestMatrix> {
    let mut distinct: Vec<TestMatrix> = Vec::new();
    for matrix in sampled {
        if !distinct.contains(matrix) {
            distinct.push(matrix.clone());
        }
    }
    distinct.sort_by_key(TestMatrix::op_count);
    distinct
}

/// One stage of the deepening within the time budget, and how far it got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeepeningStage {
    /// What the stage checks (`pb-dfs bound 3 on the sample`).
    pub name: String,
    /// Matrices it checked completely.
    pub checked: usize,
    /// Matrices it has (`None`: endless, AutoCheck).
    pub of: Option<usize>,
    /// Matrices whose exploration reached their share of the budget before it was complete:
    /// not covered by the PASS (counted in neither `checked` nor as passed).
    pub cut: usize,
    /// Executions of both phases the stage ran.
    pub executions: u64,
    /// Iterative deepening: for each shape it reached, the preemption bound to which every one
    /// of its matrices it reached was explored completely, and how many matrices those were.
    pub bounds: BTreeMap<(usize, usize), (u32, usize)>,
    /// Iterative deepening at yields: for each shape it reached, the non-default choices at
    /// yields per execution (the yielding thread among the options) to which every one of its
    /// matrices it reached was explored completely, and how many matrices those were.
    pub yield_choices: BTreeMap<(usize, usize), (u32, usize)>,
}

impl DeepeningStage {
    /// A stage that has checked nothing yet.
    pub fn new(name: String, of: Option<usize>) -> Self {
        Self {
            name,
            checked: 0,
            of,
            cut: 0,
            executions: 0,
            bounds: BTreeMap::new(),
            yield_choices: BTreeMap::new(),
        }
    }

    /// Records that a matrix of `shape` was explored completely up to `bound`.
    pub(crate) fn covered_to(&mut self, shape: (usize, usize), bound: u32) {
        covered(&mut self.bounds, shape, bound);
    }

    /// Records that a matrix of `shape` was explored completely with `choices` non-default
    /// choices at yields, the yielding thread among the options.
    pub(crate) fn covered_at_yields(&mut self, shape: (usize, usize), choices: u32) {
        covered(&mut self.yield_choices, shape, choices);
    }
}

/// Counts one more matrix of `shape` covered to `depth`: the shape's depth is its shallowest
/// matrix's.
fn covered(depths: &mut BTreeMap<(usize, usize), (u32, usize)>, shape: (usize, usize), depth: u32) {
    let entry = depths.entry(shape).or_insert((depth, 0));
    entry.0 = entry.0.min(depth);
    entry.1 += 1;
}

/// `2x2 ×12 to bound 5, 2x1 ×4 to bound 10`, larger shapes first, each depth written by `to`.
fn depths(depths: &BTreeMap<(usize, usize), (u32, usize)>, to: impl Fn(u32) -> String) -> String {
    let shapes: Vec<String> = depths
        .iter()
        .rev()
        .map(|(&(n, m), &(depth, count))| format!("{n}x{m} \u{d7}{count} {}", to(depth)))
        .collect();
    shapes.join(", ")
}

impl fmt::Display for DeepeningStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.of {
            Some(of) => write!(f, "{} {}/{of}", self.name, self.checked)?,
            None => write!(f, "{} {}", self.name, self.checked)?,
        }
        write!(f, " ({} executions", self.executions)?;
        if self.cut > 0 {
            write!(f, ", {} cut at their share of the budget, not covered", self.cut)?;
        }
        if !self.bounds.is_empty() {
            write!(f, "; {}", depths(&self.bounds, |bound| format!("to bound {bound}")))?;
        }
        if !self.yield_choices.is_empty() {
            let at_yields = depths(&self.yield_choices, |choices| format!("to {choices} choices at yields"));
            write!(f, "; at yields, the yielding thread too: {at_yields}")?;
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_is_in_the_default_order_once_and_parses_by_name() {
        for stage in Stage::DEFAULT_ORDER {
            assert_eq!(stage.name().parse::<Stage>(), Ok(stage));
            assert_eq!(Stage::DEFAULT_ORDER.iter().filter(|s| **s == stage).count(), 1);
        }
        assert_eq!(
            Stage::DEFAULT_ORDER.last(),
            Some(&Stage::AutoCheck),
            "the endless stage is last"
        );
        assert!("deeper".parse::<Stage>().unwrap_err().contains("four-ops"));
    }

    #[test]
    fn iterative_deepening_takes_each_distinct_matrix_once_smallest_first() {
        let big = TestMatrix::new(vec![vec![0, 1], vec![1]]);
        let small = TestMatrix::new(vec![vec![0], vec![1]]);
        let order = distinct_smallest_first(&[big.clone(), small.clone(), big.clone()]);
        assert_eq!(order, vec![small, big]);
    }

    #[test]
    fn a_stage_says_what_it_covered_and_what_it_cut() {
        let mut stage = DeepeningStage::new("iterative deepening".into(), Some(3));
        stage.checked = 2;
        stage.cut = 1;
        stage.executions = 900;
        stage.covered_to((2, 1), 6);
        stage.covered_to((2, 1), 5);
        stage.covered_to((3, 3), 3);
        assert_eq!(
            stage.to_string(),
            "iterative deepening 2/3 (900 executions, 1 cut at their share of the budget, not covered; 3x3 \u{d7}1 to \
             bound 3, 2x1 \u{d7}2 to bound 5)"
        );
    }
}

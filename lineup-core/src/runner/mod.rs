//! Running checks as tests: `LineupTest` (`#[lineup_test]`), random and AutoCheck matrices,
//! shrinking, parallel workers, regressions files, and progress.

pub(crate) mod deepening;
#[cfg(test)]
mod groups;
pub(crate) mod lineup_test;
pub(crate) mod parallel;
pub(crate) mod progress;
pub mod regressions;
pub(crate) mod sampling;
pub(crate) mod shapes;
pub(crate) mod shrink;

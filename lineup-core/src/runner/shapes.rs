//! The shapes RandomCheck's sample draws: only the configured `threads x ops`, or every shape up
//! to it. A bug that needs two preemptions on `[op] | [op] | [op]` can need four on a 3x3 matrix
//! that starts the same way (a switch at the gate of a thread's next operation costs one), so
//! smaller shapes find some bugs that the full size misses at the same bound, and cost less.

use std::collections::BTreeMap;
use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::model::groups::OperationGroups;
use crate::model::matrix::TestMatrix;
use crate::runner::sampling::{draw_matrix, sample_matrices_grouped};

/// Which shapes a sample draws ([`LineupTest::shapes`](crate::LineupTest::shapes)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shapes {
    /// Every matrix `threads x ops` (the paper's RandomCheck).
    Exact,
    /// `full_percent` percent of the matrices (in expectation) `threads x ops`, the others of a
    /// shape drawn uniformly among the smaller ones with at least two threads (`n x m` with
    /// `2 <= n <= threads`, `1 <= m <= ops`).
    UpTo {
        /// The share of full-size matrices, in percent.
        full_percent: u8,
    },
}

impl Default for Shapes {
    /// Every shape up to the configured size, half of the matrices full size (the mix measured on
    /// the zoo, `docs/strategies.md`).
    fn default() -> Self {
        Shapes::UpTo { full_percent: 50 }
    }
}

/// `samples` matrices over `invocations` invocations, of the shapes `shapes` allows, up to
/// `threads x ops`; the same seed gives the same matrices on every platform.
/// [`sample_shaped_grouped`] with no group draws the same matrices.
///
/// ```
/// use lineup_core::{sample_shaped, Shapes};
/// let sample = sample_shaped(3, 3, 3, 200, 42, Shapes::default());
/// assert_eq!(sample, sample_shaped(3, 3, 3, 200, 42, Shapes::default()));
/// assert!(sample.iter().any(|m| m.dimensions() == (3, 3)));
/// assert!(sample.iter().any(|m| m.dimensions() == (2, 1)));
/// assert!(sample.iter().all(|m| m.dimensions().0 >= 2));
/// ```
pub fn sample_shaped(
    invocations: usize,
    threads: usize,
    ops: usize,
    samples: usize,
    seed: u64,
    shapes: Shapes,
) -> Vec<TestMatrix> {
    sample_shaped_grouped(&OperationGroups::none(invocations), threads, ops, samples, seed, shapes)
}

/// [`sample_shaped`] over the invocations of `groups`, every matrix keeping its
/// [operation groups](crate::Invocation::group): each matrix's shape is drawn first, then the
/// matrix as [`sample_matrices_grouped`] draws one. With no group this is [`sample_shaped`],
/// draw for draw.
///
/// ```
/// use lineup_core::{sample_shaped, sample_shaped_grouped, OperationGroups, Shapes};
/// let groups = OperationGroups::new([None, Some("consumer"), Some("consumer")]);
/// let sample = sample_shaped_grouped(&groups, 3, 3, 200, 42, Shapes::default());
/// assert!(sample.iter().all(|m| groups.check(m).is_ok()));
/// let free = OperationGroups::none(3);
/// assert_eq!(sample_shaped_grouped(&free, 3, 3, 200, 42, Shapes::default()), sample_shaped(3, 3, 3, 200, 42, Shapes::default()));
/// ```
pub fn sample_shaped_grouped(
    groups: &OperationGroups,
    threads: usize,
    ops: usize,
    samples: usize,
    seed: u64,
    shapes: Shapes,
) -> Vec<TestMatrix> {
    let Shapes::UpTo { full_percent } = shapes else {
        return sample_matrices_grouped(groups, threads, ops, samples, seed);
    };
    assert!(groups.invocations() > 0, "an empty invocation set has no matrices");
    let smaller: Vec<(usize, usize)> = (2..=threads)
        .flat_map(|n| (1..=ops).map(move |m| (n, m)))
        .filter(|&shape| shape != (threads, ops))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..samples)
        .map(|_| {
            let full = smaller.is_empty() || rng.random_range(0..100u8) < full_percent;
            let (n, m) = if full {
                (threads, ops)
            } else {
                smaller[rng.random_range(0..smaller.len())]
            };
            draw_matrix(&mut rng, groups, n, m)
        })
        .collect()
}

/// How many matrices of each shape a run checked, largest shape first when printed
/// (`3x3 ×51, 3x2 ×9, ...`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShapeCounts(pub BTreeMap<(usize, usize), usize>);

impl ShapeCounts {
    /// Counts one matrix.
    pub fn add(&mut self, matrix: &TestMatrix) {
        *self.0.entry(matrix.dimensions()).or_default() += 1;
    }
}

impl fmt::Display for ShapeCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .0
            .iter()
            .rev()
            .map(|(&(n, m), count)| format!("{n}x{m} \u{d7}{count}"))
            .collect();
        write!(f, "{}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::sampling::sample_matrices;

    #[test]
    fn the_mix_draws_every_smaller_shape_and_about_the_share_of_full_ones() {
        let sample = sample_shaped(3, 3, 3, 1000, 5, Shapes::UpTo { full_percent: 50 });
        let mut counts = ShapeCounts::default();
        sample.iter().for_each(|m| counts.add(m));
        let full = counts.0[&(3, 3)];
        assert!((430..570).contains(&full), "{counts}");
        for shape in [(2, 1), (2, 2), (2, 3), (3, 1), (3, 2)] {
            assert!(counts.0[&shape] > 50, "{shape:?} in {counts}");
        }
        assert_eq!(counts.0.len(), 6, "{counts}");
    }

    /// The shaped sample as it was drawn before operation groups (kept here to prove that a
    /// group-free sample is unchanged).
    fn ungrouped_shaped(invocations: usize, threads: usize, ops: usize, samples: usize, seed: u64) -> Vec<TestMatrix> {
        let smaller: Vec<(usize, usize)> = (2..=threads)
            .flat_map(|n| (1..=ops).map(move |m| (n, m)))
            .filter(|&shape| shape != (threads, ops))
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..samples)
            .map(|_| {
                let full = smaller.is_empty() || rng.random_range(0..100u8) < 50;
                let (n, m) = if full {
                    (threads, ops)
                } else {
                    smaller[rng.random_range(0..smaller.len())]
                };
                TestMatrix::new(
                    (0..n)
                        .map(|_| (0..m).map(|_| rng.random_range(0..invocations)).collect())
                        .collect(),
                )
            })
            .collect()
    }

    #[test]
    fn a_shaped_sample_without_groups_is_the_one_drawn_before_groups() {
        let mix = Shapes::UpTo { full_percent: 50 };
        for seed in 0..300 {
            for (invocations, threads, ops) in [(3, 3, 3), (4, 2, 1), (2, 4, 2)] {
                let old = ungrouped_shaped(invocations, threads, ops, 9, seed);
                assert_eq!(sample_shaped(invocations, threads, ops, 9, seed, mix), old);
                let free = OperationGroups::none(invocations);
                assert_eq!(sample_shaped_grouped(&free, threads, ops, 9, seed, mix), old);
            }
        }
    }

    #[test]
    fn exact_is_the_paper_s_sample() {
        assert_eq!(
            sample_shaped(4, 3, 3, 20, 9, Shapes::Exact),
            sample_matrices(4, 3, 3, 20, 9)
        );
        // A 2x1 configuration has no smaller shape with two threads.
        assert!(sample_shaped(4, 2, 1, 20, 9, Shapes::default())
            .iter()
            .all(|m| m.dimensions() == (2, 1)));
    }
}

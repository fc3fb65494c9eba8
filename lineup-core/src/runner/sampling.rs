//! Which matrices to check: RandomCheck's uniform sample (paper §4.3, Fig. 8) and AutoCheck's
//! enumeration of growing square matrices (Fig. 6).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::model::matrix::TestMatrix;

/// `samples` matrices drawn uniformly from `M^I_{threads x ops}`: every entry independently and
/// uniformly from the `invocations` invocations. The same seed gives the same matrices on every
/// platform (ChaCha8).
///
/// ```
/// let a = lineup_core::sample_matrices(3, 2, 2, 5, 42);
/// assert_eq!(a, lineup_core::sample_matrices(3, 2, 2, 5, 42));
/// assert!(a.iter().all(|m| m.dimensions() == (2, 2) && m.max_invocation() < Some(3)));
/// ```
pub fn sample_matrices(invocations: usize, threads: usize, ops: usize, samples: usize, seed: u64) -> Vec<TestMatrix> {
    assert!(invocations > 0, "an empty invocation set has no matrices");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..samples)
        .map(|_| {
            TestMatrix::new(
                (0..threads)
                    .map(|_| (0..ops).map(|_| rng.random_range(0..invocations)).collect())
                    .collect(),
            )
        })
        .collect()
}

/// AutoCheck's order (Fig. 6): for `n = 1, 2, ...` every `n x n` matrix over the first `n`
/// invocations (all of them once `n` exceeds the set), in lexicographic order. Endless.
pub fn auto_matrices(invocations: usize) -> impl Iterator<Item = TestMatrix> {
    assert!(invocations > 0, "an empty invocation set has no matrices");
    (1usize..).flat_map(move |n| {
        let choices = n.min(invocations);
        let cells = n * n;
        let count = (choices as u128).checked_pow(cells as u32).unwrap_or(u128::MAX);
        (0..count).map(move |mut index| {
            let mut entries = vec![0; cells];
            for entry in entries.iter_mut().rev() {
                *entry = (index % choices as u128) as usize;
                index /= choices as u128;
            }
            TestMatrix::new(entries.chunks(n).map(<[usize]>::to_vec).collect())
        })
    })
}

/// The indices `0..total` that shard `shard` of `shards` checks: every index in exactly one
/// shard (round robin, so that shards get alike mixes).
pub fn shard_indices(total: usize, shard: usize, shards: usize) -> impl Iterator<Item = usize> {
    (shard..total).step_by(shards.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_uniform_enough_and_reproducible() {
        let sample = sample_matrices(4, 3, 3, 400, 7);
        let mut counts = [0usize; 4];
        sample
            .iter()
            .flat_map(|m| m.threads.iter().flatten())
            .for_each(|&i| counts[i] += 1);
        // 3600 entries, 900 expected each.
        assert!(counts.iter().all(|&c| (800..1000).contains(&c)), "{counts:?}");
        assert_ne!(sample, sample_matrices(4, 3, 3, 400, 8));
    }

    #[test]
    fn auto_matrices_grow() {
        let first: Vec<TestMatrix> = auto_matrices(3).take(1 + 16).collect();
        assert_eq!(first[0], TestMatrix::new(vec![vec![0]]));
        assert_eq!(first[1], TestMatrix::new(vec![vec![0, 0], vec![0, 0]]));
        assert_eq!(first[16], TestMatrix::new(vec![vec![1, 1], vec![1, 1]]));
    }

    #[test]
    fn shards_partition_the_indices() {
        let mut all: Vec<usize> = (0..3).flat_map(|s| shard_indices(10, s, 3)).collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
    }
}

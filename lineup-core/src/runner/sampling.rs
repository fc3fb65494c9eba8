//! Which matrices to check: RandomCheck's uniform sample (paper §4.3, Fig. 8) and AutoCheck's
//! enumeration of growing square matrices (Fig. 6).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::model::groups::OperationGroups;
use crate::model::matrix::TestMatrix;

/// `samples` matrices drawn uniformly from `M^I_{threads x ops}`: every entry independently and
/// uniformly from the `invocations` invocations. The same seed gives the same matrices on every
/// platform (ChaCha8). [`sample_matrices_grouped`] with no group draws the same matrices.
///
/// ```
/// let a = lineup_core::sample_matrices(3, 2, 2, 5, 42);
/// assert_eq!(a, lineup_core::sample_matrices(3, 2, 2, 5, 42));
/// assert!(a.iter().all(|m| m.dimensions() == (2, 2) && m.max_invocation() < Some(3)));
/// ```
pub fn sample_matrices(invocations: usize, threads: usize, ops: usize, samples: usize, seed: u64) -> Vec<TestMatrix> {
    sample_matrices_grouped(&OperationGroups::none(invocations), threads, ops, samples, seed)
}

/// `samples` matrices of `threads x ops` over the invocations of `groups` that keep its
/// [operation groups](crate::Invocation::group), drawn in one pass with no rejection: for each
/// matrix, each group's column first (uniformly, independently: two groups may share a column),
/// then every entry uniformly from the invocations its column may hold (those in no group and
/// those of the groups that sit there). Where every invocation is in a group,
/// a column that holds no group stays empty and is left out, so such a matrix has fewer threads.
/// With no group this is [`sample_matrices`], draw for draw.
///
/// ```
/// use lineup_core::{sample_matrices, sample_matrices_grouped, OperationGroups};
/// let groups = OperationGroups::new([None, None, Some("consumer")]);
/// let sample = sample_matrices_grouped(&groups, 3, 3, 50, 42);
/// assert!(sample.iter().all(|m| groups.check(m).is_ok() && m.dimensions() == (3, 3)));
/// assert_eq!(sample_matrices_grouped(&OperationGroups::none(3), 3, 3, 50, 42), sample_matrices(3, 3, 3, 50, 42));
/// ```
pub fn sample_matrices_grouped(
    groups: &OperationGroups,
    threads: usize,
    ops: usize,
    samples: usize,
    seed: u64,
) -> Vec<TestMatrix> {
    assert!(groups.invocations() > 0, "an empty invocation set has no matrices");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..samples)
        .map(|_| draw_matrix(&mut rng, groups, threads, ops))
        .collect()
}

/// One matrix of `threads x ops` that keeps `groups`: each group's column drawn first (see
/// [`group_columns`]), then every entry, column by column, uniformly from what its column may
/// hold. With no group, the entries are drawn exactly as the paper's uniform sample draws them
/// (one draw over all the invocations per entry, in column order), so that a group-free sample is
/// unchanged.
pub(crate) fn draw_matrix(rng: &mut ChaCha8Rng, groups: &OperationGroups, threads: usize, ops: usize) -> TestMatrix {
    let columns = group_columns(rng, groups, threads);
    TestMatrix::new(
        (0..threads)
            .filter_map(|t| {
                // Empty only where every invocation is in a group and none sits in column `t`.
                let allowed = groups.allowed_in(t, &columns);
                (!allowed.is_empty()).then(|| (0..ops).map(|_| allowed[rng.random_range(0..allowed.len())]).collect())
            })
            .collect(),
    )
}

/// The column of each group: drawn uniformly and independently (two groups may share a column),
/// except where every invocation is in a group. There a column that holds no group would stay
/// empty, and groups sharing a column while another holds none leave the matrix fewer threads
/// than it could have (an SPSC ring's `push` and `pop` on one thread and nothing else: no
/// concurrency at all), so every column gets a group: the groups, in a random order, take
/// distinct random columns while there are columns left, and the rest share them uniformly.
fn group_columns(rng: &mut ChaCha8Rng, groups: &OperationGroups, threads: usize) -> Vec<usize> {
    let count = groups.names().len();
    if threads == 0 || count == 0 {
        return Vec::new();
    }
    let every_invocation_grouped = (0..groups.invocations()).all(|i| groups.group_of(i).is_some());
    if !every_invocation_grouped {
        return (0..count).map(|_| rng.random_range(0..threads)).collect();
    }
    // A random order of the groups, and a random order of the columns (partial Fisher-Yates).
    let mut group_order: Vec<usize> = (0..count).collect();
    let mut column_order: Vec<usize> = (0..threads).collect();
    let mut columns = vec![0; count];
    for i in 0..count {
        group_order.swap(i, rng.random_range(i..count));
        columns[group_order[i]] = if i < threads {
            column_order.swap(i, rng.random_range(i..threads));
            column_order[i]
        } else {
            rng.random_range(0..threads)
        };
    }
    columns
}

/// AutoCheck's order (Fig. 6): for `n = 1, 2, ...` every `n x n` matrix over the first `n`
/// invocations (all of them once `n` exceeds the set), in lexicographic order. Endless.
/// [`auto_matrices_grouped`] with no group enumerates the same matrices.
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

/// AutoCheck's order ([`auto_matrices`]) with the matrices that break an
/// [operation group](crate::Invocation::group) left out, and nothing else changed: the same
/// lexicographic enumeration, in which a prefix of entries that already breaks a group is
/// stepped over whole (every matrix that starts with it breaks the group too), so that finding
/// the next matrix never scans the ones left out. A size with no matrix that keeps the groups
/// is skipped; when every invocation is in a group, the sizes end at the number of groups (a
/// larger square matrix would need a column without a group), and so does the enumeration.
///
/// ```
/// use lineup_core::{auto_matrices, auto_matrices_grouped, OperationGroups, TestMatrix};
/// let groups = OperationGroups::new([None, Some("consumer")]);
/// let kept: Vec<TestMatrix> = auto_matrices(2).take(17).filter(|m| groups.check(m).is_ok()).collect();
/// assert_eq!(auto_matrices_grouped(&groups).take(kept.len()).collect::<Vec<_>>(), kept);
/// // Only one invocation, in a group: the 1x1 matrix is the only one.
/// assert_eq!(auto_matrices_grouped(&OperationGroups::new([Some("g")])).count(), 1);
/// ```
pub fn auto_matrices_grouped(groups: &OperationGroups) -> impl Iterator<Item = TestMatrix> {
    assert!(groups.invocations() > 0, "an empty invocation set has no matrices");
    let groups = groups.clone();
    let free = (0..groups.invocations()).any(|i| groups.group_of(i).is_none());
    let largest = if free { usize::MAX } else { groups.names().len() };
    (1usize..=largest).flat_map(move |n| KeptSquares::new(groups.clone(), n))
}

/// The `n x n` matrices over the first `n` invocations that keep the groups, in lexicographic
/// order of their entries (column by column, the last entry fastest).
struct KeptSquares {
    groups: OperationGroups,
    n: usize,
    choices: usize,
    /// The entries of the last matrix given (`None`: none given yet, or the size is done).
    entries: Option<Vec<usize>>,
    done: bool,
}

impl KeptSquares {
    fn new(groups: OperationGroups, n: usize) -> Self {
        let choices = n.min(groups.invocations());
        // A matrix exists iff its columns can each hold something: an invocation in no group
        // among the choices, or a group of their own for each of the n columns.
        let free = (0..choices).any(|i| groups.group_of(i).is_none());
        let mut own: Vec<usize> = (0..choices).filter_map(|i| groups.group_of(i)).collect();
        own.sort_unstable();
        own.dedup();
        let done = !free && own.len() < n;
        Self {
            groups,
            n,
            choices,
            entries: None,
            done,
        }
    }

    /// The first position whose entry breaks a group, given the entries before it.
    fn first_break(&self, entries: &[usize]) -> Option<usize> {
        let mut column_of: Vec<Option<usize>> = vec![None; self.groups.names().len()];
        entries.iter().enumerate().position(|(position, &invocation)| {
            let Some(group) = self.groups.group_of(invocation) else {
                return false;
            };
            let column = position / self.n;
            *column_of[group].get_or_insert(column) != column
        })
    }

    /// Steps over every matrix that shares `entries[..=position]`: the next prefix of that
    /// length in lexicographic order, the entries after it reset. `false` at the end.
    fn step_over(&self, entries: &mut [usize], position: usize) -> bool {
        entries[position + 1..].iter_mut().for_each(|e| *e = 0);
        for e in entries[..=position].iter_mut().rev() {
            *e += 1;
            if *e < self.choices {
                return true;
            }
            *e = 0;
        }
        false
    }
}

impl Iterator for KeptSquares {
    type Item = TestMatrix;

    fn next(&mut self) -> Option<TestMatrix> {
        if self.done {
            return None;
        }
        let cells = self.n * self.n;
        let mut entries = match self.entries.take() {
            None => vec![0; cells],
            Some(mut last) => {
                if !self.step_over(&mut last, cells - 1) {
                    self.done = true;
                    return None;
                }
                last
            }
        };
        while let Some(position) = self.first_break(&entries) {
            if !self.step_over(&mut entries, position) {
                self.done = true;
                return None;
            }
        }
        let matrix = TestMatrix::new(entries.chunks(self.n).map(<[usize]>::to_vec).collect());
        self.entries = Some(entries);
        Some(matrix)
    }
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

    /// The sample as it was drawn before operation groups: every entry one draw over all the
    /// invocations (kept here to prove that a group-free sample is unchanged).
    fn ungrouped_sample(invocations: usize, threads: usize, ops: usize, samples: usize, seed: u64) -> Vec<TestMatrix> {
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

    #[test]
    fn a_sample_without_groups_is_the_one_drawn_before_groups() {
        for seed in 0..300 {
            for (invocations, threads, ops) in [(3, 3, 3), (1, 2, 2), (5, 4, 2), (2, 2, 4)] {
                let old = ungrouped_sample(invocations, threads, ops, 7, seed);
                assert_eq!(sample_matrices(invocations, threads, ops, 7, seed), old);
                let free = OperationGroups::none(invocations);
                assert_eq!(sample_matrices_grouped(&free, threads, ops, 7, seed), old);
            }
        }
    }

    #[test]
    fn autocheck_without_groups_is_unchanged_and_with_groups_is_the_filtered_enumeration() {
        let n = 1 + 16 + 19683 + 5000;
        let all: Vec<TestMatrix> = auto_matrices(3).take(n).collect();
        assert_eq!(
            auto_matrices_grouped(&OperationGroups::none(3))
                .take(n)
                .collect::<Vec<_>>(),
            all
        );
        for groups in [
            OperationGroups::new([None, None, Some("c")]),
            OperationGroups::new([Some("c"), None, Some("c")]),
            OperationGroups::new([Some("a"), Some("b"), Some("c")]),
            OperationGroups::new([None, Some("a"), Some("b")]),
        ] {
            let kept: Vec<TestMatrix> = all.iter().filter(|m| groups.respects(m)).cloned().collect();
            let grouped: Vec<TestMatrix> = auto_matrices_grouped(&groups).take(kept.len()).collect();
            assert_eq!(grouped, kept, "{groups:?}");
        }
    }

    #[test]
    fn autocheck_ends_where_no_larger_matrix_can_keep_the_groups() {
        // Two groups and nothing else: 1x1 and 2x2 matrices only (a 3x3 needs a third column).
        let groups = OperationGroups::new([Some("a"), Some("b")]);
        let all: Vec<TestMatrix> = auto_matrices_grouped(&groups).collect();
        assert!(all.iter().all(|m| groups.respects(m) && m.threads.len() <= 2));
        // 1x1: [a]; 2x2 over {a, b}: a column of a's and one of b's, in either order.
        assert_eq!(all.len(), 3, "{all:?}");
        // A first invocation in a group still leaves 3x3 matrices with the free ones.
        let groups = OperationGroups::new([Some("a"), Some("a"), None]);
        let three = auto_matrices_grouped(&groups).find(|m| m.threads.len() == 3).unwrap();
        assert_eq!(
            three,
            TestMatrix::new(vec![vec![0, 0, 0], vec![2, 2, 2], vec![2, 2, 2]])
        );
    }

    #[test]
    fn shards_partition_the_indices() {
        let mut all: Vec<usize> = (0..3).flat_map(|s| shard_indices(10, s, 3)).collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
    }
}

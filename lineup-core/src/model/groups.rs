//! Operation groups: invocations pinned to one thread of a matrix ([`Invocation::group`]), and
//! the rule every generated matrix keeps.

use std::fmt;

use crate::model::invocation::{Invocation, InvocationLabel};
use crate::model::matrix::TestMatrix;
use crate::model::thread_id::ThreadId;

/// The operation groups of an invocation set: for each invocation, the group it belongs to, if
/// any ([`Invocation::group`]). A matrix *keeps* the groups when, for every group, all the
/// group's invocations in its worker columns lie in one column (that column may run other
/// invocations too, and two groups may share one). The initial and final operations run on the
/// main thread, never at the same time as a worker, so they are outside the rule.
///
/// ```
/// use lineup_core::{OperationGroups, TestMatrix};
/// // Invocation 2 is in group "consumer"; 0 and 1 in none.
/// let groups = OperationGroups::new([None, None, Some("consumer")]);
/// assert!(groups.check(&TestMatrix::new(vec![vec![0, 2], vec![1], vec![0, 2]])).is_err());
/// assert!(groups.check(&TestMatrix::new(vec![vec![0, 2], vec![1, 0], vec![2]])).is_err());
/// assert!(groups.check(&TestMatrix::new(vec![vec![0, 1], vec![2, 2], vec![1]])).is_ok());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OperationGroups {
    /// The distinct group names, in the order of their first invocation.
    names: Vec<String>,
    /// For each invocation, its group's index in `names`.
    of: Vec<Option<usize>>,
}

impl OperationGroups {
    /// `invocations` invocations, none of them in a group.
    pub fn none(invocations: usize) -> Self {
        Self {
            names: Vec::new(),
            of: vec![None; invocations],
        }
    }

    /// The groups from each invocation's group name, in invocation order (`None`: no group).
    ///
    /// # Panics
    ///
    /// If a name is empty.
    pub fn new<S: AsRef<str>>(groups: impl IntoIterator<Item = Option<S>>) -> Self {
        let mut names: Vec<String> = Vec::new();
        let of = groups
            .into_iter()
            .map(|group| {
                let name = group?;
                let name = name.as_ref();
                assert!(!name.is_empty(), "an operation group's name cannot be empty");
                Some(names.iter().position(|n| n == name).unwrap_or_else(|| {
                    names.push(name.to_string());
                    names.len() - 1
                }))
            })
            .collect();
        Self { names, of }
    }

    /// The groups of `invocations` ([`Invocation::group_name`]).
    pub fn of<O>(invocations: &[Invocation<O>]) -> Self {
        Self::new(invocations.iter().map(Invocation::group_name))
    }

    /// How many invocations the set has.
    pub fn invocations(&self) -> usize {
        self.of.len()
    }

    /// The distinct group names, in the order of their first invocation.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether any invocation is in a group.
    pub fn any(&self) -> bool {
        !self.names.is_empty()
    }

    /// The index (in [`names`](Self::names)) of `invocation`'s group, if it has one.
    pub fn group_of(&self, invocation: usize) -> Option<usize> {
        self.of.get(invocation).copied().flatten()
    }

    /// The invocations that column `column` may hold when group `g` sits in column
    /// `columns[g]`: those in no group, and those of the groups that sit there, in order.
    pub fn allowed_in(&self, column: usize, columns: &[usize]) -> Vec<usize> {
        (0..self.of.len())
            .filter(|&i| self.of[i].is_none_or(|g| columns.get(g) == Some(&column)))
            .collect()
    }

    /// Whether `matrix` keeps the groups.
    pub fn respects(&self, matrix: &TestMatrix) -> bool {
        self.check(matrix).is_ok()
    }

    /// `Ok` if `matrix` keeps the groups, else the first group it breaks (in the order of the
    /// matrix's columns), with two of its invocations on two threads.
    pub fn check(&self, matrix: &TestMatrix) -> Result<(), GroupViolation> {
        if !self.any() {
            return Ok(());
        }
        let mut seen: Vec<Option<(usize, usize)>> = vec![None; self.names.len()];
        for (column, ops) in matrix.threads.iter().enumerate() {
            for &invocation in ops {
                let Some(group) = self.group_of(invocation) else {
                    continue;
                };
                match seen[group] {
                    None => seen[group] = Some((invocation, column)),
                    Some((first, first_column)) if first_column != column => {
                        return Err(GroupViolation {
                            group: self.names[group].clone(),
                            invocations: [first, invocation],
                            threads: [ThreadId::Worker(first_column), ThreadId::Worker(column)],
                        })
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }
}

/// A matrix that puts a group's invocations on two threads ([`OperationGroups::check`]).
///
/// ```
/// use lineup_core::{InvocationLabel, OperationGroups, TestMatrix};
/// let groups = OperationGroups::new([None, Some("consumer")]);
/// let broken = groups.check(&TestMatrix::new(vec![vec![1], vec![0, 1]])).unwrap_err();
/// let labels = [InvocationLabel::new("push", vec!["1".into()]), InvocationLabel::new("pop", vec![])];
/// assert_eq!(
///     broken.describe(&labels),
///     "the matrix breaks operation group `consumer`: `pop()` on thread A and `pop()` on thread B; \
///      a group's invocations must all be on one thread"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupViolation {
    /// The group's name.
    pub group: String,
    /// Two of its invocations (indices into the invocation set) on two threads.
    pub invocations: [usize; 2],
    /// Their threads, in the same order.
    pub threads: [ThreadId; 2],
}

impl GroupViolation {
    /// What is wrong, with the invocations named by `labels`.
    pub fn describe(&self, labels: &[InvocationLabel]) -> String {
        let label = |i: usize| labels.get(i).map_or_else(|| format!("#{i}"), ToString::to_string);
        format!(
            "the matrix breaks operation group `{}`: `{}` on thread {} and `{}` on thread {}; a group's invocations \
             must all be on one thread",
            self.group,
            label(self.invocations[0]),
            self.threads[0],
            label(self.invocations[1]),
            self.threads[1]
        )
    }
}

impl fmt::Display for GroupViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(&[]))
    }
}

impl std::error::Error for GroupViolation {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_shared_and_kept_in_order() {
        let groups = OperationGroups::new([Some("b"), None, Some("a"), Some("b")]);
        assert_eq!(groups.names(), ["b", "a"]);
        assert_eq!(
            (0..4).map(|i| groups.group_of(i)).collect::<Vec<_>>(),
            [Some(0), None, Some(1), Some(0)]
        );
        assert_eq!(groups.group_of(9), None);
        assert!(!OperationGroups::none(3).any());
    }

    #[test]
    fn the_first_broken_group_is_named_with_both_threads() {
        let groups = OperationGroups::new([Some("g"), Some("h"), None, Some("g")]);
        let m = TestMatrix::new(vec![vec![2, 0], vec![1], vec![3, 1]]).with_initial(vec![0, 3]);
        let broken = groups.check(&m).unwrap_err();
        assert_eq!(broken.group, "g");
        assert_eq!(broken.invocations, [0, 3]);
        assert_eq!(broken.threads, [ThreadId::Worker(0), ThreadId::Worker(2)]);
        // The main thread's operations are outside the rule; two groups may share a column.
        let kept = TestMatrix::new(vec![vec![0, 1, 3], vec![2]])
            .with_initial(vec![0])
            .with_final(vec![1]);
        assert!(groups.respects(&kept));
    }

    #[test]
    fn a_column_allows_free_invocations_and_its_own_groups() {
        let groups = OperationGroups::new([Some("g"), None, Some("h"), Some("g")]);
        assert_eq!(groups.allowed_in(0, &[0, 1]), [0, 1, 3]);
        assert_eq!(groups.allowed_in(1, &[0, 1]), [1, 2]);
        assert_eq!(groups.allowed_in(2, &[0, 1]), [1]);
        assert_eq!(OperationGroups::none(3).allowed_in(1, &[]), [0, 1, 2]);
    }
}

//! The subject of a check: how to build the object, and its invocation set `I`.

use std::fmt;
use std::sync::Arc;

use crate::model::groups::OperationGroups;
use crate::model::invocation::Invocation;
use crate::model::invocation::InvocationLabel;
use crate::model::matrix::TestMatrix;

type Factory<O> = dyn Fn() -> O + Send + Sync;

/// The object under test: a name, a function that builds a fresh object for every execution,
/// and the invocations to try (Line-Up's set `I`). The object must be built from primitives the
/// model checker controls: `lineup::sync`, `lineup::thread`, `lineup::hint`, `lineup::future`.
///
/// ```
/// use lineup_core::{Invocation, Subject};
/// use lineup_core::sync::atomic::{AtomicU64, Ordering};
///
/// let subject = Subject::new("atomic counter", || AtomicU64::new(0))
///     .with(Invocation::new("inc", |c: &AtomicU64| { c.fetch_add(1, Ordering::SeqCst); }))
///     .with(Invocation::new("get", |c: &AtomicU64| c.load(Ordering::SeqCst)));
/// assert_eq!(subject.invocations().len(), 2);
/// ```
pub struct Subject<O> {
    name: String,
    factory: Arc<Factory<O>>,
    invocations: Vec<Invocation<O>>,
}

impl<O> Clone for Subject<O> {
    fn clone(&self) -> Self {
        Self {
            name: self.name.clone(),
            factory: Arc::clone(&self.factory),
            invocations: self.invocations.clone(),
        }
    }
}

impl<O> fmt::Debug for Subject<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subject")
            .field("name", &self.name)
            .field("invocations", &self.invocations)
            .finish()
    }
}

impl<O> Subject<O> {
    /// A subject with no invocations yet; `factory` builds a fresh object for each execution.
    pub fn new(name: impl Into<String>, factory: impl Fn() -> O + Send + Sync + 'static) -> Self {
        Self {
            name: name.into(),
            factory: Arc::new(factory),
            invocations: Vec::new(),
        }
    }

    /// Adds an invocation; matrices refer to invocations by their position in this list.
    pub fn with(mut self, invocation: Invocation<O>) -> Self {
        self.invocations.push(invocation);
        self
    }

    /// The subject's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The invocation set, in order.
    pub fn invocations(&self) -> &[Invocation<O>] {
        &self.invocations
    }

    /// The labels of the invocations, in order.
    pub fn labels(&self) -> Vec<InvocationLabel> {
        self.invocations.iter().map(|i| i.label().clone()).collect()
    }

    /// The operation groups of the invocations ([`Invocation::group`]): what every matrix
    /// lineup generates for this subject keeps.
    pub fn groups(&self) -> OperationGroups {
        OperationGroups::of(&self.invocations)
    }

    /// Builds a fresh object.
    pub fn build(&self) -> O {
        (self.factory)()
    }

    /// For each operation of `matrix` (indexed by `op - 1`), whether its invocation is
    /// [`nondeterministic`](Invocation::nondeterministic): the determinism check tolerates its
    /// different results.
    pub(crate) fn tolerated_ops(&self, matrix: &TestMatrix) -> Vec<bool> {
        let mut tolerated = vec![false; matrix.op_count()];
        for slot in matrix.slots() {
            tolerated[slot.id - 1] = self
                .invocations
                .get(slot.invocation)
                .is_some_and(|i| i.is_nondeterministic());
        }
        tolerated
    }

    /// Checks that every entry of `matrix` names an invocation of this subject.
    pub fn validate(&self, matrix: &TestMatrix) -> Result<(), crate::error::CheckError> {
        match matrix.max_invocation() {
            Some(i) if i >= self.invocations.len() => Err(crate::error::CheckError::UnknownInvocation {
                index: i,
                subject: self.name.clone(),
                count: self.invocations.len(),
            }),
            _ => Ok(()),
        }
    }
}

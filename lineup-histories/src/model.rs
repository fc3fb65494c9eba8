//! Executable sequential specifications ("models") and their P-compositional partitioning.

use std::fmt::Debug;
use std::hash::Hash;

/// The next states of one step of a model: none (the step is rejected), one (the common,
/// allocation-free case), or several (a nondeterministic model).
///
/// ```
/// use lineup_histories::Successors;
///
/// let one: Successors<u8> = Successors::one(3);
/// assert_eq!(one.into_iter().collect::<Vec<_>>(), vec![3]);
/// assert!(Successors::<u8>::rejected().is_rejected());
/// let accepted_if: Successors<u8> = Successors::from(Some(4).filter(|_| false));
/// assert!(accepted_if.is_rejected());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Successors<S> {
    /// The step is rejected: the output is impossible from this state.
    Rejected,
    /// Exactly one next state.
    One(S),
    /// Several possible next states (nondeterministic model). May hold duplicates or be empty;
    /// the checkers deduplicate.
    Many(Vec<S>),
}

impl<S> Successors<S> {
    /// The step is rejected.
    pub fn rejected() -> Self {
        Successors::Rejected
    }

    /// Exactly one next state.
    pub fn one(state: S) -> Self {
        Successors::One(state)
    }

    /// Several possible next states (an empty vector means rejected).
    pub fn many(states: Vec<S>) -> Self {
        match states.len() {
            0 => Successors::Rejected,
            _ => Successors::Many(states),
        }
    }

    /// `One(state)` if `accepted`, else rejected.
    pub fn accept_if(accepted: bool, state: impl FnOnce() -> S) -> Self {
        if accepted {
            Successors::One(state())
        } else {
            Successors::Rejected
        }
    }

    /// Whether there is no next state.
    pub fn is_rejected(&self) -> bool {
        match self {
            Successors::Rejected => true,
            Successors::One(_) => false,
            Successors::Many(states) => states.is_empty(),
        }
    }
}

impl<S> From<Option<S>> for Successors<S> {
    fn from(state: Option<S>) -> Self {
        match state {
            Some(state) => Successors::One(state),
            None => Successors::Rejected,
        }
    }
}

/// Iterator over [`Successors`].
#[derive(Debug)]
pub enum SuccessorsIter<S> {
    /// At most one state left.
    One(Option<S>),
    /// Several.
    Many(std::vec::IntoIter<S>),
}

impl<S> Iterator for SuccessorsIter<S> {
    type Item = S;

    fn next(&mut self) -> Option<S> {
        match self {
            SuccessorsIter::One(state) => state.take(),
            SuccessorsIter::Many(states) => states.next(),
        }
    }
}

impl<S> IntoIterator for Successors<S> {
    type Item = S;
    type IntoIter = SuccessorsIter<S>;

    fn into_iter(self) -> SuccessorsIter<S> {
        match self {
            Successors::Rejected => SuccessorsIter::One(None),
            Successors::One(state) => SuccessorsIter::One(Some(state)),
            Successors::Many(states) => SuccessorsIter::Many(states.into_iter()),
        }
    }
}

/// An executable sequential specification: the states of an object and how each operation
/// moves between them.
///
/// The checkers call [`Model::step`] for an operation that returned (its output must be one the
/// specification allows) and [`Model::step_unknown`] for an operation whose outcome is unknown.
/// States are compared and hashed to prune the search, so two states must be equal exactly when
/// no future operation can tell them apart (normalize, e.g. a map that treats a missing key as
/// `""` should not store `""`).
///
/// A model is shared across worker threads by reference (`Sync`).
///
/// ```
/// use lineup_histories::{Model, Successors};
///
/// /// A flag that can be set once: `set` returns whether it was clear.
/// struct Flag;
/// impl Model for Flag {
///     type State = bool;
///     type Input = ();
///     type Output = bool;
///     fn init(&self) -> bool { false }
///     fn step(&self, set: &bool, _: &(), was_clear: &bool) -> Successors<bool> {
///         Successors::accept_if(*was_clear == !*set, || true)
///     }
///     fn step_unknown(&self, _: &bool, _: &()) -> Successors<bool> { Successors::one(true) }
/// }
/// ```
pub trait Model: Send + Sync {
    /// A state of the sequential object.
    type State: Clone + Eq + Hash + Debug + Send + Sync;
    /// The input of an operation (which method, with which arguments).
    type Input: Clone + Debug + Send + Sync;
    /// The output of an operation (its return value).
    type Output: Clone + Debug + Eq + Send + Sync;

    /// The initial state.
    fn init(&self) -> Self::State;

    /// The states after applying `input` to `state` with the observed `output`; empty when the
    /// specification does not allow that output from that state.
    fn step(&self, state: &Self::State, input: &Self::Input, output: &Self::Output) -> Successors<Self::State>;

    /// The states after applying `input` to `state` when the output is unknown: the union, over
    /// every output the specification allows, of [`Model::step`]. (Whether the operation took
    /// effect at all is decided by the checker: it may also never apply it.)
    fn step_unknown(&self, state: &Self::State, input: &Self::Input) -> Successors<Self::State>;

    /// About how many heap bytes `state` owns beyond its inline size
    /// (`size_of::<Self::State>()`, always counted), for the checkers' memory budget
    /// ([`crate::MemoryLimit`]). The default, 0, is right for states without heap data
    /// (integers, booleans, enums of them); a model whose states own strings, vectors or maps
    /// should count them, or the budget undercounts what the search holds.
    fn state_heap_size(&self, state: &Self::State) -> usize {
        let _ = state;
        0
    }
}

/// A model that is *P-compositional* by a key (Horn & Kroening, FORTE 2015): a history is
/// linearizable with respect to it **if and only if**, for every key, the sub-history of the
/// operations with that key is linearizable with respect to [`PartitionedModel::part_model`] of
/// that key.
///
/// # Contract
///
/// Implement this trait only when that equivalence holds: every operation touches exactly one
/// key, and operations on different keys never affect each other's outputs (a set or a map by
/// key: yes; a map with a `size` operation, a queue, a counter: no). An operation that spans
/// keys, or touches none, must return `None` from [`PartitionedModel::partition_key`]: the
/// partitioned check ([`crate::check_partitioned`]) then refuses the history with
/// [`crate::PartitionError::MissingKey`] instead of checking it piecewise. Models that are not
/// P-compositional simply do not implement this trait, and are checked whole by
/// [`crate::check`].
pub trait PartitionedModel: Model {
    /// The partition key.
    type Key: Clone + Ord + Hash + Debug + Send + Sync;
    /// The model of one key (its state is the state of that key only).
    type Part: Model<Input = Self::Input, Output = Self::Output>;

    /// The key of an operation; `None` if it has no single key (then partitioning is refused).
    fn partition_key(&self, input: &Self::Input) -> Option<Self::Key>;

    /// The model for the sub-history of `key`.
    fn part_model(&self, key: &Self::Key) -> Self::Part;
}

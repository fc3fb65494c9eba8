//! A set with insert, remove and contains; P-compositional by element.

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::hash::Hash;

use crate::model::{Model, PartitionedModel, Successors};

/// An operation on a set of `T`. Every operation returns a `bool`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SetInput<T> {
    /// Add the element; returns whether it was absent.
    Insert(T),
    /// Remove the element; returns whether it was present.
    Remove(T),
    /// Returns whether the element is present.
    Contains(T),
}

impl<T> SetInput<T> {
    /// The element the operation is about.
    pub fn element(&self) -> &T {
        match self {
            SetInput::Insert(x) | SetInput::Remove(x) | SetInput::Contains(x) => x,
        }
    }
}

/// A set, initially empty. P-compositional by element: each element is checked on its own with
/// a [`SetElementModel`] (state: present or not).
///
/// ```
/// use lineup_histories::{check_partitioned, CheckOptions, Event, History};
/// use lineup_histories::models::{SetInput, SetModel};
///
/// let h = History::from_events([
///     Event::call(0, SetInput::Insert(1)),
///     Event::call(1, SetInput::Remove(1)),
///     Event::ret(0, true),
///     Event::ret(1, false),
///     Event::call(0, SetInput::Contains(1)),
///     Event::ret(0, true),
/// ])
/// .unwrap();
/// let report = check_partitioned(&SetModel::<i32>::new(), &h, &CheckOptions::default()).unwrap();
/// assert!(report.outcome.is_linearizable());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetModel<T> {
    _elements: std::marker::PhantomData<fn() -> T>,
}

impl<T> SetModel<T> {
    /// A set model.
    pub fn new() -> Self {
        SetModel {
            _elements: std::marker::PhantomData,
        }
    }
}

impl<T> Default for SetModel<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Model for SetModel<T>
where
    T: Clone + Ord + Hash + Debug + Send + Sync,
{
    type State = BTreeSet<T>;
    type Input = SetInput<T>;
    type Output = bool;

    fn init(&self) -> BTreeSet<T> {
        BTreeSet::new()
    }

    fn step(&self, state: &BTreeSet<T>, input: &SetInput<T>, output: &bool) -> Successors<BTreeSet<T>> {
        let present = state.contains(input.element());
        match input {
            SetInput::Insert(x) => Successors::accept_if(*output != present, || {
                let mut next = state.clone();
                next.insert(x.clone());
                next
            }),
            SetInput::Remove(x) => Successors::accept_if(*output == present, || {
                let mut next = state.clone();
                next.remove(x);
                next
            }),
            SetInput::Contains(_) => Successors::accept_if(*output == present, || state.clone()),
        }
    }

    fn step_unknown(&self, state: &BTreeSet<T>, input: &SetInput<T>) -> Successors<BTreeSet<T>> {
        let mut next = state.clone();
        match input {
            SetInput::Insert(x) => {
                next.insert(x.clone());
            }
            SetInput::Remove(x) => {
                next.remove(x);
            }
            SetInput::Contains(_) => {}
        }
        Successors::one(next)
    }

    fn state_heap_size(&self, state: &BTreeSet<T>) -> usize {
        // B-tree nodes hold up to 11 elements plus links; the elements' own heap data (if any)
        // is not counted.
        state.len() * (std::mem::size_of::<T>() + 16)
    }
}

impl<T> PartitionedModel for SetModel<T>
where
    T: Clone + Ord + Hash + Debug + Send + Sync,
{
    type Key = T;
    type Part = SetElementModel<T>;

    fn partition_key(&self, input: &SetInput<T>) -> Option<T> {
        Some(input.element().clone())
    }

    fn part_model(&self, _key: &T) -> SetElementModel<T> {
        SetElementModel::new()
    }
}

/// The model of one element of a set: its state is whether the element is present. Used by
/// the partitioned check of [`SetModel`]; it ignores which element an input names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetElementModel<T> {
    _elements: std::marker::PhantomData<fn() -> T>,
}

impl<T> SetElementModel<T> {
    /// The model of one element.
    pub fn new() -> Self {
        SetElementModel {
            _elements: std::marker::PhantomData,
        }
    }
}

impl<T> Default for SetElementModel<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Model for SetElementModel<T>
where
    T: Clone + Ord + Hash + Debug + Send + Sync,
{
    type State = bool;
    type Input = SetInput<T>;
    type Output = bool;

    fn init(&self) -> bool {
        false
    }

    fn step(&self, present: &bool, input: &SetInput<T>, output: &bool) -> Successors<bool> {
        match input {
            SetInput::Insert(_) => Successors::accept_if(*output != *present, || true),
            SetInput::Remove(_) => Successors::accept_if(*output == *present, || false),
            SetInput::Contains(_) => Successors::accept_if(*output == *present, || *present),
        }
    }

    fn step_unknown(&self, present: &bool, input: &SetInput<T>) -> Successors<bool> {
        Successors::one(match input {
            SetInput::Insert(_) => true,
            SetInput::Remove(_) => false,
            SetInput::Contains(_) => *present,
        })
    }
}

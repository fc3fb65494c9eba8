//! A LIFO stack with push and pop.

use crate::memory::allocation;
use std::fmt::Debug;
use std::hash::Hash;

use crate::model::{Model, Successors};

/// An operation on a stack of `T`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StackInput<T> {
    /// Push an element on top.
    Push(T),
    /// Remove the top element.
    Pop,
}

/// The output of a stack operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StackOutput<T> {
    /// A push completed.
    Ok,
    /// A pop returned this element.
    Popped(T),
    /// A pop found the stack empty.
    Empty,
}

/// A LIFO stack, initially empty.
///
/// ```
/// use lineup_histories::{Model, Successors};
/// use lineup_histories::models::{StackInput, StackModel, StackOutput};
///
/// let st = StackModel::<u8>::new();
/// assert_eq!(st.step(&vec![1, 2], &StackInput::Pop, &StackOutput::Popped(2)), Successors::one(vec![1]));
/// assert!(st.step(&vec![1, 2], &StackInput::Pop, &StackOutput::Popped(1)).is_rejected());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackModel<T> {
    _elements: std::marker::PhantomData<fn() -> T>,
}

impl<T> StackModel<T> {
    /// A stack model.
    pub fn new() -> Self {
        StackModel {
            _elements: std::marker::PhantomData,
        }
    }
}

impl<T> Default for StackModel<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Model for StackModel<T>
where
    T: Clone + Eq + Hash + Debug + Send + Sync,
{
    type State = Vec<T>;
    type Input = StackInput<T>;
    type Output = StackOutput<T>;

    fn init(&self) -> Vec<T> {
        Vec::new()
    }

    fn step(&self, state: &Vec<T>, input: &StackInput<T>, output: &StackOutput<T>) -> Successors<Vec<T>> {
        match (input, output) {
            (StackInput::Push(x), StackOutput::Ok) => {
                let mut next = state.clone();
                next.push(x.clone());
                Successors::one(next)
            }
            (StackInput::Pop, StackOutput::Popped(x)) => Successors::accept_if(state.last() == Some(x), || {
                let mut next = state.clone();
                next.pop();
                next
            }),
            (StackInput::Pop, StackOutput::Empty) => Successors::accept_if(state.is_empty(), || state.clone()),
            _ => Successors::rejected(),
        }
    }

    fn step_unknown(&self, state: &Vec<T>, input: &StackInput<T>) -> Successors<Vec<T>> {
        let mut next = state.clone();
        match input {
            StackInput::Push(x) => next.push(x.clone()),
            StackInput::Pop => {
                next.pop();
            }
        }
        Successors::one(next)
    }

    fn state_heap_size(&self, state: &Vec<T>) -> usize {
        // The elements' own heap data (if any) is not counted.
        allocation(state.capacity() * std::mem::size_of::<T>())
    }
}

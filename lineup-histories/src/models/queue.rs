//! A FIFO queue with enqueue and dequeue.

use crate::memory::allocation;
use std::collections::VecDeque;
use std::fmt::Debug;
use std::hash::Hash;

use crate::model::{Model, Successors};

/// An operation on a FIFO queue of `T`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum QueueInput<T> {
    /// Append an element at the back.
    Enqueue(T),
    /// Remove the element at the front.
    Dequeue,
}

/// The output of a queue operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum QueueOutput<T> {
    /// An enqueue completed.
    Ok,
    /// A dequeue returned this element.
    Dequeued(T),
    /// A dequeue found the queue empty.
    Empty,
}

/// A FIFO queue, initially empty.
///
/// ```
/// use lineup_histories::{Model, Successors};
/// use lineup_histories::models::{QueueInput, QueueModel, QueueOutput};
/// use std::collections::VecDeque;
///
/// let q = QueueModel::<u8>::new();
/// let s = VecDeque::from([1, 2]);
/// assert_eq!(q.step(&s, &QueueInput::Dequeue, &QueueOutput::Dequeued(1)), Successors::one(VecDeque::from([2])));
/// assert!(q.step(&s, &QueueInput::Dequeue, &QueueOutput::Dequeued(2)).is_rejected());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueModel<T> {
    _elements: std::marker::PhantomData<fn() -> T>,
}

impl<T> QueueModel<T> {
    /// A queue model.
    pub fn new() -> Self {
        QueueModel {
            _elements: std::marker::PhantomData,
        }
    }
}

impl<T> Default for QueueModel<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Model for QueueModel<T>
where
    T: Clone + Eq + Hash + Debug + Send + Sync,
{
    type State = VecDeque<T>;
    type Input = QueueInput<T>;
    type Output = QueueOutput<T>;

    fn init(&self) -> VecDeque<T> {
        VecDeque::new()
    }

    fn step(&self, state: &VecDeque<T>, input: &QueueInput<T>, output: &QueueOutput<T>) -> Successors<VecDeque<T>> {
        match (input, output) {
            (QueueInput::Enqueue(x), QueueOutput::Ok) => {
                let mut next = state.clone();
                next.push_back(x.clone());
                Successors::one(next)
            }
            (QueueInput::Dequeue, QueueOutput::Dequeued(x)) => Successors::accept_if(state.front() == Some(x), || {
                let mut next = state.clone();
                next.pop_front();
                next
            }),
            (QueueInput::Dequeue, QueueOutput::Empty) => Successors::accept_if(state.is_empty(), || state.clone()),
            _ => Successors::rejected(),
        }
    }

    fn step_unknown(&self, state: &VecDeque<T>, input: &QueueInput<T>) -> Successors<VecDeque<T>> {
        match input {
            QueueInput::Enqueue(x) => {
                let mut next = state.clone();
                next.push_back(x.clone());
                Successors::one(next)
            }
            QueueInput::Dequeue => {
                let mut next = state.clone();
                next.pop_front();
                Successors::one(next)
            }
        }
    }

    fn state_heap_size(&self, state: &VecDeque<T>) -> usize {
        // The elements' own heap data (if any) is not counted.
        allocation(state.capacity() * std::mem::size_of::<T>())
    }
}

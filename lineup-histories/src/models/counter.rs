//! A counter with increment, add and get.

use crate::model::{Model, Successors};

/// An operation on a counter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CounterInput {
    /// Add one.
    Increment,
    /// Add this amount (may be negative).
    Add(i64),
    /// Read the value.
    Get,
}

/// The output of a counter operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CounterOutput {
    /// An increment or add completed.
    Ok,
    /// A get returned this value.
    Value(i64),
}

/// A counter starting at `initial` (wrapping arithmetic).
///
/// ```
/// use lineup_histories::{Model, Successors};
/// use lineup_histories::models::{CounterInput, CounterModel, CounterOutput};
///
/// let m = CounterModel::default();
/// assert_eq!(m.step(&0, &CounterInput::Add(5), &CounterOutput::Ok), Successors::one(5));
/// assert!(m.step(&5, &CounterInput::Get, &CounterOutput::Value(4)).is_rejected());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CounterModel {
    /// The initial value.
    pub initial: i64,
}

impl Model for CounterModel {
    type State = i64;
    type Input = CounterInput;
    type Output = CounterOutput;

    fn init(&self) -> i64 {
        self.initial
    }

    fn step(&self, state: &i64, input: &CounterInput, output: &CounterOutput) -> Successors<i64> {
        match (input, output) {
            (CounterInput::Increment, CounterOutput::Ok) => Successors::one(state.wrapping_add(1)),
            (CounterInput::Add(n), CounterOutput::Ok) => Successors::one(state.wrapping_add(*n)),
            (CounterInput::Get, CounterOutput::Value(v)) => Successors::accept_if(v == state, || *state),
            _ => Successors::rejected(),
        }
    }

    fn step_unknown(&self, state: &i64, input: &CounterInput) -> Successors<i64> {
        match input {
            CounterInput::Increment => Successors::one(state.wrapping_add(1)),
            CounterInput::Add(n) => Successors::one(state.wrapping_add(*n)),
            CounterInput::Get => Successors::one(*state),
        }
    }
}

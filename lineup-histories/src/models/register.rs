//! A register with read, write and compare-and-set.

use std::fmt::Debug;
use std::hash::Hash;

use crate::model::{Model, Successors};

/// An operation on a register holding a `V`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RegisterInput<V> {
    /// Read the value.
    Read,
    /// Set the value.
    Write(V),
    /// Set the value to `to` if it is `from`.
    Cas {
        /// The expected value.
        from: V,
        /// The new value.
        to: V,
    },
}

/// The output of a register operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RegisterOutput<V> {
    /// A read returned this value.
    Value(V),
    /// A write completed, or a compare-and-set swapped.
    Ok,
    /// A compare-and-set completed without swapping (the value was not `from`).
    Fail,
}

/// A register, initially holding `initial`. Use `V = Option<T>` for a register that may hold
/// nil (Jepsen's etcd tests: `RegisterModel::new(None)`).
///
/// ```
/// use lineup_histories::{check, CheckOptions, Event, History};
/// use lineup_histories::models::{RegisterInput as I, RegisterModel, RegisterOutput as O};
///
/// let h = History::from_events([
///     Event::call(0, I::Write(Some(1))),
///     Event::ret(0, O::Ok),
///     Event::call(1, I::Cas { from: Some(1), to: Some(2) }),
///     Event::ret(1, O::Ok),
///     Event::call(0, I::Read),
///     Event::ret(0, O::Value(Some(1))), // stale: the cas had already swapped
/// ])
/// .unwrap();
/// assert!(!check(&RegisterModel::new(None), &h, &CheckOptions::default()).outcome.is_linearizable());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterModel<V> {
    /// The initial value.
    pub initial: V,
}

impl<V> RegisterModel<V> {
    /// A register initially holding `initial`.
    pub fn new(initial: V) -> Self {
        RegisterModel { initial }
    }
}

impl<V> Model for RegisterModel<V>
where
    V: Clone + Eq + Hash + Debug + Send + Sync,
{
    type State = V;
    type Input = RegisterInput<V>;
    type Output = RegisterOutput<V>;

    fn init(&self) -> V {
        self.initial.clone()
    }

    fn step(&self, state: &V, input: &RegisterInput<V>, output: &RegisterOutput<V>) -> Successors<V> {
        match (input, output) {
            (RegisterInput::Read, RegisterOutput::Value(v)) => Successors::accept_if(v == state, || state.clone()),
            (RegisterInput::Write(v), RegisterOutput::Ok) => Successors::one(v.clone()),
            (RegisterInput::Cas { from, to }, RegisterOutput::Ok) => {
                Successors::accept_if(from == state, || to.clone())
            }
            (RegisterInput::Cas { from, .. }, RegisterOutput::Fail) => {
                Successors::accept_if(from != state, || state.clone())
            }
            _ => Successors::rejected(),
        }
    }

    fn step_unknown(&self, state: &V, input: &RegisterInput<V>) -> Successors<V> {
        match input {
            RegisterInput::Read => Successors::one(state.clone()),
            RegisterInput::Write(v) => Successors::one(v.clone()),
            RegisterInput::Cas { from, to } if from == state => Successors::one(to.clone()),
            RegisterInput::Cas { .. } => Successors::one(state.clone()),
        }
    }
}

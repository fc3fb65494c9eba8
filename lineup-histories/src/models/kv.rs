//! A key-value map of strings with get, put and append; P-compositional by key.

use crate::memory::allocation;
use std::collections::BTreeMap;

use crate::model::{Model, PartitionedModel, Successors};

/// What an operation does to its key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KvOp {
    /// Read the value (a missing key reads as `""`).
    Get,
    /// Set the value.
    Put(String),
    /// Append to the value.
    Append(String),
}

/// An operation on a key-value map: a key and what to do with it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KvInput {
    /// The key.
    pub key: String,
    /// The operation.
    pub op: KvOp,
}

impl KvInput {
    /// `get(key)`.
    pub fn get(key: impl Into<String>) -> Self {
        KvInput {
            key: key.into(),
            op: KvOp::Get,
        }
    }

    /// `put(key, value)`.
    pub fn put(key: impl Into<String>, value: impl Into<String>) -> Self {
        KvInput {
            key: key.into(),
            op: KvOp::Put(value.into()),
        }
    }

    /// `append(key, value)`.
    pub fn append(key: impl Into<String>, value: impl Into<String>) -> Self {
        KvInput {
            key: key.into(),
            op: KvOp::Append(value.into()),
        }
    }
}

/// The output of a key-value operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KvOutput {
    /// A get returned this value.
    Value(String),
    /// A put or append completed.
    Ok,
}

/// A map from string keys to string values, missing key = `""`. P-compositional by key: each
/// key is checked on its own with a [`KvKeyModel`].
///
/// ```
/// use lineup_histories::{Model, Successors};
/// use lineup_histories::models::{KvInput, KvModel, KvOutput};
///
/// let m = KvModel;
/// let s = m.init();
/// assert!(m.step(&s, &KvInput::get("a"), &KvOutput::Value(String::new())).into_iter().count() == 1);
/// let s = m.step(&s, &KvInput::append("a", "x"), &KvOutput::Ok).into_iter().next().unwrap();
/// assert!(m.step(&s, &KvInput::get("a"), &KvOutput::Value("x".into())).into_iter().count() == 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KvModel;

fn apply(value: &str, op: &KvOp) -> String {
    match op {
        KvOp::Get => value.to_string(),
        KvOp::Put(v) => v.clone(),
        KvOp::Append(v) => format!("{value}{v}"),
    }
}

fn accepts(value: &str, op: &KvOp, output: &KvOutput) -> bool {
    match (op, output) {
        (KvOp::Get, KvOutput::Value(v)) => v == value,
        (KvOp::Put(_) | KvOp::Append(_), KvOutput::Ok) => true,
        _ => false,
    }
}

impl KvModel {
    fn apply_to_map(state: &BTreeMap<String, String>, input: &KvInput) -> BTreeMap<String, String> {
        if input.op == KvOp::Get {
            return state.clone();
        }
        let current = state.get(&input.key).map(String::as_str).unwrap_or("");
        let value = apply(current, &input.op);
        let mut next = state.clone();
        if value.is_empty() {
            next.remove(&input.key);
        } else {
            next.insert(input.key.clone(), value);
        }
        next
    }
}

impl Model for KvModel {
    /// Only non-empty values are stored, so that equal maps are equal states.
    type State = BTreeMap<String, String>;
    type Input = KvInput;
    type Output = KvOutput;

    fn init(&self) -> BTreeMap<String, String> {
        BTreeMap::new()
    }

    fn step(&self, state: &Self::State, input: &KvInput, output: &KvOutput) -> Successors<Self::State> {
        let current = state.get(&input.key).map(String::as_str).unwrap_or("");
        Successors::accept_if(accepts(current, &input.op, output), || Self::apply_to_map(state, input))
    }

    fn step_unknown(&self, state: &Self::State, input: &KvInput) -> Successors<Self::State> {
        Successors::one(Self::apply_to_map(state, input))
    }

    fn state_heap_size(&self, state: &Self::State) -> usize {
        // B-tree nodes hold up to 11 entries of two `String`s (48 bytes) plus links.
        state
            .iter()
            .map(|(k, v)| 64 + allocation(k.capacity()) + allocation(v.capacity()))
            .sum()
    }
}

impl PartitionedModel for KvModel {
    type Key = String;
    type Part = KvKeyModel;

    fn partition_key(&self, input: &KvInput) -> Option<String> {
        Some(input.key.clone())
    }

    fn part_model(&self, _key: &String) -> KvKeyModel {
        KvKeyModel
    }
}

/// The model of one key of a [`KvModel`]: its state is that key's value. It ignores the key an
/// input names (the partitioned check gives it only the operations of one key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KvKeyModel;

impl Model for KvKeyModel {
    type State = String;
    type Input = KvInput;
    type Output = KvOutput;

    fn init(&self) -> String {
        String::new()
    }

    fn step(&self, value: &String, input: &KvInput, output: &KvOutput) -> Successors<String> {
        Successors::accept_if(accepts(value, &input.op, output), || apply(value, &input.op))
    }

    fn step_unknown(&self, value: &String, input: &KvInput) -> Successors<String> {
        Successors::one(apply(value, &input.op))
    }

    fn state_heap_size(&self, value: &String) -> usize {
        allocation(value.capacity())
    }
}

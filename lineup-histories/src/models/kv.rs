//! A key-value map of strings with get, put and append; P-compositional by key.

use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rustc_hash::FxHasher;

use crate::memory::allocation;

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
/// assert_eq!(s.get("a"), "x");
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

/// One key of a [`KvState`], with the hash of the pair.
#[derive(Clone)]
struct KvEntry {
    key: Arc<str>,
    value: Arc<str>,
    hash: u64,
}

impl KvEntry {
    fn new(key: Arc<str>, value: Arc<str>) -> Self {
        let mut hasher = FxHasher::default();
        key.hash(&mut hasher);
        value.hash(&mut hasher);
        // Spread the bits: entry hashes are summed.
        let hash = hasher.finish().wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(23);
        KvEntry { key, value, hash }
    }
}

/// A state of the [`KvModel`]: a map from keys to non-empty values (a missing key reads as `""`,
/// so that equal maps are equal states).
///
/// Cheap to clone and to hash, as the search clones, hashes and compares states at every step:
/// the entries are shared (`Arc`), sorted by key, and the hash (the sum of the entries' hashes)
/// is kept with them. A `get` leaves the state as it is; a `put` or an `append` copies the list
/// of entries (pointers) and makes one new value. Its `Debug` is that of a
/// `BTreeMap<String, String>`: `{"a": "x"}`.
///
/// ```
/// use lineup_histories::Model;
/// use lineup_histories::models::{KvInput, KvModel, KvOutput, KvState};
///
/// let m = KvModel;
/// let step = |s: KvState, input| m.step(&s, &input, &KvOutput::Ok).into_iter().next().unwrap();
/// let a = step(step(m.init(), KvInput::append("k", "x")), KvInput::append("k", "y"));
/// let b = step(m.init(), KvInput::put("k", "xy"));
/// assert_eq!(a, b); // the same map, however it was built
/// assert_eq!(format!("{a:?}"), r#"{"k": "xy"}"#);
/// ```
#[derive(Clone)]
pub struct KvState {
    entries: Arc<[KvEntry]>,
    hash: u64,
}

impl Default for KvState {
    fn default() -> Self {
        KvState {
            entries: Arc::new([]),
            hash: 0,
        }
    }
}

impl KvState {
    /// The value of `key` (`""` if it has none).
    pub fn get(&self, key: &str) -> &str {
        match self.position(key) {
            Ok(at) => &self.entries[at].value,
            Err(_) => "",
        }
    }

    /// The number of keys with a non-empty value.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether every key reads as `""`.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The keys with a non-empty value and their values, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|e| (&*e.key, &*e.value))
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|e| (*e.key).cmp(key))
    }

    /// The state with `key` set to `value` (removed if `value` is empty).
    fn with(&self, key: &str, value: String) -> KvState {
        let at = self.position(key);
        let mut hash = self.hash;
        let mut entries: Vec<KvEntry> = Vec::with_capacity(self.entries.len() + 1);
        let (before, after) = match at {
            Ok(at) => {
                hash = hash.wrapping_sub(self.entries[at].hash);
                (&self.entries[..at], &self.entries[at + 1..])
            }
            Err(at) => (&self.entries[..at], &self.entries[at..]),
        };
        entries.extend_from_slice(before);
        if !value.is_empty() {
            let key: Arc<str> = match at {
                Ok(at) => self.entries[at].key.clone(),
                Err(_) => key.into(),
            };
            let entry = KvEntry::new(key, value.into());
            hash = hash.wrapping_add(entry.hash);
            entries.push(entry);
        }
        entries.extend_from_slice(after);
        KvState {
            entries: entries.into(),
            hash,
        }
    }

    fn apply(&self, input: &KvInput) -> KvState {
        match &input.op {
            KvOp::Get => self.clone(),
            op => self.with(&input.key, apply(self.get(&input.key), op)),
        }
    }
}

impl PartialEq for KvState {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash
            && self.entries.len() == other.entries.len()
            && (Arc::ptr_eq(&self.entries, &other.entries)
                || self.entries.iter().zip(other.entries.iter()).all(|(a, b)| {
                    a.hash == b.hash
                        && (Arc::ptr_eq(&a.value, &b.value) || a.value == b.value)
                        && (Arc::ptr_eq(&a.key, &b.key) || a.key == b.key)
                }))
    }
}

impl Eq for KvState {}

impl Hash for KvState {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl fmt::Debug for KvState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl From<BTreeMap<String, String>> for KvState {
    /// The state of a map (empty values are left out: they read as missing keys).
    fn from(map: BTreeMap<String, String>) -> Self {
        let entries: Vec<KvEntry> = map
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| KvEntry::new(k.into(), v.into()))
            .collect();
        let hash = entries.iter().fold(0u64, |h, e| h.wrapping_add(e.hash));
        KvState {
            entries: entries.into(),
            hash,
        }
    }
}

impl From<&KvState> for BTreeMap<String, String> {
    fn from(state: &KvState) -> Self {
        state.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }
}

impl Model for KvModel {
    /// Only non-empty values are stored, so that equal maps are equal states.
    type State = KvState;
    type Input = KvInput;
    type Output = KvOutput;

    fn init(&self) -> KvState {
        KvState::default()
    }

    fn step(&self, state: &KvState, input: &KvInput, output: &KvOutput) -> Successors<KvState> {
        Successors::accept_if(accepts(state.get(&input.key), &input.op, output), || state.apply(input))
    }

    fn step_unknown(&self, state: &KvState, input: &KvInput) -> Successors<KvState> {
        Successors::one(state.apply(input))
    }

    fn state_heap_size(&self, state: &KvState) -> usize {
        // The list of entries is the state's own; keys and values are shared with the states it
        // was made from, except at most one new value: count the longest.
        allocation(16 + state.entries.len() * std::mem::size_of::<KvEntry>())
            + state
                .entries
                .iter()
                .map(|e| allocation(16 + e.value.len()))
                .max()
                .unwrap_or(0)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn hash_of(state: &KvState) -> u64 {
        let mut hasher = FxHasher::default();
        state.hash(&mut hasher);
        hasher.finish()
    }

    /// `KvState` behaves as the `BTreeMap<String, String>` it replaced: the same reads, equal
    /// exactly when the maps are, equal hashes for equal maps, the same `Debug`.
    #[test]
    fn kv_state_matches_a_plain_map() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let model = KvModel;
        let mut states: Vec<(KvState, BTreeMap<String, String>)> = vec![(model.init(), BTreeMap::new())];
        for _ in 0..3000 {
            let (state, map) = states[next(states.len() as u64) as usize].clone();
            let key = ["a", "b", "c", "d"][next(4) as usize];
            let value = ["", "x", "y", "xy"][next(4) as usize];
            let input = match next(3) {
                0 => KvInput::get(key),
                1 => KvInput::put(key, value),
                _ => KvInput::append(key, value),
            };
            let current = map.get(key).cloned().unwrap_or_default();
            assert_eq!(state.get(key), current);
            let output = match input.op {
                KvOp::Get => KvOutput::Value(current.clone()),
                _ => KvOutput::Ok,
            };
            let next_state = model.step(&state, &input, &output).into_iter().next().unwrap();
            let mut next_map = map.clone();
            let new = apply(&current, &input.op);
            if new.is_empty() {
                next_map.remove(key);
            } else {
                next_map.insert(key.to_string(), new);
            }
            assert_eq!(BTreeMap::from(&next_state), next_map);
            assert_eq!(format!("{next_state:?}"), format!("{next_map:?}"));
            assert_eq!(KvState::from(next_map.clone()), next_state);
            if states.len() < 64 {
                states.push((next_state, next_map));
            } else {
                let at = next(64) as usize;
                states[at] = (next_state, next_map);
            }
        }
        for (a, ma) in &states {
            for (b, mb) in &states {
                assert_eq!(a == b, ma == mb, "{ma:?} {mb:?}");
                if a == b {
                    assert_eq!(hash_of(a), hash_of(b));
                }
            }
        }
    }
}

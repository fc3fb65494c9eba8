//! What one execution recorded, with interned responses: cheap to hash and compare, so that
//! executions are deduplicated before their histories are built; and the interner that numbers
//! the distinct responses of an exploration.

use std::hash::BuildHasher;

use crate::model::history::{Event, History, OpTable};
use crate::model::response::Response;

/// Numbers the distinct responses of an exploration, so that executions record, hash and
/// compare small numbers instead of strings.
#[derive(Debug, Default)]
pub(crate) struct ResponseInterner {
    returned: rustc_hash::FxHashMap<String, u32>,
    panicked: rustc_hash::FxHashMap<String, u32>,
    values: Vec<Response>,
    /// A hash of each response's value, the same in every interner of the process (numbers
    /// differ between explorations; these do not).
    hashes: Vec<u64>,
}

impl ResponseInterner {
    pub(crate) const EMPTY: ResponseInterner = ResponseInterner {
        returned: rustc_hash::FxHashMap::with_hasher(rustc_hash::FxBuildHasher),
        panicked: rustc_hash::FxHashMap::with_hasher(rustc_hash::FxBuildHasher),
        values: Vec::new(),
        hashes: Vec::new(),
    };

    /// The number of a returned value's rendering.
    pub fn returned(&mut self, rendering: &str) -> u32 {
        if let Some(&id) = self.returned.get(rendering) {
            return id;
        }
        let id = self.values.len() as u32;
        self.hashes.push(rustc_hash::FxBuildHasher.hash_one((0u8, rendering)));
        self.values.push(Response::Returned(rendering.to_string()));
        self.returned.insert(rendering.to_string(), id);
        id
    }

    /// The number of a panic message.
    pub fn panicked(&mut self, message: String) -> u32 {
        if let Some(&id) = self.panicked.get(&message) {
            return id;
        }
        let id = self.values.len() as u32;
        self.hashes
            .push(rustc_hash::FxBuildHasher.hash_one((1u8, message.as_str())));
        self.values.push(Response::Panicked(message.clone()));
        self.panicked.insert(message, id);
        id
    }

    /// The number of the cancellation after poll `polls` (see [`Response::Cancelled`]).
    pub fn cancelled(&mut self, polls: u32) -> u32 {
        let response = Response::Cancelled { polls };
        if let Some(id) = self.values.iter().position(|v| *v == response) {
            return id as u32;
        }
        let id = self.values.len() as u32;
        self.hashes.push(rustc_hash::FxBuildHasher.hash_one((2u8, polls)));
        self.values.push(response);
        id
    }

    /// The number of a response.
    pub fn intern(&mut self, response: &Response) -> u32 {
        match response {
            Response::Returned(rendering) => self.returned(rendering),
            Response::Panicked(message) => self.panicked(message.clone()),
            Response::Cancelled { polls } => self.cancelled(*polls),
        }
    }

    /// The hash of the response with number `id`'s value: equal responses have equal hashes in
    /// every interner, whatever their numbers.
    pub fn value_hash(&self, id: u32) -> u64 {
        self.hashes[id as usize]
    }

    /// The response with number `id`.
    pub fn value(&self, id: u32) -> &Response {
        &self.values[id as usize]
    }

    /// The number of `response`, if it has one (without numbering it).
    pub fn find(&self, response: &Response) -> Option<u32> {
        match response {
            Response::Returned(rendering) => self.returned.get(rendering.as_str()).copied(),
            Response::Panicked(message) => self.panicked.get(message.as_str()).copied(),
            Response::Cancelled { .. } => self.values.iter().position(|v| v == response).map(|i| i as u32),
        }
    }

    /// How many distinct responses it numbers (`0..len()`).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// The responses of a recording.
    pub fn resolve(&self, ids: &[Option<u32>]) -> Vec<Option<Response>> {
        ids.iter().map(|id| id.map(|id| self.value(id).clone())).collect()
    }
}

/// What one execution recorded, with interned responses: cheap to hash and compare, so that
/// executions are deduplicated before their histories are built.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Trace {
    pub events: Vec<Event>,
    pub responses: Vec<Option<u32>>,
    pub stuck: bool,
}

/// A [`Trace`] borrowed from the recording's buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TraceRef<'a> {
    pub events: &'a [Event],
    pub responses: &'a [Option<u32>],
    pub stuck: bool,
}

impl Trace {
    /// This trace, borrowed.
    pub fn as_ref(&self) -> TraceRef<'_> {
        TraceRef {
            events: &self.events,
            responses: &self.responses,
            stuck: self.stuck,
        }
    }
}

impl TraceRef<'_> {
    /// An owned copy.
    pub fn to_owned(self) -> Trace {
        Trace {
            events: self.events.to_vec(),
            responses: self.responses.to_vec(),
            stuck: self.stuck,
        }
    }

    /// The history of this trace, its responses numbered by `interner`.
    pub fn history(self, interner: &ResponseInterner, ops: &OpTable) -> History {
        let responses = interner.resolve(self.responses);
        History::from_recording(ops.clone(), self.events.to_vec(), responses, self.stuck)
    }

    /// The hash a [`TraceSet`](crate::explore::trace_set::TraceSet) files the trace under.
    pub fn fx_hash(self) -> u64 {
        rustc_hash::FxBuildHasher.hash_one((self.events, self.responses, self.stuck))
    }
}

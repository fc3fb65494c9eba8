//! What a loom child process reports to its parent: one JSON object per line, appended and
//! flushed as it happens, so that a child that aborts has still said everything up to then.

use serde::{Deserialize, Serialize};

use crate::model::history::Event;
use crate::model::history::History;
use crate::model::history::OpTable;
use crate::model::interleaving::Interleaving;
use crate::model::response::Response;

/// A history in transit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct WireHistory {
    /// Events: positive = call of that operation, negative = its return.
    pub events: Vec<i64>,
    /// Responses by operation (index = op - 1): `[returned?, text]`.
    pub responses: Vec<Option<(bool, String)>>,
    pub stuck: bool,
}

impl WireHistory {
    pub(crate) fn of(events: &[Event], responses: &[Option<Response>], stuck: bool) -> Self {
        Self {
            events: events
                .iter()
                .map(|e| match *e {
                    Event::Call(op) => op as i64,
                    Event::Return(op) => -(op as i64),
                })
                .collect(),
            responses: responses
                .iter()
                .map(|r| {
                    r.as_ref().map(|r| match r {
                        Response::Returned(s) => (true, s.clone()),
                        Response::Panicked(s) => (false, s.clone()),
                        // loom never cancels an operation (cancellation is explored on shuttle).
                        Response::Cancelled { polls } => (false, format!("cancelled after poll {polls}")),
                    })
                })
                .collect(),
            stuck,
        }
    }

    pub(crate) fn history(&self, ops: &OpTable) -> Result<History, String> {
        let events = self
            .events
            .iter()
            .map(|&e| {
                if e > 0 {
                    Event::Call(e as usize)
                } else {
                    Event::Return((-e) as usize)
                }
            })
            .collect();
        let responses = self
            .responses
            .iter()
            .map(|r| {
                r.as_ref().map(|(returned, s)| {
                    if *returned {
                        Response::Returned(s.clone())
                    } else {
                        Response::Panicked(s.clone())
                    }
                })
            })
            .collect();
        History::new(ops.clone(), events, responses, self.stuck).map_err(|e| e.to_string())
    }
}

/// What a phase-2 child explored so far: its executions and the fingerprints of its distinct
/// histories and of the stuck ones among them.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Tally {
    pub executions: u64,
    pub distinct: Vec<u64>,
    pub stuck_histories: Vec<u64>,
}

/// One line of a child's report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Record {
    /// Phase 1: a serial execution of `order` finished.
    Serial { order: Vec<usize>, history: WireHistory },
    /// Phase 1: a serial execution of `order` got stuck in operation `prefix.last()`; every
    /// order that starts with `prefix` gets the same stuck history.
    SerialStuck {
        prefix: Vec<usize>,
        history: WireHistory,
        kind: String,
    },
    /// Phase 1: a serial execution of `order` reached loom's branch limit without evidence of a
    /// livelock (a thread spinning without a yield while another could run).
    SerialInconclusive { order: Vec<usize> },
    /// Phase 1: every order was run.
    SerialDone,
    /// Phase 2: a stuck execution had stuck serial witnesses; the exploration goes on from the
    /// stored path.
    StuckJustified { tally: Tally, kind: String },
    /// Phase 2: an execution reached loom's branch limit without evidence of a livelock: not
    /// judged; the exploration goes on from the stored path.
    Inconclusive { tally: Tally },
    /// Phase 2: a violation.
    Violation {
        tally: Tally,
        history: WireHistory,
        stuck: Option<String>,
        weak_loads: Vec<String>,
        checkpoint: Option<String>,
    },
    /// A violation's replay with step recording on: the replayed execution's history (stuck
    /// with `stuck`), and its steps.
    Steps {
        history: WireHistory,
        stuck: Option<String>,
        steps: Interleaving,
    },
    /// Phase 2: the exploration is complete.
    ConcurrentDone { tally: Tally },
    /// The execution failed outside any operation (the object's constructor panicked, loom
    /// reported a leak or a causality violation, ...).
    Failed { message: String },
}

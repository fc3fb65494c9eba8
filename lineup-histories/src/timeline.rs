//! A per-client timeline of the operations around a violation, for display.

use std::fmt::{self, Debug};

use crate::history::{ClientId, History, OpId, Operation, Outcome};

/// The role of an operation in a [`Timeline`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimelineMark {
    /// Placed in the longest linearizable prefix, at this position (0-based).
    Linearized(usize),
    /// A candidate after the prefix that could not be placed.
    Unplaced,
    /// Not placed, and its return was reached: it had to be placed by then.
    Blocking,
    /// Shown for context (an operation that completed before the violation, in the online
    /// checker's report).
    Context,
}

/// One operation drawn in a [`Timeline`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineOp {
    /// The operation.
    pub id: OpId,
    /// Its client.
    pub client: ClientId,
    /// Its call time.
    pub call: u64,
    /// Its return time (`None`: outcome unknown, it never returns).
    pub ret: Option<u64>,
    /// `input -> output` (`Debug` of each; `?` for an unknown outcome).
    pub description: String,
    /// Its role.
    pub mark: TimelineMark,
}

/// The operations around a violation: the last operations of the longest linearizable prefix,
/// the operations that could not be placed, and the one whose return blocked the search.
///
/// Its `Display` draws one row per client, each operation as an interval on a common time axis
/// (`[===]` linearized in the prefix, `[!!!]` could not be placed, `[###]` blocking; an unknown
/// outcome is open-ended: `[...>`), followed by a legend with inputs and outputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    /// The operations, in call order.
    pub ops: Vec<TimelineOp>,
}

/// How many operations of the prefix a timeline shows.
const PREFIX_SHOWN: usize = 12;

impl Timeline {
    /// The timeline of a violation found in `history`.
    pub fn of_violation<I: Debug, O: Debug>(
        history: &History<I, O>,
        prefix: &[OpId],
        unplaced: &[OpId],
        blocking: Option<OpId>,
    ) -> Timeline {
        let start = prefix.len().saturating_sub(PREFIX_SHOWN);
        let prefix_marks = prefix
            .iter()
            .enumerate()
            .skip(start)
            .map(|(pos, &id)| (id, TimelineMark::Linearized(pos)));
        Self::of_marked(history.operations(), blocking, unplaced, prefix_marks)
    }

    /// The timeline of the given operations (`blocking` first, then `unplaced`, then `others`
    /// with their marks; an operation is drawn once).
    pub(crate) fn of_marked<I: Debug, O: Debug>(
        history: &[Operation<I, O>],
        blocking: Option<OpId>,
        unplaced: &[OpId],
        others: impl IntoIterator<Item = (OpId, TimelineMark)>,
    ) -> Timeline {
        let mut ops: Vec<TimelineOp> = Vec::new();
        let mut push = |id: OpId, mark: TimelineMark| {
            if ops.iter().any(|op| op.id == id) {
                return;
            }
            let op = &history[id.0];
            let description = match &op.outcome {
                Outcome::Returned(output) => format!("{:?} -> {:?}", op.input, output),
                Outcome::Unknown => format!("{:?} -> ?", op.input),
            };
            ops.push(TimelineOp {
                id,
                client: op.client,
                call: op.call,
                ret: (!op.outcome.is_unknown()).then_some(op.ret),
                description,
                mark,
            });
        };
        if let Some(id) = blocking {
            push(id, TimelineMark::Blocking);
        }
        for &id in unplaced {
            push(id, TimelineMark::Unplaced);
        }
        for (id, mark) in others {
            push(id, mark);
        }
        ops.sort_by_key(|op| (op.call, op.id));
        Timeline { ops }
    }
}

impl fmt::Display for Timeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ops.is_empty() {
            return Ok(());
        }
        // The time axis: the ranks of the shown operations' endpoints.
        let mut times: Vec<u64> = self
            .ops
            .iter()
            .flat_map(|op| [Some(op.call), op.ret])
            .flatten()
            .collect();
        times.sort_unstable();
        times.dedup();
        let rank = |t: u64| times.binary_search(&t).unwrap_or_else(|i| i);
        const STEP: usize = 3;
        let width = times.len() * STEP + 2;
        // Lanes: one or more rows per client (an operation with an unknown outcome may overlap
        // the client's next operations).
        let mut clients: Vec<ClientId> = self.ops.iter().map(|op| op.client).collect();
        clients.sort_unstable();
        clients.dedup();
        let label_width = clients.iter().map(|c| format!("client {c}").len()).max().unwrap_or(0);
        writeln!(f, "timeline ([===] linearized, [!!!] could not be placed, [###] returned unplaced, [---] context, [...> unknown outcome):")?;
        for client in clients {
            let mut lanes: Vec<(Vec<u8>, usize)> = Vec::new(); // (row, first free column)
            for op in self.ops.iter().filter(|op| op.client == client) {
                let start = rank(op.call) * STEP;
                let end = op.ret.map(|t| rank(t) * STEP).unwrap_or(width - 1);
                let lane = match lanes.iter().position(|(_, free)| *free <= start) {
                    Some(lane) => lane,
                    None => {
                        lanes.push((vec![b' '; width], 0));
                        lanes.len() - 1
                    }
                };
                let (row, free) = &mut lanes[lane];
                let fill = match op.mark {
                    TimelineMark::Linearized(_) => b'=',
                    TimelineMark::Unplaced => b'!',
                    TimelineMark::Blocking => b'#',
                    TimelineMark::Context => b'-',
                };
                let fill = if op.ret.is_none() { b'.' } else { fill };
                for cell in row.iter_mut().take(end).skip(start + 1) {
                    *cell = fill;
                }
                row[start] = b'[';
                row[end] = if op.ret.is_some() { b']' } else { b'>' };
                let label = op.id.0.to_string();
                if end > start + label.len() + 1 {
                    let at = start + 1 + (end - start - 1 - label.len()) / 2;
                    row[at..at + label.len()].copy_from_slice(label.as_bytes());
                }
                *free = end + 1;
            }
            for (i, (row, _)) in lanes.iter().enumerate() {
                let name = if i == 0 {
                    format!("client {client}")
                } else {
                    String::new()
                };
                let text = String::from_utf8_lossy(row);
                writeln!(f, "  {name:<label_width$} |{}", text.trim_end())?;
            }
        }
        for op in &self.ops {
            let role = match op.mark {
                TimelineMark::Linearized(pos) => format!("linearized #{pos}"),
                TimelineMark::Unplaced => "could not be placed".to_string(),
                TimelineMark::Blocking => "returned before it could be placed".to_string(),
                TimelineMark::Context => "completed earlier".to_string(),
            };
            let ret = op.ret.map(|t| t.to_string()).unwrap_or_else(|| "never".to_string());
            writeln!(
                f,
                "  {:>8}  client {:<4} [{}, {}]  {}  ({role})",
                op.id.to_string(),
                op.client,
                op.call,
                ret,
                op.description
            )?;
        }
        Ok(())
    }
}

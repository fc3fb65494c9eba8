//! The format-independent form of a recorded history: operations of clients with an argument, an
//! outcome and their place in real time.

use std::collections::HashMap;
use std::path::Path;

use super::{FormatError, Value};

/// What became of an operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RawOutcome {
    /// It returned this result (`Nil` for operations that return nothing).
    Returned(Value),
    /// Its outcome is unknown: it may have taken effect at any point after its call, or never
    /// (Jepsen `:info`, lineup `unknown`, or a call still pending at the end of the file).
    Unknown,
    /// It certainly did not take effect (Jepsen `:fail` on anything but `:cas`).
    NotApplied,
}

/// One operation of a recorded history, before it is given a model's meaning.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawOperation {
    /// The client (Jepsen process) that called it.
    pub client: u64,
    /// The operation's name as the file spells it, without a leading colon (`read`, `cas`,
    /// `append`, ...).
    pub function: String,
    /// The key it touches, if the format has keys.
    pub key: Option<String>,
    /// Its argument (`Nil` when it takes none).
    pub argument: Value,
    /// What became of it.
    pub outcome: RawOutcome,
    /// The line of its call, from 1.
    pub call_line: usize,
    /// The line of its completion, if the file has one.
    pub return_line: Option<usize>,
}

/// A step of a history in real-time order: the call or the return of an operation (an index
/// into [`RawHistory::operations`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RawStep {
    /// The operation was called.
    Call(usize),
    /// The operation returned (only for [`RawOutcome::Returned`]).
    Return(usize),
}

/// A recorded history in a format-independent form: the operations in call order, and the
/// calls and returns in real-time order. Operations whose outcome is unknown have a call and no
/// return; [`RawOutcome::NotApplied`] operations have a call and no return either (models drop
/// them).
///
/// ```
/// use lineup_histories::formats::{parse_str, Format, RawOutcome, Value};
/// let text = "INFO  jepsen.util - 0\t:invoke\t:write\t3\nINFO  jepsen.util - 0\t:ok\t:write\t3\n";
/// let history = parse_str(text, Format::JepsenLog, "h.log").unwrap();
/// assert_eq!(history.operations.len(), 1);
/// assert_eq!(history.operations[0].argument, Value::Int(3));
/// assert_eq!(history.operations[0].outcome, RawOutcome::Returned(Value::Nil));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RawHistory {
    /// The operations, in the order of their calls.
    pub operations: Vec<RawOperation>,
    /// Calls and returns in real-time order.
    pub steps: Vec<RawStep>,
}

/// Builds a [`RawHistory`] from events in file order, checking that each client calls one
/// operation at a time and that every completion answers a call.
pub(crate) struct HistoryBuilder<'a> {
    file: &'a Path,
    history: RawHistory,
    /// The pending call of each client: index into `operations`, whether it is known to be
    /// unknown (then the client may never be used again).
    pending: HashMap<u64, (usize, bool)>,
}

/// How a completion matches its call.
pub(crate) struct Completion {
    pub client: u64,
    pub function: String,
    pub key: Option<String>,
    pub outcome: RawOutcome,
    pub line: usize,
    pub column: Option<usize>,
}

impl<'a> HistoryBuilder<'a> {
    pub(crate) fn new(file: &'a Path) -> Self {
        Self {
            file,
            history: RawHistory::default(),
            pending: HashMap::new(),
        }
    }

    /// A call by `client` at `line`.
    pub(crate) fn call(
        &mut self,
        client: u64,
        function: String,
        key: Option<String>,
        argument: Value,
        line: usize,
    ) -> Result<(), FormatError> {
        if let Some(&(index, unknown)) = self.pending.get(&client) {
            let earlier = &self.history.operations[index];
            let why = if unknown {
                format!(
                    "client {client}, whose `{}` of line {} has an unknown outcome (such a client is never reused)",
                    earlier.function, earlier.call_line
                )
            } else {
                format!(
                    "client {client}, whose `{}` of line {} has not returned yet",
                    earlier.function, earlier.call_line
                )
            };
            return Err(FormatError::syntax(
                self.file,
                line,
                None,
                "a call by a client with no call pending",
                format!("a call by {why}"),
            ));
        }
        let index = self.history.operations.len();
        self.history.operations.push(RawOperation {
            client,
            function,
            key,
            argument,
            outcome: RawOutcome::Unknown,
            call_line: line,
            return_line: None,
        });
        self.history.steps.push(RawStep::Call(index));
        self.pending.insert(client, (index, false));
        Ok(())
    }

    /// The argument of `client`'s pending call, if any (Jepsen completions repeat it).
    pub(crate) fn pending_operation(&self, client: u64) -> Option<&RawOperation> {
        match self.pending.get(&client) {
            Some(&(index, false)) => Some(&self.history.operations[index]),
            _ => None,
        }
    }

    /// The completion of `client`'s pending call.
    pub(crate) fn complete(&mut self, completion: Completion) -> Result<(), FormatError> {
        let Completion {
            client,
            function,
            key,
            outcome,
            line,
            column,
        } = completion;
        let index = match self.pending.get(&client) {
            Some(&(index, false)) => index,
            Some(&(index, true)) => {
                return Err(FormatError::syntax(
                    self.file,
                    line,
                    column,
                    format!(
                        "no completion for client {client}, whose call of line {} already has an unknown outcome",
                        self.history.operations[index].call_line
                    ),
                    "a completion",
                ))
            }
            None => {
                return Err(FormatError::syntax(
                    self.file,
                    line,
                    column,
                    format!("a completion only for a client with a call pending; client {client} has none"),
                    "a completion",
                ))
            }
        };
        let op = &mut self.history.operations[index];
        if op.function != function {
            return Err(FormatError::syntax(
                self.file,
                line,
                column,
                format!("the completion of `{}` (called at line {})", op.function, op.call_line),
                format!("a completion of `{function}`"),
            ));
        }
        if op.key != key {
            let show = |k: &Option<String>| {
                k.as_ref()
                    .map_or_else(|| "no key".to_string(), |k| format!("key {k:?}"))
            };
            return Err(FormatError::syntax(
                self.file,
                line,
                column,
                format!("the completion on {} (called at line {})", show(&op.key), op.call_line),
                format!("a completion on {}", show(&key)),
            ));
        }
        op.return_line = Some(line);
        match outcome {
            RawOutcome::Returned(_) => {
                op.outcome = outcome;
                self.history.steps.push(RawStep::Return(index));
                self.pending.remove(&client);
            }
            RawOutcome::NotApplied => {
                op.outcome = outcome;
                self.pending.remove(&client);
            }
            RawOutcome::Unknown => {
                op.outcome = outcome;
                self.pending.insert(client, (index, true));
            }
        }
        Ok(())
    }

    /// The history; calls still pending stay [`RawOutcome::Unknown`].
    pub(crate) fn finish(self) -> RawHistory {
        self.history
    }
}

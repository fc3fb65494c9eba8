//! Jepsen's event conventions, shared by the etcd log and the EDN readers.
//!
//! A Jepsen operation is an `:invoke` event followed by one completion of the same process:
//!
//! * `:ok`: it returned. If the `:invoke` value is `nil` (a read, a get, a dequeue), the `:ok`
//!   value is the result; otherwise the `:ok` value must repeat the `:invoke` value (a write, a
//!   put, an append) and the operation returns nothing, except `:cas`, which returns `true`
//!   (it swapped).
//! * `:fail`: it completed without taking effect. On `:cas` this is a result (`false`: the
//!   current value was not the expected one); on anything else the operation did nothing and
//!   constrains nothing.
//! * `:info`: its outcome is unknown: it may take effect at any point after its call, or never.
//!   The process is never reused.
//!
//! Events of the `:nemesis` process (fault injection) are not operations of the object and are
//! skipped.

use std::path::Path;

use super::raw::{Completion, HistoryBuilder};
use super::{FormatError, RawOutcome, Value};

/// The type of a Jepsen event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventType {
    Invoke,
    Ok,
    Fail,
    Info,
}

impl EventType {
    /// The type named by a keyword (without its colon), if it is one.
    pub(crate) fn from_keyword(keyword: &str) -> Option<Self> {
        match keyword {
            "invoke" => Some(EventType::Invoke),
            "ok" => Some(EventType::Ok),
            "fail" => Some(EventType::Fail),
            "info" => Some(EventType::Info),
            _ => None,
        }
    }
}

/// The name of the function whose `:ok`/`:fail` completion is its boolean result.
const CAS: &str = "cas";

/// One Jepsen event, with the columns of its fields for error messages.
pub(crate) struct JepsenEvent {
    pub process: u64,
    pub kind: EventType,
    pub function: String,
    pub key: Option<String>,
    pub value: Value,
    pub line: usize,
    /// Column of the value, if the format has columns.
    pub value_column: Option<usize>,
}

/// Adds one Jepsen event to the history being built.
pub(crate) fn add_event(file: &Path, builder: &mut HistoryBuilder<'_>, event: JepsenEvent) -> Result<(), FormatError> {
    let JepsenEvent {
        process,
        kind,
        function,
        key,
        value,
        line,
        value_column,
    } = event;
    let outcome = match kind {
        EventType::Invoke => return builder.call(process, function, key, value, line),
        EventType::Info => RawOutcome::Unknown,
        EventType::Fail if function == CAS => RawOutcome::Returned(Value::Bool(false)),
        EventType::Fail => RawOutcome::NotApplied,
        EventType::Ok => {
            let invoked = builder.pending_operation(process).map(|op| op.argument.clone());
            match invoked {
                // No pending call: `complete` reports it.
                None => RawOutcome::Returned(Value::Nil),
                Some(Value::Nil) => {
                    if function == CAS {
                        return Err(FormatError::syntax(
                            file,
                            line,
                            value_column,
                            "a `:cas` invoked with `[from to]`",
                            "a `:cas` invoked with nil",
                        ));
                    }
                    RawOutcome::Returned(value)
                }
                Some(argument) if argument == value => {
                    RawOutcome::Returned(if function == CAS { Value::Bool(true) } else { Value::Nil })
                }
                Some(argument) => {
                    return Err(FormatError::syntax(
                        file,
                        line,
                        value_column,
                        format!("the `:ok` value to repeat the `:invoke` value `{argument}`"),
                        format!("`{value}`"),
                    ))
                }
            }
        }
    };
    builder.complete(Completion {
        client: process,
        function,
        key,
        outcome,
        line,
        column: None,
    })
}

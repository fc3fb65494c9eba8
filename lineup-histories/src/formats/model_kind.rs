//! Giving a [`RawHistory`] the meaning of one of the built-in models, and checking it.

use std::fmt;
use std::path::Path;

use crate::models::{CounterModel, KvModel, QueueModel, RegisterModel, SetModel, StackModel};
use crate::{check, check_partitioned, partition_members, violation_section, CheckOptions, CheckReport, History, OpId};
use lineup_core::report_html::Section;

use super::model_ops::{convert, counter_op, kv_op, queue_op, register_op, set_op, stack_op};
use super::{FormatError, RawHistory, Value};

/// A built-in model, as named on the command line.
///
/// The operations each model reads from a history (`op` in JSON lines, `:f` in Jepsen
/// formats), with their argument (`value` of the call) and result (`value` of the return):
///
/// | model      | operation  | key      | argument        | result |
/// |------------|------------|----------|-----------------|--------|
/// | `register` | `read`     | none     | none            | the value (`nil` initially) |
/// |            | `write`    | none     | the value       | none |
/// |            | `cas`      | none     | `[from to]`     | `true` if it swapped, `false` if not (Jepsen: `:ok` / `:fail`) |
/// | `kv`       | `get`      | a string | none            | the value, a string (`""` for a missing key) |
/// |            | `put`      | a string | a string        | none |
/// |            | `append`   | a string | a string        | none |
/// | `set`      | `insert`   | none     | the element     | `true` if it was absent |
/// |            | `remove`   | none     | the element     | `true` if it was present |
/// |            | `contains` | none     | the element     | `true` if it is present |
/// | `queue`    | `enqueue`  | none     | the element     | none |
/// |            | `dequeue`  | none     | none            | the element, or `nil` if the queue was empty |
/// | `stack`    | `push`     | none     | the element     | none |
/// |            | `pop`      | none     | none            | the element, or `nil` if the stack was empty |
/// | `counter`  | `increment`| none     | none            | none |
/// |            | `add`      | none     | a whole number  | none |
/// |            | `get`      | none     | none            | the value, a whole number (0 initially) |
///
/// Elements and register values are any [`Value`] but `nil` (for queues and stacks, `nil` means
/// empty). `kv` and `set` are P-compositional (by key, by element) and are checked partitioned
/// unless partitioning is turned off; the others are checked whole.
///
/// ```
/// use lineup_histories::formats::{parse_str, Format, ModelKind};
/// use lineup_histories::CheckOptions;
/// let text = "INFO  jepsen.util - 0\t:invoke\t:write\t3\n\
///             INFO  jepsen.util - 0\t:ok\t:write\t3\n\
///             INFO  jepsen.util - 1\t:invoke\t:read\tnil\n\
///             INFO  jepsen.util - 1\t:ok\t:read\tnil\n";
/// let raw = parse_str(text, Format::JepsenLog, "stale.log").unwrap();
/// let checked = ModelKind::Register.check(&raw, "stale.log".as_ref(), &CheckOptions::default()).unwrap();
/// assert!(checked.report.outcome.is_violation()); // the read missed the completed write
/// assert_eq!(checked.call_lines, vec![1, 3]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelKind {
    /// A register with read, write and compare-and-set, initially `nil`
    /// ([`RegisterModel`]`<Value>`, initially [`Value::Nil`]).
    Register,
    /// A map from string keys to strings with get, put and append ([`KvModel`]).
    Kv,
    /// A set with insert, remove and contains ([`SetModel`]`<Value>`).
    Set,
    /// A FIFO queue with enqueue and dequeue ([`QueueModel`]`<Value>`).
    Queue,
    /// A stack with push and pop ([`StackModel`]`<Value>`).
    Stack,
    /// A counter with increment, add and get, initially 0 ([`CounterModel`]).
    Counter,
}

/// The verdict on a history file, with what is needed to explain it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedHistory {
    /// The verdict, its explanation and figures. Operation ids are indices into
    /// [`CheckedHistory::call_lines`].
    pub report: CheckReport,
    /// The number of operations checked (those that did not take effect are not counted).
    pub operations: usize,
    /// The line of each checked operation's call, by operation id.
    pub call_lines: Vec<usize>,
    /// For a violation: its section of an HTML report (the operations around the failure, one
    /// lane per client, the prefix and the operation that cannot be placed next highlighted).
    pub picture: Option<Section>,
}

impl ModelKind {
    /// Every built-in model.
    pub const ALL: [ModelKind; 6] = [
        ModelKind::Register,
        ModelKind::Kv,
        ModelKind::Set,
        ModelKind::Queue,
        ModelKind::Stack,
        ModelKind::Counter,
    ];

    /// The model's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Register => "register",
            ModelKind::Kv => "kv",
            ModelKind::Set => "set",
            ModelKind::Queue => "queue",
            ModelKind::Stack => "stack",
            ModelKind::Counter => "counter",
        }
    }

    /// The model of this name.
    pub fn from_name(name: &str) -> Option<ModelKind> {
        ModelKind::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Whether the model is P-compositional (checked partitioned unless turned off).
    pub fn is_partitioned(self) -> bool {
        matches!(self, ModelKind::Kv | ModelKind::Set)
    }

    /// Gives `raw` this model's meaning and checks it with `options` (partitioned if the model
    /// is P-compositional and `options.partition` is on). `file` names the source in errors:
    /// an operation the model does not have, or an argument or result of the wrong kind, is a
    /// [`FormatError::Syntax`] naming the line.
    pub fn check(self, raw: &RawHistory, file: &Path, options: &CheckOptions) -> Result<CheckedHistory, FormatError> {
        match self {
            ModelKind::Register => {
                let (history, call_lines) = convert(raw, file, self, register_op)?;
                let report = check(&RegisterModel::new(Value::Nil), &history, options);
                Ok(finish(report, &history, None, file, call_lines))
            }
            ModelKind::Kv => {
                let (history, call_lines) = convert(raw, file, self, kv_op)?;
                let report = check_keyed(&KvModel, &history, options);
                let members = failing_partition(&KvModel, &history, &report);
                Ok(finish(report, &history, members.as_deref(), file, call_lines))
            }
            ModelKind::Set => {
                let (history, call_lines) = convert(raw, file, self, set_op)?;
                let report = check_keyed(&SetModel::new(), &history, options);
                let members = failing_partition(&SetModel::new(), &history, &report);
                Ok(finish(report, &history, members.as_deref(), file, call_lines))
            }
            ModelKind::Queue => {
                let (history, call_lines) = convert(raw, file, self, queue_op)?;
                Ok(finish(
                    check(&QueueModel::new(), &history, options),
                    &history,
                    None,
                    file,
                    call_lines,
                ))
            }
            ModelKind::Stack => {
                let (history, call_lines) = convert(raw, file, self, stack_op)?;
                Ok(finish(
                    check(&StackModel::new(), &history, options),
                    &history,
                    None,
                    file,
                    call_lines,
                ))
            }
            ModelKind::Counter => {
                let (history, call_lines) = convert(raw, file, self, counter_op)?;
                Ok(finish(
                    check(&CounterModel::default(), &history, options),
                    &history,
                    None,
                    file,
                    call_lines,
                ))
            }
        }
    }
}

impl fmt::Display for ModelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn finish<I: fmt::Debug, O: fmt::Debug>(
    report: CheckReport,
    history: &History<I, O>,
    members: Option<&[OpId]>,
    file: &Path,
    call_lines: Vec<usize>,
) -> CheckedHistory {
    let picture = report.outcome.violation().map(|violation| {
        let heading = match &violation.partition {
            Some(key) => format!("{}: NOT linearizable, partition {key}", file.display()),
            None => format!("{}: NOT linearizable", file.display()),
        };
        violation_section(history, violation, heading, members, Some(&call_lines))
    });
    CheckedHistory {
        report,
        operations: call_lines.len(),
        call_lines,
        picture,
    }
}

/// The operations of the failing partition of a partitioned check, if it failed.
fn failing_partition<M: crate::PartitionedModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    report: &CheckReport,
) -> Option<Vec<OpId>> {
    let key = report.outcome.violation()?.partition.as_ref()?;
    Some(partition_members(model, history, key))
}

/// Checks a P-compositional model partitioned, or whole if `options.partition` is off.
fn check_keyed<M: crate::PartitionedModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    options: &CheckOptions,
) -> CheckReport {
    // Every operation of the built-in keyed models has exactly one key, so partitioning is never
    // refused; if it were, checking the history whole is the exact answer.
    check_partitioned(model, history, options).unwrap_or_else(|_| check(model, history, options))
}

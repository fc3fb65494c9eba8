//! Giving a [`RawHistory`] the meaning of one of the built-in models, and checking it.

use std::fmt;
use std::path::Path;

use crate::models::{
    CounterInput, CounterModel, CounterOutput, KvInput, KvModel, KvOutput, QueueInput, QueueModel, QueueOutput,
    RegisterInput, RegisterModel, RegisterOutput, SetInput, SetModel, StackInput, StackModel, StackOutput,
};
use crate::{check, check_partitioned, CheckOptions, CheckReport, History, Operation};

use super::{FormatError, RawHistory, RawOperation, RawOutcome, RawStep, Value};

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
                Ok(finish(
                    check(&RegisterModel::new(Value::Nil), &history, options),
                    call_lines,
                ))
            }
            ModelKind::Kv => {
                let (history, call_lines) = convert(raw, file, self, kv_op)?;
                Ok(finish(check_keyed(&KvModel, &history, options), call_lines))
            }
            ModelKind::Set => {
                let (history, call_lines) = convert(raw, file, self, set_op)?;
                Ok(finish(check_keyed(&SetModel::new(), &history, options), call_lines))
            }
            ModelKind::Queue => {
                let (history, call_lines) = convert(raw, file, self, queue_op)?;
                Ok(finish(check(&QueueModel::new(), &history, options), call_lines))
            }
            ModelKind::Stack => {
                let (history, call_lines) = convert(raw, file, self, stack_op)?;
                Ok(finish(check(&StackModel::new(), &history, options), call_lines))
            }
            ModelKind::Counter => {
                let (history, call_lines) = convert(raw, file, self, counter_op)?;
                Ok(finish(check(&CounterModel::default(), &history, options), call_lines))
            }
        }
    }
}

impl fmt::Display for ModelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn finish(report: CheckReport, call_lines: Vec<usize>) -> CheckedHistory {
    CheckedHistory {
        report,
        operations: call_lines.len(),
        call_lines,
    }
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

/// Why an operation does not fit a model: (expected, found), at the call or the return.
struct Mismatch {
    at_return: bool,
    expected: String,
    found: String,
}

fn at_call(expected: impl Into<String>, found: impl Into<String>) -> Mismatch {
    Mismatch {
        at_return: false,
        expected: expected.into(),
        found: found.into(),
    }
}

fn at_return(expected: impl Into<String>, found: &Value) -> Mismatch {
    Mismatch {
        at_return: true,
        expected: expected.into(),
        found: format!("`{found}`"),
    }
}

/// The input of an operation, and its output if it returned (`result` is `None` for an unknown
/// outcome).
type Converted<I, O> = Result<(I, Option<O>), Mismatch>;

fn convert<I, O>(
    raw: &RawHistory,
    file: &Path,
    model: ModelKind,
    op: fn(&RawOperation, Option<&Value>) -> Converted<I, O>,
) -> Result<(History<I, O>, Vec<usize>), FormatError> {
    // Time of a step = its index; an operation returns at the index of its return step.
    let mut return_time = vec![None; raw.operations.len()];
    for (time, step) in raw.steps.iter().enumerate() {
        if let RawStep::Return(index) = *step {
            return_time[index] = Some(time as u64);
        }
    }
    let mut operations = Vec::with_capacity(raw.operations.len());
    let mut call_lines = Vec::with_capacity(raw.operations.len());
    for (time, step) in raw.steps.iter().enumerate() {
        let RawStep::Call(index) = *step else { continue };
        let raw_op = &raw.operations[index];
        let result = match &raw_op.outcome {
            RawOutcome::NotApplied => continue,
            RawOutcome::Unknown => None,
            RawOutcome::Returned(value) => Some(value),
        };
        let (input, output) = op(raw_op, result).map_err(|m| {
            let line = if m.at_return {
                raw_op.return_line.unwrap_or(raw_op.call_line)
            } else {
                raw_op.call_line
            };
            FormatError::syntax(file, line, None, format!("{} (model `{model}`)", m.expected), m.found)
        })?;
        let call = time as u64;
        operations.push(match (output, return_time[index]) {
            (Some(output), Some(ret)) => Operation::returned(raw_op.client, input, output, call, ret),
            _ => Operation::unknown(raw_op.client, input, call),
        });
        call_lines.push(raw_op.call_line);
    }
    let history = History::from_operations(operations).map_err(|e| {
        // The readers already check what this checks; reaching here is a bug in them.
        FormatError::syntax(file, 1, None, "a well-formed history", e.to_string())
    })?;
    Ok((history, call_lines))
}

fn no_key(op: &RawOperation, model: &str) -> Result<(), Mismatch> {
    match &op.key {
        None => Ok(()),
        Some(key) => Err(at_call(
            format!("no key: the {model} model has none"),
            format!("key {key:?}"),
        )),
    }
}

fn no_argument(op: &RawOperation) -> Result<(), Mismatch> {
    match &op.argument {
        Value::Nil => Ok(()),
        other => Err(at_call(
            format!("no argument (nil) to `{}`", op.function),
            format!("`{other}`"),
        )),
    }
}

fn element(op: &RawOperation) -> Result<Value, Mismatch> {
    match &op.argument {
        Value::Nil => Err(at_call(
            format!("an element (not nil) as the argument of `{}`", op.function),
            "nil",
        )),
        v => Ok(v.clone()),
    }
}

fn unit<O>(op: &RawOperation, result: Option<&Value>, ok: O) -> Result<Option<O>, Mismatch> {
    match result {
        None => Ok(None),
        Some(Value::Nil) => Ok(Some(ok)),
        Some(other) => Err(at_return(format!("no result (nil) from `{}`", op.function), other)),
    }
}

fn boolean(op: &RawOperation, result: Option<&Value>) -> Result<Option<bool>, Mismatch> {
    match result {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(at_return(format!("a boolean result from `{}`", op.function), other)),
    }
}

fn unknown_op(op: &RawOperation, ops: &str) -> Mismatch {
    at_call(format!("one of the operations {ops}"), format!("`{}`", op.function))
}

fn register_op(op: &RawOperation, result: Option<&Value>) -> Converted<RegisterInput<Value>, RegisterOutput<Value>> {
    no_key(op, "register")?;
    match op.function.as_str() {
        "read" => {
            no_argument(op)?;
            Ok((RegisterInput::Read, result.map(|v| RegisterOutput::Value(v.clone()))))
        }
        "write" => Ok((
            RegisterInput::Write(op.argument.clone()),
            unit(op, result, RegisterOutput::Ok)?,
        )),
        "cas" => {
            let Value::List(pair) = &op.argument else {
                return Err(at_call(
                    "`[from to]` as the argument of `cas`",
                    format!("`{}`", op.argument),
                ));
            };
            let [from, to] = pair.as_slice() else {
                return Err(at_call(
                    "`[from to]` as the argument of `cas`",
                    format!("`{}`", op.argument),
                ));
            };
            let input = RegisterInput::Cas {
                from: from.clone(),
                to: to.clone(),
            };
            let output = boolean(op, result)?.map(|swapped| {
                if swapped {
                    RegisterOutput::Ok
                } else {
                    RegisterOutput::Fail
                }
            });
            Ok((input, output))
        }
        _ => Err(unknown_op(op, "`read`, `write`, `cas`")),
    }
}

fn string(value: &Value, what: &str) -> Result<String, Mismatch> {
    match value {
        Value::Str(s) => Ok(s.clone()),
        other => Err(at_call(format!("a string as {what}"), format!("`{other}`"))),
    }
}

fn kv_op(op: &RawOperation, result: Option<&Value>) -> Converted<KvInput, KvOutput> {
    let Some(key) = op.key.clone() else {
        return Err(at_call(
            format!("a key on `{}` (the kv model has keys)", op.function),
            "no key",
        ));
    };
    match op.function.as_str() {
        "get" => {
            no_argument(op)?;
            let output = match result {
                None => None,
                Some(Value::Str(s)) => Some(KvOutput::Value(s.clone())),
                Some(other) => return Err(at_return("a string result from `get`", other)),
            };
            Ok((KvInput::get(key), output))
        }
        "put" => {
            let value = string(&op.argument, "the argument of `put`")?;
            Ok((KvInput::put(key, value), unit(op, result, KvOutput::Ok)?))
        }
        "append" => {
            let value = string(&op.argument, "the argument of `append`")?;
            Ok((KvInput::append(key, value), unit(op, result, KvOutput::Ok)?))
        }
        _ => Err(unknown_op(op, "`get`, `put`, `append`")),
    }
}

fn set_op(op: &RawOperation, result: Option<&Value>) -> Converted<SetInput<Value>, bool> {
    no_key(op, "set")?;
    let input = match op.function.as_str() {
        "insert" => SetInput::Insert(element(op)?),
        "remove" => SetInput::Remove(element(op)?),
        "contains" => SetInput::Contains(element(op)?),
        _ => return Err(unknown_op(op, "`insert`, `remove`, `contains`")),
    };
    Ok((input, boolean(op, result)?))
}

fn queue_op(op: &RawOperation, result: Option<&Value>) -> Converted<QueueInput<Value>, QueueOutput<Value>> {
    no_key(op, "queue")?;
    match op.function.as_str() {
        "enqueue" => Ok((QueueInput::Enqueue(element(op)?), unit(op, result, QueueOutput::Ok)?)),
        "dequeue" => {
            no_argument(op)?;
            let output = result.map(|v| match v {
                Value::Nil => QueueOutput::Empty,
                v => QueueOutput::Dequeued(v.clone()),
            });
            Ok((QueueInput::Dequeue, output))
        }
        _ => Err(unknown_op(op, "`enqueue`, `dequeue`")),
    }
}

fn stack_op(op: &RawOperation, result: Option<&Value>) -> Converted<StackInput<Value>, StackOutput<Value>> {
    no_key(op, "stack")?;
    match op.function.as_str() {
        "push" => Ok((StackInput::Push(element(op)?), unit(op, result, StackOutput::Ok)?)),
        "pop" => {
            no_argument(op)?;
            let output = result.map(|v| match v {
                Value::Nil => StackOutput::Empty,
                v => StackOutput::Popped(v.clone()),
            });
            Ok((StackInput::Pop, output))
        }
        _ => Err(unknown_op(op, "`push`, `pop`")),
    }
}

fn counter_op(op: &RawOperation, result: Option<&Value>) -> Converted<CounterInput, CounterOutput> {
    no_key(op, "counter")?;
    match op.function.as_str() {
        "increment" => {
            no_argument(op)?;
            Ok((CounterInput::Increment, unit(op, result, CounterOutput::Ok)?))
        }
        "add" => match op.argument {
            Value::Int(n) => Ok((CounterInput::Add(n), unit(op, result, CounterOutput::Ok)?)),
            ref other => Err(at_call("a whole number as the argument of `add`", format!("`{other}`"))),
        },
        "get" => {
            no_argument(op)?;
            let output = match result {
                None => None,
                Some(Value::Int(n)) => Some(CounterOutput::Value(*n)),
                Some(other) => return Err(at_return("a whole-number result from `get`", other)),
            };
            Ok((CounterInput::Get, output))
        }
        _ => Err(unknown_op(op, "`increment`, `add`, `get`")),
    }
}

//! Reading the raw operations of a history as operations of a built-in model: each model's
//! operation names, arguments and results ([`super::ModelKind`] documents them), and the
//! conversion of a [`RawHistory`] into a [`History`] with the file line of each call.

use std::path::Path;

use super::{FormatError, ModelKind, RawHistory, RawOperation, RawOutcome, RawStep, Value};
use crate::models::{
    CounterInput, CounterOutput, KvInput, KvOutput, QueueInput, QueueOutput, RegisterInput, RegisterOutput, SetInput,
    StackInput, StackOutput,
};
use crate::{History, Operation};

/// Why an operation does not fit a model: (expected, found), at the call or the return.
pub(super) struct Mismatch {
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
pub(super) type Converted<I, O> = Result<(I, Option<O>), Mismatch>;

pub(super) fn convert<I, O>(
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

pub(super) fn register_op(
    op: &RawOperation,
    result: Option<&Value>,
) -> Converted<RegisterInput<Value>, RegisterOutput<Value>> {
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

pub(super) fn kv_op(op: &RawOperation, result: Option<&Value>) -> Converted<KvInput, KvOutput> {
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

pub(super) fn set_op(op: &RawOperation, result: Option<&Value>) -> Converted<SetInput<Value>, bool> {
    no_key(op, "set")?;
    let input = match op.function.as_str() {
        "insert" => SetInput::Insert(element(op)?),
        "remove" => SetInput::Remove(element(op)?),
        "contains" => SetInput::Contains(element(op)?),
        _ => return Err(unknown_op(op, "`insert`, `remove`, `contains`")),
    };
    Ok((input, boolean(op, result)?))
}

pub(super) fn queue_op(op: &RawOperation, result: Option<&Value>) -> Converted<QueueInput<Value>, QueueOutput<Value>> {
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

pub(super) fn stack_op(op: &RawOperation, result: Option<&Value>) -> Converted<StackInput<Value>, StackOutput<Value>> {
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

pub(super) fn counter_op(op: &RawOperation, result: Option<&Value>) -> Converted<CounterInput, CounterOutput> {
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

//! lineup's own history format: JSON lines, one event per line, in real-time order.
//!
//! ```text
//! {"client":0,"type":"call","op":"put","key":"x","value":"a"}
//! {"client":1,"type":"call","op":"get","key":"x"}
//! {"client":0,"type":"return","op":"put","key":"x"}
//! {"client":1,"type":"return","op":"get","key":"x","value":"a"}
//! {"client":2,"type":"call","op":"cas","value":[1,2]}
//! {"client":2,"type":"unknown"}
//! ```
//!
//! Every line is a JSON object with these fields, and no others:
//!
//! | field    | on            | meaning |
//! |----------|---------------|---------|
//! | `client` | every line    | the calling client (thread, process): a whole number. A client calls one operation at a time. |
//! | `type`   | every line    | `"call"`, `"return"` (the pending call of `client` returned) or `"unknown"` (its outcome is unknown: it may take effect at any point after its call, or never; the client is never used again). |
//! | `op`     | call; optional on return/unknown | the operation's name (`"write"`, `"cas"`, `"put"`, `"insert"`, ...). On a return or unknown line it must repeat the call's. |
//! | `key`    | optional      | the key the operation touches, a string (models with keys: `kv`). On a return or unknown line it must repeat the call's. |
//! | `value`  | optional on call and return | on a call, the argument (default `null`); on a return, the result (default `null`). JSON `null`, booleans, whole numbers, strings and arrays of them. Not on unknown lines. |
//!
//! A call with no return by the end of the file is pending: its outcome is unknown. Blank lines
//! are allowed. The operations and the results each model expects are listed in
//! `docs/history-formats.md` and on [`crate::formats`].

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::raw::{Completion, HistoryBuilder};
use super::{FormatError, RawHistory, RawOutcome, RawStep, Value};

#[derive(Deserialize, Serialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
enum LineType {
    Call,
    Return,
    Unknown,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Line {
    client: u64,
    #[serde(rename = "type")]
    kind: LineType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    op: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<serde_json::Value>,
}

/// The shape of a line, for error messages.
const SHAPE: &str =
    r#"a JSON object {"client": N, "type": "call"|"return"|"unknown", "op": "...", "key": "...", "value": ...}"#;

/// Reads lineup JSON lines. `file` only names the source in errors.
pub(crate) fn parse(text: &str, file: &Path) -> Result<RawHistory, FormatError> {
    let mut builder = HistoryBuilder::new(file);
    for (index, text_line) in text.lines().enumerate() {
        let number = index + 1;
        if text_line.trim().is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(text_line).map_err(|e| {
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message).to_string();
            FormatError::syntax(file, number, Some(e.column().max(1)), SHAPE, message)
        })?;
        let value_column = || text_line.find("\"value\"").map(|b| text_line[..b].chars().count() + 1);
        let value = match &line.value {
            None => Value::Nil,
            Some(v) => from_json(v).map_err(|found| {
                FormatError::syntax(
                    file,
                    number,
                    value_column(),
                    "a value: null, a boolean, a whole number, a string or an array of them",
                    found,
                )
            })?,
        };
        match line.kind {
            LineType::Call => {
                let Some(op) = line.op else {
                    return Err(FormatError::syntax(
                        file,
                        number,
                        None,
                        r#"an "op" field on a call"#,
                        "a call without it",
                    ));
                };
                builder.call(line.client, op, line.key, value, number)?;
            }
            LineType::Return | LineType::Unknown => {
                if line.kind == LineType::Unknown && line.value.is_some() {
                    return Err(FormatError::syntax(
                        file,
                        number,
                        value_column(),
                        r#"no "value" on an "unknown" line (its outcome is unknown)"#,
                        r#"a "value""#,
                    ));
                }
                // Without a pending call, `complete` explains what is wrong.
                let (function, key) = match builder.pending_operation(line.client) {
                    Some(pending) => (
                        line.op.unwrap_or_else(|| pending.function.clone()),
                        line.key.or_else(|| pending.key.clone()),
                    ),
                    None => (line.op.unwrap_or_default(), line.key),
                };
                let outcome = if line.kind == LineType::Return {
                    RawOutcome::Returned(value)
                } else {
                    RawOutcome::Unknown
                };
                builder.complete(Completion {
                    client: line.client,
                    function,
                    key,
                    outcome,
                    line: number,
                    column: None,
                })?;
            }
        }
    }
    Ok(builder.finish())
}

/// Whether `line` looks like a lineup JSON line (for format detection).
pub(crate) fn looks_like(line: &str) -> bool {
    line.trim_start()
        .strip_prefix('{')
        .is_some_and(|rest| rest.trim_start().starts_with('"'))
}

fn from_json(v: &serde_json::Value) -> Result<Value, String> {
    Ok(match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Int(n.as_i64().ok_or_else(|| format!("the number {n}"))?),
        serde_json::Value::String(s) => Value::Str(s.clone()),
        serde_json::Value::Array(items) => Value::List(items.iter().map(from_json).collect::<Result<_, _>>()?),
        serde_json::Value::Object(_) => return Err("an object".to_string()),
    })
}

fn to_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Nil => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Int(i) => serde_json::Value::from(*i),
        Value::Str(s) => serde_json::Value::String(s.clone()),
        // JSON has no keywords: written as a string with the colon.
        Value::Keyword(k) => serde_json::Value::String(format!(":{k}")),
        Value::List(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
    }
}

/// Writes `history` as lineup JSON lines (see [`Format::Jsonl`](super::Format::Jsonl) and `docs/history-formats.md`).
///
/// Operations that did not take effect ([`RawOutcome::NotApplied`]) are left out: they
/// constrain nothing. An operation with an unknown outcome gets an `unknown` line right after its
/// call. EDN keywords, which JSON lacks, are written as strings with their colon.
///
/// ```
/// use lineup_histories::formats::{parse_str, to_jsonl, Format};
/// let text = "{\"client\":0,\"type\":\"call\",\"op\":\"write\",\"value\":1}\n\
///             {\"client\":0,\"type\":\"return\",\"op\":\"write\"}\n";
/// let history = parse_str(text, Format::Jsonl, "h.jsonl").unwrap();
/// assert_eq!(to_jsonl(&history), text);
/// ```
pub fn to_jsonl(history: &RawHistory) -> String {
    let mut out = String::new();
    let mut write = |line: Line| {
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string(&line).expect("a history line serializes")
        );
    };
    for step in &history.steps {
        match *step {
            RawStep::Call(index) => {
                let op = &history.operations[index];
                if op.outcome == RawOutcome::NotApplied {
                    continue;
                }
                write(Line {
                    client: op.client,
                    kind: LineType::Call,
                    op: Some(op.function.clone()),
                    key: op.key.clone(),
                    value: (op.argument != Value::Nil).then(|| to_json(&op.argument)),
                });
                if op.outcome == RawOutcome::Unknown {
                    write(Line {
                        client: op.client,
                        kind: LineType::Unknown,
                        op: Some(op.function.clone()),
                        key: op.key.clone(),
                        value: None,
                    });
                }
            }
            RawStep::Return(index) => {
                let op = &history.operations[index];
                let RawOutcome::Returned(result) = &op.outcome else {
                    unreachable!("only returned operations have a return step")
                };
                write(Line {
                    client: op.client,
                    kind: LineType::Return,
                    op: Some(op.function.clone()),
                    key: op.key.clone(),
                    value: (*result != Value::Nil).then(|| to_json(result)),
                });
            }
        }
    }
    out
}

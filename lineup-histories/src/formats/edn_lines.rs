//! Jepsen histories as EDN maps, one per line, as in the key-value histories:
//! `{:process 0, :type :invoke, :f :get, :key "5", :value nil}`.
//!
//! * `:process` (a whole number, or `:nemesis`, whose events are skipped), `:type`
//!   (`:invoke`, `:ok`, `:fail`, `:info`) and `:f` (a keyword) are required;
//! * `:key` (a string or an integer, read as its decimal text) is optional: histories of models
//!   without keys leave it out;
//! * `:value` (any EDN value but a map) is optional and defaults to `nil`;
//! * other keys (Jepsen's `:time`, `:index`, `:error`, ...) are allowed and ignored;
//! * blank lines are allowed; anything else is an error naming its line, column and what was
//!   expected.
//!
//! The events follow Jepsen's conventions (see [`super::jepsen`]).

use std::path::Path;

use super::edn::{EdnReader, Form};
use super::jepsen::{add_event, EventType, JepsenEvent};
use super::raw::HistoryBuilder;
use super::{FormatError, RawHistory, Value};

/// Reads EDN history lines. `file` only names the source in errors.
pub(crate) fn parse(text: &str, file: &Path) -> Result<RawHistory, FormatError> {
    let mut builder = HistoryBuilder::new(file);
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(event) = parse_line(line, number, file)? {
            add_event(file, &mut builder, event)?;
        }
    }
    Ok(builder.finish())
}

/// Whether `line` looks like an EDN history line (for format detection).
pub(crate) fn looks_like(line: &str) -> bool {
    line.trim_start()
        .strip_prefix('{')
        .is_some_and(|rest| rest.trim_start().starts_with(':'))
}

fn parse_line(line: &str, number: usize, file: &Path) -> Result<Option<JepsenEvent>, FormatError> {
    let mut reader = EdnReader::new(line);
    reader.skip_space();
    let start = reader.column();
    let form = reader
        .read()
        .and_then(|form| reader.expect_end().map(|()| form))
        .map_err(|e| FormatError::syntax(file, number, Some(e.column), e.expected, e.found))?;
    let Form::Map(entries) = form else {
        return Err(FormatError::syntax(
            file,
            number,
            Some(start),
            "an EDN map `{:process P, :type T, :f F, ...}`",
            "another EDN value",
        ));
    };
    let field = |name: &str| entries.iter().find(|(k, _, _)| k == name).map(|(_, c, v)| (*c, v));
    let missing = |name: &str, what: &str| {
        FormatError::syntax(
            file,
            number,
            None,
            format!("a `:{name}` entry ({what})"),
            "a map without it",
        )
    };
    let wrong = |column: usize, name: &str, what: &str, found: &Form| {
        let found = match found {
            Form::Value(v) => format!("`{v}`"),
            Form::Map(_) => "a map".to_string(),
        };
        FormatError::syntax(file, number, Some(column), format!("{what} as `:{name}`"), found)
    };

    let (column, process) = field("process").ok_or_else(|| missing("process", "a process number"))?;
    let process = match process {
        Form::Value(Value::Int(p)) if *p >= 0 => *p as u64,
        Form::Value(Value::Keyword(k)) if k == "nemesis" => return Ok(None),
        other => return Err(wrong(column, "process", "a process number (or `:nemesis`)", other)),
    };
    let (column, kind) = field("type").ok_or_else(|| missing("type", ":invoke, :ok, :fail or :info"))?;
    let kind = match kind {
        Form::Value(Value::Keyword(k)) => EventType::from_keyword(k),
        _ => None,
    }
    .ok_or_else(|| wrong(column, "type", "`:invoke`, `:ok`, `:fail` or `:info`", kind))?;
    let (column, function) = field("f").ok_or_else(|| missing("f", "the function, a keyword such as :get"))?;
    let function = match function {
        Form::Value(Value::Keyword(k)) => k.clone(),
        other => return Err(wrong(column, "f", "a function keyword such as `:get`", other)),
    };
    let key = match field("key") {
        None => None,
        Some((_, Form::Value(Value::Str(s)))) => Some(s.clone()),
        Some((_, Form::Value(Value::Int(i)))) => Some(i.to_string()),
        Some((column, other)) => return Err(wrong(column, "key", "a string or an integer", other)),
    };
    let (value, value_column) = match field("value") {
        None => (Value::Nil, None),
        Some((column, Form::Value(v))) => (v.clone(), Some(column)),
        Some((column, other)) => return Err(wrong(column, "value", "a value that is not a map", other)),
    };
    Ok(Some(JepsenEvent {
        process,
        kind,
        function,
        key,
        value,
        line: number,
        value_column,
    }))
}

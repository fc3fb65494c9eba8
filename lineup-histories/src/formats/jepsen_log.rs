//! Jepsen's text log of operations, as in the etcd histories:
//! `INFO  jepsen.util - <process>\t<type>\t<f>\t<value>`.
//!
//! * the prefix is a log level, the logger `jepsen.util` and `-`;
//! * then four fields: the process number (or `:nemesis`, skipped), the event
//!   type (`:invoke`, `:ok`, `:fail`, `:info`), the function as a keyword (`:read`, `:write`,
//!   `:cas`, ...) and the value as EDN (`nil`, `3`, `[1 2]`, `:timed-out`), the rest of the
//!   line;
//! * words and fields are separated by any whitespace (Jepsen writes tabs after ` - `; porcupine
//!   reads any whitespace, and so does this reader);
//! * blank lines are allowed; any other line is an error naming its line, column and what was
//!   expected.
//!
//! The events follow Jepsen's conventions (see [`super::jepsen`]).

use std::path::Path;

use super::edn::EdnReader;
use super::error::excerpt;
use super::jepsen::{add_event, EventType, JepsenEvent};
use super::raw::HistoryBuilder;
use super::{FormatError, RawHistory};

/// The logger whose lines are operations.
const LOGGER: &str = "jepsen.util";

/// Reads a Jepsen log. `file` only names the source in errors.
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

/// Whether `line` looks like a Jepsen log line (for format detection).
pub(crate) fn looks_like(line: &str) -> bool {
    let mut rest = line;
    let words: Vec<&str> = (0..3).map_while(|_| next_word(&mut rest)).collect();
    matches!(words.as_slice(), [_, LOGGER, "-"])
}

/// The next whitespace-separated word of `rest` (a subslice of it), advancing `rest` past it.
fn next_word<'a>(rest: &mut &'a str) -> Option<&'a str> {
    let trimmed = rest.trim_start();
    if trimmed.is_empty() {
        *rest = trimmed;
        return None;
    }
    let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
    let (word, after) = trimmed.split_at(end);
    *rest = after;
    Some(word)
}

fn column_of(line: &str, part: &str) -> usize {
    // `part` is a subslice of `line`.
    let byte = part.as_ptr() as usize - line.as_ptr() as usize;
    line[..byte].chars().count() + 1
}

fn parse_line(line: &str, number: usize, file: &Path) -> Result<Option<JepsenEvent>, FormatError> {
    let err = |part: &str, expected: &str| {
        Err(FormatError::syntax(
            file,
            number,
            Some(column_of(line, part)),
            expected,
            excerpt(part),
        ))
    };
    // Fields are separated by any whitespace, as porcupine reads them
    // (`INFO\s+jepsen\.util\s+-\s+(\d+)\s+:invoke\s+...`); Jepsen writes tabs after ` - `.
    let mut rest = line;
    let level = next_word(&mut rest);
    let logger = next_word(&mut rest);
    let after_logger = rest;
    let dash = next_word(&mut rest);
    match (level, logger, dash) {
        (Some(_), Some(LOGGER), Some("-")) => {}
        (Some(_), Some(LOGGER), _) => {
            return err(
                after_logger.trim_start(),
                "` - ` after the logger: `INFO  jepsen.util - <process> <type> <f> <value>`",
            )
        }
        _ => {
            let prefix = line[..line.len() - after_logger.len()].trim_start();
            return err(prefix, "a log level and the logger `jepsen.util` before ` - `");
        }
    }
    let fields_start = rest.trim_start();
    let mut fields = [""; 3];
    for field in &mut fields {
        match next_word(&mut rest) {
            Some(word) => *field = word,
            None => {
                return err(
                    fields_start,
                    "four whitespace-separated fields after ` - `: process, type, function and value",
                )
            }
        }
    }
    let value_text = rest.trim();
    if value_text.is_empty() {
        return err(
            fields_start,
            "four whitespace-separated fields after ` - `: process, type, function and value",
        );
    }
    let [process_text, type_text, function_text] = fields;
    if process_text == ":nemesis" {
        return Ok(None);
    }
    let Ok(process) = process_text.parse::<u64>() else {
        return err(process_text, "a process number (or `:nemesis`)");
    };
    let Some(kind) = type_text.strip_prefix(':').and_then(EventType::from_keyword) else {
        return err(type_text, "an event type: `:invoke`, `:ok`, `:fail` or `:info`");
    };
    let function = match function_text.strip_prefix(':') {
        Some(name) if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || "-_?!*".contains(c)) => {
            name.to_string()
        }
        _ => return err(function_text, "a function keyword such as `:read`, `:write` or `:cas`"),
    };
    let value_column = column_of(line, value_text);
    let mut reader = EdnReader::new(value_text);
    let value = reader
        .read_value()
        .and_then(|v| reader.expect_end().map(|()| v))
        .map_err(|e| {
            FormatError::syntax(
                file,
                number,
                Some(value_column + e.column - 1),
                format!("{} in the value field", e.expected),
                e.found,
            )
        })?;
    Ok(Some(JepsenEvent {
        process,
        kind,
        function,
        key: None,
        value,
        line: number,
        value_column: Some(value_column),
    }))
}

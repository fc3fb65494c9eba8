//! Reading recorded histories from files: Jepsen logs (the etcd histories), EDN lines (the
//! key-value histories) and lineup's own JSON lines, and giving them a built-in model's meaning.
//!
//! Reading is two steps:
//!
//! 1. [`parse_str`] / [`parse_file`] read a file in one of the [`Format`]s into a
//!    format-independent [`RawHistory`]: operations of clients, each with a name, an optional
//!    key, an argument and an outcome ([`RawOutcome`]: returned a value, unknown, or not
//!    applied), and the calls and returns in real-time order. Malformed input is a
//!    [`FormatError`] naming the file, the line, the column where it helps, and what was
//!    expected.
//! 2. [`ModelKind::check`] gives each raw operation the meaning of one of the
//!    built-in models, and the result is checked by the library.
//!
//! The formats are documented on their readers and in `docs/history-formats.md`: Jepsen logs
//! ([`Format::JepsenLog`]), EDN lines ([`Format::Edn`]) and lineup JSON lines
//! ([`Format::Jsonl`], written by [`to_jsonl`]).

mod edn;
mod edn_lines;
mod error;
mod jepsen;
mod jepsen_log;
mod jsonl;
mod model_kind;
mod model_ops;
mod raw;
mod value;

use std::fmt;
use std::path::Path;

pub use error::FormatError;
pub use jsonl::to_jsonl;
pub use model_kind::{CheckedHistory, ModelKind};
pub use raw::{RawHistory, RawOperation, RawOutcome, RawStep};
pub use value::Value;

/// A history file format.
///
/// ```
/// use lineup_histories::formats::Format;
/// assert_eq!(Format::detect("{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}"), Some(Format::Edn));
/// assert_eq!(Format::detect("\n{\"client\":0,\"type\":\"call\",\"op\":\"read\"}"), Some(Format::Jsonl));
/// assert_eq!(Format::detect("INFO  jepsen.util - 0\t:invoke\t:read\tnil"), Some(Format::JepsenLog));
/// assert_eq!(Format::detect("hello"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Jepsen's text log: `INFO  jepsen.util - <process>\t<type>\t<f>\t<value>` (the etcd
    /// histories).
    JepsenLog,
    /// Jepsen events as EDN maps, one per line: `{:process 0, :type :invoke, :f :get, :key "5",
    /// :value nil}` (the key-value histories).
    Edn,
    /// lineup's JSON lines: `{"client":0,"type":"call","op":"put","key":"x","value":"a"}`.
    Jsonl,
}

impl Format {
    /// Tells the format from the first non-empty line of `text`, if it is one of the three.
    pub fn detect(text: &str) -> Option<Format> {
        let line = text.lines().find(|l| !l.trim().is_empty())?;
        if jsonl::looks_like(line) {
            Some(Format::Jsonl)
        } else if edn_lines::looks_like(line) {
            Some(Format::Edn)
        } else if jepsen_log::looks_like(line) {
            Some(Format::JepsenLog)
        } else {
            None
        }
    }

    /// The format a file's extension suggests: `.log` a Jepsen log, `.edn` EDN lines, `.jsonl`
    /// or `.json` JSON lines. Used only to name the format of an empty file with
    /// [`parse_file`] (any format reads it as the empty history).
    ///
    /// ```
    /// use lineup_histories::formats::Format;
    /// assert_eq!(Format::of_extension("etcd_000.log".as_ref()), Some(Format::JepsenLog));
    /// assert_eq!(Format::of_extension("c01-ok.txt".as_ref()), None);
    /// ```
    pub fn of_extension(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "log" => Some(Format::JepsenLog),
            "edn" => Some(Format::Edn),
            "jsonl" | "json" => Some(Format::Jsonl),
            _ => None,
        }
    }

    /// The format's short name: `etcd`, `edn` or `jsonl` (the command line's names).
    pub fn name(self) -> &'static str {
        match self {
            Format::JepsenLog => "etcd",
            Format::Edn => "edn",
            Format::Jsonl => "jsonl",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads `text` in `format`; `file` names the source in errors.
///
/// ```
/// use lineup_histories::formats::{parse_str, Format, RawOutcome, Value};
/// let text = "{:process 0, :type :invoke, :f :get, :key \"5\", :value nil}\n\
///             {:process 0, :type :ok, :f :get, :key \"5\", :value \"x\"}\n";
/// let history = parse_str(text, Format::Edn, "kv.edn").unwrap();
/// let op = &history.operations[0];
/// assert_eq!((op.function.as_str(), op.key.as_deref()), ("get", Some("5")));
/// assert_eq!(op.outcome, RawOutcome::Returned(Value::Str("x".into())));
///
/// let err = parse_str("{:process 0, :type :ok, :f :get, :key \"5\", :value \"x\"}", Format::Edn, "kv.edn");
/// let message = err.unwrap_err().to_string();
/// assert!(message.starts_with("kv.edn:1:"), "{message}");
/// assert!(message.contains("expected a completion only for a client with a call pending"), "{message}");
/// ```
pub fn parse_str(text: &str, format: Format, file: impl AsRef<Path>) -> Result<RawHistory, FormatError> {
    let file = file.as_ref();
    match format {
        Format::JepsenLog => jepsen_log::parse(text, file),
        Format::Edn => edn_lines::parse(text, file),
        Format::Jsonl => jsonl::parse(text, file),
    }
}

/// Reads the file at `path`, in `format` or, if `None`, in the format [`Format::detect`] tells.
/// Returns the history and the format it was read in.
///
/// An empty file (no non-blank line) is the empty history (linearizable) in every format; with
/// `None` its format is named after its extension ([`Format::of_extension`]), JSON lines if the
/// extension says nothing.
pub fn parse_file(path: impl AsRef<Path>, format: Option<Format>) -> Result<(RawHistory, Format), FormatError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| FormatError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    let format = match format {
        Some(format) => format,
        // An empty file (no non-blank line) is an empty history in every format: name the
        // format after the file's extension.
        None if text.trim().is_empty() => Format::of_extension(path).unwrap_or(Format::Jsonl),
        None => Format::detect(&text).ok_or_else(|| FormatError::UnknownFormat {
            file: path.to_path_buf(),
            found: text
                .lines()
                .find(|l| !l.trim().is_empty())
                .map_or_else(|| "an empty file".to_string(), error::excerpt),
        })?,
    };
    Ok((parse_str(&text, format, path)?, format))
}

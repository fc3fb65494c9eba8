//! Errors of reading a history file: where (file, line, column) and what was expected.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong while reading a history file.
///
/// Every variant names the file; syntax and content errors also name the line (from 1), the
/// column where it helps (from 1, in characters) and what was expected there.
///
/// ```
/// use lineup_histories::formats::{parse_str, Format};
/// let err = parse_str("{:process 0, :type :invoke}", Format::Edn, "h.edn").unwrap_err();
/// let message = err.to_string();
/// assert!(message.starts_with("h.edn:1:"), "{message}");
/// assert!(message.contains("expected"), "{message}");
/// ```
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The file could not be read.
    #[error("{}: cannot read the file: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not what the format allows.
    #[error("{}", Located { file, line: *line, column: *column, expected, found })]
    Syntax {
        /// The file.
        file: PathBuf,
        /// The line, from 1.
        line: usize,
        /// The column, from 1, in characters, where known.
        column: Option<usize>,
        /// What the format allows here.
        expected: String,
        /// What the line has instead.
        found: String,
    },
    /// The format of a file could not be told from its content (`--format auto`).
    #[error("{}: cannot tell the format: expected a Jepsen log line (`INFO  jepsen.util - 0\t:invoke\t:read\tnil`), an EDN map (`{{:process 0, ...}}`) or a JSON object (`{{\"client\": 0, ...}}`) on the first non-empty line, found {found}", file.display())]
    UnknownFormat {
        /// The file.
        file: PathBuf,
        /// The beginning of the first non-empty line, or "an empty file".
        found: String,
    },
}

impl FormatError {
    /// A syntax or content error at `line` (and `column`) of `file`.
    pub fn syntax(
        file: &Path,
        line: usize,
        column: Option<usize>,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Self {
        FormatError::Syntax {
            file: file.to_path_buf(),
            line,
            column,
            expected: expected.into(),
            found: found.into(),
        }
    }

    /// The line of the error, if it has one.
    pub fn line(&self) -> Option<usize> {
        match self {
            FormatError::Syntax { line, .. } => Some(*line),
            _ => None,
        }
    }
}

struct Located<'a> {
    file: &'a Path,
    line: usize,
    column: Option<usize>,
    expected: &'a str,
    found: &'a str,
}

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)?;
        if let Some(column) = self.column {
            write!(f, ":{column}")?;
        }
        write!(f, ": expected {}, found {}", self.expected, self.found)
    }
}

/// A short rendering of some input text for an error message: at most 40 characters, quoted.
pub(crate) fn excerpt(text: &str) -> String {
    if text.is_empty() {
        return "the end of the line".to_string();
    }
    let mut shown: String = text.chars().take(40).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    format!("`{shown}`")
}

//! Observation files (paper §4.2, Fig. 7): the [`ObservationSet`] phase 1 synthesized for one
//! test matrix, stored as XML so that phase 2 (or a person) can read it back.
//!
//! # Format
//!
//! ```xml
//! <?xml version="1.0" encoding="UTF-8"?>
//! <observationset>
//!   <matrix>
//!     <op id="1" thread="A" name="add">
//!       <arg>200</arg>
//!     </op>
//!     <op id="2" thread="A" name="add">
//!       <arg>400</arg>
//!     </op>
//!     <op id="3" thread="B" name="take"/>
//!     <op id="4" thread="B" name="take"/>
//!   </matrix>
//!   <observation>
//!     <thread id="A">1 2</thread>
//!     <thread id="B">3 4B</thread>
//!     <op id="1" name="add">
//!       <arg>200</arg>
//!       <result>()</result>
//!     </op>
//!     <op id="2" name="add">
//!       <arg>400</arg>
//!       <result>()</result>
//!     </op>
//!     <op id="3" name="take">
//!       <result>Some(200)</result>
//!     </op>
//!     <op id="4" name="take"/>
//!     <history>1[ ]1 3[ ]3 2[ ]2 4[ #</history>
//!   </observation>
//! </observationset>
//! ```
//!
//! * `<matrix>` comes first and lists every operation of the test, numbered `1, 2, 3, ...` in
//!   the matrix's order, with its thread (`main`, `A`, `B`, ...), its name and its arguments
//!   (`Debug` renderings), so that reading rebuilds the whole [`OpTable`], and
//!   [`check_matches`] can tell whether a file belongs to a test.
//! * Each `<observation>` is one group of the set (an [`Observation`](crate::spec::observation::Observation)):
//!   - one `<thread id="X">` per thread that has operations in the matrix, listing the
//!     operations that thread calls in this group, in order; the operation left blocking in a
//!     stuck group carries a `B` suffix (`4B`);
//!   - one `<op>` per operation called in the group, with its `<arg>`s and either a `<result>`
//!     ([`Response::Returned`](crate::model::response::Response::Returned)), a `<panicked>` ([`Response::Panicked`](crate::model::response::Response::Panicked)) or neither (the
//!     operation does not return);
//!   - one `<history>` per serial history of the group, in the paper's notation
//!     ([`History::notation`](crate::model::history::History::notation)); stuck histories end in `#`.
//! * Operation ids are the matrix's global numbers in every group (unlike the paper, which
//!   renumbers per group), so groups and files can be compared directly.
//! * `<arg>`, `<result>` and `<panicked>` hold their string as text, exactly (XML escapes
//!   included). A non-empty string made only of XML whitespace (space, tab, CR, LF) is written
//!   as a `value` attribute instead (`<arg value=" "/>`), because quick-xml's deserializer
//!   (like many XML tools) drops whitespace-only text as formatting; attribute values are kept
//!   exactly. CR is written `&#13;` so that end-of-line normalization keeps it. Other control
//!   characters (e.g. the escape of ANSI colours in a panic message) are written as they are:
//!   this module reads them back exactly, though strict XML 1.0 tools reject them.
//!
//! Reading checks everything it can and reports the first problem with the file name and the
//! line it is on (see [`ObservationFileError`]).

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::Path;

use crate::model::history::{OpInfo, OpTable};
use crate::spec::observation::ObservationSet;

// ---------------------------------------------------------------------------------------------
// Errors

/// Why an observation file cannot be written, read, or used for a test.
///
/// Every message starts with the file name (the path, or the `source` given to
/// [`from_xml_str`]); problems in the content add the 1-based line number, compiler style:
///
/// ```text
/// obs/queue.xml:12: history `1[ x]1`: token 2 `x]1` is not a call `i[`, a return `]i` or a final `#`
/// ```
#[derive(Debug, thiserror::Error)]
pub enum ObservationFileError {
    /// Reading, writing or renaming the file failed.
    #[error("{file}: cannot {action}: {error}")]
    Io {
        /// The file.
        file: String,
        /// What was being done, e.g. `read the file`.
        action: String,
        /// The underlying error.
        #[source]
        error: io::Error,
    },
    /// The content is not well-formed XML.
    #[error("{file}:{line}: malformed XML: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The line (from 1) where the problem is.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The content is well-formed XML but not a valid observation file.
    #[error("{file}:{line}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// The line (from 1) of the element that is wrong.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file is valid but was written for a different test (see [`check_matches`]).
    #[error("{file}: the observation file does not belong to this test: {message}")]
    Mismatch {
        /// The file.
        file: String,
        /// Which operation differs.
        message: String,
    },
}

impl ObservationFileError {
    /// The file the error is about.
    pub fn file(&self) -> &str {
        match self {
            Self::Io { file, .. }
            | Self::Syntax { file, .. }
            | Self::Invalid { file, .. }
            | Self::Mismatch { file, .. } => file,
        }
    }

    /// The line (from 1) the error is on, for problems in the content.
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::Syntax { line, .. } | Self::Invalid { line, .. } => Some(*line),
            Self::Io { .. } | Self::Mismatch { .. } => None,
        }
    }
}

mod builder;
mod scan;
mod schema;
mod writer;

use builder::Builder;
use scan::{scan, LineIndex};
use schema::SetXml;
pub use writer::{to_xml_string, write_observation_file};

// ---------------------------------------------------------------------------------------------
// Reading

/// Reads an observation file (see [`from_xml_str`]).
pub fn read_observation_file(path: &Path) -> Result<ObservationSet, ObservationFileError> {
    let file = path.display().to_string();
    let bytes = fs::read(path).map_err(|error| ObservationFileError::Io {
        file: file.clone(),
        action: "read the file".into(),
        error,
    })?;
    let xml = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
        ObservationFileError::Syntax {
            file: file.clone(),
            line,
            message: "the file is not valid UTF-8".into(),
        }
    })?;
    from_xml_str(&xml, &file)
}

/// Parses an observation file. `source` names it in error messages (usually its path).
///
/// Besides well-formedness, this checks that every element and attribute is one the format
/// has, that the `<matrix>` numbers its operations `1, 2, 3, ...` with valid thread names, and
/// that each `<observation>` is consistent: its operations are in the matrix with the same
/// invocation, every history is a well-formed serial history in the paper's notation, calls
/// exactly the group's operations in each thread's listed order, returns exactly those with a
/// result, and is stuck exactly on the operation marked `B`.
///
/// ```
/// use lineup_core::observation_file::{from_xml_str, to_xml_string};
/// use lineup_core::{op_table, History, InvocationLabel, ObservationSet, Response, TestMatrix};
///
/// // Thread A runs take(), which blocks on the empty queue.
/// let ops = op_table(&TestMatrix::new(vec![vec![0]]), &[InvocationLabel::new("take", vec![])]);
/// let mut set = ObservationSet::new(ops.clone());
/// set.insert(History::parse_notation(ops, "1[ #", vec![None]).unwrap());
///
/// let xml = to_xml_string(&set);
/// assert!(xml.contains(r#"<thread id="A">1B</thread>"#));
/// assert_eq!(from_xml_str(&xml, "take.xml").unwrap(), set);
///
/// let bad = xml.replace("1[ #", "1[ ]1");
/// assert_eq!(
///     from_xml_str(&bad, "take.xml").unwrap_err().to_string(),
///     "take.xml:9: history `1[ ]1`: op 1 returns, but <op id=\"1\"> has no <result> or <panicked>"
/// );
/// ```
pub fn from_xml_str(xml: &str, source: &str) -> Result<ObservationSet, ObservationFileError> {
    let xml = xml.strip_prefix('\u{feff}').unwrap_or(xml);
    let lines = LineIndex::new(xml);
    let root = scan(xml, source, &lines)?;
    let doc: SetXml = quick_xml::de::from_str(xml).map_err(|e| ObservationFileError::Invalid {
        file: source.to_string(),
        line: root.line,
        message: format!("cannot read the document: {e}"),
    })?;
    Builder { file: source }.build(&doc, &root)
}

// ---------------------------------------------------------------------------------------------
// Matching a file to a test

/// Checks that an observation set read from a file belongs to a test whose operation table is
/// `ops`: the same operations, in the same order, on the same threads, with the same
/// invocations. `source` names the file in the error, which says which operation differs:
///
/// ```text
/// obs/queue.xml: the observation file does not belong to this test: op 3 is `take()` on thread B
/// in the file but `try_take()` on thread B in the test
/// ```
pub fn check_matches(set: &ObservationSet, ops: &OpTable, source: &str) -> Result<(), ObservationFileError> {
    let file_ops = set.ops();
    let describe = |o: &OpInfo| format!("`{}` on thread {}", o.invocation, o.thread);
    let mut differences = Vec::new();
    for i in 0..file_ops.len().max(ops.len()) {
        let message = match (file_ops.get(i), ops.get(i)) {
            (Some(f), Some(t)) if f.thread != t.thread || f.invocation != t.invocation => {
                format!(
                    "op {} is {} in the file but {} in the test",
                    i + 1,
                    describe(f),
                    describe(t)
                )
            }
            (Some(f), None) => format!(
                "op {} is {} in the file but the test has only {} ops",
                i + 1,
                describe(f),
                ops.len()
            ),
            (None, Some(t)) => format!(
                "op {} is {} in the test but the file has only {} ops",
                i + 1,
                describe(t),
                file_ops.len()
            ),
            _ => continue,
        };
        differences.push(message);
    }
    match differences.len() {
        0 => Ok(()),
        k => {
            let mut message = differences.swap_remove(0);
            if k > 1 {
                let _ = write!(message, " (and {} more differing ops)", k - 1);
            }
            Err(ObservationFileError::Mismatch {
                file: source.to_string(),
                message,
            })
        }
    }
}

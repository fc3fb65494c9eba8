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
//! * Each `<observation>` is one group of the set (an [`Observation`]):
//!   - one `<thread id="X">` per thread that has operations in the matrix, listing the
//!     operations that thread calls in this group, in order; the operation left blocking in a
//!     stuck group carries a `B` suffix (`4B`);
//!   - one `<op>` per operation called in the group, with its `<arg>`s and either a `<result>`
//!     ([`Response::Returned`]), a `<panicked>` ([`Response::Panicked`]) or neither (the
//!     operation does not return);
//!   - one `<history>` per serial history of the group, in the paper's notation
//!     ([`History::notation`]); stuck histories end in `#`.
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

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use quick_xml::errors::IllFormedError;
use quick_xml::events::Event as XmlEvent;
use serde::{Deserialize, Serialize};

use crate::model::history::History;
use crate::model::history::HistoryError;
use crate::model::history::NotationError;
use crate::model::history::OpInfo;
use crate::model::history::OpTable;
use crate::model::invocation::InvocationLabel;
use crate::model::response::Response;
use crate::model::thread_id::ThreadId;
use crate::spec::observation::Observation;
use crate::spec::observation::ObservationKey;
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

// ---------------------------------------------------------------------------------------------
// The serde model of the document

#[derive(Serialize, Deserialize)]
#[serde(rename = "observationset")]
struct SetXml {
    matrix: MatrixXml,
    #[serde(rename = "observation", default)]
    observations: Vec<ObservationXml>,
}

#[derive(Serialize, Deserialize)]
struct MatrixXml {
    #[serde(rename = "op", default)]
    ops: Vec<MatrixOpXml>,
}

#[derive(Serialize, Deserialize)]
struct MatrixOpXml {
    #[serde(rename = "@id")]
    id: String,
    #[serde(rename = "@thread")]
    thread: String,
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "arg", default)]
    args: Vec<TextXml>,
}

#[derive(Serialize, Deserialize)]
struct ObservationXml {
    #[serde(rename = "thread", default)]
    threads: Vec<ThreadXml>,
    #[serde(rename = "op", default)]
    ops: Vec<GroupOpXml>,
    #[serde(rename = "history", default)]
    histories: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct ThreadXml {
    #[serde(rename = "@id")]
    id: String,
    #[serde(rename = "$text", default)]
    ops: String,
}

#[derive(Serialize, Deserialize)]
struct GroupOpXml {
    #[serde(rename = "@id")]
    id: String,
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "arg", default)]
    args: Vec<TextXml>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<TextXml>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    panicked: Option<TextXml>,
}

/// A string: as text, or as a `value` attribute when it is non-empty whitespace only (which the
/// deserializer would drop as formatting).
#[derive(Serialize, Deserialize)]
struct TextXml {
    #[serde(rename = "@value", default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(rename = "$text", default)]
    text: String,
}

fn is_xml_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

impl TextXml {
    fn of(s: &str) -> Self {
        if !s.is_empty() && s.chars().all(is_xml_space) {
            Self {
                value: Some(s.to_string()),
                text: String::new(),
            }
        } else {
            Self {
                value: None,
                text: s.to_string(),
            }
        }
    }

    fn get(&self) -> String {
        self.value.clone().unwrap_or_else(|| self.text.clone())
    }
}

// ---------------------------------------------------------------------------------------------
// Writing

/// Renders an observation set as an observation file (see the [module docs](self) for the
/// format). Writing never fails.
pub fn to_xml_string(set: &ObservationSet) -> String {
    let ops = set.ops();
    let threads: BTreeSet<ThreadId> = ops.iter().map(|o| o.thread).collect();
    let doc = SetXml {
        matrix: MatrixXml {
            ops: ops
                .iter()
                .map(|o| MatrixOpXml {
                    id: o.id.to_string(),
                    thread: o.thread.to_string(),
                    name: o.invocation.name.clone(),
                    args: args_xml(&o.invocation),
                })
                .collect(),
        },
        observations: set
            .observations()
            .iter()
            .map(|obs| observation_xml(obs, ops, &threads))
            .collect(),
    };
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let mut ser = quick_xml::se::Serializer::new(&mut out);
    ser.indent(' ', 2);
    doc.serialize(ser)
        .expect("an observation set always serializes: it has only strings and sequences");
    out.push('\n');
    out
}

fn args_xml(label: &InvocationLabel) -> Vec<TextXml> {
    label.args.iter().map(|a| TextXml::of(a)).collect()
}

/// One group: a `<thread>` for every thread of the matrix, an `<op>` per called op, and the
/// histories.
fn observation_xml(obs: &Observation, ops: &OpTable, threads: &BTreeSet<ThreadId>) -> ObservationXml {
    let key = &obs.key;
    let thread_xml = |t: ThreadId| {
        // Each thread's ops in the order the group's histories call them (program order).
        let called: Vec<usize> = match obs.histories.first() {
            Some(h) => h.thread_ops(t),
            None => key.called.iter().copied().filter(|&i| ops[i - 1].thread == t).collect(),
        };
        let tokens: Vec<String> = called
            .iter()
            .map(|&i| {
                if key.pending == Some(i) {
                    format!("{i}B")
                } else {
                    i.to_string()
                }
            })
            .collect();
        ThreadXml {
            id: t.to_string(),
            ops: tokens.join(" "),
        }
    };
    let op_xml = |i: usize| {
        let response = key.responses.get(i - 1).and_then(Option::as_ref);
        GroupOpXml {
            id: i.to_string(),
            name: ops[i - 1].invocation.name.clone(),
            args: args_xml(&ops[i - 1].invocation),
            result: match response {
                Some(Response::Returned(v)) => Some(TextXml::of(v)),
                _ => None,
            },
            panicked: match response {
                Some(Response::Panicked(m)) => Some(TextXml::of(m)),
                _ => None,
            },
        }
    };
    ObservationXml {
        threads: threads.iter().map(|&t| thread_xml(t)).collect(),
        ops: key.called.iter().map(|&i| op_xml(i)).collect(),
        histories: obs.histories.iter().map(History::notation).collect(),
    }
}

static TEMP_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Removes the temporary file unless the write completed.
struct TempGuard<'a> {
    path: &'a Path,
    armed: bool,
}

impl Drop for TempGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = fs::remove_file(self.path);
        }
    }
}

/// Writes an observation file atomically: the XML goes to a new temporary file in the same
/// directory, which is flushed to disk and then renamed over `path`. Missing parent directories
/// are created. Readers see the old file or the new one, never a partial one.
pub fn write_observation_file(path: &Path, set: &ObservationSet) -> Result<(), ObservationFileError> {
    let file = path.display().to_string();
    let io_err = |action: String| {
        let file = file.clone();
        move |error: io::Error| ObservationFileError::Io { file, action, error }
    };
    let name = path.file_name().ok_or_else(|| {
        io_err("write the file".into())(io::Error::new(io::ErrorKind::InvalidInput, "the path has no file name"))
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).map_err(io_err(format!("create the directory {}", dir.display())))?;

    let xml = to_xml_string(set);
    let (tmp_path, mut tmp) = create_temp_file(&dir, &name.to_string_lossy())
        .map_err(io_err(format!("create a temporary file in {}", dir.display())))?;
    let mut guard = TempGuard {
        path: &tmp_path,
        armed: true,
    };
    let tmp_action = format!("write the temporary file {}", tmp_path.display());
    tmp.write_all(xml.as_bytes()).map_err(io_err(tmp_action.clone()))?;
    tmp.sync_all().map_err(io_err(tmp_action))?;
    drop(tmp);
    fs::rename(&tmp_path, path).map_err(io_err(format!("rename {} to it", tmp_path.display())))?;
    guard.armed = false;
    sync_dir(&dir);
    Ok(())
}

fn create_temp_file(dir: &Path, name: &str) -> io::Result<(PathBuf, fs::File)> {
    let mut attempts = 0;
    loop {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 100 => attempts += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Makes the rename durable. Best effort: some file systems cannot sync a directory.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

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

/// Line numbers of byte offsets.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self { starts }
    }

    /// The line (from 1) holding byte `offset`.
    fn line(&self, offset: u64) -> usize {
        let offset = usize::try_from(offset).unwrap_or(usize::MAX);
        self.starts.partition_point(|&s| s <= offset)
    }
}

/// Where an element is: its name, line and child elements (pass 1 of reading).
struct Node {
    name: String,
    line: usize,
    children: Vec<Node>,
}

impl Node {
    /// The lines of the children named `name`, in document order: the `i`-th belongs to the
    /// `i`-th element serde put in the corresponding `Vec`.
    fn lines_of(&self, name: &str) -> Vec<usize> {
        self.children
            .iter()
            .filter(|c| c.name == name)
            .map(|c| c.line)
            .collect()
    }

    fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Set,
    Matrix,
    MatrixOp,
    Observation,
    Thread,
    GroupOp,
    Value,
    History,
}

const MANY: usize = usize::MAX;

/// A child element allowed inside another: name, kind, and how many times (in this order).
struct ChildSpec(&'static str, Kind, usize, usize);

struct Spec {
    required: &'static [&'static str],
    optional: &'static [&'static str],
    /// Allowed children in order; empty for text-only elements.
    children: &'static [ChildSpec],
    text: bool,
}

fn spec(kind: Kind) -> Spec {
    let (required, optional, children, text): (&[&str], &[&str], &[ChildSpec], bool) = match kind {
        Kind::Set => (
            &[],
            &[],
            &[
                ChildSpec("matrix", Kind::Matrix, 1, 1),
                ChildSpec("observation", Kind::Observation, 0, MANY),
            ],
            false,
        ),
        Kind::Matrix => (&[], &[], &[ChildSpec("op", Kind::MatrixOp, 0, MANY)], false),
        Kind::MatrixOp => (
            &["id", "thread", "name"],
            &[],
            &[ChildSpec("arg", Kind::Value, 0, MANY)],
            false,
        ),
        Kind::Observation => (
            &[],
            &[],
            &[
                ChildSpec("thread", Kind::Thread, 0, MANY),
                ChildSpec("op", Kind::GroupOp, 0, MANY),
                ChildSpec("history", Kind::History, 1, MANY),
            ],
            false,
        ),
        Kind::Thread => (&["id"], &[], &[], true),
        Kind::GroupOp => (
            &["id", "name"],
            &[],
            &[
                ChildSpec("arg", Kind::Value, 0, MANY),
                ChildSpec("result", Kind::Value, 0, 1),
                ChildSpec("panicked", Kind::Value, 0, 1),
            ],
            false,
        ),
        Kind::Value => (&[], &["value"], &[], true),
        Kind::History => (&[], &[], &[], true),
    };
    Spec {
        required,
        optional,
        children,
        text,
    }
}

/// An element being read.
struct Open {
    node: Node,
    kind: Kind,
    /// Index into the spec's children of the child kind last seen, and how many of it.
    pos: usize,
    count: usize,
    has_value_attr: bool,
    text_nonempty: bool,
    text_nonblank: bool,
}

fn one_of(names: &[&str], wrap: impl Fn(&str) -> String) -> String {
    let names: Vec<String> = names.iter().map(|n| wrap(n)).collect();
    match names.len() {
        0 => "none".to_string(),
        1 => names[0].clone(),
        n => format!("{} or {}", names[..n - 1].join(", "), names[n - 1]),
    }
}

fn snippet(text: &str) -> String {
    let t = text.trim();
    if t.chars().count() > 40 {
        format!("{}...", t.chars().take(40).collect::<String>())
    } else {
        t.to_string()
    }
}

/// Pass 1: checks well-formedness and the element structure with line numbers, and returns the
/// tree of element positions.
fn scan(xml: &str, file: &str, lines: &LineIndex) -> Result<Node, ObservationFileError> {
    let syntax = |line: usize, message: String| ObservationFileError::Syntax {
        file: file.to_string(),
        line,
        message,
    };
    let invalid = |line: usize, message: String| ObservationFileError::Invalid {
        file: file.to_string(),
        line,
        message,
    };

    let mut reader = quick_xml::Reader::from_str(xml);
    let mut stack: Vec<Open> = Vec::new();
    let mut root: Option<Node> = None;
    loop {
        let start = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            let mut message = e.to_string();
            if let (quick_xml::Error::IllFormed(IllFormedError::MismatchedEndTag { .. }), Some(open)) =
                (&e, stack.last())
            {
                let _ = write!(message, " (<{}> was opened at line {})", open.node.name, open.node.line);
            }
            syntax(lines.line(reader.error_position()), message)
        })?;
        let line = lines.line(start);
        let (e, empty) = match event {
            XmlEvent::Start(e) => (e, false),
            XmlEvent::Empty(e) => (e, true),
            XmlEvent::End(_) => {
                let open = stack.pop().expect("the reader checks that end tags match start tags");
                let node = close(open, &invalid)?;
                match stack.last_mut() {
                    Some(parent) => parent.node.children.push(node),
                    None => root = Some(node),
                }
                continue;
            }
            XmlEvent::Text(t) => {
                let raw: &str = &t;
                if let Some(i) = raw.find(|c: char| !is_xml_space(c)) {
                    let at = lines.line(start + i as u64);
                    text_in(stack.last_mut(), &raw[i..], at, &invalid)?;
                } else if let Some(open) = stack.last_mut() {
                    open.text_nonempty |= !raw.is_empty();
                }
                continue;
            }
            XmlEvent::CData(t) => {
                let raw: &str = &t;
                if raw.chars().any(|c| !is_xml_space(c)) {
                    text_in(stack.last_mut(), raw, line, &invalid)?;
                } else if let Some(open) = stack.last_mut() {
                    open.text_nonempty |= !raw.is_empty();
                }
                continue;
            }
            XmlEvent::GeneralRef(r) => {
                let blank = match r.resolve_char_ref() {
                    Ok(Some(c)) => is_xml_space(c),
                    Ok(None) if matches!(&*r, "lt" | "gt" | "amp" | "apos" | "quot") => false,
                    Ok(None) => return Err(syntax(line, format!("unknown entity `&{};`", &*r))),
                    Err(err) => return Err(syntax(line, format!("bad character reference `&{};`: {err}", &*r))),
                };
                if blank {
                    if let Some(open) = stack.last_mut() {
                        open.text_nonempty = true;
                    }
                } else {
                    text_in(stack.last_mut(), &format!("&{};", &*r), line, &invalid)?;
                }
                continue;
            }
            XmlEvent::DocType(_) => {
                return Err(invalid(
                    line,
                    "a <!DOCTYPE> is not allowed in an observation file".into(),
                ));
            }
            XmlEvent::Decl(_) | XmlEvent::PI(_) | XmlEvent::Comment(_) => continue,
            XmlEvent::Eof => break,
        };

        // A start tag.
        let name = e.name().as_ref().to_string();
        let kind = match stack.last_mut() {
            None => {
                if root.is_some() {
                    return Err(invalid(
                        line,
                        format!("<{name}> after the end of <observationset>: a file has one root element"),
                    ));
                }
                if name != "observationset" {
                    return Err(invalid(
                        line,
                        format!("the root element is <{name}>, but an observation file has <observationset>"),
                    ));
                }
                Kind::Set
            }
            Some(parent) => child_kind(parent, &name, line, &invalid)?,
        };
        let spec = spec(kind);
        let mut seen = Vec::new();
        let mut has_value_attr = false;
        for attr in e.attributes() {
            let attr = attr.map_err(|err| syntax(line, format!("in the attributes of <{name}>: {err}")))?;
            let key = attr.key.as_ref().to_string();
            if !spec.required.contains(&key.as_str()) && !spec.optional.contains(&key.as_str()) {
                let expected: Vec<&str> = spec.required.iter().chain(spec.optional).copied().collect();
                let expected = if expected.is_empty() {
                    "it has none".to_string()
                } else {
                    format!("expected {}", one_of(&expected, |a| format!("`{a}`")))
                };
                return Err(invalid(
                    line,
                    format!("unknown attribute `{key}` on <{name}> ({expected})"),
                ));
            }
            attr.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|err| syntax(line, format!("in attribute `{key}` of <{name}>: {err}")))?;
            has_value_attr |= key == "value";
            seen.push(key);
        }
        if let Some(missing) = spec.required.iter().find(|r| !seen.iter().any(|s| s == *r)) {
            return Err(invalid(line, format!("<{name}> has no `{missing}` attribute")));
        }
        let open = Open {
            node: Node {
                name,
                line,
                children: Vec::new(),
            },
            kind,
            pos: 0,
            count: 0,
            has_value_attr,
            text_nonempty: false,
            text_nonblank: false,
        };
        if empty {
            let node = close(open, &invalid)?;
            match stack.last_mut() {
                Some(parent) => parent.node.children.push(node),
                None => root = Some(node),
            }
        } else {
            stack.push(open);
        }
    }
    if let Some(open) = stack.last() {
        return Err(syntax(
            open.node.line,
            format!("<{}> is never closed: the file ends first", open.node.name),
        ));
    }
    root.ok_or_else(|| {
        invalid(
            lines.starts.len(),
            "no <observationset> element: the file is empty".into(),
        )
    })
}

/// Text inside the current element (or outside the root if there is none).
fn text_in(
    open: Option<&mut Open>,
    text: &str,
    line: usize,
    invalid: &impl Fn(usize, String) -> ObservationFileError,
) -> Result<(), ObservationFileError> {
    match open {
        None => Err(invalid(
            line,
            format!("text `{}` outside the <observationset> element", snippet(text)),
        )),
        Some(open) if !spec(open.kind).text => Err(invalid(
            line,
            format!("unexpected text `{}` inside <{}>", snippet(text), open.node.name),
        )),
        Some(open) => {
            open.text_nonempty = true;
            open.text_nonblank = true;
            Ok(())
        }
    }
}

/// The kind of a child element `name` of `parent`, checking the parent's content model.
fn child_kind(
    parent: &mut Open,
    name: &str,
    line: usize,
    invalid: &impl Fn(usize, String) -> ObservationFileError,
) -> Result<Kind, ObservationFileError> {
    let spec = spec(parent.kind);
    let pname = &parent.node.name;
    if spec.text {
        return Err(invalid(
            line,
            format!("unexpected element <{name}> inside <{pname}>, which holds text only"),
        ));
    }
    let children = spec.children;
    let Some(j) = children.iter().position(|c| c.0 == name) else {
        let names: Vec<&str> = children.iter().map(|c| c.0).collect();
        return Err(invalid(
            line,
            format!(
                "unknown element <{name}> inside <{pname}> (expected {})",
                one_of(&names, |n| format!("<{n}>"))
            ),
        ));
    };
    if j < parent.pos {
        return Err(invalid(
            line,
            format!(
                "<{name}> must come before <{}> inside <{pname}>",
                children[parent.pos].0
            ),
        ));
    }
    if j > parent.pos {
        for (k, c) in children.iter().enumerate().take(j).skip(parent.pos) {
            let count = if k == parent.pos { parent.count } else { 0 };
            if count < c.2 {
                return Err(invalid(line, format!("<{pname}> needs a <{}> before <{name}>", c.0)));
            }
        }
        parent.pos = j;
        parent.count = 0;
    }
    parent.count += 1;
    if parent.count > children[j].3 {
        return Err(invalid(line, format!("<{pname}> has more than one <{name}>")));
    }
    Ok(children[j].1)
}

/// Checks an element at its end tag and returns its node.
fn close(open: Open, invalid: &impl Fn(usize, String) -> ObservationFileError) -> Result<Node, ObservationFileError> {
    let name = &open.node.name;
    let line = open.node.line;
    let spec = spec(open.kind);
    for (k, c) in spec.children.iter().enumerate().skip(open.pos) {
        let count = if k == open.pos { open.count } else { 0 };
        if count < c.2 {
            return Err(invalid(line, format!("<{name}> has no <{}>", c.0)));
        }
    }
    if open.kind == Kind::Value {
        if open.has_value_attr && open.text_nonblank {
            return Err(invalid(
                line,
                format!("<{name}> has both a `value` attribute and text: use one of them"),
            ));
        }
        if !open.has_value_attr && open.text_nonempty && !open.text_nonblank {
            return Err(invalid(
                line,
                format!(
                    "<{name}> holds only whitespace, which XML readers drop: \
                     write a whitespace-only value as <{name} value=\"...\"/>"
                ),
            ));
        }
    }
    Ok(open.node)
}

/// Pass 2: turns the deserialized document into an observation set, checking its meaning.
struct Builder<'a> {
    file: &'a str,
}

impl Builder<'_> {
    fn err(&self, line: usize, message: String) -> ObservationFileError {
        ObservationFileError::Invalid {
            file: self.file.to_string(),
            line,
            message,
        }
    }

    fn op_id(&self, line: usize, text: &str, what: &str) -> Result<usize, ObservationFileError> {
        match text.trim().parse::<usize>() {
            Ok(id) if id > 0 => Ok(id),
            _ => Err(self.err(
                line,
                format!("{what} `{text}` is not an op id (expected a number from 1)"),
            )),
        }
    }

    fn thread(&self, line: usize, text: &str, what: &str) -> Result<ThreadId, ObservationFileError> {
        text.parse::<ThreadId>()
            .map_err(|e| self.err(line, format!("bad thread name in {what}: {e}")))
    }

    fn not_in_matrix(&self, line: usize, id: usize, n: usize) -> ObservationFileError {
        self.err(line, not_in_matrix(id, n))
    }

    fn build(&self, doc: &SetXml, root: &Node) -> Result<ObservationSet, ObservationFileError> {
        let matrix_node = root.child("matrix").expect("pass 1 checked that there is a <matrix>");
        let op_lines = matrix_node.lines_of("op");
        let mut ops = Vec::with_capacity(doc.matrix.ops.len());
        for (j, (op, &line)) in doc.matrix.ops.iter().zip(&op_lines).enumerate() {
            let id = self.op_id(line, &op.id, "<op id>")?;
            if id != j + 1 {
                return Err(self.err(
                    line,
                    format!(
                        "the <matrix> must number its ops 1, 2, 3, ... in order: found id=\"{id}\" where {} belongs",
                        j + 1
                    ),
                ));
            }
            let thread = self.thread(line, &op.thread, &format!("<op id=\"{id}\">"))?;
            ops.push(OpInfo {
                id,
                thread,
                invocation: InvocationLabel::new(op.name.clone(), op.args.iter().map(TextXml::get).collect()),
            });
        }
        let ops: OpTable = ops.into();
        let threads: BTreeSet<ThreadId> = ops.iter().map(|o| o.thread).collect();

        let mut set = ObservationSet::new(ops.clone());
        let mut seen: HashMap<ObservationKey, usize> = HashMap::new();
        let obs_nodes = root.children.iter().filter(|c| c.name == "observation");
        for (obs, node) in doc.observations.iter().zip(obs_nodes) {
            let group = self.group(obs, node, &ops, &threads)?;
            if let Some(&first) = seen.get(&group.key) {
                return Err(self.err(
                    node.line,
                    format!(
                        "this <observation> has the same ops and results as the one at line {first}: \
                         merge their histories"
                    ),
                ));
            }
            seen.insert(group.key.clone(), node.line);
            for (h, line) in group.histories {
                if !set.insert(h.clone()) {
                    return Err(self.err(
                        line,
                        format!("history `{}` appears twice in this <observation>", h.notation()),
                    ));
                }
            }
        }
        Ok(set)
    }

    /// Reads one `<observation>`: its key and its histories with their lines.
    fn group(
        &self,
        obs: &ObservationXml,
        node: &Node,
        ops: &OpTable,
        threads: &BTreeSet<ThreadId>,
    ) -> Result<Group, ObservationFileError> {
        let n = ops.len();

        // <op> elements: which ops the group calls, and their responses.
        let mut responses: Vec<Option<Response>> = vec![None; n];
        let mut called: BTreeMap<usize, usize> = BTreeMap::new(); // op -> line
        for (op, line) in obs.ops.iter().zip(node.lines_of("op")) {
            let id = self.op_id(line, &op.id, "<op id>")?;
            if id > n {
                return Err(self.not_in_matrix(line, id, n));
            }
            if let Some(first) = called.insert(id, line) {
                return Err(self.err(
                    line,
                    format!("op {id} is listed twice in this <observation> (also at line {first})"),
                ));
            }
            let here = InvocationLabel::new(op.name.clone(), op.args.iter().map(TextXml::get).collect());
            let there = &ops[id - 1].invocation;
            if &here != there {
                return Err(self.err(line, format!("op {id} is `{here}` here but `{there}` in the <matrix>")));
            }
            responses[id - 1] = match (&op.result, &op.panicked) {
                (Some(_), Some(_)) => {
                    return Err(self.err(
                        line,
                        format!("op {id} has both a <result> and a <panicked>: an op either returns or panics"),
                    ))
                }
                (Some(r), None) => Some(Response::Returned(r.get())),
                (None, Some(p)) => Some(Response::Panicked(p.get())),
                (None, None) => None,
            };
        }

        // <thread> elements: each thread's ops in order, and the blocking op.
        let mut lists: BTreeMap<ThreadId, Vec<usize>> = BTreeMap::new();
        let mut blocking: Option<usize> = None;
        let mut listed: BTreeSet<usize> = BTreeSet::new();
        for (th, line) in obs.threads.iter().zip(node.lines_of("thread")) {
            let t = self.thread(line, &th.id, "<thread id>")?;
            if !threads.contains(&t) {
                return Err(self.err(line, format!("thread {t} has no ops in the matrix")));
            }
            if lists.contains_key(&t) {
                return Err(self.err(line, format!("thread {t} is listed twice in this <observation>")));
            }
            let mut list = Vec::new();
            for token in th.ops.split_whitespace() {
                let (number, is_blocking) = match token.strip_suffix('B') {
                    Some(number) => (number, true),
                    None => (token, false),
                };
                let id = match number.parse::<usize>() {
                    Ok(id) if id > 0 => id,
                    _ => {
                        return Err(self.err(
                            line,
                            format!(
                                "<thread id=\"{t}\">: `{token}` is not an op id \
                                 (expected a number from 1, with a B suffix on the blocking op)"
                            ),
                        ))
                    }
                };
                if id > n {
                    return Err(self.not_in_matrix(line, id, n));
                }
                let owner = ops[id - 1].thread;
                if owner != t {
                    return Err(self.err(
                        line,
                        format!("<thread id=\"{t}\"> lists op {id}, which runs on thread {owner}"),
                    ));
                }
                if !called.contains_key(&id) {
                    return Err(self.err(
                        line,
                        format!("<thread id=\"{t}\"> lists op {id}, but this <observation> has no <op id=\"{id}\">"),
                    ));
                }
                if !listed.insert(id) {
                    return Err(self.err(line, format!("<thread id=\"{t}\"> lists op {id} twice")));
                }
                if is_blocking {
                    if let Some(b) = blocking {
                        return Err(self.err(
                            line,
                            format!("ops {b} and {id} are both marked blocking: a stuck group has one blocking op"),
                        ));
                    }
                    blocking = Some(id);
                }
                list.push(id);
            }
            lists.insert(t, list);
        }
        if let Some(t) = threads.iter().find(|t| !lists.contains_key(t)) {
            return Err(self.err(node.line, format!("this <observation> has no <thread id=\"{t}\">")));
        }
        if let Some((&id, &line)) = called.iter().find(|(id, _)| !listed.contains(id)) {
            let t = ops[id - 1].thread;
            return Err(self.err(line, format!("op {id} is not listed in <thread id=\"{t}\">")));
        }

        let key = ObservationKey {
            responses: responses.clone(),
            pending: blocking,
            called: called.keys().copied().collect(),
        };

        // <history> elements.
        let mut histories = Vec::with_capacity(obs.histories.len());
        for (text, line) in obs.histories.iter().zip(node.lines_of("history")) {
            let notation = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let err = |message: String| self.err(line, format!("history `{notation}`: {message}"));
            let h = History::parse_notation(ops.clone(), &notation, responses.clone()).map_err(|e| match e {
                NotationError::History(HistoryError::UnknownOp { op, .. }) => err(not_in_matrix(op, n)),
                NotationError::History(HistoryError::OutOfOrder { event, op, problem, .. }) => {
                    err(format!("`{event}`: op {op} {problem}"))
                }
                NotationError::History(HistoryError::NotWellFormed {
                    thread, op, pending, ..
                }) => err(format!(
                    "thread {thread} calls op {op} while its op {pending} is still pending"
                )),
                NotationError::History(HistoryError::Response { op, .. }) if !called.contains_key(&op) => err(format!(
                    "op {op} returns, but this <observation> has no <op id=\"{op}\">"
                )),
                NotationError::History(HistoryError::Response { op, .. }) if responses[op - 1].is_none() => err(
                    format!("op {op} returns, but <op id=\"{op}\"> has no <result> or <panicked>"),
                ),
                NotationError::History(HistoryError::Response { op, .. }) => err(format!(
                    "op {op} does not return, but <op id=\"{op}\"> has a <result> or <panicked>"
                )),
                other => err(other.to_string()),
            })?;
            if !h.is_serial() {
                let why = "it is not serial (each call must be followed by its return): an observation file holds \
                           serial histories only";
                return Err(err(why.into()));
            }
            let mut h_called = h.called_ops();
            h_called.sort_unstable();
            if let Some(op) = h_called.iter().find(|op| !called.contains_key(op)) {
                return Err(err(format!(
                    "op {op} is called, but this <observation> has no <op id=\"{op}\">"
                )));
            }
            if let Some(op) = called.keys().find(|op| !h_called.contains(op)) {
                return Err(err(format!("op {op} is never called, but this <observation> lists it")));
            }
            for (&t, list) in &lists {
                let order = h.thread_ops(t);
                if &order != list {
                    return Err(err(format!(
                        "thread {t} calls its ops in the order {}, but <thread id=\"{t}\"> lists {}",
                        join(&order),
                        join(list)
                    )));
                }
            }
            let pending = if h.is_stuck() {
                h.pending_ops().first().copied()
            } else {
                None
            };
            match (blocking, pending) {
                (Some(b), _) if !h.is_stuck() => {
                    return Err(err(format!(
                        "it is not stuck (no final #), but op {b} is marked blocking ({b}B)"
                    )))
                }
                (Some(b), Some(p)) if b != p => {
                    return Err(err(format!("op {p} blocks, but op {b} is marked blocking ({b}B)")))
                }
                (Some(b), None) => {
                    return Err(err(format!(
                        "it leaves no op pending, but op {b} is marked blocking ({b}B)"
                    )))
                }
                (None, Some(p)) => {
                    return Err(err(format!(
                        "it is stuck on op {p}, but no op is marked blocking (write {p}B in its <thread>)"
                    )))
                }
                _ => {}
            }
            if ObservationKey::of(&h) != key {
                return Err(err("it does not match the ops and results of its <observation>".into()));
            }
            histories.push((h, line));
        }
        Ok(Group { key, histories })
    }
}

fn not_in_matrix(id: usize, n: usize) -> String {
    let ops = match n {
        0 => "has no ops".to_string(),
        1 => "has only op 1".to_string(),
        n => format!("has ops 1 to {n}"),
    };
    format!("op {id} is not in the matrix, which {ops}")
}

struct Group {
    key: ObservationKey,
    histories: Vec<(History, usize)>,
}

fn join(ops: &[usize]) -> String {
    if ops.is_empty() {
        return "(none)".into();
    }
    let mut s = String::new();
    for (i, op) in ops.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{op}");
    }
    s
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

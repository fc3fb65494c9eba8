//! Reading, pass 1: the element structure with line numbers, checked against the format
//! (elements, attributes, their counts, whitespace-only text).

use std::fmt::Write as _;

use quick_xml::errors::IllFormedError;
use quick_xml::events::Event as XmlEvent;

use super::schema::is_xml_space;
use super::ObservationFileError;

/// Line numbers of byte offsets.
pub(super) struct LineIndex {
    pub(super) starts: Vec<usize>,
}

impl LineIndex {
    pub(super) fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self { starts }
    }

    /// The line (from 1) holding byte `offset`.
    pub(super) fn line(&self, offset: u64) -> usize {
        let offset = usize::try_from(offset).unwrap_or(usize::MAX);
        self.starts.partition_point(|&s| s <= offset)
    }
}

/// Where an element is: its name, line and child elements (pass 1 of reading).
pub(super) struct Node {
    pub(super) name: String,
    pub(super) line: usize,
    pub(super) children: Vec<Node>,
}

impl Node {
    /// The lines of the children named `name`, in document order: the `i`-th belongs to the
    /// `i`-th element serde put in the corresponding `Vec`.
    pub(super) fn lines_of(&self, name: &str) -> Vec<usize> {
        self.children
            .iter()
            .filter(|c| c.name == name)
            .map(|c| c.line)
            .collect()
    }

    pub(super) fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Set,
    Matrix,
    MatrixOp,
    Observation,
    Thread,
    GroupOp,
    Value,
    History,
}

pub(super) const MANY: usize = usize::MAX;

/// A child element allowed inside another: name, kind, and how many times (in this order).
pub(super) struct ChildSpec(&'static str, Kind, usize, usize);

pub(super) struct Spec {
    pub(super) required: &'static [&'static str],
    pub(super) optional: &'static [&'static str],
    /// Allowed children in order; empty for text-only elements.
    pub(super) children: &'static [ChildSpec],
    pub(super) text: bool,
}

pub(super) fn spec(kind: Kind) -> Spec {
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
pub(super) struct Open {
    pub(super) node: Node,
    pub(super) kind: Kind,
    /// Index into the spec's children of the child kind last seen, and how many of it.
    pub(super) pos: usize,
    pub(super) count: usize,
    pub(super) has_value_attr: bool,
    pub(super) text_nonempty: bool,
    pub(super) text_nonblank: bool,
}

pub(super) fn one_of(names: &[&str], wrap: impl Fn(&str) -> String) -> String {
    let names: Vec<String> = names.iter().map(|n| wrap(n)).collect();
    match names.len() {
        0 => "none".to_string(),
        1 => names[0].clone(),
        n => format!("{} or {}", names[..n - 1].join(", "), names[n - 1]),
    }
}

pub(super) fn snippet(text: &str) -> String {
    let t = text.trim();
    if t.chars().count() > 40 {
        format!("{}...", t.chars().take(40).collect::<String>())
    } else {
        t.to_string()
    }
}

/// Pass 1: checks well-formedness and the element structure with line numbers, and returns the
/// tree of element positions.
pub(super) fn scan(xml: &str, file: &str, lines: &LineIndex) -> Result<Node, ObservationFileError> {
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
pub(super) fn text_in(
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
pub(super) fn child_kind(
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
pub(super) fn close(
    open: Open,
    invalid: &impl Fn(usize, String) -> ObservationFileError,
) -> Result<Node, ObservationFileError> {
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

//! Reading, pass 2: the deserialized document turned into an observation set, its meaning checked
//! (matrix numbering, thread names, histories against their group).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use super::scan::Node;
use super::schema::{ObservationXml, SetXml, TextXml};
use super::ObservationFileError;
use crate::model::history::{History, HistoryError, NotationError, OpInfo, OpTable};
use crate::model::invocation::InvocationLabel;
use crate::model::response::Response;
use crate::model::thread_id::ThreadId;
use crate::spec::observation::{ObservationKey, ObservationSet};

/// Pass 2: turns the deserialized document into an observation set, checking its meaning.
pub(super) struct Builder<'a> {
    pub(super) file: &'a str,
}

impl Builder<'_> {
    pub(super) fn err(&self, line: usize, message: String) -> ObservationFileError {
        ObservationFileError::Invalid {
            file: self.file.to_string(),
            line,
            message,
        }
    }

    pub(super) fn op_id(&self, line: usize, text: &str, what: &str) -> Result<usize, ObservationFileError> {
        match text.trim().parse::<usize>() {
            Ok(id) if id > 0 => Ok(id),
            _ => Err(self.err(
                line,
                format!("{what} `{text}` is not an op id (expected a number from 1)"),
            )),
        }
    }

    pub(super) fn thread(&self, line: usize, text: &str, what: &str) -> Result<ThreadId, ObservationFileError> {
        text.parse::<ThreadId>()
            .map_err(|e| self.err(line, format!("bad thread name in {what}: {e}")))
    }

    pub(super) fn not_in_matrix(&self, line: usize, id: usize, n: usize) -> ObservationFileError {
        self.err(line, not_in_matrix(id, n))
    }

    pub(super) fn build(&self, doc: &SetXml, root: &Node) -> Result<ObservationSet, ObservationFileError> {
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
    pub(super) fn group(
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

pub(super) fn not_in_matrix(id: usize, n: usize) -> String {
    let ops = match n {
        0 => "has no ops".to_string(),
        1 => "has only op 1".to_string(),
        n => format!("has ops 1 to {n}"),
    };
    format!("op {id} is not in the matrix, which {ops}")
}

pub(super) struct Group {
    pub(super) key: ObservationKey,
    pub(super) histories: Vec<(History, usize)>,
}

pub(super) fn join(ops: &[usize]) -> String {
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

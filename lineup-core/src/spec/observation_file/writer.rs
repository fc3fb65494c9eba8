//! Writing an observation file: rendering, and the atomic write beside the target.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

use super::schema::{GroupOpXml, MatrixOpXml, MatrixXml, ObservationXml, SetXml, TextXml, ThreadXml};
use super::ObservationFileError;
use crate::model::history::{History, OpTable};
use crate::model::invocation::InvocationLabel;
use crate::model::response::Response;
use crate::model::thread_id::ThreadId;
use crate::spec::observation::{Observation, ObservationSet};

// ---------------------------------------------------------------------------------------------
// Writing

/// Renders an observation set as an observation file (see the [module docs](super) for the
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

pub(super) fn args_xml(label: &InvocationLabel) -> Vec<TextXml> {
    label.args.iter().map(|a| TextXml::of(a)).collect()
}

/// One group: a `<thread>` for every thread of the matrix, an `<op>` per called op, and the
/// histories.
pub(super) fn observation_xml(obs: &Observation, ops: &OpTable, threads: &BTreeSet<ThreadId>) -> ObservationXml {
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
pub(super) struct TempGuard<'a> {
    pub(super) path: &'a Path,
    pub(super) armed: bool,
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

pub(super) fn create_temp_file(dir: &Path, name: &str) -> io::Result<(PathBuf, fs::File)> {
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
pub(super) fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

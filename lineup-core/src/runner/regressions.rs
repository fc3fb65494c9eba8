//! Failing matrices saved next to the test that found them, as proptest does, and re-run first on
//! the next run. The file is `lineup-regressions/<source file stem>.jsonl` beside the test's
//! source file: one JSON object per line naming the test, the seed, and the matrix by invocation
//! labels. Commit it to keep the regression.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::invocation::InvocationLabel;
use crate::model::matrix::TestMatrix;

/// One saved failing matrix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Regression {
    /// The test that found it.
    pub test: String,
    /// The seed of the sample it came from, if it came from one.
    pub seed: Option<u64>,
    /// The matrix, by invocation labels (`add(200)`).
    pub initial: Vec<String>,
    /// The worker columns.
    pub threads: Vec<Vec<String>>,
    /// The final operations.
    #[serde(rename = "final")]
    pub finals: Vec<String>,
}

/// A regression file that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RegressionError {
    /// Reading or writing failed.
    #[error("{path}: cannot {action}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What was attempted.
        action: &'static str,
        /// The error.
        error: std::io::Error,
    },
    /// A line is not a regression entry, or names an invocation the object does not have.
    #[error("{path}:{line}: {problem}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The line (from 1).
        line: usize,
        /// What is wrong.
        problem: String,
    },
}

impl Regression {
    /// The entry for `matrix` of a subject with invocation `labels`.
    pub fn new(test: &str, seed: Option<u64>, matrix: &TestMatrix, labels: &[InvocationLabel]) -> Self {
        let names = |ops: &[usize]| ops.iter().map(|&i| labels[i].to_string()).collect::<Vec<_>>();
        Self {
            test: test.to_string(),
            seed,
            initial: names(&matrix.initial),
            threads: matrix.threads.iter().map(|c| names(c)).collect(),
            finals: names(&matrix.finals),
        }
    }

    /// The matrix, with labels resolved against `labels`.
    pub fn matrix(&self, labels: &[InvocationLabel]) -> Result<TestMatrix, String> {
        let index = |name: &String| {
            labels.iter().position(|l| l.to_string() == *name).ok_or_else(|| {
                let known: Vec<String> = labels.iter().map(ToString::to_string).collect();
                format!(
                    "`{name}` is not an invocation of the object (it has {})",
                    known.join(", ")
                )
            })
        };
        let resolve = |ops: &[String]| ops.iter().map(index).collect::<Result<Vec<_>, _>>();
        Ok(TestMatrix {
            initial: resolve(&self.initial)?,
            threads: self.threads.iter().map(|c| resolve(c)).collect::<Result<_, _>>()?,
            finals: resolve(&self.finals)?,
        })
    }
}

/// The regression file of a test source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegressionFile {
    path: PathBuf,
}

impl RegressionFile {
    /// The regression file beside `source_file` (as `file!()` gives it: relative to the
    /// workspace root, which may be an ancestor of the current directory).
    pub fn beside(source_file: &str) -> Self {
        let source = Path::new(source_file);
        let located = std::env::current_dir()
            .ok()
            .and_then(|cwd| {
                cwd.ancestors()
                    .map(|dir| dir.join(source))
                    .find(|candidate| candidate.exists())
            })
            .unwrap_or_else(|| source.to_path_buf());
        let dir = located
            .parent()
            .map_or_else(PathBuf::new, Path::to_path_buf)
            .join("lineup-regressions");
        let stem = source
            .file_stem()
            .map_or_else(|| "tests".into(), |s| s.to_string_lossy().into_owned());
        Self {
            path: dir.join(format!("{stem}.jsonl")),
        }
    }

    /// A regression file at `path`.
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every entry of the file (none if it does not exist).
    pub fn load(&self) -> Result<Vec<Regression>, RegressionError> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => {
                return Err(RegressionError::Io {
                    path: self.path.clone(),
                    action: "read it",
                    error,
                })
            }
        };
        text.lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
            .map(|(i, line)| {
                serde_json::from_str(line).map_err(|e| RegressionError::Invalid {
                    path: self.path.clone(),
                    line: i + 1,
                    problem: format!("not a regression entry: {e}"),
                })
            })
            .collect()
    }

    /// The entries of one test.
    pub fn load_for(&self, test: &str) -> Result<Vec<(usize, Regression)>, RegressionError> {
        Ok(self
            .load()?
            .into_iter()
            .enumerate()
            .filter(|(_, r)| r.test == test)
            .collect())
    }

    /// Adds `entry` unless it is there already. The file is rewritten atomically (a temporary
    /// file renamed over it), so an interrupted run never loses the entries it had.
    pub fn add(&self, entry: &Regression) -> Result<(), RegressionError> {
        let mut entries = self.load()?;
        if entries.contains(entry) {
            return Ok(());
        }
        entries.push(entry.clone());
        let io = |action| {
            move |error| RegressionError::Io {
                path: self.path.clone(),
                action,
                error,
            }
        };
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir).map_err(io("create its directory"))?;
        }
        let mut text = String::from(
            "# Failing matrices found by lineup, re-run first by the tests that found them. Commit this file.\n",
        );
        for e in &entries {
            text.push_str(&serde_json::to_string(e).expect("a regression entry serializes"));
            text.push('\n');
        }
        let temporary = self.path.with_extension(format!("jsonl.{}.tmp", std::process::id()));
        let mut file = fs::File::create(&temporary).map_err(io("create a temporary file"))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(io("write it"))?;
        fs::rename(&temporary, &self.path).map_err(io("rename the temporary file over it"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels() -> Vec<InvocationLabel> {
        vec![
            InvocationLabel::new("add", vec!["200".into()]),
            InvocationLabel::new("try_take", vec![]),
        ]
    }

    #[test]
    fn entries_round_trip_and_are_not_duplicated() {
        let dir = tempfile::tempdir().unwrap();
        let file = RegressionFile::at(dir.path().join("lineup-regressions/queue.jsonl"));
        let matrix = TestMatrix::new(vec![vec![0, 1], vec![1]]);
        let entry = Regression::new("queue::fig1", Some(7), &matrix, &labels());
        file.add(&entry).unwrap();
        file.add(&entry).unwrap();
        let loaded = file.load_for("queue::fig1").unwrap();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0].1.matrix(&labels()).unwrap(), matrix);
        assert!(file.load_for("other").unwrap().is_empty());
    }

    #[test]
    fn a_bad_line_names_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        fs::write(&path, "# comment\n{\"test\": 1}\n").unwrap();
        let err = RegressionFile::at(&path).load().unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{}:2: not a regression entry", path.display())),
            "{err}"
        );
        let unknown = Regression {
            test: "t".into(),
            seed: None,
            initial: vec![],
            threads: vec![vec!["pop()".into()]],
            finals: vec![],
        };
        assert_eq!(
            unknown.matrix(&labels()).unwrap_err(),
            "`pop()` is not an invocation of the object (it has add(200), try_take())"
        );
    }
}

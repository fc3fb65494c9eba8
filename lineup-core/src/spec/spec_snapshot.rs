//! Committed phase-1 specifications of regression matrices, reviewed and blessed like insta
//! snapshots: a test compares its fresh phase 1 with the observation file, fails with a readable
//! diff when they differ, and rewrites the file when `LINEUP_BLESS=1` is set.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::environment::{Environment, BLESS_ENV};
use crate::model::history::History;
use crate::spec::observation::ObservationSet;
use crate::spec::observation_file::{read_observation_file, write_observation_file, ObservationFileError};

/// What became of a stored specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotOutcome {
    /// The file did not exist (or blessing was asked for) and has been written.
    Written(PathBuf),
    /// The file matches the fresh specification.
    Unchanged(PathBuf),
}

/// A stored specification that differs from the object's fresh phase 1, or cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The serial behaviour changed.
    #[error(
        "{path}: the object's serial behaviour differs from the committed specification \
         ({appeared} serial histories appeared, {disappeared} disappeared):\n{diff}\nIf the change is intended, \
         re-bless the file: {BLESS_ENV}=1 cargo test ..."
    )]
    Differs {
        /// The file.
        path: PathBuf,
        /// Histories in the fresh specification only.
        appeared: usize,
        /// Histories in the file only.
        disappeared: usize,
        /// One line per history, `+` appeared, `-` disappeared.
        diff: String,
    },
    /// The file could not be read or written.
    #[error(transparent)]
    File(#[from] ObservationFileError),
}

/// Whether [`BLESS_ENV`] asks for blessing, for a test that compares specifications itself (a
/// [`LineupTest`](crate::LineupTest) reads it with the rest of its [`Environment`]).
///
/// # Panics
///
/// When a variable lineup reads is set to something it cannot read (the message names it).
pub fn bless_requested() -> bool {
    Environment::from_env()
        .unwrap_or_else(|error| panic!("{error}"))
        .run
        .bless
}

/// One serial history as a line of a diff: its notation and every operation's result.
fn describe(h: &History) -> String {
    let results: Vec<String> = h
        .called_ops()
        .iter()
        .map(|&op| match h.response(op) {
            Some(r) => format!("{op} {} -> {r}", h.op(op).invocation),
            None => format!("{op} {} blocks", h.op(op).invocation),
        })
        .collect();
    format!("{}   [{}]", h.notation(), results.join("; "))
}

/// Compares `fresh` with the file at `path`; writes the file when it is missing or `bless`.
pub fn compare_or_bless(path: &Path, fresh: &ObservationSet, bless: bool) -> Result<SnapshotOutcome, SnapshotError> {
    if bless || !path.exists() {
        write_observation_file(path, fresh)?;
        return Ok(SnapshotOutcome::Written(path.to_path_buf()));
    }
    let stored = read_observation_file(path)?;
    let stored_lines: BTreeSet<String> = stored.histories().map(describe).collect();
    let fresh_lines: BTreeSet<String> = fresh.histories().map(describe).collect();
    if stored.ops() == fresh.ops() && stored_lines == fresh_lines {
        return Ok(SnapshotOutcome::Unchanged(path.to_path_buf()));
    }
    let mut diff = String::new();
    if stored.ops() != fresh.ops() {
        diff.push_str("  the operations of the matrix changed\n");
    }
    let appeared: Vec<&String> = fresh_lines.difference(&stored_lines).collect();
    let disappeared: Vec<&String> = stored_lines.difference(&fresh_lines).collect();
    for line in &appeared {
        diff.push_str(&format!("  + {line}\n"));
    }
    for line in &disappeared {
        diff.push_str(&format!("  - {line}\n"));
    }
    Err(SnapshotError::Differs {
        path: path.to_path_buf(),
        appeared: appeared.len(),
        disappeared: disappeared.len(),
        diff,
    })
}

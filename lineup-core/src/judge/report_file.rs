//! Where the HTML report of a violation went ([`ReportFile`]): part of the [`Violation`] a check
//! reports, so it lives beside it; `report/html` writes the file.
//!
//! [`Violation`]: crate::judge::verdict::Violation

use std::fmt;
use std::path::PathBuf;

use crate::environment::REPORT_DIR_ENV;

/// The HTML report of a violation: the file written, or why it could not be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportFile {
    /// The page was written to this file.
    Written(PathBuf),
    /// The page could not be written in this directory.
    Failed {
        /// The directory.
        dir: PathBuf,
        /// What went wrong.
        error: String,
    },
}

impl fmt::Display for ReportFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportFile::Written(path) => write!(f, "html report: {}", path.display()),
            ReportFile::Failed { dir, error } => write!(
                f,
                "html report: NOT written: cannot write in {} ({REPORT_DIR_ENV}): {error}",
                dir.display()
            ),
        }
    }
}

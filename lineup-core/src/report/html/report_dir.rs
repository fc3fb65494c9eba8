//! [`REPORT_DIR_ENV`]: where a reported violation is also written as an HTML page,
//! `<test>-<n>.html` with `n` the first number not taken (nothing is overwritten).

use std::io::Write as _;
use std::path::Path;

pub use crate::environment::REPORT_DIR_ENV;
pub use crate::judge::report_file::ReportFile;
use crate::judge::verdict::Violation;

use super::picture::Picture;

/// Writes `picture` as `<name>-<n>.html` in `dir` (created if missing), `n` from 1 the first
/// number whose file does not exist yet. Never panics: a failure is [`ReportFile::Failed`].
pub fn write_report(dir: &Path, name: &str, picture: &Picture) -> ReportFile {
    let failed = |error: std::io::Error| ReportFile::Failed {
        dir: dir.to_path_buf(),
        error: error.to_string(),
    };
    if let Err(error) = std::fs::create_dir_all(dir) {
        return failed(error);
    }
    let stem = file_stem(name);
    let html = picture.to_html();
    for n in 1..=100_000u32 {
        let path = dir.join(format!("{stem}-{n}.html"));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut file) => {
                return match file.write_all(html.as_bytes()) {
                    Ok(()) => ReportFile::Written(path),
                    Err(error) => failed(error),
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return failed(error),
        }
    }
    ReportFile::Failed {
        dir: dir.to_path_buf(),
        error: format!("{stem}-1.html to {stem}-100000.html all exist"),
    }
}

/// When there is a directory of HTML reports ([`REPORT_DIR_ENV`], read into
/// [`RunSettings::report_dir`](crate::environment::RunSettings::report_dir)): writes `picture` as
/// `<name>-<n>.html` there.
pub fn write_report_in(dir: Option<&Path>, name: &str, picture: impl FnOnce() -> Picture) -> Option<ReportFile> {
    dir.map(|dir| write_report(dir, name, &picture()))
}

/// The name of the running test for a report written by a plain [`check`](crate::check()): the
/// name of the current thread (the test harness names each test's thread after the test),
/// else `fallback` (the subject's name).
pub(crate) fn test_name(fallback: &str) -> String {
    match std::thread::current().name() {
        Some(name) if name != "main" && !name.is_empty() => name.to_string(),
        _ => fallback.to_string(),
    }
}

/// When there is a directory of HTML reports: writes `violation` as `<name>-<n>.html` in `dir`
/// and records the file in it (its text report then names it).
pub(crate) fn attach_report(violation: &mut Violation, name: &str, dir: Option<&Path>) {
    if violation.html_report.is_none() {
        violation.html_report = write_report_in(dir, name, || violation.picture());
    }
}

/// A file name for a test path (`tests::queue` becomes `tests__queue`).
fn file_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "lineup".into()
    } else {
        stem
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_increase_and_nothing_is_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let picture = Picture::default();
        let first = write_report(dir.path(), "tests::queue", &picture);
        let second = write_report(dir.path(), "tests::queue", &picture);
        assert_eq!(first, ReportFile::Written(dir.path().join("tests__queue-1.html")));
        assert_eq!(second, ReportFile::Written(dir.path().join("tests__queue-2.html")));
    }

    #[test]
    fn an_unwritable_directory_is_an_error_message() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-dir");
        std::fs::write(&file, "x").unwrap();
        let report = write_report(&file.join("sub"), "t", &Picture::default());
        assert!(matches!(report, ReportFile::Failed { .. }), "{report:?}");
        assert!(report.to_string().contains("NOT written"), "{report}");
    }
}

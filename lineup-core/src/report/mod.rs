//! Renderings of a check's outcome for a person: the violation report.

pub(crate) mod violation_report;

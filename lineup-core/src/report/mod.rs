//! Renderings of a check's outcome for a person: the violation report (text) and the HTML
//! report (`html/`).

pub mod html;
pub(crate) mod violation_report;

//! Renderings of a check's outcome for a person: the violation report (text), its interleaving
//! section (`interleaving.rs`), and the HTML report (`html/`).

pub mod html;
pub(crate) mod interleaving;
pub(crate) mod violation_report;

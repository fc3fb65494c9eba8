//! Self-contained HTML reports (inline SVG and script, no network access): a neutral timeline
//! model ([`Picture`]: sections, lanes, bars from call to return, marks, hover details, step
//! tables) and its writer ([`Picture::to_html`]). lineup-core fills it from a
//! [`Violation`](crate::Violation) ([`Violation::picture`](crate::Violation::picture));
//! lineup-histories fills it from a failing check of a recorded history.

mod escape;
mod from_violation;
mod picture;
mod report_dir;
mod writer;

pub use escape::escape;
pub use picture::{Bar, BarMark, Fact, Picture, Section, Step, StepMark, StepOp, StepTimeline, SwitchMark, Timeline};
pub(crate) use report_dir::{attach_report, test_name};
pub use report_dir::{write_report, write_report_in, ReportFile, REPORT_DIR_ENV};

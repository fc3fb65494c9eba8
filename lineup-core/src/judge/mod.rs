//! Phase 2's judging: serial witnesses of full histories (Def. 1), stuck serial witnesses of
//! stuck histories (Def. 2), and the verdicts.

pub(crate) mod full_spec_index;
pub(crate) mod history_judge;
pub(crate) mod live;
pub(crate) mod phase2_outcome;
pub(crate) mod report_file;
mod spec_witness;
pub(crate) mod verdict;
pub mod witness;

//! Parsing for `#[lineup_test(...)]`.

pub(super) mod builder_fn;
pub(super) mod options;
pub(super) mod suggestion;
pub(super) mod values;

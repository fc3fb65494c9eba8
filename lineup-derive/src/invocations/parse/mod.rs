//! Parsing for `#[invocations]`.

pub(super) mod invoke_args;
pub(super) mod method;
pub(super) mod receiver;

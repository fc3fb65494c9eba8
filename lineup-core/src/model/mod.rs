//! The history model of `Check(X, m)`: the subject and its invocations, test matrices and thread
//! ids, responses, histories with their notation, and replay tokens.

pub(crate) mod async_invocation;
pub(crate) mod groups;
pub(crate) mod handles;
pub(crate) mod history;
pub(crate) mod interleaving;
pub(crate) mod invocation;
pub(crate) mod invocations;
pub(crate) mod matrix;
pub(crate) mod replay_token;
pub(crate) mod response;
pub(crate) mod stuck_kind;
pub(crate) mod subject;
pub(crate) mod thread_id;
pub(crate) mod trace;

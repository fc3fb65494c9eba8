//! The shuttle backend: lineup's scheduler over a decision tree, the harness that runs one
//! execution of a matrix, the execution context (the recording of call and return events, the
//! footprints of steps, the abandonment and the quiet end of an execution), the roles of tasks,
//! the set of traces seen, and the record of every step of a replayed violation.

#[cfg_attr(loom, allow(dead_code))]
pub(crate) mod abandonment;
pub(crate) mod concurrent;
#[cfg_attr(loom, allow(dead_code))]
pub(crate) mod context;
pub(crate) mod decision_tree;
#[cfg_attr(loom, allow(dead_code))]
pub(crate) mod footprint;
pub(crate) mod harness;
pub(crate) mod observed;
#[cfg_attr(loom, allow(dead_code))]
pub(crate) mod quiet_end;
pub(crate) mod recording;
pub(crate) mod replay;
pub(crate) mod role;
pub(crate) mod run;
pub(crate) mod sample_split;
pub(crate) mod scheduler;
pub(crate) mod serial;
pub(crate) mod serial_spec;
pub(crate) mod shorten;
#[cfg_attr(loom, allow(dead_code))]
pub(crate) mod shuttle_events;
#[cfg_attr(loom, allow(dead_code))]
pub(crate) mod sleep;
pub(crate) mod split;
pub(crate) mod strategy;
#[cfg_attr(loom, allow(dead_code))]
pub(crate) mod trace;
pub(crate) mod trace_set;

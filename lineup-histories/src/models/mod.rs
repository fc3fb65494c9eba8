//! Built-in sequential models: register with compare-and-set, key-value map, set, FIFO queue,
//! stack, counter.
//!
//! The map ([`KvModel`]) and the set ([`SetModel`]) are P-compositional (by key and by element):
//! they implement [`crate::PartitionedModel`]. The others are checked whole.

mod counter;
mod kv;
mod queue;
mod register;
mod set;
mod stack;

pub use counter::{CounterInput, CounterModel, CounterOutput};
pub use kv::{KvInput, KvKeyModel, KvModel, KvOp, KvOutput, KvState};
pub use queue::{QueueInput, QueueModel, QueueOutput};
pub use register::{RegisterInput, RegisterModel, RegisterOutput};
pub use set::{SetElementModel, SetInput, SetModel};
pub use stack::{StackInput, StackModel, StackOutput};

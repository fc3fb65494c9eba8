pub mod future;
pub mod sync;
pub mod thread;

pub mod continuation;

pub use continuation::switch;
pub(crate) use continuation::switch_between_polls;

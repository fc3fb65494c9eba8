#[macro_use]
mod select;

// Includes re-exports needed to implement macros
#[doc(hidden)]
pub mod support;

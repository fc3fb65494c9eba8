//! `#[lineup_test(...)]`: a `#[test]` that runs `lineup::LineupTest` on the object a function
//! builds.
//!
//! [`parse`] reads the options and the function into a [`model::LineupTestSpec`] (the first
//! problem is the error, at the user's tokens), and [`generate`] turns that into the test.

mod generate;
mod model;
mod parse;
#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;

/// Expands `#[lineup_test(...)]` (`args` are the attribute's arguments, `input` the function).
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    let spec = parse::parse(args, input)?;
    Ok(generate::test_fn(&spec))
}

//! `#[invocations]`: an `impl lineup::Invocations` from `#[invoke(...)]` attributes on methods.
//!
//! [`parse`] reads the attribute's arguments and the `impl` block into a [`model::Parsed`]
//! (checking everything the macro can check, with the errors at the user's tokens), and
//! [`generate`] turns that into tokens: the block, and the trait impl or the errors.

mod generate;
mod model;
mod parse;
#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;

/// Expands `#[invocations]` (`args` are the attribute's own arguments, `input` the item).
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    let parsed = parse::parse(args, input)?;
    Ok(generate::expansion(parsed))
}

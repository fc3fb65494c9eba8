//! Parsing for `#[lineup_test(...)]`: the options and the function into a
//! [`LineupTestSpec`]. The first problem found is the error.

mod builder_fn;
mod options;
mod suggestion;
mod values;

use proc_macro2::TokenStream;
use syn::punctuated::Punctuated;
use syn::{ItemFn, Token};

use self::options::OptionArg;
use super::model::LineupTestSpec;

/// Parses `#[lineup_test(...)]` (`args` are the attribute's arguments, `input` the function).
/// The order of the checks is the order the errors take precedence in: the syntax of the
/// options, then the item, then the options' values, then the function's shape.
pub(super) fn parse(args: TokenStream, input: TokenStream) -> syn::Result<LineupTestSpec> {
    let options = syn::parse::Parser::parse2(Punctuated::<OptionArg, Token![,]>::parse_terminated, args)?;
    let function: ItemFn = match syn::parse2(input.clone()) {
        Ok(function) => function,
        Err(_) => {
            return Err(syn::Error::new_spanned(
                input,
                "`#[lineup_test]` goes on a function `fn name() -> MyObject` that builds the object under test",
            ))
        }
    };
    let options = options::test_options(&options)?;
    let builder = builder_fn::builder_fn(function)?;
    Ok(LineupTestSpec { options, builder })
}

//! `#[lineup_test(...)]`: a `#[test]` that runs `lineup::LineupTest` on the object a function
//! builds.

mod parse;
#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{ItemFn, ReturnType, Token};

use parse::builder_fn::check_signature;
use parse::options::{builder_calls, OptionArg};

/// Expands `#[lineup_test(...)]` (`args` are the attribute's arguments, `input` the function).
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
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
    let calls = builder_calls(&options)?;
    check_signature(&function)?;

    let ItemFn { attrs, vis, sig, block } = &function;
    if let Some(test) = attrs.iter().find(|a| a.path().is_ident("test")) {
        return Err(syn::Error::new_spanned(
            test,
            "`#[lineup_test]` already makes the function a test; remove `#[test]`",
        ));
    }
    let name = &sig.ident;
    let ReturnType::Type(_, object) = &sig.output else {
        unreachable!("check_signature rejects functions without a return type")
    };
    let build = quote_spanned!(object.span()=> __lineup_build);
    // Spanned at the return type: "`MyObject: Invocations` is not satisfied" points there.
    let run = quote_spanned!(object.span()=> .run(#build));
    Ok(quote! {
        #(#attrs)*
        #[::core::prelude::v1::test]
        #vis fn #name() {
            fn #build() -> #object #block
            ::lineup::LineupTest::new(::core::concat!(::core::module_path!(), "::", ::core::stringify!(#name)))
                .source_file(::core::file!())
                #(#calls)*
                #run;
        }
    })
}

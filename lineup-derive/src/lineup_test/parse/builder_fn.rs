//! The function `#[lineup_test]` is on.

use quote::quote;
use syn::ext::IdentExt;
use syn::{ItemFn, ReturnType};

/// Rejects what cannot be a builder function.
pub(crate) fn check_signature(function: &ItemFn) -> syn::Result<()> {
    const SHAPE: &str = "`#[lineup_test]` goes on a function `fn name() -> MyObject` that builds the object under test";
    let sig = &function.sig;
    if let Some(asyncness) = &sig.asyncness {
        return Err(syn::Error::new_spanned(
            asyncness,
            format!("{SHAPE}; it cannot be async: lineup calls it synchronously to build a fresh object for every execution"),
        ));
    }
    if let Some(unsafety) = &sig.unsafety {
        return Err(syn::Error::new_spanned(
            unsafety,
            format!("{SHAPE}; it cannot be unsafe: lineup calls it for every execution"),
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(syn::Error::new_spanned(
            abi,
            format!("{SHAPE}; it cannot have an `extern` ABI"),
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            format!("{SHAPE}; it cannot be generic: the test needs one concrete object type"),
        ));
    }
    if !sig.inputs.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.inputs,
            format!("{SHAPE}; it takes no parameters: lineup calls it to build a fresh object for every execution"),
        ));
    }
    if let Some(variadic) = &sig.variadic {
        return Err(syn::Error::new_spanned(
            variadic,
            format!("{SHAPE}; it takes no parameters"),
        ));
    }
    if let ReturnType::Default = sig.output {
        let fn_token = sig.fn_token;
        let ident = &sig.ident;
        let paren = sig.paren_token;
        let mut span_tokens = quote!(#fn_token #ident);
        paren.surround(&mut span_tokens, |_| {});
        return Err(syn::Error::new_spanned(
            span_tokens,
            format!(
                "{SHAPE}; `{}` has no return type: return the object, e.g. `fn {}() -> MyQueue {{ MyQueue::default() }}`",
                sig.ident.unraw(),
                sig.ident.unraw()
            ),
        ));
    }
    Ok(())
}

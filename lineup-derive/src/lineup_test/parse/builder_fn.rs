//! The function `#[lineup_test]` is on: checked to be able to build the object under test.

use quote::quote;
use syn::ext::IdentExt;
use syn::{ItemFn, ReturnType, Signature, Type};

use crate::lineup_test::model::BuilderFn;

/// The builder function, or the first reason `function` cannot be one.
pub(super) fn builder_fn(function: ItemFn) -> syn::Result<BuilderFn> {
    let object = check_signature(&function.sig)?;
    let ItemFn { attrs, vis, sig, block } = function;
    if let Some(test) = attrs.iter().find(|a| a.path().is_ident("test")) {
        return Err(syn::Error::new_spanned(
            test,
            "`#[lineup_test]` already makes the function a test; remove `#[test]`",
        ));
    }
    Ok(BuilderFn {
        attrs,
        vis,
        name: sig.ident,
        object,
        body: block,
    })
}

/// Rejects what cannot be a builder function; otherwise the type of the object it returns.
fn check_signature(sig: &Signature) -> syn::Result<Box<Type>> {
    const SHAPE: &str = "`#[lineup_test]` goes on a function `fn name() -> MyObject` that builds the object under test";
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
    let ReturnType::Type(_, object) = &sig.output else {
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
    };
    Ok(object.clone())
}

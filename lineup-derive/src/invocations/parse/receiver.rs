//! The receiver of an `#[invoke]` method: `&self`, or an error that says why.

use quote::{quote, ToTokens};
use syn::{ImplItemFn, Type};

/// Accepts `&self`, `&'a self` and `self: &Self`; explains everything else.
pub(super) fn check_receiver(method: &ImplItemFn, method_name: &str) -> syn::Result<()> {
    const WHY: &str = "operations take `&self` because several threads call them on one shared object at once";
    let sig = &method.sig;
    let Some(receiver) = sig.receiver() else {
        let fn_token = sig.fn_token;
        let ident = &sig.ident;
        return Err(syn::Error::new_spanned(
            quote!(#fn_token #ident),
            format!("`#[invoke]` needs a method that takes `&self`, but `{method_name}` has no receiver: {WHY}"),
        ));
    };
    let shared_ref = match receiver.ty.as_ref() {
        Type::Reference(reference) => {
            reference.mutability.is_none()
                && matches!(reference.elem.as_ref(), Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"))
        }
        _ => false,
    };
    if shared_ref {
        return Ok(());
    }
    let found = if receiver.reference.is_some() {
        "`&mut self`".to_string()
    } else if receiver.colon_token.is_some() {
        format!("`self: {}`", compact(&receiver.ty.to_token_stream().to_string()))
    } else {
        "`self` by value".to_string()
    };
    let advice = if receiver.mutability.is_some() || receiver.reference.is_some() {
        "; use interior mutability (a `lineup::sync::Mutex`, `lineup::sync::atomic`, ...) for the object's state, \
         and for what one thread owns (a split handle such as a `Producer`, a guard kept between operations) a \
         first parameter `&mut Handle` made by a `#[handles]` method of the block"
    } else {
        ""
    };
    Err(syn::Error::new_spanned(
        receiver,
        format!("`#[invoke]` needs a method that takes `&self`, but `{method_name}` takes {found}: {WHY}{advice}"),
    ))
}

/// A type as people write it: `Box < Self >` becomes `Box<Self>`.
fn compact(tokens: &str) -> String {
    tokens
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace("& ", "&")
}

//! The block's `#[handles]` method: how each thread makes its own handle from the object, for
//! the `#[invoke]` methods whose first parameter is `&mut` of that handle.

use quote::quote;
use syn::ext::IdentExt;
use syn::{Attribute, FnArg, ImplItemFn, Meta, ReturnType, Type};

use super::method::cfg_attrs;
use crate::invocations::model::HandlesMethod;

/// What a `#[handles]` method looks like, for the errors.
const SHAPE: &str = "`#[handles] fn handle(&self, thread: &lineup::MatrixThread) -> Handle` (the thread parameter \
                     is optional; `self: &Arc<Self>` is accepted too)";

/// The `#[handles]` method `method`, marked with `attr`, or the first problem with it.
pub(super) fn handles_method(method: &ImplItemFn, attr: &Attribute) -> syn::Result<HandlesMethod> {
    let sig = &method.sig;
    let name = sig.ident.unraw().to_string();
    if !matches!(attr.meta, Meta::Path(_)) {
        return Err(syn::Error::new_spanned(
            attr,
            format!("`#[handles]` takes no arguments; write it as {SHAPE}"),
        ));
    }
    if let Some(asyncness) = &sig.asyncness {
        return Err(syn::Error::new_spanned(
            asyncness,
            format!("`{name}` makes the threads' handles and cannot be `async`: write it as {SHAPE}"),
        ));
    }
    if let Some(unsafety) = &sig.unsafety {
        return Err(syn::Error::new_spanned(
            unsafety,
            format!("`{name}` makes the threads' handles and cannot be `unsafe`: write it as {SHAPE}"),
        ));
    }
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            format!("`{name}` makes the threads' handles and cannot be generic: write it as {SHAPE}"),
        ));
    }
    check_receiver(method, &name)?;
    let params: Vec<_> = sig.inputs.iter().filter(|a| matches!(a, FnArg::Typed(_))).collect();
    if let Some(extra) = params.get(1) {
        return Err(syn::Error::new_spanned(
            extra,
            format!("`{name}` makes the threads' handles from the object and the thread only: write it as {SHAPE}"),
        ));
    }
    let ReturnType::Type(_, ret) = &sig.output else {
        let ident = &sig.ident;
        return Err(syn::Error::new_spanned(
            ident,
            format!(
                "`{name}` returns nothing, but a `#[handles]` method returns each thread's handle: write it as {SHAPE}"
            ),
        ));
    };
    Ok(HandlesMethod {
        cfgs: cfg_attrs(&method.attrs),
        ident: sig.ident.clone(),
        takes_thread: !params.is_empty(),
        handle: (**ret).clone(),
    })
}

/// Accepts `&self` and `self: &Arc<Self>` (any path ending in `Arc`).
fn check_receiver(method: &ImplItemFn, name: &str) -> syn::Result<()> {
    let sig = &method.sig;
    let Some(receiver) = sig.receiver() else {
        let (fn_token, ident) = (sig.fn_token, &sig.ident);
        return Err(syn::Error::new_spanned(
            quote!(#fn_token #ident),
            format!("`{name}` has no receiver, but a `#[handles]` method takes the object: write it as {SHAPE}"),
        ));
    };
    let accepted = match receiver.ty.as_ref() {
        Type::Reference(reference) if reference.mutability.is_none() => match reference.elem.as_ref() {
            Type::Path(p) => p.path.is_ident("Self") || p.path.segments.last().is_some_and(|s| s.ident == "Arc"),
            _ => false,
        },
        _ => false,
    };
    if accepted {
        return Ok(());
    }
    Err(syn::Error::new_spanned(
        receiver,
        format!("`{name}` must take the shared object, `&self` or `self: &Arc<Self>`: write it as {SHAPE}"),
    ))
}

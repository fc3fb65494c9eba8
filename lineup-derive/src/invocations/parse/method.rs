//! One method marked `#[invoke]`: its signature checked, its parameters and the invocations
//! its values stand for.

use syn::ext::IdentExt;
use syn::{Attribute, FnArg, GenericParam, ImplItemFn, LitStr, Pat, Signature, Type};

use super::arguments::invocation_arguments;
use super::invoke_args::InvokeArgs;
use super::local_type::local_type;
use super::receiver::check_receiver;
use crate::invocations::model::InvokeMethod;

/// The invocations of `method`, marked with `attr`, or the first problem with them.
pub(super) fn invoke_method(method: &ImplItemFn, attr: &Attribute) -> syn::Result<InvokeMethod> {
    let sig = &method.sig;
    let method_name = sig.ident.unraw().to_string();
    check_callable(sig, &method_name)?;
    check_receiver(method, &method_name)?;
    let mut param_names = Vec::new();
    let mut param_types = Vec::new();
    let handle = handle_param(sig);
    for arg in sig.inputs.iter().skip(usize::from(handle.is_some()) + 1) {
        if let FnArg::Typed(typed) = arg {
            param_names.push(match typed.pat.as_ref() {
                Pat::Ident(p) => p.ident.unraw().to_string(),
                _ => "_".to_string(),
            });
            param_types.push(local_type(&typed.ty, &method_name)?);
        }
    }

    let args = InvokeArgs::from_attr(attr)?;
    if args.cancellable && sig.asyncness.is_none() {
        return Err(syn::Error::new_spanned(
            &sig.ident,
            format!("`#[invoke(cancellable)]` on `{method_name}`, which is not an `async fn`: only a future can be dropped while pending"),
        ));
    }
    let label = args
        .name
        .as_ref()
        .map_or_else(|| LitStr::new(&method_name, sig.ident.span()), Clone::clone);
    let calls = invocation_arguments(&args.values, attr, &method_name, &param_names)?;
    Ok(InvokeMethod {
        cfgs: cfg_attrs(&method.attrs),
        ident: sig.ident.clone(),
        label,
        group: args.group,
        nondeterministic: args.nondeterministic,
        cancellable: args.cancellable,
        asynchronous: sig.asyncness.is_some(),
        handle,
        param_types,
        calls,
    })
}

/// The `#[cfg]` attributes among `attrs`: a method compiled out takes what it stands for with it.
pub(super) fn cfg_attrs(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("cfg")).cloned().collect()
}

/// The `T` of a first parameter `&mut T` (after the receiver): the calling thread's handle.
fn handle_param(sig: &Signature) -> Option<Type> {
    match sig.inputs.iter().nth(1)? {
        FnArg::Typed(typed) => match typed.ty.as_ref() {
            Type::Reference(reference) if reference.mutability.is_some() => Some((*reference.elem).clone()),
            _ => None,
        },
        FnArg::Receiver(_) => None,
    }
}

/// Rejects generic and unsafe methods: an invocation calls the method with fixed values from a
/// plain closure (an `async fn` from an async closure, run by `Invocation::new_async`).
fn check_callable(sig: &Signature, method_name: &str) -> syn::Result<()> {
    if let Some(param) = sig
        .generics
        .params
        .iter()
        .find(|p| !matches!(p, GenericParam::Lifetime(_)))
    {
        return Err(syn::Error::new_spanned(
            param,
            format!(
                "`#[invoke]` does not support generic methods: an invocation calls `{method_name}` with fixed \
                 argument values, so every type must be known; add a non-generic method with concrete types that \
                 calls it, and mark that one `#[invoke]`"
            ),
        ));
    }
    if let Some(unsafety) = &sig.unsafety {
        return Err(syn::Error::new_spanned(
            unsafety,
            format!(
                "`#[invoke]` does not call unsafe methods: lineup calls operations in every order, so `{method_name}` \
                 must be safe to call at any time; add a safe wrapper method and mark that one `#[invoke]`"
            ),
        ));
    }
    Ok(())
}

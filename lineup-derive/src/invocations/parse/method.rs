//! One method marked `#[invoke]`.

use proc_macro2::TokenStream;
use syn::ext::IdentExt;
use syn::parse::Parse;
use syn::visit_mut::{self, VisitMut};
use syn::{Attribute, Expr, FnArg, GenericParam, Ident, ImplItemFn, Lifetime, LitStr, Meta, Pat, Type};

use super::invoke_args::InvokeArgs;
use super::receiver::check_receiver;
use crate::invocations::generate::invocation;

/// The invocations of one `#[invoke]` method, in the order of its values.
pub(crate) fn method_invocations(method: &ImplItemFn, attr: &Attribute) -> syn::Result<Vec<TokenStream>> {
    let sig = &method.sig;
    let method_name = sig.ident.unraw().to_string();
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
    if let Some(asyncness) = &sig.asyncness {
        return Err(syn::Error::new_spanned(
            asyncness,
            format!(
                "`#[invoke]` does not support async methods: each operation runs to completion on its own \
                 thread; make `{method_name}` synchronous"
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
    check_receiver(method, &method_name)?;
    let mut param_names = Vec::new();
    let mut param_types = Vec::new();
    for arg in &sig.inputs {
        if let FnArg::Typed(typed) = arg {
            param_names.push(match typed.pat.as_ref() {
                Pat::Ident(p) => p.ident.unraw().to_string(),
                _ => "_".to_string(),
            });
            param_types.push(local_type(&typed.ty, &method_name)?);
        }
    }
    let params = param_names.len();
    let signature = format!("({})", param_names.join(", "));

    let args =
        match &attr.meta {
            Meta::Path(_) => InvokeArgs {
                name: None,
                values: Vec::new(),
            },
            Meta::List(list) => list.parse_args_with(InvokeArgs::parse)?,
            Meta::NameValue(_) => return Err(syn::Error::new_spanned(
                attr,
                "write `#[invoke]` for a method without arguments, or `#[invoke(value, ...)]` with the values to try",
            )),
        };
    let label = args
        .name
        .as_ref()
        .map_or_else(|| LitStr::new(&method_name, sig.ident.span()), Clone::clone);
    let method_ident = &sig.ident;

    if params == 0 {
        if let Some(value) = args.values.first() {
            return Err(syn::Error::new_spanned(
                value,
                format!(
                    "`{method_name}` takes no arguments besides `&self`, so `#[invoke]` takes no values; write \
                     `#[invoke]`"
                ),
            ));
        }
        return Ok(vec![invocation(&label, method_ident, &[], &[])]);
    }
    if args.values.is_empty() {
        let example = if params == 1 {
            "`#[invoke(1, 2)]`".to_string()
        } else {
            let tuple: Vec<String> = (1..=params).map(|i| i.to_string()).collect();
            format!("`#[invoke(({}))]`", tuple.join(", "))
        };
        return Err(syn::Error::new_spanned(
            attr,
            format!(
                "`{method_name}` takes {} besides `&self`: give the values to call it with, e.g. {example} \
                 (one invocation per value)",
                plural(params, "argument")
            ),
        ));
    }
    let mut generated = Vec::with_capacity(args.values.len());
    for value in &args.values {
        if params == 1 {
            generated.push(invocation(
                &label,
                method_ident,
                std::slice::from_ref(value),
                &param_types,
            ));
            continue;
        }
        let elems: Vec<Expr> = match value {
            Expr::Tuple(tuple) => tuple.elems.iter().cloned().collect(),
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    format!(
                        "`{method_name}` takes {params} arguments besides `&self`, so each value of `#[invoke]` is \
                         a tuple `{signature}` in parameter order, e.g. `#[invoke((1, \"a\"), (2, \"b\"))]`"
                    ),
                ))
            }
        };
        if elems.len() != params {
            return Err(syn::Error::new_spanned(
                value,
                format!(
                    "this tuple has {} but `{method_name}` takes {} besides `&self`: `{signature}`",
                    plural(elems.len(), "value"),
                    plural(params, "argument")
                ),
            ));
        }
        generated.push(invocation(&label, method_ident, &elems, &param_types));
    }
    Ok(generated)
}

/// `n thing` or `n things`.
fn plural(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// A parameter's type as the type of a local: every lifetime becomes `'_` (the method's own
/// lifetimes are not in scope there). `impl Trait` is rejected: it makes the method generic.
fn local_type(ty: &Type, method_name: &str) -> syn::Result<Type> {
    struct Elide(Option<syn::Error>, String);
    impl VisitMut for Elide {
        fn visit_lifetime_mut(&mut self, lifetime: &mut Lifetime) {
            lifetime.ident = Ident::new("_", lifetime.ident.span());
        }
        fn visit_type_mut(&mut self, ty: &mut Type) {
            if let Type::ImplTrait(impl_trait) = ty {
                if self.0.is_none() {
                    self.0 = Some(syn::Error::new_spanned(
                        &*impl_trait,
                        format!(
                            "`#[invoke]` does not support generic methods (`impl Trait` parameters): an invocation \
                             calls `{}` with fixed argument values, so every type must be known; add a non-generic \
                             method with concrete types that calls it, and mark that one `#[invoke]`",
                            self.1
                        ),
                    ));
                }
                return;
            }
            visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut ty = ty.clone();
    let mut elide = Elide(None, method_name.to_string());
    elide.visit_type_mut(&mut ty);
    match elide.0 {
        Some(error) => Err(error),
        None => Ok(ty),
    }
}

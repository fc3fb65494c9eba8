//! `#[invocations]`: an `impl lineup::Invocations` from `#[invoke(...)]` attributes on methods.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{
    Attribute, Expr, FnArg, GenericParam, Ident, ImplItem, ImplItemFn, Item, ItemImpl, Lifetime, LitStr, Meta, Pat,
    Token, Type,
};

/// Collects errors so that one expansion reports every problem at once.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(first) => first.combine(error),
            None => self.0 = Some(error),
        }
    }
}

/// Expands `#[invocations]` (`args` are the attribute's own arguments, `input` the item).
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    if !args.is_empty() {
        errors.push(syn::Error::new_spanned(
            args,
            "`#[invocations]` takes no arguments; put the values on each method's `#[invoke(...)]`",
        ));
    }
    let item: Item = syn::parse2(input)?;
    // On a wrong target the item is kept (without `#[invoke]` attributes), so that the only
    // errors the user sees are ours.
    let mut block = match item {
        Item::Impl(block) => block,
        other => {
            errors.push(syn::Error::new_spanned(
                &other,
                "`#[invocations]` goes on an inherent `impl` block (`impl MyObject { ... }`) whose methods are \
                 marked `#[invoke]`",
            ));
            return Ok(with_errors(errors, other));
        }
    };
    if let Some((_, path, _)) = &block.trait_ {
        errors.push(syn::Error::new_spanned(
            path,
            "`#[invocations]` goes on an inherent `impl` block (`impl MyObject { ... }`), not on a trait impl; \
             call the trait's methods from `#[invoke]` methods of an inherent impl",
        ));
        for impl_item in &mut block.items {
            if let ImplItem::Fn(method) = impl_item {
                take_invoke_attrs(&mut method.attrs);
            }
        }
        return Ok(with_errors(errors, block));
    }

    let mut invocations = Vec::new();
    let mut marked = 0usize;
    for impl_item in &mut block.items {
        let (attrs, method) = match impl_item {
            ImplItem::Fn(method) => (take_invoke_attrs(&mut method.attrs), Some(&*method)),
            ImplItem::Const(item) => (take_invoke_attrs(&mut item.attrs), None),
            ImplItem::Type(item) => (take_invoke_attrs(&mut item.attrs), None),
            ImplItem::Macro(item) => (take_invoke_attrs(&mut item.attrs), None),
            _ => (Vec::new(), None),
        };
        let Some(first) = attrs.first() else { continue };
        let Some(method) = method else {
            errors.push(syn::Error::new_spanned(
                first,
                "`#[invoke]` goes on methods that take `&self`",
            ));
            continue;
        };
        marked += 1;
        if let Some(second) = attrs.get(1) {
            errors.push(syn::Error::new_spanned(
                second,
                format!(
                    "`{}` is marked `#[invoke]` twice; list every value in one `#[invoke(...)]`",
                    method.sig.ident.unraw()
                ),
            ));
            continue;
        }
        match method_invocations(method, first) {
            Ok(generated) => {
                // A method compiled out by `#[cfg]` takes its invocations with it.
                let cfgs: Vec<&Attribute> = method.attrs.iter().filter(|a| a.path().is_ident("cfg")).collect();
                invocations.push((quote!(#(#cfgs)*), generated));
            }
            Err(e) => errors.push(e),
        }
    }
    if marked == 0 {
        let impl_token = block.impl_token;
        let self_ty = &block.self_ty;
        errors.push(syn::Error::new_spanned(
            quote!(#impl_token #self_ty),
            "`#[invocations]` needs at least one method marked `#[invoke]`, e.g. `#[invoke(1, 2)] fn add(&self, \
             value: u32)` or `#[invoke] fn try_take(&self) -> Option<u32>`",
        ));
    }
    if errors.0.is_some() {
        // The impl block without its `#[invoke]` attributes keeps the methods defined, so the
        // only errors the user sees are ours.
        return Ok(with_errors(errors, block));
    }

    let trait_impl = trait_impl(&block, &invocations);
    Ok(quote! {
        #block
        #trait_impl
    })
}

/// The errors, then the item.
fn with_errors(errors: Errors, item: impl ToTokens) -> TokenStream {
    let mut tokens = errors.0.map(syn::Error::into_compile_error).unwrap_or_default();
    item.to_tokens(&mut tokens);
    tokens
}

/// Removes and returns the `#[invoke]` attributes of an item.
fn take_invoke_attrs(attrs: &mut Vec<Attribute>) -> Vec<Attribute> {
    let (invoke, others) = std::mem::take(attrs)
        .into_iter()
        .partition(|a| a.path().is_ident("invoke"));
    *attrs = others;
    invoke
}

/// The `impl ::lineup::Invocations` for the block's self type.
/// `invocations` holds each marked method's `#[cfg]` attributes and its invocations.
fn trait_impl(block: &ItemImpl, invocations: &[(TokenStream, Vec<TokenStream>)]) -> TokenStream {
    let self_ty = &block.self_ty;
    let (impl_generics, _, where_clause) = block.generics.split_for_impl();
    // The trait requires `Send + Sync + 'static`. Stating it for `Self` lets a generic impl
    // block compile and puts an unmet bound on the user's type instead of inside the macro.
    let mut predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(ToTokens::to_token_stream).collect())
        .unwrap_or_default();
    if !block.generics.params.is_empty() {
        predicates.push(quote!(Self: ::core::marker::Send + ::core::marker::Sync + 'static));
    }
    let where_tokens = if predicates.is_empty() {
        quote!()
    } else {
        quote!(where #(#predicates),*)
    };
    let impl_line = quote_spanned! {self_ty.span()=>
        impl #impl_generics ::lineup::Invocations for #self_ty
    };
    let set = Ident::new("__lineup_set", Span::mixed_site());
    let capacity: usize = invocations.iter().map(|(_, generated)| generated.len()).sum();
    let pushes = invocations.iter().map(|(cfgs, generated)| {
        quote! {
            #cfgs
            {
                #(#set.push(#generated);)*
            }
        }
    });
    quote! {
        #[automatically_derived]
        #impl_line #where_tokens {
            fn invocations() -> ::std::vec::Vec<::lineup::Invocation<Self>> {
                #[allow(unused_mut)]
                let mut #set = ::std::vec::Vec::with_capacity(#capacity);
                #(#pushes)*
                #set
            }
        }
    }
}

/// The arguments of an `#[invoke(...)]` attribute: an optional `name = "..."` and the values.
struct InvokeArgs {
    name: Option<LitStr>,
    values: Vec<Expr>,
}

impl Parse for InvokeArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut name = None;
        let mut values = Vec::new();
        while !input.is_empty() {
            if input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
                let key: Ident = input.parse()?;
                input.parse::<Token![=]>()?;
                if key != "name" {
                    return Err(syn::Error::new_spanned(
                        &key,
                        format!("unknown option `{key}` in `#[invoke]`; the only option is `name = \"...\"`"),
                    ));
                }
                if name.is_some() {
                    return Err(syn::Error::new_spanned(&key, "duplicate option `name`"));
                }
                let lit: LitStr = input.parse().map_err(|e| {
                    syn::Error::new(e.span(), "`name` takes a string literal, e.g. `name = \"push_front\"`")
                })?;
                if lit.value().is_empty() {
                    return Err(syn::Error::new_spanned(&lit, "an invocation's name cannot be empty"));
                }
                name = Some(lit);
            } else {
                values.push(input.parse()?);
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(Self { name, values })
    }
}

/// The invocations of one `#[invoke]` method, in the order of its values.
fn method_invocations(method: &ImplItemFn, attr: &Attribute) -> syn::Result<Vec<TokenStream>> {
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

/// Accepts `&self`, `&'a self` and `self: &Self`; explains everything else.
fn check_receiver(method: &ImplItemFn, method_name: &str) -> syn::Result<()> {
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
        "; use interior mutability (a `lineup::shuttle::sync::Mutex`, atomics, ...) for the object's state"
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

/// `n thing` or `n things`.
fn plural(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// One `::lineup::Invocation::new(...)` call with its `.arg(...)`s. Each value is evaluated once
/// into a local of the parameter's type (so a value of the wrong type is reported at the value);
/// the `move` closure owns a clone and clones it again at every call (so that it is `Fn`), and
/// the original is recorded for display.
fn invocation(label: &LitStr, method: &Ident, values: &[Expr], types: &[Type]) -> TokenStream {
    // Spanned at the user's value, so that a missing `Clone` or `Debug` is reported there (a
    // mixed-site name moves the report to the attribute). Each invocation is a block of its
    // own and the names are reserved-looking, so they do not clash with the user's.
    let local = |prefix: &str, i: usize, value: &Expr| Ident::new(&format!("__lineup_{prefix}{i}"), value.span());
    let arg_vars: Vec<Ident> = values.iter().enumerate().map(|(i, v)| local("arg", i, v)).collect();
    let call_vars: Vec<Ident> = values.iter().enumerate().map(|(i, v)| local("call", i, v)).collect();
    let lets = values
        .iter()
        .zip(types)
        .zip(arg_vars.iter().zip(&call_vars))
        .map(|((value, ty), (arg, call))| {
            quote_spanned! {value.span()=>
                let #arg: #ty = #value;
                let #call = ::core::clone::Clone::clone(&#arg);
            }
        });
    let clones = values
        .iter()
        .zip(&call_vars)
        .map(|(value, call)| quote_spanned!(value.span()=> ::core::clone::Clone::clone(&#call)));
    let records = values
        .iter()
        .zip(&arg_vars)
        .map(|(value, arg)| quote_spanned!(value.span()=> .arg(#arg)));
    let object = Ident::new("__lineup_object", Span::mixed_site());
    let new = quote_spanned! {method.span()=>
        ::lineup::Invocation::new(#label, move |#object: &Self| Self::#method(#object #(, #clones)*))
    };
    quote! {
        {
            #(#lets)*
            #new #(#records)*
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages of the errors `#[invocations]` reports for `input`.
    fn errors(input: TokenStream) -> Vec<String> {
        errors_with(TokenStream::new(), input)
    }

    /// The same with attribute arguments.
    fn errors_with(args: TokenStream, input: TokenStream) -> Vec<String> {
        let out = expand(args, input).unwrap_or_else(|e| e.to_compile_error());
        let text = out.to_string();
        let mut messages = Vec::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("compile_error !") {
            rest = &rest[at..];
            let start = rest.find('"').unwrap() + 1;
            let end = rest[start..].find("\" }").unwrap() + start;
            messages.push(rest[start..end].replace("\\\"", "\"").replace("\\'", "'"));
            rest = &rest[end..];
        }
        messages
    }

    fn error(input: TokenStream) -> String {
        let messages = errors(input);
        assert_eq!(messages.len(), 1, "{messages:?}");
        messages.into_iter().next().unwrap()
    }

    #[test]
    fn a_valid_block_expands_to_the_block_and_the_trait_impl() {
        let out = expand(
            TokenStream::new(),
            quote! {
                impl Queue {
                    #[invoke(200, 400)]
                    fn add(&self, value: u32) {}
                    #[invoke]
                    fn try_take(&self) -> Option<u32> { None }
                    #[invoke((1, "a"))]
                    fn put(&self, key: u32, value: &'static str) {}
                    #[invoke(name = "push_front", 7)]
                    fn add_first(&self, value: u32) {}
                }
            },
        )
        .unwrap()
        .to_string();
        assert!(!out.contains("invoke ("), "the #[invoke] attributes are removed: {out}");
        assert!(out.contains("impl :: lineup :: Invocations for Queue"), "{out}");
        let order = [
            "\"add\"",
            ". arg (__lineup_arg0)",
            "\"add\"",
            "\"try_take\"",
            "let __lineup_arg0 : u32 = 1",
            "let __lineup_arg1 : & '_ str = \"a\"",
            "\"put\"",
            "\"push_front\"",
            "Self :: add_first",
        ];
        let mut at = 0;
        for piece in order {
            let found = out[at..]
                .find(piece)
                .unwrap_or_else(|| panic!("`{piece}` missing after {at} in {out}"));
            at += found + piece.len();
        }
        assert!(
            !out.contains("Self : :: core :: marker :: Send"),
            "no extra bound without generics: {out}"
        );
    }

    #[test]
    fn a_generic_block_gets_the_supertrait_bounds() {
        let out = expand(
            TokenStream::new(),
            quote! {
                impl<T: Clone> Stack<T> where T: Default {
                    #[invoke]
                    fn pop(&self) -> Option<T> { None }
                }
            },
        )
        .unwrap()
        .to_string();
        assert!(
            out.contains(
                "impl < T : Clone > :: lineup :: Invocations for Stack < T > where T : Default , Self : :: core :: \
                 marker :: Send + :: core :: marker :: Sync + 'static"
            ),
            "{out}"
        );
    }

    #[test]
    fn wrong_targets_are_rejected_and_kept() {
        let on_struct = expand(
            TokenStream::new(),
            quote!(
                struct Queue;
            ),
        )
        .unwrap()
        .to_string();
        assert!(on_struct.contains("goes on an inherent `impl` block"), "{on_struct}");
        assert!(on_struct.ends_with("struct Queue ;"), "the item is kept: {on_struct}");
        let trait_impl = quote!(impl Clone for Queue { #[invoke] fn clone(&self) -> Self { Queue } });
        let on_trait_impl = expand(TokenStream::new(), trait_impl).unwrap().to_string();
        assert!(on_trait_impl.contains("not on a trait impl"), "{on_trait_impl}");
        assert!(
            on_trait_impl.contains("impl Clone for Queue { fn clone"),
            "kept without `#[invoke]`: {on_trait_impl}"
        );
        let messages = errors_with(quote!(Queue), quote!(impl Queue { #[invoke] fn f(&self) {} }));
        assert_eq!(
            messages,
            ["`#[invocations]` takes no arguments; put the values on each method's `#[invoke(...)]`"]
        );
        assert!(error(quote!(impl Queue { fn f(&self) {} }))
            .starts_with("`#[invocations]` needs at least one method marked `#[invoke]`"));
    }

    #[test]
    fn receivers_other_than_shared_self_are_explained() {
        let none = error(quote!(impl Q { #[invoke] fn make() -> u32 { 0 } }));
        assert!(none.contains("`make` has no receiver"), "{none}");
        assert!(
            none.contains("several threads call them on one shared object at once"),
            "{none}"
        );
        let by_value = error(quote!(impl Q { #[invoke] fn take(self) {} }));
        assert!(by_value.contains("`take` takes `self` by value"), "{by_value}");
        let mutable = error(quote!(impl Q { #[invoke] fn inc(&mut self) {} }));
        assert!(mutable.contains("`inc` takes `&mut self`"), "{mutable}");
        assert!(mutable.contains("interior mutability"), "{mutable}");
        let boxed = error(quote!(impl Q { #[invoke] fn b(self: Box<Self>) {} }));
        assert!(boxed.contains("`b` takes `self: Box<Self>`"), "{boxed}");
        let arc = error(quote!(impl Q { #[invoke] fn b(self: &std::sync::Arc<Self>) {} }));
        assert!(arc.contains("`b` takes `self: &std::sync::Arc<Self>`"), "{arc}");
        // `self: &Self` is `&self`.
        assert!(errors(quote!(impl Q { #[invoke] fn get(self: &Self) -> u32 { 0 } })).is_empty());
    }

    #[test]
    fn unsupported_methods_are_explained() {
        let generic = error(quote!(impl Q { #[invoke(1)] fn add<T: Debug>(&self, v: T) {} }));
        assert!(generic.contains("does not support generic methods"), "{generic}");
        let impl_trait = error(quote!(impl Q { #[invoke(1)] fn add(&self, v: impl Debug) {} }));
        assert!(impl_trait.contains("`impl Trait` parameters"), "{impl_trait}");
        // Lifetime parameters are fine.
        assert!(errors(quote!(impl Q { #[invoke("a")] fn get<'a>(&'a self, k: &'a str) -> usize { 0 } })).is_empty());
        assert!(error(quote!(impl Q { #[invoke] async fn get(&self) {} })).contains("async methods"));
        assert!(error(quote!(impl Q { #[invoke] unsafe fn get(&self) {} })).contains("unsafe methods"));
    }

    #[test]
    fn values_must_fit_the_parameters() {
        let missing = error(quote!(impl Q { #[invoke] fn add(&self, value: u32) {} }));
        assert!(missing.contains("`add` takes 1 argument besides `&self`"), "{missing}");
        assert!(missing.contains("`#[invoke(1, 2)]`"), "{missing}");
        let missing2 = error(quote!(impl Q { #[invoke] fn put(&self, k: u32, v: u32) {} }));
        assert!(missing2.contains("e.g. `#[invoke((1, 2))]`"), "{missing2}");
        let extra = error(quote!(impl Q { #[invoke(1)] fn get(&self) {} }));
        assert!(extra.contains("`get` takes no arguments besides `&self`"), "{extra}");
        let not_tuple = error(quote!(impl Q { #[invoke(1, 2)] fn put(&self, key: u32, value: u32) {} }));
        assert!(
            not_tuple.contains("each value of `#[invoke]` is a tuple `(key, value)`"),
            "{not_tuple}"
        );
        let arity = error(quote!(impl Q { #[invoke((1, 2), (3,))] fn put(&self, key: u32, value: u32) {} }));
        assert_eq!(
            arity,
            "this tuple has 1 value but `put` takes 2 arguments besides `&self`: `(key, value)`"
        );
        // With one parameter, a tuple is one value of tuple type.
        assert!(errors(quote!(impl Q { #[invoke((1, 2))] fn put(&self, pair: (u32, u32)) {} })).is_empty());
    }

    #[test]
    fn attribute_misuse_is_reported() {
        let twice = error(quote!(impl Q { #[invoke(1)] #[invoke(2)] fn add(&self, v: u32) {} }));
        assert!(twice.contains("`add` is marked `#[invoke]` twice"), "{twice}");
        let on_const = error(quote!(impl Q { #[invoke] const N: u32 = 1; #[invoke] fn f(&self) {} }));
        assert!(on_const.contains("`#[invoke]` goes on methods"), "{on_const}");
        let option = error(quote!(impl Q { #[invoke(label = "x", 1)] fn add(&self, v: u32) {} }));
        assert!(option.contains("unknown option `label` in `#[invoke]`"), "{option}");
        let name_twice = error(quote!(impl Q { #[invoke(name = "a", name = "b", 1)] fn add(&self, v: u32) {} }));
        assert!(name_twice.contains("duplicate option `name`"), "{name_twice}");
        let name_type = error(quote!(impl Q { #[invoke(name = push, 1)] fn add(&self, v: u32) {} }));
        assert!(name_type.contains("`name` takes a string literal"), "{name_type}");
        let name_value = error(quote!(impl Q { #[invoke = 1] fn add(&self, v: u32) {} }));
        assert!(name_value.contains("write `#[invoke]`"), "{name_value}");
        // `==` is a value, not an option.
        assert!(errors(quote!(impl Q { #[invoke(a == 1)] fn f(&self, v: bool) {} })).is_empty());
    }

    #[test]
    fn every_error_of_a_block_is_reported_at_once() {
        let messages = errors(quote! {
            impl Q {
                #[invoke] fn a(&mut self) {}
                #[invoke] fn b(&self, v: u32) {}
                #[invoke(1)] fn c(&self) {}
            }
        });
        assert_eq!(messages.len(), 3, "{messages:?}");
    }
}

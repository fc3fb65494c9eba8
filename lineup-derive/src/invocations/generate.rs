//! Generation for `#[invocations]`: the `impl` block as it is, followed by its
//! `impl ::lineup::Invocations` or by the errors.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Ident, LitStr, Type};

use super::model::{HandlesMethod, InvocationsBlock, InvokeMethod, Parsed, Rejected};

/// The tokens that replace the item: the block and its trait impl, or the errors and the item.
pub(super) fn expansion(parsed: Parsed) -> TokenStream {
    match parsed {
        Parsed::Block(model) => {
            let trait_impl = trait_impl(&model);
            let block = &model.block;
            quote! {
                #block
                #trait_impl
            }
        }
        Parsed::Rejected(Rejected { errors, item }) => {
            let mut tokens = errors.into_compile_error();
            item.to_tokens(&mut tokens);
            tokens
        }
    }
}

/// The `impl ::lineup::Invocations` for the block's self type.
fn trait_impl(model: &InvocationsBlock) -> TokenStream {
    let block = &model.block;
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
    let capacity: usize = model.methods.iter().map(|method| method.calls.len()).sum();
    let pushes = model.methods.iter().map(|method| {
        let cfgs = &method.cfgs;
        let generated = invocations(method);
        let same_handle = method
            .handle
            .as_ref()
            .zip(model.handles.as_ref())
            .map(|(param, handles)| same_handle(param, &handles.handle));
        quote! {
            #(#cfgs)*
            {
                #same_handle
                #(#set.push(#generated);)*
            }
        }
    });
    let handles = model.handles.as_ref().map(handles_fn);
    let state = model.state.then(|| {
        quote! {
            fn shows_state() -> ::core::option::Option<fn(&Self) -> ::std::string::String> {
                ::core::option::Option::Some(|object| ::std::format!("{:?}", object))
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
            #handles
            #state
        }
    }
}

/// A compile-time check that a method's handle parameter `&mut param` is the handle the block's
/// `#[handles]` method makes, reported at the parameter's type.
fn same_handle(param: &Type, made: &Type) -> TokenStream {
    quote_spanned! {param.span()=>
        let _: fn(&mut #made) -> &mut #param = |handle| handle;
    }
}

/// `fn handles()` of the trait, from the block's `#[handles]` method (with its `#[cfg]`s: compiled
/// out, the object has no handles).
fn handles_fn(method: &HandlesMethod) -> TokenStream {
    let ident = &method.ident;
    let object = Ident::new("__lineup_object", Span::mixed_site());
    let thread = Ident::new("__lineup_thread", Span::mixed_site());
    let call = if method.takes_thread {
        quote_spanned!(ident.span()=> Self::#ident(#object, #thread))
    } else {
        quote_spanned!(ident.span()=> Self::#ident(#object))
    };
    let make = quote! {
        ::lineup::Handles::new(|#object: &::std::sync::Arc<Self>, #thread: &::lineup::MatrixThread| {
            let _ = &#thread;
            #call
        })
    };
    let cfgs = &method.cfgs;
    let handles = Ident::new("__lineup_handles", Span::mixed_site());
    quote! {
        fn handles() -> ::core::option::Option<::lineup::Handles<Self>> {
            #[allow(unused_mut)]
            let mut #handles = ::core::option::Option::None;
            #(#cfgs)*
            {
                #handles = ::core::option::Option::Some(#make);
            }
            #handles
        }
    }
}

/// The method's invocations, one per entry of its `calls`.
fn invocations(method: &InvokeMethod) -> impl Iterator<Item = TokenStream> + '_ {
    method.calls.iter().map(|arguments| {
        invocation(
            &method.label,
            &method.ident,
            arguments,
            &method.param_types,
            Marks {
                nondeterministic: method.nondeterministic,
                cancellable: method.cancellable,
                group: method.group.as_ref(),
            },
            Shape {
                asynchronous: method.asynchronous,
                handle: method.handle.as_ref(),
            },
        )
    })
}

/// What an invocation is marked with besides its arguments.
struct Marks<'a> {
    /// `.nondeterministic()`.
    nondeterministic: bool,
    /// `.cancellable()`.
    cancellable: bool,
    /// `.group(...)`, with the user's literal.
    group: Option<&'a LitStr>,
}

/// How the method is called: awaited or not, with the calling thread's handle or not.
struct Shape<'a> {
    /// An `async fn`.
    asynchronous: bool,
    /// The `T` of its `&mut T` handle parameter.
    handle: Option<&'a Type>,
}

/// One `::lineup::Invocation::new(...)` call with its `.arg(...)`s (and `.nondeterministic()`,
/// `.cancellable()`, `.group(...)`). Each value is evaluated once
/// into a local of the parameter's type (so a value of the wrong type is reported at the value);
/// the `move` closure owns a clone and clones it again at every call (so that it is `Fn`), and
/// the original is recorded for display.
fn invocation(
    label: &LitStr,
    method: &Ident,
    values: &[Expr],
    types: &[Type],
    marks: Marks<'_>,
    shape: Shape<'_>,
) -> TokenStream {
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
    let handle = Ident::new("__lineup_handle", Span::mixed_site());
    let new = match (shape.asynchronous, shape.handle) {
        // An async closure: its future may borrow the object and the closure's argument copies.
        (true, None) => quote_spanned! {method.span()=>
            ::lineup::Invocation::new_async(#label, async move |#object: &Self| Self::#method(#object #(, #clones)*).await)
        },
        (false, None) => quote_spanned! {method.span()=>
            ::lineup::Invocation::new(#label, move |#object: &Self| Self::#method(#object #(, #clones)*))
        },
        (true, Some(ty)) => quote_spanned! {method.span()=>
            ::lineup::Invocation::on_handle_async(#label, async move |#object: &Self, #handle: &mut #ty| {
                Self::#method(#object, #handle #(, #clones)*).await
            })
        },
        (false, Some(ty)) => quote_spanned! {method.span()=>
            ::lineup::Invocation::on_handle(#label, move |#object: &Self, #handle: &mut #ty| {
                Self::#method(#object, #handle #(, #clones)*)
            })
        },
    };
    let nondeterministic = marks
        .nondeterministic
        .then(|| quote_spanned!(method.span()=> .nondeterministic()));
    let cancellable = marks
        .cancellable
        .then(|| quote_spanned!(method.span()=> .cancellable()));
    // Spanned at the user's literal: a problem with the group is reported there.
    let group = marks.group.map(|name| quote_spanned!(name.span()=> .group(#name)));
    quote! {
        {
            #(#lets)*
            #new #(#records)* #nondeterministic #cancellable #group
        }
    }
}

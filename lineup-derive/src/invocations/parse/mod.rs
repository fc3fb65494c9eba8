//! Parsing for `#[invocations]`: the attribute's arguments and the `impl` block into a
//! [`Parsed`], every error of the block collected so that one expansion reports them all.

mod arguments;
mod invoke_args;
mod local_type;
mod method;
mod receiver;

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::{Attribute, ImplItem, Item};

use super::model::{InvocationsBlock, Parsed, Rejected};

/// Collects errors so that one expansion reports every problem at once.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    /// Adds an error after the others.
    fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(first) => first.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// Rejects `item` with the errors so far and `last`.
    fn reject(self, last: syn::Error, item: Item) -> Parsed {
        let errors = match self.0 {
            Some(mut first) => {
                first.combine(last);
                first
            }
            None => last,
        };
        Parsed::Rejected(Rejected { errors, item })
    }
}

/// Parses `#[invocations]` (`args` are the attribute's own arguments, `input` the item). Only
/// input that is not an item at all is an `Err`; every other problem rejects the item.
pub(super) fn parse(args: TokenStream, input: TokenStream) -> syn::Result<Parsed> {
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
            let error = syn::Error::new_spanned(
                &other,
                "`#[invocations]` goes on an inherent `impl` block (`impl MyObject { ... }`) whose methods are \
                 marked `#[invoke]`",
            );
            return Ok(errors.reject(error, other));
        }
    };
    if let Some((_, path, _)) = &block.trait_ {
        let error = syn::Error::new_spanned(
            path,
            "`#[invocations]` goes on an inherent `impl` block (`impl MyObject { ... }`), not on a trait impl; \
             call the trait's methods from `#[invoke]` methods of an inherent impl",
        );
        for impl_item in &mut block.items {
            if let ImplItem::Fn(method) = impl_item {
                take_invoke_attrs(&mut method.attrs);
            }
        }
        return Ok(errors.reject(error, Item::Impl(block)));
    }

    let mut methods = Vec::new();
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
        match method::invoke_method(method, first) {
            Ok(method) => methods.push(method),
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
    if let Some(errors) = errors.0 {
        // The impl block without its `#[invoke]` attributes keeps the methods defined, so the
        // only errors the user sees are ours.
        return Ok(Parsed::Rejected(Rejected {
            errors,
            item: Item::Impl(block),
        }));
    }
    Ok(Parsed::Block(InvocationsBlock { block, methods }))
}

/// Removes and returns the `#[invoke]` attributes of an item.
fn take_invoke_attrs(attrs: &mut Vec<Attribute>) -> Vec<Attribute> {
    let (invoke, others) = std::mem::take(attrs)
        .into_iter()
        .partition(|a| a.path().is_ident("invoke"));
    *attrs = others;
    invoke
}

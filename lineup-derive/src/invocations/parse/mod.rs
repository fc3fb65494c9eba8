//! Parsing for `#[invocations]`: the attribute's arguments and the `impl` block into a
//! [`Parsed`], every error of the block collected so that one expansion reports them all.

mod arguments;
mod handles;
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
    let state = args.to_string() == "state";
    if !args.is_empty() && !state {
        errors.push(syn::Error::new_spanned(
            args,
            "`#[invocations]` takes no arguments but `state` (`#[invocations(state)]`: a violation's report shows \
             the object's `Debug` after each operation); put the values on each method's `#[invoke(...)]`",
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
                take_attrs(&mut method.attrs, "handles");
            }
        }
        return Ok(errors.reject(error, Item::Impl(block)));
    }

    let mut methods = Vec::new();
    let mut handles = None;
    // A `#[handles]` method was marked, even one with errors (then its users get no error of their own).
    let mut handles_marked = false;
    let mut marked = 0usize;
    for impl_item in &mut block.items {
        let (attrs, handles_attrs, method) = match impl_item {
            ImplItem::Fn(method) => (
                take_invoke_attrs(&mut method.attrs),
                take_attrs(&mut method.attrs, "handles"),
                Some(&*method),
            ),
            ImplItem::Const(item) => (
                take_invoke_attrs(&mut item.attrs),
                take_attrs(&mut item.attrs, "handles"),
                None,
            ),
            ImplItem::Type(item) => (
                take_invoke_attrs(&mut item.attrs),
                take_attrs(&mut item.attrs, "handles"),
                None,
            ),
            ImplItem::Macro(item) => (
                take_invoke_attrs(&mut item.attrs),
                take_attrs(&mut item.attrs, "handles"),
                None,
            ),
            _ => (Vec::new(), Vec::new(), None),
        };
        if let Some(first) = handles_attrs.first() {
            handles_marked = true;
            match handles_method(method, first, &handles_attrs, &attrs, handles.is_some()) {
                Ok(found) => handles = Some(found),
                Err(e) => errors.push(e),
            }
            continue;
        }
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
    if !handles_marked {
        for method in &methods {
            if let Some(handle) = &method.handle {
                errors.push(syn::Error::new_spanned(
                    handle,
                    format!(
                        "the first parameter of `{}` after `&self` is `&mut` of the calling thread's handle, but no \
                         method of the block makes handles: add `#[handles] fn handle(&self, thread: \
                         &lineup::MatrixThread) -> {}`",
                        method.ident.unraw(),
                        quote!(#handle)
                    ),
                ));
            }
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
    Ok(Parsed::Block(InvocationsBlock {
        block,
        methods,
        handles,
        state,
    }))
}

/// The `#[handles]` method of the block, marked with `first` (of `all` `#[handles]` attributes,
/// and `invoke`'s `#[invoke]` ones), or the problem with it: not a method, marked twice, also
/// `#[invoke]`, or a second one in the block (`seen`).
fn handles_method(
    method: Option<&syn::ImplItemFn>,
    first: &Attribute,
    all: &[Attribute],
    invoke: &[Attribute],
    seen: bool,
) -> syn::Result<super::model::HandlesMethod> {
    let Some(method) = method else {
        return Err(syn::Error::new_spanned(
            first,
            "`#[handles]` goes on the method that makes each thread's handle",
        ));
    };
    if let Some(second) = all.get(1) {
        return Err(syn::Error::new_spanned(second, "`#[handles]` is given twice"));
    }
    if let Some(invoke) = invoke.first() {
        return Err(syn::Error::new_spanned(
            invoke,
            format!(
                "`{}` is marked `#[handles]`: it makes the threads' handles and is not an operation, so it cannot be \
                 `#[invoke]` (nor be in an operation group); mark the operations that use the handle instead",
                method.sig.ident.unraw()
            ),
        ));
    }
    if seen {
        return Err(syn::Error::new_spanned(
            first,
            "a second `#[handles]` method: the block makes one handle per thread; put everything a thread owns in \
             one handle type",
        ));
    }
    handles::handles_method(method, first)
}

/// Removes and returns the `#[invoke]` attributes of an item.
fn take_invoke_attrs(attrs: &mut Vec<Attribute>) -> Vec<Attribute> {
    take_attrs(attrs, "invoke")
}

/// Removes and returns the attributes named `name` of an item.
fn take_attrs(attrs: &mut Vec<Attribute>, name: &str) -> Vec<Attribute> {
    let (taken, others) = std::mem::take(attrs).into_iter().partition(|a| a.path().is_ident(name));
    *attrs = others;
    taken
}

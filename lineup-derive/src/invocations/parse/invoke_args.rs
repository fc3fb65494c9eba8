//! The arguments of an `#[invoke(...)]` attribute.

use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Expr, Ident, LitStr, Meta, Token};

/// The arguments of an `#[invoke(...)]` attribute: an optional `name = "..."` and the values.
pub(super) struct InvokeArgs {
    /// The `name = "..."` option: the label of the invocations instead of the method's name.
    pub(super) name: Option<LitStr>,
    /// The values, one per invocation, in the order written.
    pub(super) values: Vec<Expr>,
}

impl InvokeArgs {
    /// The arguments of `attr`: none for `#[invoke]`, the list for `#[invoke(...)]`.
    pub(super) fn from_attr(attr: &Attribute) -> syn::Result<Self> {
        match &attr.meta {
            Meta::Path(_) => Ok(Self {
                name: None,
                values: Vec::new(),
            }),
            Meta::List(list) => list.parse_args_with(Self::parse),
            Meta::NameValue(_) => Err(syn::Error::new_spanned(
                attr,
                "write `#[invoke]` for a method without arguments, or `#[invoke(value, ...)]` with the values to try",
            )),
        }
    }
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

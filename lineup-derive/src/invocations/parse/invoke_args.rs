//! The arguments of `#[invoke(...)]`.

use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, LitStr, Token};

/// The arguments of an `#[invoke(...)]` attribute: an optional `name = "..."` and the values.
pub(crate) struct InvokeArgs {
    pub(crate) name: Option<LitStr>,
    pub(crate) values: Vec<Expr>,
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

//! The options of `#[lineup_test(...)]`.

use proc_macro2::{Literal, TokenStream};
use quote::quote_spanned;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};

use super::suggestion::closest_option;
use super::values::{boolean, integer, labels, matrix, string};

/// Every option, in the order the error message lists them.
pub(crate) const OPTIONS: &[&str] = &[
    "threads",
    "ops",
    "samples",
    "preemption_bound",
    "seed",
    "workers",
    "time_budget_ms",
    "check_stuck",
    "matrix",
    "initial",
    "final",
    "observations",
];

/// One `key = value` of the attribute.
pub(crate) struct OptionArg {
    key: Ident,
    value: Expr,
}

impl Parse for OptionArg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // `final` is a reserved word: accept keywords as option names.
        let key = Ident::parse_any(input).map_err(|e| {
            syn::Error::new(
                e.span(),
                format!(
                    "expected an option `name = value`; the options are {}",
                    OPTIONS.join(", ")
                ),
            )
        })?;
        if !input.peek(Token![=]) {
            return Err(syn::Error::new_spanned(
                &key,
                format!("expected `{} = value`", key.unraw()),
            ));
        }
        input.parse::<Token![=]>()?;
        let value = input.parse()?;
        Ok(Self { key, value })
    }
}

/// The `LineupTest` builder calls for the options, in the order they were given.
pub(crate) fn builder_calls(options: &Punctuated<OptionArg, Token![,]>) -> syn::Result<Vec<TokenStream>> {
    let mut seen: Vec<String> = Vec::new();
    let mut calls = Vec::new();
    for OptionArg { key, value } in options {
        let name = key.unraw().to_string();
        if !OPTIONS.contains(&name.as_str()) {
            let hint = closest_option(&name).map_or_else(String::new, |o| format!("did you mean `{o}`? "));
            return Err(syn::Error::new_spanned(
                key,
                format!("unknown option `{name}`; {hint}expected one of {}", OPTIONS.join(", ")),
            ));
        }
        if name != "matrix" {
            if seen.contains(&name) {
                return Err(syn::Error::new_spanned(
                    key,
                    format!("duplicate option `{name}`; give it once (only `matrix` can be repeated)"),
                ));
            }
            seen.push(name.clone());
        }
        let span = key.span();
        let call = match name.as_str() {
            "threads" => {
                let n = integer(value, &name, "usize", |l| {
                    l.base10_parse::<usize>().map(Literal::usize_suffixed)
                })?;
                quote_spanned!(span=> .threads(#n))
            }
            "ops" => {
                let n = integer(value, &name, "usize", |l| {
                    l.base10_parse::<usize>().map(Literal::usize_suffixed)
                })?;
                quote_spanned!(span=> .ops(#n))
            }
            "samples" => {
                let n = integer(value, &name, "usize", |l| {
                    l.base10_parse::<usize>().map(Literal::usize_suffixed)
                })?;
                quote_spanned!(span=> .samples(#n))
            }
            "workers" => {
                let n = integer(value, &name, "usize", |l| {
                    l.base10_parse::<usize>().map(Literal::usize_suffixed)
                })?;
                quote_spanned!(span=> .workers(#n))
            }
            "preemption_bound" => {
                let n = integer(value, &name, "u32", |l| {
                    l.base10_parse::<u32>().map(Literal::u32_suffixed)
                })?;
                quote_spanned!(span=> .preemption_bound(#n))
            }
            "seed" => {
                let n = integer(value, &name, "u64", |l| {
                    l.base10_parse::<u64>().map(Literal::u64_suffixed)
                })?;
                quote_spanned!(span=> .seed(#n))
            }
            "time_budget_ms" => {
                let n = integer(value, &name, "u64", |l| {
                    l.base10_parse::<u64>().map(Literal::u64_suffixed)
                })?;
                quote_spanned!(span=> .time_budget(::std::time::Duration::from_millis(#n)))
            }
            "check_stuck" => {
                let on = boolean(value, &name)?;
                quote_spanned!(span=> .check_stuck(#on))
            }
            "observations" => {
                let dir = string(
                    value,
                    &name,
                    "the directory of the observation files, e.g. `\"observations\"`",
                )?;
                quote_spanned!(span=> .observations(#dir))
            }
            "initial" => {
                let ops = labels(value, &name)?;
                quote_spanned!(span=> .initial(&[#(#ops),*]))
            }
            "final" => {
                let ops = labels(value, &name)?;
                quote_spanned!(span=> .finals(&[#(#ops),*]))
            }
            "matrix" => {
                let columns = matrix(value)?;
                quote_spanned!(span=> .matrix(&[#(&[#(#columns),*]),*]))
            }
            _ => unreachable!("every option in OPTIONS is handled"),
        };
        calls.push(call);
    }
    Ok(calls)
}

//! The values of `#[lineup_test(...)]`'s options: literals of the expected kind, or an error at
//! the value that says what the option takes.

use std::fmt::Display;
use std::str::FromStr;

use syn::{Expr, ExprArray, Lit, LitBool, LitStr};

use crate::lineup_test::model::Integer;

/// An integer literal that fits `T` (named `ty` in the messages), without a suffix or with
/// `ty`'s.
pub(super) fn integer<T>(value: &Expr, option: &str, ty: &str) -> syn::Result<Integer<T>>
where
    T: FromStr,
    T::Err: Display,
{
    let Expr::Lit(syn::ExprLit { lit: Lit::Int(lit), .. }) = value else {
        return Err(syn::Error::new_spanned(
            value,
            format!("`{option}` takes an integer, e.g. `{option} = 2`"),
        ));
    };
    if !lit.suffix().is_empty() && lit.suffix() != ty {
        return Err(syn::Error::new_spanned(
            lit,
            format!(
                "`{option}` takes a `{ty}`; write the integer without the suffix `{}`",
                lit.suffix()
            ),
        ));
    }
    let value = lit
        .base10_parse::<T>()
        .map_err(|_| syn::Error::new_spanned(lit, format!("`{option}` takes a `{ty}`; {lit} does not fit")))?;
    Ok(Integer {
        value,
        span: lit.span(),
    })
}

/// A `true` or `false` literal.
pub(super) fn boolean(value: &Expr, option: &str) -> syn::Result<LitBool> {
    match value {
        Expr::Lit(syn::ExprLit { lit: Lit::Bool(b), .. }) => Ok(b.clone()),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{option}` takes `true` or `false`"),
        )),
    }
}

/// A string literal.
pub(super) fn string(value: &Expr, option: &str, what: &str) -> syn::Result<LitStr> {
    match value {
        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Ok(s.clone()),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{option}` takes a string literal: {what}"),
        )),
    }
}

/// `["add(200)", "try_take()"]`: a list of invocation labels.
pub(super) fn labels(value: &Expr, option: &str) -> syn::Result<Vec<LitStr>> {
    let Expr::Array(ExprArray { elems, .. }) = value else {
        return Err(syn::Error::new_spanned(
            value,
            format!("`{option}` takes a list of invocation labels, e.g. `{option} = [\"add(200)\"]`"),
        ));
    };
    elems
        .iter()
        .map(|e| {
            string(
                e,
                option,
                "each entry is an invocation label exactly as it prints, e.g. `\"add(200)\"`",
            )
        })
        .collect()
}

/// `[["add(200)", "try_take()"], ["add(400)", "try_take()"]]`: one column of labels per thread.
pub(super) fn matrix(value: &Expr) -> syn::Result<Vec<Vec<LitStr>>> {
    const EXAMPLE: &str = "e.g. `matrix = [[\"add(200)\", \"try_take()\"], [\"add(400)\", \"try_take()\"]]`";
    let Expr::Array(ExprArray { elems, .. }) = value else {
        return Err(syn::Error::new_spanned(
            value,
            format!("`matrix` takes a list of columns (one per thread) of invocation labels, {EXAMPLE}"),
        ));
    };
    if elems.is_empty() {
        return Err(syn::Error::new_spanned(
            value,
            format!("`matrix = []` has no columns; give one column of invocation labels per thread, {EXAMPLE}"),
        ));
    }
    elems
        .iter()
        .map(|column| match column {
            Expr::Array(ExprArray { elems, .. }) if elems.is_empty() => Err(syn::Error::new_spanned(
                column,
                "an empty column: each column lists the invocations one thread runs, at least one",
            )),
            Expr::Array(_) => labels(column, "matrix"),
            other => Err(syn::Error::new_spanned(
                other,
                format!("each column of `matrix` is a list of invocation labels, {EXAMPLE}"),
            )),
        })
        .collect()
}

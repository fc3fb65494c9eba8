//! The arguments of each invocation, from the values of `#[invoke(...)]` and the method's
//! parameters.

use syn::{Attribute, Expr};

/// One list of arguments per value of `attr` (one expression per parameter, in parameter
/// order), or the first value that does not fit the parameters. `param_names` names the
/// parameters besides `&self` (`_` for a pattern), for the messages.
///
/// With no parameters there is one invocation without arguments. With one, every value is the
/// argument. With several, every value is a tuple of the arguments.
pub(super) fn invocation_arguments(
    values: &[Expr],
    attr: &Attribute,
    method_name: &str,
    param_names: &[String],
) -> syn::Result<Vec<Vec<Expr>>> {
    let params = param_names.len();
    let signature = format!("({})", param_names.join(", "));
    if params == 0 {
        if let Some(value) = values.first() {
            return Err(syn::Error::new_spanned(
                value,
                format!(
                    "`{method_name}` takes no arguments besides `&self`, so `#[invoke]` takes no values; write \
                     `#[invoke]`"
                ),
            ));
        }
        return Ok(vec![Vec::new()]);
    }
    if values.is_empty() {
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
    let mut calls = Vec::with_capacity(values.len());
    for value in values {
        if params == 1 {
            calls.push(vec![value.clone()]);
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
        calls.push(elems);
    }
    Ok(calls)
}

/// `n thing` or `n things`.
fn plural(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

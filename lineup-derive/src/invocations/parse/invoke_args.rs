//! The arguments of an `#[invoke(...)]` attribute.

use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Expr, Ident, LitStr, Meta, Token};

/// The arguments of an `#[invoke(...)]` attribute: an optional `name = "..."`, an optional
/// `group = "..."`, optional `nondeterministic` and `cancellable` flags, and the values.
pub(super) struct InvokeArgs {
    /// The `name = "..."` option: the label of the invocations instead of the method's name.
    pub(super) name: Option<LitStr>,
    /// The `group = "..."` option: the operation group of every invocation of the method.
    pub(super) group: Option<LitStr>,
    /// The `nondeterministic` flag: the operation's results may differ after the same serial past.
    pub(super) nondeterministic: bool,
    /// The `cancellable` flag: the future of the (asynchronous) operation may be dropped while
    /// pending.
    pub(super) cancellable: bool,
    /// The values, one per invocation, in the order written.
    pub(super) values: Vec<Expr>,
}

impl InvokeArgs {
    /// The arguments of `attr`: none for `#[invoke]`, the list for `#[invoke(...)]`.
    pub(super) fn from_attr(attr: &Attribute) -> syn::Result<Self> {
        match &attr.meta {
            Meta::Path(_) => Ok(Self {
                name: None,
                group: None,
                nondeterministic: false,
                cancellable: false,
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
        let mut group = None;
        let mut nondeterministic = false;
        let mut cancellable = false;
        let mut values = Vec::new();
        while !input.is_empty() {
            let flag = input.fork();
            if flag.parse::<Ident>().is_ok_and(|i| i == "nondeterministic") && (flag.is_empty() || flag.peek(Token![,]))
            {
                let key: Ident = input.parse()?;
                if nondeterministic {
                    return Err(syn::Error::new_spanned(&key, "duplicate option `nondeterministic`"));
                }
                nondeterministic = true;
            } else if is_flag(input, "cancellable") {
                let key: Ident = input.parse()?;
                if cancellable {
                    return Err(syn::Error::new_spanned(&key, "duplicate option `cancellable`"));
                }
                cancellable = true;
            } else if input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
                let key: Ident = input.parse()?;
                input.parse::<Token![=]>()?;
                let slot = match key.to_string().as_str() {
                    "name" => &mut name,
                    "group" => &mut group,
                    _ => {
                        return Err(syn::Error::new_spanned(
                            &key,
                            format!(
                                "unknown option `{key}` in `#[invoke]`; the options are `name = \"...\"`, \
                                 `group = \"...\"`, `nondeterministic` and `cancellable`"
                            ),
                        ))
                    }
                };
                if slot.is_some() {
                    return Err(syn::Error::new_spanned(&key, format!("duplicate option `{key}`")));
                }
                *slot = Some(string_option(input, &key)?);
            } else {
                values.push(input.parse()?);
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(Self {
            name,
            group,
            nondeterministic,
            cancellable,
            values,
        })
    }
}

/// Whether `input` starts with the bare flag `name` (followed by a comma or nothing).
fn is_flag(input: ParseStream, name: &str) -> bool {
    let flag = input.fork();
    flag.parse::<Ident>().is_ok_and(|i| i == name) && (flag.is_empty() || flag.peek(Token![,]))
}

/// The string literal of option `key` (`name` or `group`), which cannot be empty; the errors
/// point at the value as written.
fn string_option(input: ParseStream, key: &Ident) -> syn::Result<LitStr> {
    let (example, what) = match key.to_string().as_str() {
        "name" => ("name = \"push_front\"", "an invocation's name"),
        _ => ("group = \"consumer\"", "an operation group's name"),
    };
    if !input.peek(LitStr) {
        // The value as written, up to the next option, so that the error spans all of it.
        let value: Expr = input
            .parse()
            .map_err(|e| syn::Error::new(e.span(), format!("`{key}` takes a string literal, e.g. `{example}`")))?;
        return Err(syn::Error::new_spanned(
            value,
            format!("`{key}` takes a string literal, e.g. `{example}`"),
        ));
    }
    let lit: LitStr = input.parse()?;
    if lit.value().is_empty() {
        return Err(syn::Error::new_spanned(&lit, format!("{what} cannot be empty")));
    }
    Ok(lit)
}

//! `#[lineup_test(...)]`: a `#[test]` that runs `lineup::LineupTest` on the object a function
//! builds.

use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprArray, Ident, ItemFn, Lit, LitBool, LitInt, LitStr, ReturnType, Token};

/// Every option, in the order the error message lists them.
const OPTIONS: &[&str] = &[
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
struct OptionArg {
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

/// Expands `#[lineup_test(...)]` (`args` are the attribute's arguments, `input` the function).
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> syn::Result<TokenStream> {
    let options = syn::parse::Parser::parse2(Punctuated::<OptionArg, Token![,]>::parse_terminated, args)?;
    let function: ItemFn = match syn::parse2(input.clone()) {
        Ok(function) => function,
        Err(_) => {
            return Err(syn::Error::new_spanned(
                input,
                "`#[lineup_test]` goes on a function `fn name() -> MyObject` that builds the object under test",
            ))
        }
    };
    let calls = builder_calls(&options)?;
    check_signature(&function)?;

    let ItemFn { attrs, vis, sig, block } = &function;
    if let Some(test) = attrs.iter().find(|a| a.path().is_ident("test")) {
        return Err(syn::Error::new_spanned(
            test,
            "`#[lineup_test]` already makes the function a test; remove `#[test]`",
        ));
    }
    let name = &sig.ident;
    let ReturnType::Type(_, object) = &sig.output else {
        unreachable!("check_signature rejects functions without a return type")
    };
    let build = quote_spanned!(object.span()=> __lineup_build);
    // Spanned at the return type: "`MyObject: Invocations` is not satisfied" points there.
    let run = quote_spanned!(object.span()=> .run(#build));
    Ok(quote! {
        #(#attrs)*
        #[::core::prelude::v1::test]
        #vis fn #name() {
            fn #build() -> #object #block
            ::lineup::LineupTest::new(::core::concat!(::core::module_path!(), "::", ::core::stringify!(#name)))
                .source_file(::core::file!())
                #(#calls)*
                #run;
        }
    })
}

/// Rejects what cannot be a builder function.
fn check_signature(function: &ItemFn) -> syn::Result<()> {
    const SHAPE: &str = "`#[lineup_test]` goes on a function `fn name() -> MyObject` that builds the object under test";
    let sig = &function.sig;
    if let Some(asyncness) = &sig.asyncness {
        return Err(syn::Error::new_spanned(
            asyncness,
            format!("{SHAPE}; it cannot be async: lineup calls it synchronously to build a fresh object for every execution"),
        ));
    }
    if let Some(unsafety) = &sig.unsafety {
        return Err(syn::Error::new_spanned(
            unsafety,
            format!("{SHAPE}; it cannot be unsafe: lineup calls it for every execution"),
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(syn::Error::new_spanned(
            abi,
            format!("{SHAPE}; it cannot have an `extern` ABI"),
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            format!("{SHAPE}; it cannot be generic: the test needs one concrete object type"),
        ));
    }
    if !sig.inputs.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.inputs,
            format!("{SHAPE}; it takes no parameters: lineup calls it to build a fresh object for every execution"),
        ));
    }
    if let Some(variadic) = &sig.variadic {
        return Err(syn::Error::new_spanned(
            variadic,
            format!("{SHAPE}; it takes no parameters"),
        ));
    }
    if let ReturnType::Default = sig.output {
        let fn_token = sig.fn_token;
        let ident = &sig.ident;
        let paren = sig.paren_token;
        let mut span_tokens = quote!(#fn_token #ident);
        paren.surround(&mut span_tokens, |_| {});
        return Err(syn::Error::new_spanned(
            span_tokens,
            format!(
                "{SHAPE}; `{}` has no return type: return the object, e.g. `fn {}() -> MyQueue {{ MyQueue::default() }}`",
                sig.ident.unraw(),
                sig.ident.unraw()
            ),
        ));
    }
    Ok(())
}

/// The `LineupTest` builder calls for the options, in the order they were given.
fn builder_calls(options: &Punctuated<OptionArg, Token![,]>) -> syn::Result<Vec<TokenStream>> {
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

/// An integer literal that fits `ty`, re-emitted with the `ty` suffix at the user's span.
fn integer(
    value: &Expr,
    option: &str,
    ty: &str,
    convert: impl FnOnce(&LitInt) -> syn::Result<Literal>,
) -> syn::Result<Literal> {
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
    let mut out = convert(lit)
        .map_err(|_| syn::Error::new_spanned(lit, format!("`{option}` takes a `{ty}`; {lit} does not fit")))?;
    out.set_span(lit.span());
    Ok(out)
}

/// A `true` or `false` literal.
fn boolean(value: &Expr, option: &str) -> syn::Result<LitBool> {
    match value {
        Expr::Lit(syn::ExprLit { lit: Lit::Bool(b), .. }) => Ok(b.clone()),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{option}` takes `true` or `false`"),
        )),
    }
}

/// A string literal.
fn string(value: &Expr, option: &str, what: &str) -> syn::Result<LitStr> {
    match value {
        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Ok(s.clone()),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{option}` takes a string literal: {what}"),
        )),
    }
}

/// `["add(200)", "try_take()"]`: a list of invocation labels.
fn labels(value: &Expr, option: &str) -> syn::Result<Vec<LitStr>> {
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
fn matrix(value: &Expr) -> syn::Result<Vec<Vec<LitStr>>> {
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

/// The option nearest to a misspelled one, if it is close (edit distance at most 2).
fn closest_option(name: &str) -> Option<&'static str> {
    OPTIONS
        .iter()
        .map(|o| (edit_distance(name, o), *o))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, o)| o)
}

/// Levenshtein distance.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message of the error `#[lineup_test(args)]` reports on `function`.
    fn error(args: TokenStream, function: TokenStream) -> String {
        expand(args, function)
            .map(|out| panic!("expected an error, got {out}"))
            .unwrap_err()
            .to_string()
    }

    fn builder() -> TokenStream {
        quote!(
            fn queue() -> Queue {
                Queue::default()
            }
        )
    }

    #[test]
    fn option_errors_name_the_option() {
        assert_eq!(
            error(quote!(thread = 2), builder()),
            "unknown option `thread`; did you mean `threads`? expected one of threads, ops, samples, \
             preemption_bound, seed, workers, time_budget_ms, check_stuck, matrix, initial, final, observations"
        );
        assert!(error(quote!(colour = 2), builder()).starts_with("unknown option `colour`; expected one of"));
        assert_eq!(
            error(quote!(threads = "2"), builder()),
            "`threads` takes an integer, e.g. `threads = 2`"
        );
        assert_eq!(
            error(quote!(seed = -1), builder()),
            "`seed` takes an integer, e.g. `seed = 2`"
        );
        assert!(error(quote!(preemption_bound = 5_000_000_000), builder()).contains("does not fit"));
        assert!(error(quote!(threads = 2u8), builder()).contains("without the suffix `u8`"));
        assert!(expand(quote!(threads = 2usize, seed = 3u64), builder()).is_ok());
        assert_eq!(
            error(quote!(check_stuck = 1), builder()),
            "`check_stuck` takes `true` or `false`"
        );
        assert!(error(quote!(observations = observations), builder()).contains("takes a string literal"));
        assert_eq!(
            error(quote!(ops = 2, ops = 3), builder()),
            "duplicate option `ops`; give it once (only `matrix` can be repeated)"
        );
        assert!(error(quote!(threads), builder()).contains("expected `threads = value`"));
        assert!(error(quote!(= 2), builder()).contains("expected an option `name = value`"));
    }

    #[test]
    fn label_lists_must_be_string_literals() {
        assert!(error(quote!(matrix = []), builder()).starts_with("`matrix = []` has no columns"));
        assert!(error(quote!(matrix = [[]]), builder()).starts_with("an empty column"));
        assert!(error(quote!(matrix = ["a()"]), builder()).starts_with("each column of `matrix` is a list"));
        assert!(error(quote!(matrix = [[a]]), builder()).contains("invocation label exactly as it prints"));
        assert!(error(quote!(matrix = "a()"), builder()).starts_with("`matrix` takes a list of columns"));
        assert!(error(quote!(initial = "a()"), builder()).starts_with("`initial` takes a list of invocation labels"));
        assert!(error(quote!(final = [1]), builder()).starts_with("`final` takes a string literal"));
        assert!(expand(quote!(initial = [], final = ["a()"]), builder()).is_ok());
    }

    #[test]
    fn functions_that_cannot_build_the_object_are_rejected() {
        let shape = "`#[lineup_test]` goes on a function `fn name() -> MyObject` that builds the object under test";
        for (function, why) in [
            (
                quote!(
                    struct Queue;
                ),
                "",
            ),
            (
                quote!(
                    async fn queue() -> Queue {
                        Queue
                    }
                ),
                "it cannot be async",
            ),
            (
                quote!(
                    unsafe fn queue() -> Queue {
                        Queue
                    }
                ),
                "it cannot be unsafe",
            ),
            (
                quote!(
                    extern "C" fn queue() -> Queue {
                        Queue
                    }
                ),
                "`extern` ABI",
            ),
            (
                quote!(
                    fn queue<T>() -> Queue {
                        Queue
                    }
                ),
                "it cannot be generic",
            ),
            (
                quote!(
                    fn queue(n: usize) -> Queue {
                        Queue
                    }
                ),
                "it takes no parameters",
            ),
            (
                quote!(
                    fn queue() {}
                ),
                "`queue` has no return type",
            ),
        ] {
            let message = error(TokenStream::new(), function);
            assert!(message.starts_with(shape), "{message}");
            assert!(message.contains(why), "{message} should say {why}");
        }
        assert_eq!(
            error(
                TokenStream::new(),
                quote!(
                    #[test]
                    fn queue() -> Queue {
                        Queue
                    }
                )
            ),
            "`#[lineup_test]` already makes the function a test; remove `#[test]`"
        );
    }

    #[test]
    fn other_attributes_and_the_body_are_kept() {
        let out = expand(
            quote!(samples = 0),
            quote!(
                /// Docs.
                #[ignore]
                #[should_panic(expected = "boom")]
                pub(crate) fn queue() -> Queue {
                    let q = Queue::default();
                    q
                }
            ),
        )
        .unwrap()
        .to_string();
        for piece in [
            "# [doc = r\" Docs.\"] # [ignore] # [should_panic (expected = \"boom\")] # [:: core :: prelude :: v1 :: test] \
             pub (crate) fn queue ()",
            "fn __lineup_build () -> Queue { let q = Queue :: default () ; q }",
            ":: lineup :: LineupTest :: new (:: core :: concat ! (:: core :: module_path ! () , \"::\" , :: core :: \
             stringify ! (queue)))",
            ". source_file (:: core :: file ! ())",
            ". samples (0usize)",
        ] {
            assert!(out.contains(piece), "`{piece}` missing in {out}");
        }
    }

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("thread", "threads"), 1);
        assert_eq!(edit_distance("treads", "threads"), 1);
        assert_eq!(edit_distance("sed", "seed"), 1);
        assert_eq!(edit_distance("abc", "xyz"), 3);
        assert_eq!(closest_option("thread"), Some("threads"));
        assert_eq!(closest_option("preemption"), None);
    }

    #[test]
    fn options_expand_to_builder_calls_in_order() {
        let args: TokenStream = quote!(
            threads = 3,
            matrix = [["a()"], ["b(1)", "c()"]],
            seed = 7,
            time_budget_ms = 50,
            check_stuck = false,
            final = ["c()"],
            matrix = [["a()"]]
        );
        let function = quote!(
            fn build() -> Q {
                Q::default()
            }
        );
        let out = expand(args, function).unwrap().to_string();
        let expected = [
            ". threads (3usize)",
            ". matrix (& [& [\"a()\"] , & [\"b(1)\" , \"c()\"]])",
            ". seed (7u64)",
            ". time_budget (:: std :: time :: Duration :: from_millis (50u64))",
            ". check_stuck (false)",
            ". finals (& [\"c()\"])",
            ". matrix (& [& [\"a()\"]])",
            ". run (__lineup_build)",
        ];
        let mut at = 0;
        for call in expected {
            let found = out[at..]
                .find(call)
                .unwrap_or_else(|| panic!("`{call}` missing after {at} in {out}"));
            at += found + call.len();
        }
    }
}

//! The options of `#[lineup_test(...)]`: the `key = value` syntax, then each option's name and
//! value checked into a [`TestOption`].

use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};

use super::suggestion::closest_option;
use super::values::{boolean, integer, labels, matrix, string};
use crate::lineup_test::model::{Setting, TestOption};

/// Every option, in the order the error message lists them.
pub(super) const OPTIONS: &[&str] = &[
    "threads",
    "ops",
    "samples",
    "preemption_bound",
    "seed",
    "workers",
    "time_budget_ms",
    "time_budget",
    "check_stuck",
    "allow_all_panics",
    "strategy",
    "reduction",
    "interlude",
    "matrix",
    "initial",
    "final",
    "observations",
];

/// One `key = value` of the attribute.
pub(super) struct OptionArg {
    /// The option's name (a keyword such as `final` included).
    key: Ident,
    /// Its value, checked later against what the option takes.
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

/// The options, in the order given, or the first unknown, duplicated or ill-typed one.
pub(super) fn test_options(options: &Punctuated<OptionArg, Token![,]>) -> syn::Result<Vec<TestOption>> {
    let mut seen: Vec<String> = Vec::new();
    let mut checked = Vec::new();
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
        let setting = match name.as_str() {
            "threads" => Setting::Threads(integer(value, &name, "usize")?),
            "ops" => Setting::Ops(integer(value, &name, "usize")?),
            "samples" => Setting::Samples(integer(value, &name, "usize")?),
            "workers" => Setting::Workers(integer(value, &name, "usize")?),
            "preemption_bound" => Setting::PreemptionBound(integer(value, &name, "u32")?),
            "seed" => Setting::Seed(integer(value, &name, "u64")?),
            "time_budget_ms" => Setting::TimeBudgetMs(integer(value, &name, "u64")?),
            "time_budget" => Setting::TimeBudget(string(
                value,
                &name,
                "`\"off\"` or a duration such as `\"500ms\"`, `\"90s\"` or `\"15m\"`",
            )?),
            "check_stuck" => Setting::CheckStuck(boolean(value, &name)?),
            "allow_all_panics" => Setting::AllowAllPanics(boolean(value, &name)?),
            "reduction" => Setting::Reduction(boolean(value, &name)?),
            "observations" => Setting::Observations(string(
                value,
                &name,
                "the directory of the observation files, e.g. `\"observations\"`",
            )?),
            "strategy" => Setting::Strategy(string(
                value,
                &name,
                "a strategy such as `\"pb-dfs\"`, `\"db-dfs:2\"`, `\"random:1000\"` or `\"pct:3:1000\"`",
            )?),
            "interlude" => Setting::Interlude(string(
                value,
                &name,
                "`\"off\"` or `\"AFTER:STRATEGY\"` such as `\"10000:pct:3:1000\"`",
            )?),
            "initial" => Setting::Initial(labels(value, &name)?),
            "final" => Setting::Final(labels(value, &name)?),
            "matrix" => Setting::Matrix(matrix(value)?),
            _ => unreachable!("every option in OPTIONS is handled"),
        };
        checked.push(TestOption {
            span: key.span(),
            setting,
        });
    }
    Ok(checked)
}

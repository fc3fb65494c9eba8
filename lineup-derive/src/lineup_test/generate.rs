//! Generation for `#[lineup_test(...)]`: the `#[test]` function, which builds a
//! `::lineup::LineupTest`, makes one builder call per option and runs it on the builder
//! function.

use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::model::{BuilderFn, Integer, LineupTestSpec, Setting, TestOption};

/// The test function that replaces the builder function.
pub(super) fn test_fn(spec: &LineupTestSpec) -> TokenStream {
    let BuilderFn {
        attrs,
        vis,
        name,
        object,
        body,
    } = &spec.builder;
    let calls = spec.options.iter().map(builder_call);
    let build = quote_spanned!(object.span()=> __lineup_build);
    // Spanned at the return type: "`MyObject: Invocations` is not satisfied" points there.
    let run = quote_spanned!(object.span()=> .run(#build));
    quote! {
        #(#attrs)*
        #[::core::prelude::v1::test]
        #vis fn #name() {
            fn #build() -> #object #body
            ::lineup::LineupTest::new(::core::concat!(::core::module_path!(), "::", ::core::stringify!(#name)))
                .source_file(::core::file!())
                #(#calls)*
                #run;
        }
    }
}

/// The `LineupTest` builder call of one option, spanned at the option's name.
fn builder_call(option: &TestOption) -> TokenStream {
    let span = option.span;
    match &option.setting {
        Setting::Threads(n) => {
            let n = literal(n);
            quote_spanned!(span=> .threads(#n))
        }
        Setting::Ops(n) => {
            let n = literal(n);
            quote_spanned!(span=> .ops(#n))
        }
        Setting::Samples(n) => {
            let n = literal(n);
            quote_spanned!(span=> .samples(#n))
        }
        Setting::Workers(n) => {
            let n = literal(n);
            quote_spanned!(span=> .workers(#n))
        }
        Setting::PreemptionBound(n) => {
            let n = literal(n);
            quote_spanned!(span=> .preemption_bound(#n))
        }
        Setting::Seed(n) => {
            let n = literal(n);
            quote_spanned!(span=> .seed(#n))
        }
        Setting::TimeBudgetMs(n) => {
            let n = literal(n);
            quote_spanned!(span=> .time_budget(::std::time::Duration::from_millis(#n)))
        }
        Setting::TimeBudget(text) => quote_spanned!(span=> .time_budget_named(#text)),
        Setting::CheckStuck(on) => quote_spanned!(span=> .check_stuck(#on)),
        Setting::AllowAllPanics(on) => quote_spanned!(span=> .allow_all_panics(#on)),
        Setting::Reduction(on) => quote_spanned!(span=> .reduction(#on)),
        Setting::Observations(dir) => quote_spanned!(span=> .observations(#dir)),
        Setting::Strategy(name) => quote_spanned!(span=> .strategy_named(#name)),
        Setting::Interlude(text) => quote_spanned!(span=> .interlude_named(#text)),
        Setting::Initial(ops) => quote_spanned!(span=> .initial(&[#(#ops),*])),
        Setting::Final(ops) => quote_spanned!(span=> .finals(&[#(#ops),*])),
        Setting::Matrix(columns) => quote_spanned!(span=> .matrix(&[#(&[#(#columns),*]),*])),
    }
}

/// An integer type whose values are emitted as literals with the type's suffix (`2usize`), so
/// that the builder call gets exactly the type it takes.
trait SuffixedLiteral: Copy {
    /// The value as a suffixed literal.
    fn suffixed_literal(self) -> Literal;
}

impl SuffixedLiteral for usize {
    fn suffixed_literal(self) -> Literal {
        Literal::usize_suffixed(self)
    }
}

impl SuffixedLiteral for u32 {
    fn suffixed_literal(self) -> Literal {
        Literal::u32_suffixed(self)
    }
}

impl SuffixedLiteral for u64 {
    fn suffixed_literal(self) -> Literal {
        Literal::u64_suffixed(self)
    }
}

/// An integer option's value as a suffixed literal at the span of the user's literal.
fn literal<T: SuffixedLiteral>(integer: &Integer<T>) -> Literal {
    let mut literal = integer.value.suffixed_literal();
    literal.set_span(integer.span);
    literal
}

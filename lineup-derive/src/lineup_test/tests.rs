//! Unit tests of `#[lineup_test]`, through [`expand`]: the builder calls of the options, what
//! is kept of the function, and the message of every error.

use proc_macro2::TokenStream;
use quote::quote;

use super::expand;

/// The message of the error `#[lineup_test(args)]` reports on `function`.
fn error(args: TokenStream, function: TokenStream) -> String {
    expand(args, function)
        .map(|out| panic!("expected an error, got {out}"))
        .unwrap_err()
        .to_string()
}

/// A valid builder function.
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
         preemption_bound, seed, workers, time_budget_ms, time_budget, check_stuck, allow_all_panics, strategy, reduction, interlude, matrix, initial, final, observations"
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
fn options_expand_to_builder_calls_in_order() {
    let args: TokenStream = quote!(
        threads = 3,
        matrix = [["a()"], ["b(1)", "c()"]],
        seed = 7,
        time_budget_ms = 50,
        check_stuck = false,
        final = ["c()"],
        interlude = "off",
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
        ". interlude_named (\"off\")",
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

#[test]
fn time_budget_takes_a_setting_and_off_gives_a_fixed_run() {
    let function = quote!(
        fn build() -> Q {
            Q::default()
        }
    );
    for setting in ["off", "90s"] {
        let out = expand(quote!(time_budget = #setting), function.clone())
            .unwrap()
            .to_string();
        let call = format!(". time_budget_named (\"{setting}\")");
        assert!(out.contains(&call), "`{call}` missing in {out}");
    }
    let err = expand(quote!(time_budget = 90), function).unwrap_err().to_string();
    assert!(err.contains("off"), "{err}");
}

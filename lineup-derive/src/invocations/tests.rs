//! Unit tests of `#[invocations]`, through [`expand`]: what a valid block expands to, and the
//! message of every error.

use proc_macro2::TokenStream;
use quote::quote;

use super::expand;

/// The messages of the errors `#[invocations]` reports for `input`.
fn errors(input: TokenStream) -> Vec<String> {
    errors_with(TokenStream::new(), input)
}

/// The same with attribute arguments.
fn errors_with(args: TokenStream, input: TokenStream) -> Vec<String> {
    let out = expand(args, input).unwrap_or_else(|e| e.to_compile_error());
    let text = out.to_string();
    let mut messages = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("compile_error !") {
        rest = &rest[at..];
        let start = rest.find('"').unwrap() + 1;
        let end = rest[start..].find("\" }").unwrap() + start;
        messages.push(rest[start..end].replace("\\\"", "\"").replace("\\'", "'"));
        rest = &rest[end..];
    }
    messages
}

/// Asserts that `pieces` occur in `out` in this order.
fn assert_in_order(out: &str, pieces: &[&str]) {
    let mut at = 0;
    for piece in pieces {
        let found = out[at..]
            .find(piece)
            .unwrap_or_else(|| panic!("`{piece}` missing after {at} in {out}"));
        at += found + piece.len();
    }
}

/// The message of the one error `#[invocations]` reports for `input`.
fn error(input: TokenStream) -> String {
    let messages = errors(input);
    assert_eq!(messages.len(), 1, "{messages:?}");
    messages.into_iter().next().unwrap()
}

#[test]
fn a_valid_block_expands_to_the_block_and_the_trait_impl() {
    let out = expand(
        TokenStream::new(),
        quote! {
            impl Queue {
                #[invoke(200, 400)]
                fn add(&self, value: u32) {}
                #[invoke]
                fn try_take(&self) -> Option<u32> { None }
                #[invoke((1, "a"))]
                fn put(&self, key: u32, value: &'static str) {}
                #[invoke(name = "push_front", 7)]
                fn add_first(&self, value: u32) {}
            }
        },
    )
    .unwrap()
    .to_string();
    assert!(!out.contains("invoke ("), "the #[invoke] attributes are removed: {out}");
    assert!(out.contains("impl :: lineup :: Invocations for Queue"), "{out}");
    let order = [
        "\"add\"",
        ". arg (__lineup_arg0)",
        "\"add\"",
        "\"try_take\"",
        "let __lineup_arg0 : u32 = 1",
        "let __lineup_arg1 : & '_ str = \"a\"",
        "\"put\"",
        "\"push_front\"",
        "Self :: add_first",
    ];
    assert_in_order(&out, &order);
    assert!(
        !out.contains("Self : :: core :: marker :: Send"),
        "no extra bound without generics: {out}"
    );
}

#[test]
fn an_async_method_is_invoked_through_new_async() {
    let out = expand(
        TokenStream::new(),
        quote! {
            impl Queue {
                #[invoke(200)]
                async fn add(&self, value: u32) {}
                #[invoke]
                fn len(&self) -> usize { 0 }
            }
        },
    )
    .unwrap()
    .to_string();
    assert!(
        out.contains("Invocation :: new_async (\"add\" , async move |"),
        "an async closure awaits the method: {out}"
    );
    assert!(out.contains(". await"), "{out}");
    assert!(
        out.contains("Invocation :: new (\"len\""),
        "a synchronous method is unchanged: {out}"
    );
}

#[test]
fn a_generic_block_gets_the_supertrait_bounds() {
    let out = expand(
        TokenStream::new(),
        quote! {
            impl<T: Clone> Stack<T> where T: Default {
                #[invoke]
                fn pop(&self) -> Option<T> { None }
            }
        },
    )
    .unwrap()
    .to_string();
    assert!(
        out.contains(
            "impl < T : Clone > :: lineup :: Invocations for Stack < T > where T : Default , Self : :: core :: \
             marker :: Send + :: core :: marker :: Sync + 'static"
        ),
        "{out}"
    );
}

#[test]
fn wrong_targets_are_rejected_and_kept() {
    let on_struct = expand(
        TokenStream::new(),
        quote!(
            struct Queue;
        ),
    )
    .unwrap()
    .to_string();
    assert!(on_struct.contains("goes on an inherent `impl` block"), "{on_struct}");
    assert!(on_struct.ends_with("struct Queue ;"), "the item is kept: {on_struct}");
    let trait_impl = quote!(impl Clone for Queue { #[invoke] fn clone(&self) -> Self { Queue } });
    let on_trait_impl = expand(TokenStream::new(), trait_impl).unwrap().to_string();
    assert!(on_trait_impl.contains("not on a trait impl"), "{on_trait_impl}");
    assert!(
        on_trait_impl.contains("impl Clone for Queue { fn clone"),
        "kept without `#[invoke]`: {on_trait_impl}"
    );
    let messages = errors_with(quote!(Queue), quote!(impl Queue { #[invoke] fn f(&self) {} }));
    assert_eq!(
        messages,
        [
            "`#[invocations]` takes no arguments but `state` (`#[invocations(state)]`: a violation's report shows \
          the object's `Debug` after each operation); put the values on each method's `#[invoke(...)]`"
        ]
    );
    assert!(error(quote!(impl Queue { fn f(&self) {} }))
        .starts_with("`#[invocations]` needs at least one method marked `#[invoke]`"));
}

#[test]
fn receivers_other_than_shared_self_are_explained() {
    let none = error(quote!(impl Q { #[invoke] fn make() -> u32 { 0 } }));
    assert!(none.contains("`make` has no receiver"), "{none}");
    assert!(
        none.contains("several threads call them on one shared object at once"),
        "{none}"
    );
    let by_value = error(quote!(impl Q { #[invoke] fn take(self) {} }));
    assert!(by_value.contains("`take` takes `self` by value"), "{by_value}");
    let mutable = error(quote!(impl Q { #[invoke] fn inc(&mut self) {} }));
    assert!(mutable.contains("`inc` takes `&mut self`"), "{mutable}");
    assert!(mutable.contains("interior mutability"), "{mutable}");
    let boxed = error(quote!(impl Q { #[invoke] fn b(self: Box<Self>) {} }));
    assert!(boxed.contains("`b` takes `self: Box<Self>`"), "{boxed}");
    let arc = error(quote!(impl Q { #[invoke] fn b(self: &std::sync::Arc<Self>) {} }));
    assert!(arc.contains("`b` takes `self: &std::sync::Arc<Self>`"), "{arc}");
    // `self: &Self` is `&self`.
    assert!(errors(quote!(impl Q { #[invoke] fn get(self: &Self) -> u32 { 0 } })).is_empty());
}

#[test]
fn unsupported_methods_are_explained() {
    let generic = error(quote!(impl Q { #[invoke(1)] fn add<T: Debug>(&self, v: T) {} }));
    assert!(generic.contains("does not support generic methods"), "{generic}");
    let impl_trait = error(quote!(impl Q { #[invoke(1)] fn add(&self, v: impl Debug) {} }));
    assert!(impl_trait.contains("`impl Trait` parameters"), "{impl_trait}");
    // Lifetime parameters are fine.
    assert!(errors(quote!(impl Q { #[invoke("a")] fn get<'a>(&'a self, k: &'a str) -> usize { 0 } })).is_empty());
    assert!(errors(quote!(impl Q { #[invoke] async fn get(&self) {} })).is_empty());
    assert!(error(quote!(impl Q { #[invoke] unsafe fn get(&self) {} })).contains("unsafe methods"));
}

#[test]
fn values_must_fit_the_parameters() {
    let missing = error(quote!(impl Q { #[invoke] fn add(&self, value: u32) {} }));
    assert!(missing.contains("`add` takes 1 argument besides `&self`"), "{missing}");
    assert!(missing.contains("`#[invoke(1, 2)]`"), "{missing}");
    let missing2 = error(quote!(impl Q { #[invoke] fn put(&self, k: u32, v: u32) {} }));
    assert!(missing2.contains("e.g. `#[invoke((1, 2))]`"), "{missing2}");
    let extra = error(quote!(impl Q { #[invoke(1)] fn get(&self) {} }));
    assert!(extra.contains("`get` takes no arguments besides `&self`"), "{extra}");
    let not_tuple = error(quote!(impl Q { #[invoke(1, 2)] fn put(&self, key: u32, value: u32) {} }));
    assert!(
        not_tuple.contains("each value of `#[invoke]` is a tuple `(key, value)`"),
        "{not_tuple}"
    );
    let arity = error(quote!(impl Q { #[invoke((1, 2), (3,))] fn put(&self, key: u32, value: u32) {} }));
    assert_eq!(
        arity,
        "this tuple has 1 value but `put` takes 2 arguments besides `&self`: `(key, value)`"
    );
    // With one parameter, a tuple is one value of tuple type.
    assert!(errors(quote!(impl Q { #[invoke((1, 2))] fn put(&self, pair: (u32, u32)) {} })).is_empty());
}

#[test]
fn attribute_misuse_is_reported() {
    let twice = error(quote!(impl Q { #[invoke(1)] #[invoke(2)] fn add(&self, v: u32) {} }));
    assert!(twice.contains("`add` is marked `#[invoke]` twice"), "{twice}");
    let on_const = error(quote!(impl Q { #[invoke] const N: u32 = 1; #[invoke] fn f(&self) {} }));
    assert!(on_const.contains("`#[invoke]` goes on methods"), "{on_const}");
    let option = error(quote!(impl Q { #[invoke(label = "x", 1)] fn add(&self, v: u32) {} }));
    assert!(option.contains("unknown option `label` in `#[invoke]`"), "{option}");
    let name_twice = error(quote!(impl Q { #[invoke(name = "a", name = "b", 1)] fn add(&self, v: u32) {} }));
    assert!(name_twice.contains("duplicate option `name`"), "{name_twice}");
    let name_type = error(quote!(impl Q { #[invoke(name = push, 1)] fn add(&self, v: u32) {} }));
    assert!(name_type.contains("`name` takes a string literal"), "{name_type}");
    let name_value = error(quote!(impl Q { #[invoke = 1] fn add(&self, v: u32) {} }));
    assert!(name_value.contains("write `#[invoke]`"), "{name_value}");
    // `==` is a value, not an option.
    assert!(errors(quote!(impl Q { #[invoke(a == 1)] fn f(&self, v: bool) {} })).is_empty());
}

#[test]
fn a_group_marks_every_invocation_of_its_method() {
    let out = expand(
        TokenStream::new(),
        quote! {
            impl Queue {
                #[invoke(1, 2)]
                fn push(&self, value: u32) {}
                #[invoke(group = "consumer")]
                fn pop(&self) -> Option<u32> { None }
                #[invoke(nondeterministic, group = "consumer", name = "peek_any")]
                fn peek(&self) -> Option<u32> { None }
            }
        },
    )
    .unwrap()
    .to_string();
    assert_eq!(out.matches(". group (\"consumer\")").count(), 2, "{out}");
    assert!(
        out.contains("Self :: pop (__lineup_object)) . group (\"consumer\")"),
        "{out}"
    );
    assert!(out.contains(". nondeterministic () . group (\"consumer\")"), "{out}");
}

#[test]
fn a_malformed_group_is_reported() {
    let not_literal = error(quote!(impl Q { #[invoke(group = consumer)] fn pop(&self) {} }));
    assert_eq!(
        not_literal,
        "`group` takes a string literal, e.g. `group = \"consumer\"`"
    );
    let not_string = error(quote!(impl Q { #[invoke(group = 7, 1)] fn add(&self, v: u32) {} }));
    assert!(not_string.contains("`group` takes a string literal"), "{not_string}");
    let empty = error(quote!(impl Q { #[invoke(group = "")] fn pop(&self) {} }));
    assert_eq!(empty, "an operation group's name cannot be empty");
    let twice = error(quote!(impl Q { #[invoke(group = "a", group = "b")] fn pop(&self) {} }));
    assert_eq!(twice, "duplicate option `group`");
    let missing = error(quote!(impl Q { #[invoke(group =)] fn pop(&self) {} }));
    assert!(missing.contains("`group` takes a string literal"), "{missing}");
    let unknown = error(quote!(impl Q { #[invoke(groups = "a")] fn pop(&self) {} }));
    assert!(
        unknown.contains("the options are `name = \"...\"`, `group = \"...\"`, `nondeterministic` and `cancellable`"),
        "{unknown}"
    );
}

#[test]
fn every_error_of_a_block_is_reported_at_once() {
    let messages = errors(quote! {
        impl Q {
            #[invoke] fn a(&mut self) {}
            #[invoke] fn b(&self, v: u32) {}
            #[invoke(1)] fn c(&self) {}
        }
    });
    assert_eq!(messages.len(), 3, "{messages:?}");
}

#[test]
fn a_handles_method_gives_the_trait_its_handles_and_the_handle_operations_their_handle() {
    let out = expand(
        TokenStream::new(),
        quote! {
            impl Ring {
                #[handles]
                fn handle(self: &Arc<Self>, thread: &lineup::MatrixThread) -> End { End::of(self, thread) }
                #[invoke(1, group = "producer")]
                fn push(&self, end: &mut End, value: u32) -> bool { true }
                #[invoke]
                async fn pop(&self, end: &mut End) -> Option<u32> { None }
                #[invoke]
                fn len(&self) -> usize { 0 }
            }
        },
    )
    .unwrap()
    .to_string();
    assert!(
        !out.contains("# [handles]"),
        "the #[handles] attribute is removed: {out}"
    );
    let order = [
        ":: lineup :: Invocation :: on_handle (\"push\"",
        "& mut End",
        "Self :: push (__lineup_object , __lineup_handle , :: core :: clone :: Clone :: clone (& __lineup_call0))",
        ". group (\"producer\")",
        ":: lineup :: Invocation :: on_handle_async (\"pop\"",
        ":: lineup :: Invocation :: new (\"len\"",
        "fn handles ()",
        ":: lineup :: Handles :: new",
        "Self :: handle (__lineup_object , __lineup_thread)",
    ];
    assert_in_order(&out, &order);
    // Each handle parameter is checked against the handle the block makes.
    assert_eq!(out.matches("fn (& mut End) -> & mut End").count(), 2, "{out}");
}

#[test]
fn a_handles_method_of_the_wrong_shape_is_explained() {
    let message = error(quote! {
        impl Ring {
            #[handles]
            fn handle(&self, thread: u32, more: u32) -> End { End }
            #[invoke]
            fn pop(&self, end: &mut End) -> Option<u32> { None }
        }
    });
    assert!(message.contains("from the object and the thread only"), "{message}");
    let message = error(quote! {
        impl Ring {
            #[handles]
            fn handle(&mut self) -> End { End }
            #[invoke]
            fn pop(&self, end: &mut End) -> Option<u32> { None }
        }
    });
    assert!(message.contains("must take the shared object"), "{message}");
    let messages = errors(quote! {
        impl Ring {
            #[handles]
            fn a(&self) -> End { End }
            #[handles]
            fn b(&self) -> End { End }
            #[invoke]
            fn pop(&self, end: &mut End) -> Option<u32> { None }
        }
    });
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].contains("a second `#[handles]` method"), "{messages:?}");
}

#[test]
fn state_makes_the_report_show_the_objects_debug() {
    let block = quote!(impl Queue { #[invoke] fn f(&self) {} });
    let with_state = expand(quote!(state), block.clone()).unwrap().to_string();
    assert!(with_state.contains("fn shows_state"), "{with_state}");
    assert!(with_state.contains("format !"), "{with_state}");
    let without = expand(TokenStream::new(), block).unwrap().to_string();
    assert!(!without.contains("shows_state"), "{without}");
}

#[test]
fn cancellable_marks_the_invocations_of_an_async_fn() {
    let out = expand(
        TokenStream::new(),
        quote! {
            impl Channel {
                #[invoke(cancellable)]
                async fn recv(&self) -> u32 { 0 }
                #[invoke(1, cancellable, group = "sender")]
                async fn send(&self, value: u32) {}
            }
        },
    )
    .unwrap()
    .to_string();
    assert_eq!(out.matches(". cancellable ()").count(), 2, "{out}");
    assert!(out.contains(". cancellable () . group (\"sender\")"), "{out}");
}

#[test]
fn cancellable_on_a_synchronous_method_or_twice_is_reported() {
    let not_async = error(quote!(impl Q { #[invoke(cancellable)] fn pop(&self) {} }));
    assert!(not_async.contains("which is not an `async fn`"), "{not_async}");
    let twice = error(quote!(impl Q { #[invoke(cancellable, cancellable)] async fn pop(&self) {} }));
    assert_eq!(twice, "duplicate option `cancellable`");
}

//! Procedural macros for lineup: describe an object's invocations on its `impl` block and turn
//! a builder function into a Line-Up test.
//!
//! Use them through the `lineup` facade (`lineup::invocations`, `lineup::lineup_test`). They
//! only generate calls into the public API of `lineup-core` (the trait `lineup::Invocations`,
//! `lineup::Invocation` and the builder `lineup::LineupTest`); no checking logic lives here, and
//! everything they generate can be written by hand. Generated code names the facade as
//! `::lineup::...`, so the crate that uses the macros must depend on `lineup`.
//!
//! ```ignore
//! use std::collections::VecDeque;
//! use lineup::sync::Mutex;
//! use lineup::{invocations, lineup_test};
//!
//! #[derive(Default)]
//! struct Queue {
//!     items: Mutex<VecDeque<u32>>,
//! }
//!
//! #[invocations]
//! impl Queue {
//!     #[invoke(200, 400)] // invocations 0 and 1: add(200), add(400)
//!     fn add(&self, value: u32) {
//!         self.items.lock().unwrap().push_back(value);
//!     }
//!
//!     #[invoke] // invocation 2: try_take()
//!     fn try_take(&self) -> Option<u32> {
//!         self.items.lock().unwrap().pop_front()
//!     }
//! }
//!
//! #[lineup_test(threads = 2, ops = 2, matrix = [["add(200)", "try_take()"], ["add(400)", "try_take()"]])]
//! fn queue() -> Queue {
//!     Queue::default()
//! }
//! ```
//!
//! (The examples here are not compiled as doc tests: a proc-macro crate cannot use its own
//! macros there. `tests/derive_invocations.rs`, `tests/lineup_test_attr.rs` and
//! `examples/derive_queue.rs` at the root of the workspace use them for real, and `tests/ui/`
//! holds the compile errors.)
#![forbid(unsafe_code)]
#![warn(missing_docs)]

use proc_macro::TokenStream;

mod invocations;
mod lineup_test;

/// Generates `impl lineup::Invocations` for the type of an inherent `impl` block from the
/// methods in it marked `#[invoke]`, and keeps the block as it is (without those attributes).
///
/// # Syntax
///
/// Each marked method takes `&self` (several threads call operations on one shared object at
/// once) and is not generic or unsafe. It may be an `async fn`: its invocations are made with
/// `lineup::Invocation::new_async`, and each runs on its worker through the backend's `block_on`
/// (every `.await` that suspends is a scheduling point; see there):
///
/// | attribute | method | invocations |
/// |---|---|---|
/// | `#[invoke]` | `fn try_take(&self)` | `try_take()` |
/// | `#[invoke(200, 400)]` | `fn add(&self, value: u32)` | `add(200)`, `add(400)` |
/// | `#[invoke((1, "a"), (2, "b"))]` | `fn put(&self, key: u32, value: &'static str)` | `put(1, "a")`, `put(2, "b")` |
/// | `#[invoke(name = "push_front", 1, 2)]` | `fn push_head(&self, value: u32)` | `push_front(1)`, `push_front(2)` |
/// | `#[invoke]` | `async fn take(&self) -> u32` | `take()`, awaited |
/// | `#[invoke(group = "consumer")]` | `fn pop(&self) -> Option<u32>` | `pop()`, on one thread of every matrix |
/// | `#[invoke(1, 2)]` | `fn push(&self, end: &mut End, value: u32)` | `push(1)`, `push(2)`, on the calling thread's handle |
///
/// * With one parameter besides `&self`, every value is one argument (a tuple value is one
///   argument of tuple type). With several, every value is a tuple with one element per
///   parameter, in parameter order.
/// * Values are arbitrary expressions whose types are `Clone + Debug + Send + Sync + 'static`.
///   Each is evaluated once into a local of the parameter's type (so `#[invoke(1u8)]` on a
///   `u32` parameter is a type error at `1u8`), when `Invocations::invocations()` runs; the
///   invocation's closure owns a clone and clones it again for every call. The label renders each value with
///   `Debug`, so the invocation `add(200)` is labelled `add(200)` and `put(1, "a")` is
///   labelled `put(1, "a")`: this is the text `#[lineup_test(matrix = ...)]` matches.
/// * The result may be of any `Debug` type (`()`, `Option<T>`, `Result<T, E>`, ...): lineup
///   compares results as their `Debug` text. It must not borrow from the object (return an
///   owned value, not `&T`).
/// * `name = "..."` (anywhere in the list) names the invocations instead of the method name.
/// * `group = "..."` (anywhere in the list) puts every invocation of the method in that operation
///   group (`Invocation::group`): every matrix lineup generates runs a group's invocations on one
///   thread, for an operation only one thread may call (an MPSC channel's `recv`). Methods with
///   the same group name share the group.
/// * `nondeterministic` marks an operation whose results may legitimately differ
///   (`Invocation::nondeterministic`).
///
/// # Per-thread handles
///
/// One method of the block may be marked `#[handles]`: `fn handle(&self, thread:
/// &lineup::MatrixThread) -> End` (the thread parameter is optional, and `self: &Arc<Self>` is
/// accepted for a handle that keeps the object). Each thread of every execution makes its own
/// handle with it when it starts, owns it through its operations, and drops it after its last one
/// (`lineup::Subject::with_handles`; the drop is an operation of the history, `drop(handle)`). A
/// marked method whose first parameter after `&self` is `&mut End` runs on the calling thread's
/// handle (`lineup::Invocation::on_handle`, or `on_handle_async` for an `async fn`); its values
/// are for the parameters after it. For split handles (a channel's `Sender` and `Receiver`, an
/// SPSC ring's `Producer` and `Consumer`), methods that need `&mut`, and what a thread keeps
/// between its operations (a guard taken by `lock` and dropped by a later `unlock`). The
/// generated trait impl gets `fn handles()`, which returns `Some(lineup::Handles::new(..))` calling
/// the method.
///
/// # Order
///
/// The generated `Vec` lists the marked methods in the order they appear in the block, and each
/// method's invocations in the order of its values. A `lineup::TestMatrix` refers to invocations
/// by this position.
///
/// # Generated code
///
/// For the block in the crate docs, besides the block itself:
///
/// ```ignore
/// #[automatically_derived]
/// impl ::lineup::Invocations for Queue {
///     fn invocations() -> Vec<::lineup::Invocation<Self>> {
///         let mut set = Vec::with_capacity(3);
///         // One block per marked method, carrying the method's `#[cfg]` attributes if any.
///         {
///             set.push({
///                 let arg0: u32 = 200;
///                 let call0 = Clone::clone(&arg0);
///                 ::lineup::Invocation::new("add", move |object: &Self| Self::add(object, Clone::clone(&call0)))
///                     .arg(arg0)
///             });
///             set.push({ /* the same for 400 */ });
///         }
///         {
///             set.push({ ::lineup::Invocation::new("try_take", move |object: &Self| Self::try_take(object)) });
///         }
///         set
///     }
/// }
/// ```
///
/// For an `async fn`, the closure is an async closure that awaits the method:
/// `::lineup::Invocation::new_async("take", async move |object: &Self| Self::take(object).await)`.
///
/// An `impl` block with generic parameters gets `where Self: Send + Sync + 'static` (the
/// trait's supertraits) added to its where clause.
///
/// # Errors
///
/// Compile errors, at the offending tokens: the attribute on anything but an inherent `impl`
/// block (a trait impl included); no method marked `#[invoke]`; `#[invoke]` on a method whose
/// receiver is not `&self` (`self`, `&mut self`, none); a `&mut` handle parameter without a
/// `#[handles]` method, or of another type than the handle it makes (at the parameter's type); a
/// `#[handles]` method that is also `#[invoke]` (and so in a group), is given twice, takes more
/// than the thread, takes `&mut self`, returns nothing, or is generic, async or unsafe; `#[invoke]` without values on a method
/// with parameters, or with values on one without; a value that is not a tuple of the right
/// arity for a method with several parameters; generic or unsafe methods; `#[invoke]`
/// twice on one method or on something that is not a method; an unknown option in
/// `#[invoke(...)]`; a `name` or `group` that is not a string literal, is empty, or is given twice. A value of the wrong type, or one that is not `Clone` or `Debug`, is
/// reported by the compiler at the value; a result that is not `Debug`, at the method's name.
#[proc_macro_attribute]
pub fn invocations(args: TokenStream, input: TokenStream) -> TokenStream {
    invocations::expand(args.into(), input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Turns a function that builds the object under test into a `#[test]` that runs
/// `lineup::LineupTest` on it.
///
/// The function takes no parameters and returns the object, whose type implements
/// `lineup::Invocations` (usually through [`macro@invocations`]); lineup calls it to build a
/// fresh object for every execution. Its other attributes (doc comments, `#[ignore]`,
/// `#[should_panic(...)]`, ...) stay on the generated test; do not add `#[test]` yourself.
///
/// # Options
///
/// All are optional; each becomes the `LineupTest` builder call of the same name, in the order
/// given:
///
/// | option | builder call |
/// |---|---|
/// | `threads = 2` | `.threads(2usize)` |
/// | `ops = 2` | `.ops(2usize)` |
/// | `samples = 100` | `.samples(100usize)` |
/// | `preemption_bound = 2` | `.preemption_bound(2u32)` |
/// | `seed = 42` | `.seed(42u64)` |
/// | `workers = 2` | `.workers(2usize)` |
/// | `time_budget_ms = 500` | `.time_budget(Duration::from_millis(500u64))` |
/// | `time_budget = "90s"` | `.time_budget_named("90s")` (`"off"`: a fixed run, the sample only; a bad value fails the test with what is wrong) |
/// | `check_stuck = false` | `.check_stuck(false)` |
/// | `allow_all_panics = true` | `.allow_all_panics(true)` (an object whose operations all panic by design) |
/// | `strategy = "pct:3:1000"` | `.strategy_named("pct:3:1000")` (phase 2's strategy; a bad name fails the test with the list) |
/// | `reduction = true` | `.reduction(true)` (the partial-order reduction on; `false` off; default: on for objects with threads of their own) |
/// | `interlude = "5000:pct:3:2000"` | `.interlude_named("5000:pct:3:2000")` (phase 2's interlude; `"off"` for none; a bad value fails the test with what is wrong) |
/// | `matrix = [["add(200)", "try_take()"], ["add(400)", "try_take()"]]` | `.matrix(&[&["add(200)", "try_take()"], &["add(400)", "try_take()"]])` |
/// | `initial = ["add(200)"]` | `.initial(&["add(200)"])` |
/// | `final = ["try_take()"]` | `.finals(&["try_take()"])` |
/// | `observations = "observations"` | `.observations("observations")` |
///
/// `matrix` may be repeated: each is one explicit matrix, given as columns (one per thread) of
/// invocation labels exactly as they print (`add(200)`, `put(1, "a")`; see
/// [`macro@invocations`]). Every other option may appear once. The macro does not know the
/// object's invocations: a label that is not one fails the test when it runs, with the list
/// of the object's labels. `observations` is a directory relative to the working directory of
/// the test (the package root under `cargo test`).
///
/// Without `time_budget` or `time_budget_ms` a test has `LineupTest`'s default budget
/// (`lineup::DEFAULT_TIME_BUDGET`) for its sample and the deepening after it, as a `LineupTest` built
/// by hand has; `LINEUP_TIME_BUDGET` overrides both.
///
/// What a run checks and in which order (saved failing matrices, the explicit matrices, the
/// seeded random sample, deeper stages within the time budget), and the environment variables that
/// override the options, are documented on `lineup::LineupTest`. The test panics with lineup's
/// report when a check fails, so `#[should_panic(expected = "...")]` works on it.
///
/// # Generated code
///
/// ```ignore
/// #[lineup_test(threads = 2, ops = 2)]
/// /// Doc comments and other attributes are kept.
/// fn queue() -> Queue {
///     Queue::default()
/// }
/// // becomes
/// /// Doc comments and other attributes are kept.
/// #[test]
/// fn queue() {
///     fn __lineup_build() -> Queue {
///         Queue::default()
///     }
///     ::lineup::LineupTest::new(concat!(module_path!(), "::", stringify!(queue)))
///         .source_file(file!())
///         .threads(2usize)
///         .ops(2usize)
///         .run(__lineup_build);
/// }
/// ```
///
/// # Errors
///
/// Compile errors, at the offending tokens: an unknown option (with the list of options),
/// a value of the wrong type (`threads = "2"`), an integer out of range for its type, a
/// duplicated option other than `matrix`, an empty `matrix = []` or an empty column, labels
/// that are not string literals; and a function that is async, unsafe, generic, takes
/// parameters or returns nothing, or is also marked `#[test]`. A return type that does not
/// implement `lineup::Invocations` is reported by the compiler at the return type.
#[proc_macro_attribute]
pub fn lineup_test(args: TokenStream, input: TokenStream) -> TokenStream {
    lineup_test::expand(args.into(), input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

//! What `#[lineup_test(...)]` was given: the plain description [`parse`](super::parse) builds
//! and [`generate`](super::generate) reads. It holds the user's tokens and spans, which is where
//! the generated code points.

use proc_macro2::Span;
use syn::{Attribute, Block, Ident, LitBool, LitStr, Type, Visibility};

/// A Line-Up test: its options and the function that builds the object.
pub(super) struct LineupTestSpec {
    /// The options, in the order given (each becomes one builder call, in this order).
    pub(super) options: Vec<TestOption>,
    /// The function the attribute is on.
    pub(super) builder: BuilderFn,
}

/// One option of the attribute, its value checked.
pub(super) struct TestOption {
    /// Where the option's name was written: its builder call is spanned there.
    pub(super) span: Span,
    /// What the option sets.
    pub(super) setting: Setting,
}

/// What an option sets, with its value. Each is the `LineupTest` builder method of the same
/// name.
pub(super) enum Setting {
    /// `threads = n`.
    Threads(Integer<usize>),
    /// `ops = n`.
    Ops(Integer<usize>),
    /// `samples = n`.
    Samples(Integer<usize>),
    /// `workers = n`.
    Workers(Integer<usize>),
    /// `preemption_bound = n`.
    PreemptionBound(Integer<u32>),
    /// `seed = n`.
    Seed(Integer<u64>),
    /// `time_budget_ms = n`: `.time_budget(Duration::from_millis(n))`.
    TimeBudgetMs(Integer<u64>),
    /// `time_budget = "90s"` or `"off"`: `.time_budget_named(...)`.
    TimeBudget(LitStr),
    /// `check_stuck = true` or `false`.
    CheckStuck(LitBool),
    /// `allow_all_panics = true` or `false`.
    AllowAllPanics(LitBool),
    /// `reduction = true`: the partial-order reduction.
    Reduction(LitBool),
    /// `observations = "dir"`.
    Observations(LitStr),
    /// `strategy = "pct:3"`.
    Strategy(LitStr),
    /// `interlude = "10000:pct:3:1000"` or `"off"`.
    Interlude(LitStr),
    /// `initial = ["label", ...]`.
    Initial(Vec<LitStr>),
    /// `final = ["label", ...]`: `.finals(...)`.
    Final(Vec<LitStr>),
    /// `matrix = [["label", ...], ...]`: one column of labels per thread.
    Matrix(Vec<Vec<LitStr>>),
}

/// An integer option's value and the span of the literal it was written as.
pub(super) struct Integer<T> {
    /// The value, known to fit `T`.
    pub(super) value: T,
    /// The literal's span.
    pub(super) span: Span,
}

/// The function that builds the object under test: `fn name() -> Object { ... }`, checked to
/// take nothing and return something.
pub(super) struct BuilderFn {
    /// Its attributes (doc comments, `#[ignore]`, ...), kept on the test.
    pub(super) attrs: Vec<Attribute>,
    /// Its visibility, kept on the test.
    pub(super) vis: Visibility,
    /// Its name: the test's name.
    pub(super) name: Ident,
    /// The type of the object it builds (its return type).
    pub(super) object: Box<Type>,
    /// Its body.
    pub(super) body: Box<Block>,
}

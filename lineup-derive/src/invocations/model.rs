//! What `#[invocations]` found on an item: the plain description [`parse`](super::parse) builds
//! and [`generate`](super::generate) reads. It holds the user's tokens, so their spans are
//! where the generated code and the errors point.

use syn::{Attribute, Expr, Ident, Item, ItemImpl, LitStr, Type};

/// The outcome of parsing an item marked `#[invocations]`.
pub(super) enum Parsed {
    /// An inherent `impl` block whose marked methods all passed the macro's checks.
    Block(InvocationsBlock),
    /// An item with errors.
    Rejected(Rejected),
}

/// An item with errors. The errors are reported and the item is kept after them, without its
/// `#[invoke]` attributes, so that its methods stay defined and the only errors the user sees
/// are ours.
pub(super) struct Rejected {
    /// Every error found in the item, combined.
    pub(super) errors: syn::Error,
    /// The item without its `#[invoke]` attributes.
    pub(super) item: Item,
}

/// An inherent `impl` block and the invocations of its marked methods.
pub(super) struct InvocationsBlock {
    /// The block as it is emitted: as written, without its `#[invoke]` attributes.
    pub(super) block: ItemImpl,
    /// The methods marked `#[invoke]`, in the order they appear in the block.
    pub(super) methods: Vec<InvokeMethod>,
    /// The method marked `#[handles]`, if any.
    pub(super) handles: Option<HandlesMethod>,
    /// `#[invocations(state)]`: a violation's report shows the object's `Debug` after each
    /// operation.
    pub(super) state: bool,
}

/// The method marked `#[handles]`: how each thread makes its handle from the object.
pub(super) struct HandlesMethod {
    /// The method's `#[cfg]` attributes.
    pub(super) cfgs: Vec<Attribute>,
    /// The method's name as written.
    pub(super) ident: Ident,
    /// Whether it takes the thread (`&lineup::MatrixThread`) besides the object.
    pub(super) takes_thread: bool,
    /// The type it returns: the handle.
    pub(super) handle: Type,
}

/// A method marked `#[invoke]` and the invocations it stands for.
pub(super) struct InvokeMethod {
    /// The method's `#[cfg]` attributes: a method compiled out takes its invocations with it.
    pub(super) cfgs: Vec<Attribute>,
    /// The method's name as written (the calls and the errors about its result point at it).
    pub(super) ident: Ident,
    /// The label of its invocations: the `name = "..."` of `#[invoke]`, or the method's name
    /// (without `r#`) at the method's name.
    pub(super) label: LitStr,
    /// `#[invoke(group = "...")]`: each invocation is pinned to one thread with `.group(...)`,
    /// spanned at the literal.
    pub(super) group: Option<LitStr>,
    /// `#[invoke(nondeterministic)]`: each invocation is marked `.nondeterministic()`.
    pub(super) nondeterministic: bool,
    /// `#[invoke(cancellable)]` on an `async fn`: each invocation is marked `.cancellable()`.
    pub(super) cancellable: bool,
    /// An `async fn`: its invocations are made with `Invocation::new_async`.
    pub(super) asynchronous: bool,
    /// The `T` of a first parameter `&mut T` besides `&self`: the calling thread's handle, made
    /// by the block's `#[handles]` method (its invocations are made with `Invocation::on_handle`).
    pub(super) handle: Option<Type>,
    /// The type of each parameter besides `&self` and the handle, as the type of a local: every
    /// lifetime is `'_`.
    pub(super) param_types: Vec<Type>,
    /// One entry per invocation, in the order of `#[invoke]`'s values: the arguments of the
    /// call, one expression per parameter (none for a method without parameters).
    pub(super) calls: Vec<Vec<Expr>>,
}

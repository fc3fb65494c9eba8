//! Invocations: an operation of the object under test with fixed argument values.

use std::fmt;
use std::sync::Arc;

use crate::model::response::Response;

/// An object-independent description of an invocation: the operation's name and its argument
/// values rendered with `Debug`. This is what histories, reports and observation files show.
///
/// ```
/// use lineup_core::InvocationLabel;
/// let label = InvocationLabel::new("add", vec!["200".into()]);
/// assert_eq!(label.to_string(), "add(200)");
/// assert_eq!(InvocationLabel::new("try_take", vec![]).to_string(), "try_take()");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InvocationLabel {
    /// The operation's name, e.g. `add`.
    pub name: String,
    /// The argument values, each rendered with `Debug`.
    pub args: Vec<String>,
}

impl InvocationLabel {
    /// A label from a name and rendered arguments.
    pub fn new(name: impl Into<String>, args: Vec<String>) -> Self {
        Self {
            name: name.into(),
            args,
        }
    }
}

impl fmt::Display for InvocationLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name, self.args.join(", "))
    }
}

/// What an invocation runs: calls the operation on the object and hands its result to the visitor.
pub(crate) type OperationFn<O> = dyn Fn(&O, &mut dyn FnMut(&dyn fmt::Debug)) + Send + Sync;

/// One element of Line-Up's invocation set `I`: an operation of an object of type `O` with
/// fixed argument values, e.g. `add(200)` on a queue.
///
/// The closure calls the operation; its result is rendered with `Debug` (see [`Response`]).
/// Arguments are recorded with [`Invocation::arg`] for display; they do not affect the call,
/// which the closure makes. An asynchronous operation (an `async fn`, a future) is made with
/// [`Invocation::new_async`].
///
/// ```
/// use lineup_core::Invocation;
/// struct Counter(std::sync::atomic::AtomicU64);
/// let inc = Invocation::new("add", |c: &Counter| {
///     c.0.fetch_add(5, std::sync::atomic::Ordering::SeqCst)
/// })
/// .arg(5);
/// assert_eq!(inc.label().to_string(), "add(5)");
/// ```
pub struct Invocation<O> {
    label: InvocationLabel,
    call: Arc<OperationFn<O>>,
    nondeterministic: bool,
}

impl<O> Clone for Invocation<O> {
    fn clone(&self) -> Self {
        Self {
            label: self.label.clone(),
            call: Arc::clone(&self.call),
            nondeterministic: self.nondeterministic,
        }
    }
}

impl<O> fmt::Debug for Invocation<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Invocation({})", self.label)
    }
}

impl<O> Invocation<O> {
    /// An invocation named `name` that runs `f` on the object. Add argument values for display
    /// with [`arg`](Self::arg).
    pub fn new<R, F>(name: impl Into<String>, f: F) -> Self
    where
        R: fmt::Debug,
        F: Fn(&O) -> R + Send + Sync + 'static,
    {
        Self::from_operation(
            name,
            Arc::new(move |o: &O, visit: &mut dyn FnMut(&dyn fmt::Debug)| visit(&f(o))),
        )
    }

    /// An invocation named `name` that runs `call`, which calls the operation and hands what it
    /// returned to the visitor (the constructors' common ground).
    pub(crate) fn from_operation(name: impl Into<String>, call: Arc<OperationFn<O>>) -> Self {
        Self {
            label: InvocationLabel::new(name, Vec::new()),
            call,
            nondeterministic: false,
        }
    }

    /// Marks an operation whose results may legitimately differ after the same serial past (a
    /// bag's `try_take` that may return any element, a `len()` that is only a snapshot). Phase 1's
    /// determinism check tolerates its different results (not a result in one serial history and
    /// blocking in another), and phase 2 accepts a history when some observed serial history is a
    /// witness of it (Def. 1 over every serial behaviour phase 1 saw): linearizability with
    /// respect to the observed serial behaviours. `#[invoke(nondeterministic)]` does the same.
    ///
    /// ```
    /// use lineup_core::Invocation;
    /// use lineup_core::sync::Mutex;
    ///
    /// let take = Invocation::new("try_take", |bag: &Mutex<Vec<u32>>| bag.lock().unwrap().pop()).nondeterministic();
    /// assert!(take.is_nondeterministic());
    /// ```
    pub fn nondeterministic(mut self) -> Self {
        self.nondeterministic = true;
        self
    }

    /// Whether the operation is [`nondeterministic`](Self::nondeterministic).
    pub fn is_nondeterministic(&self) -> bool {
        self.nondeterministic
    }

    /// Records one argument value (rendered with `Debug`) for display.
    pub fn arg(mut self, value: impl fmt::Debug) -> Self {
        self.label.args.push(format!("{value:?}"));
        self
    }

    /// The object-independent description of this invocation.
    pub fn label(&self) -> &InvocationLabel {
        &self.label
    }

    /// Calls the operation on `object` and renders what it returned. A panic propagates; the
    /// harness catches it and records [`Response::Panicked`].
    pub fn call(&self, object: &O) -> Response {
        let mut response = None;
        (self.call)(object, &mut |value| response = Some(Response::returned(value)));
        response.expect("the operation returned")
    }

    /// Calls the operation on `object` and hands what it returned to `visit` (the harness
    /// renders it into a reused buffer).
    pub(crate) fn call_with(&self, object: &O, visit: &mut dyn FnMut(&dyn fmt::Debug)) {
        (self.call)(object, visit)
    }
}

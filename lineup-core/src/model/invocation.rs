//! Invocations: an operation of the object under test with fixed argument values.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::model::handles::{self, HandleType};
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

/// The calling thread's handle, if it has one ([`Handles`](crate::Handles)).
pub(crate) type HandleRef<'a> = Option<&'a mut (dyn Any + Send)>;

/// What an invocation runs: calls the operation on the object (with the calling thread's handle,
/// for an operation on a handle) and hands its result to the visitor.
pub(crate) type OperationFn<O> = dyn Fn(&O, HandleRef<'_>, &mut dyn FnMut(&dyn fmt::Debug)) + Send + Sync;

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
    pub(crate) label: InvocationLabel,
    call: Arc<OperationFn<O>>,
    nondeterministic: bool,
    group: Option<Arc<str>>,
    /// The type of the per-thread handle the operation runs on ([`on_handle`](Self::on_handle)).
    handle: Option<HandleType>,
    /// The operation is a future ([`new_async`](Self::new_async)).
    pub(crate) asynchronous: bool,
    /// Its future may be dropped while pending ([`cancellable`](Self::cancellable)).
    pub(crate) cancellable: bool,
}

impl<O> Clone for Invocation<O> {
    fn clone(&self) -> Self {
        Self {
            label: self.label.clone(),
            call: Arc::clone(&self.call),
            nondeterministic: self.nondeterministic,
            group: self.group.clone(),
            handle: self.handle,
            asynchronous: self.asynchronous,
            cancellable: self.cancellable,
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
            Arc::new(move |o: &O, _: HandleRef<'_>, visit: &mut dyn FnMut(&dyn fmt::Debug)| visit(&f(o))),
        )
    }

    /// An invocation named `name` that runs `f` on the object and the calling thread's handle: the
    /// value the thread made from the object when it started ([`Subject::with_handles`](crate::Subject::with_handles),
    /// see [`Handles`](crate::Handles)), which it owns through all its operations and drops after
    /// them. For split handles (a channel's `Sender`, an SPSC ring's `Producer`, a deque's
    /// `Worker`), methods that take `&mut self`, and state a thread keeps between its operations
    /// (a guard taken by `lock()` and dropped by a later `unlock()`). The subject's handles must
    /// be of type `H`: a check of a subject whose handles are of another type, or that has none,
    /// fails before it starts with an error that names both.
    ///
    /// ```
    /// use lineup_core::sync::atomic::{AtomicU64, Ordering};
    /// use lineup_core::{check, Config, Invocation, Subject, TestMatrix};
    ///
    /// // Each thread counts what it added itself; the object counts the total.
    /// let subject = Subject::new("counter", || AtomicU64::new(0))
    ///     .with_handles(|_, _| 0u64)
    ///     .with(Invocation::on_handle("add", |c: &AtomicU64, mine: &mut u64| {
    ///         *mine += 1;
    ///         (c.fetch_add(1, Ordering::SeqCst) + 1, *mine)
    ///     }));
    /// let matrix = TestMatrix::new(vec![vec![0, 0], vec![0]]);
    /// assert!(check(&subject, &matrix, &Config::default()).unwrap().is_pass());
    /// ```
    pub fn on_handle<H, R, F>(name: impl Into<String>, f: F) -> Self
    where
        H: Send + 'static,
        R: fmt::Debug,
        F: Fn(&O, &mut H) -> R + Send + Sync + 'static,
    {
        Self::from_handle_operation(name, move |o: &O, handle: &mut H, visit| visit(&f(o, handle)))
    }

    /// An invocation named `name` that runs `call` on the object and the calling thread's handle
    /// of type `H`, which calls the operation and hands what it returned to the visitor (the
    /// constructors on handles' common ground).
    pub(crate) fn from_handle_operation<H, F>(name: impl Into<String>, call: F) -> Self
    where
        H: Send + 'static,
        F: Fn(&O, &mut H, &mut dyn FnMut(&dyn fmt::Debug)) + Send + Sync + 'static,
    {
        let name = name.into();
        let operation = name.clone();
        let mut invocation = Self::from_operation(
            name,
            Arc::new(
                move |o: &O, handle: HandleRef<'_>, visit: &mut dyn FnMut(&dyn fmt::Debug)| {
                    call(o, handles::downcast::<H>(handle, &operation), visit)
                },
            ),
        );
        invocation.handle = Some(HandleType::of::<H>());
        invocation
    }

    /// An invocation named `name` that runs `call`, which calls the operation and hands what it
    /// returned to the visitor (the constructors' common ground).
    pub(crate) fn from_operation(name: impl Into<String>, call: Arc<OperationFn<O>>) -> Self {
        Self {
            label: InvocationLabel::new(name, Vec::new()),
            call,
            nondeterministic: false,
            group: None,
            handle: None,
            asynchronous: false,
            cancellable: false,
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

    /// Pins the invocation to one thread of a matrix: every generated matrix (the random sample,
    /// the deepening stages, AutoCheck, shrinking) puts all the invocations of group `name` in
    /// one column, which may also run other invocations. For an operation that only one thread
    /// may call, such as an MPSC channel's `recv` or an SPSC ring's `push` (Lincheck's
    /// non-parallel group). Invocations with the same name form one group (those of several
    /// methods may share one); two groups may share a column, so a matrix with more groups than
    /// threads is still built. An explicit matrix of a [`LineupTest`](crate::LineupTest) that
    /// puts a group on two threads is a setup error that names the group, its invocations and
    /// their threads. The initial and final operations run on the main thread before and after
    /// the workers, never at the same time as a worker, so they are outside the rule.
    /// `#[invoke(group = "consumer")]` does the same.
    ///
    /// # Panics
    ///
    /// If `name` is empty.
    ///
    /// ```
    /// use lineup_core::{sample_matrices_grouped, Invocation, OperationGroups, Subject};
    /// use lineup_core::sync::Mutex;
    ///
    /// let subject = Subject::new("queue", || Mutex::new(Vec::<u32>::new()))
    ///     .with(Invocation::new("push", |q: &Mutex<Vec<u32>>| q.lock().unwrap().push(1)).arg(1))
    ///     .with(Invocation::new("pop", |q: &Mutex<Vec<u32>>| q.lock().unwrap().pop()).group("consumer"));
    /// assert_eq!(subject.invocations()[1].group_name(), Some("consumer"));
    ///
    /// // Every sampled matrix runs its `pop()`s on one thread.
    /// let groups: OperationGroups = subject.groups();
    /// for matrix in sample_matrices_grouped(&groups, 3, 3, 100, 7) {
    ///     let threads_with_pop = matrix.threads.iter().filter(|column| column.contains(&1)).count();
    ///     assert!(threads_with_pop <= 1);
    ///     assert!(groups.check(&matrix).is_ok());
    /// }
    /// ```
    pub fn group(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        assert!(!name.is_empty(), "an operation group's name cannot be empty");
        self.group = Some(name.into());
        self
    }

    /// The name of the invocation's [`group`](Self::group), if it has one.
    pub fn group_name(&self) -> Option<&str> {
        self.group.as_deref()
    }

    /// Records one argument value (rendered with `Debug`) for display.
    pub fn arg(mut self, value: impl fmt::Debug) -> Self {
        self.label.args.push(format!("{value:?}"));
        self
    }

    /// The name of the type of the per-thread handle the operation runs on, if it runs on one
    /// ([`on_handle`](Self::on_handle)).
    pub fn handle_type_name(&self) -> Option<&'static str> {
        self.handle.map(|h| h.name)
    }

    /// The type of the per-thread handle the operation runs on, if any.
    pub(crate) fn handle_type(&self) -> Option<HandleType> {
        self.handle
    }

    /// The object-independent description of this invocation.
    pub fn label(&self) -> &InvocationLabel {
        &self.label
    }

    /// Calls the operation on `object` and renders what it returned. A panic propagates; the
    /// harness catches it and records [`Response::Panicked`].
    ///
    /// # Panics
    ///
    /// Besides the operation's own panics: if the operation runs on a per-thread handle
    /// ([`on_handle`](Self::on_handle)); call it with [`call_on`](Self::call_on).
    pub fn call(&self, object: &O) -> Response {
        self.call_in(object, None)
    }

    /// Calls the operation on `object` with `handle` as the calling thread's handle, and renders
    /// what it returned. An operation that runs on no handle ignores `handle`.
    ///
    /// # Panics
    ///
    /// Besides the operation's own panics: if the operation runs on a handle of another type.
    ///
    /// ```
    /// use lineup_core::{Invocation, Response};
    /// let take = Invocation::on_handle("take", |_: &(), mine: &mut Vec<u32>| mine.pop());
    /// let mut mine: Vec<u32> = vec![1, 2];
    /// assert_eq!(take.call_on(&(), &mut mine), Response::Returned("Some(2)".into()));
    /// assert_eq!(mine, [1]);
    /// ```
    pub fn call_on<H: Send + 'static>(&self, object: &O, handle: &mut H) -> Response {
        self.call_in(object, Some(handle))
    }

    /// Calls the operation on `object` with the calling thread's `handle`, and renders what it
    /// returned.
    pub(crate) fn call_in(&self, object: &O, handle: HandleRef<'_>) -> Response {
        let mut response = None;
        (self.call)(object, handle, &mut |value| response = Some(Response::returned(value)));
        response.expect("the operation returned")
    }

    /// Calls the operation on `object` (with the calling thread's `handle`) and hands what it
    /// returned to `visit` (the harness renders it into a reused buffer).
    pub(crate) fn call_with(&self, object: &O, handle: HandleRef<'_>, visit: &mut dyn FnMut(&dyn fmt::Debug)) {
        (self.call)(object, handle, visit)
    }
}

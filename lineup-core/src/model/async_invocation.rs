//! Asynchronous invocations: an operation that is a future (an `async fn` of the object), driven
//! to completion on its worker by the backend's executor.

use std::fmt;
use std::sync::Arc;

use crate::model::invocation::{HandleRef, Invocation};

impl<O> Invocation<O> {
    /// An invocation named `name` whose operation is asynchronous: `f` returns a future (it may
    /// borrow the object), which the worker running the operation drives to completion with
    /// [`lineup::future::block_on`](crate::future::block_on), the executor of the backend lineup
    /// controls (shuttle's, or lineup's own on loom). Its call is recorded when the worker starts
    /// it and its return when the future completes, with the future's output as the result.
    ///
    /// Every `.await` that suspends is a scheduling point: while the future is pending, the worker
    /// is blocked until the future's waker is woken, and the other threads and tasks run. A future
    /// that is never woken (a lost wake-up) leaves its operation pending for good, as a thread
    /// blocked on a lock does: the history is stuck, and phase 2 accepts it only where the
    /// operation also blocks serially (Def. 2).
    ///
    /// `f` is an async closure (`async |q: &Queue| q.take().await`), an `async fn` method
    /// (`Queue::take`), or a closure returning a future that borrows nothing
    /// (`|q: &Queue| { let inner = q.0.clone(); async move { .. } }`). A closure `|q: &Queue|
    /// async move { q.take().await }` does not compile, since its future borrows `q`: write it as an
    /// async closure. Arguments are recorded for display with [`arg`](Self::arg), as for
    /// [`new`](Self::new).
    ///
    /// ```
    /// use lineup_core::sync::Mutex;
    /// use lineup_core::{check, Config, Invocation, Subject, TestMatrix};
    ///
    /// #[derive(Default)]
    /// struct Counter(Mutex<u64>);
    ///
    /// impl Counter {
    ///     async fn add(&self, n: u64) -> u64 {
    ///         let mut value = self.0.lock().unwrap();
    ///         *value += n;
    ///         *value
    ///     }
    ///
    ///     async fn get(&self) -> u64 {
    ///         *self.0.lock().unwrap()
    ///     }
    /// }
    ///
    /// let subject = Subject::new("Counter", Counter::default)
    ///     .with(Invocation::new_async("add", async |c: &Counter| c.add(2).await).arg(2))
    ///     .with(Invocation::new_async("get", Counter::get));
    /// let matrix = TestMatrix::new(vec![vec![0, 1], vec![0]]);
    /// assert!(check(&subject, &matrix, &Config::default()).unwrap().is_pass());
    /// ```
    pub fn new_async<R, F>(name: impl Into<String>, f: F) -> Self
    where
        R: fmt::Debug,
        F: AsyncFn(&O) -> R + Send + Sync + 'static,
    {
        let mut invocation = Self::from_operation(
            name,
            Arc::new(move |o: &O, _: HandleRef<'_>, visit: &mut dyn FnMut(&dyn fmt::Debug)| {
                visit_output(crate::primitives::future::run_operation(f(o)), visit)
            }),
        );
        invocation.asynchronous = true;
        invocation
    }

    /// An asynchronous invocation (as [`new_async`](Self::new_async)) on the object and the
    /// calling thread's handle (as [`on_handle`](Self::on_handle)): `f` is an async closure or an
    /// `async fn` that takes `&O` and `&mut H`.
    ///
    /// ```
    /// use lineup_core::sync::Mutex;
    /// use lineup_core::{check, Config, Invocation, Subject, TestMatrix};
    ///
    /// #[derive(Default)]
    /// struct Log(Mutex<Vec<u32>>);
    ///
    /// // Each thread appends the next number of its own sequence.
    /// let subject = Subject::new("log", Log::default)
    ///     .with_handles(|_, _| 0u32)
    ///     .with(Invocation::on_handle_async("append", async |log: &Log, next: &mut u32| {
    ///         *next += 1;
    ///         log.0.lock().unwrap().push(*next);
    ///         *next
    ///     }));
    /// let matrix = TestMatrix::new(vec![vec![0, 0], vec![0]]);
    /// assert!(check(&subject, &matrix, &Config::default()).unwrap().is_pass());
    /// ```
    pub fn on_handle_async<H, R, F>(name: impl Into<String>, f: F) -> Self
    where
        H: Send + 'static,
        R: fmt::Debug,
        F: AsyncFn(&O, &mut H) -> R + Send + Sync + 'static,
    {
        let mut invocation = Self::from_handle_operation(name, move |o: &O, handle: &mut H, visit| {
            visit_output(crate::primitives::future::run_operation(f(o, handle)), visit)
        });
        invocation.asynchronous = true;
        invocation
    }

    /// Marks an asynchronous invocation *cancellable*: besides running its future to completion,
    /// the exploration drops it at each point where it returned `Pending` (after the first poll,
    /// the second, ...), as a `tokio::select!` whose other branch wins or a timeout does. The drop
    /// is a scheduling point of its own: other threads may run between the `Pending` and the drop,
    /// and the future's `Drop` runs on the operation's thread, which then goes on with its next
    /// operation. `#[invoke(cancellable)]` does the same.
    ///
    /// A cancelled operation is recorded as called and never returned
    /// ([`Response::Cancelled`](crate::Response::Cancelled), which says after which poll), and
    /// judged as a pending operation of Def. 1: a serial witness either completes it (it took
    /// effect, with any result the caller never saw) or leaves it out (it took none). Phase 1
    /// explores, for each cancellable operation, the serial executions in which it never ran, so
    /// that the specification holds the witnesses that leave it out. An object is *cancel-safe*
    /// when every cancellation is one of the two: a cancelled `recv` that lost the message it had
    /// taken, or an `acquire` that left its waiter behind (a later `acquire` blocks for good), is
    /// neither, and fails the check. How many cancellation points an execution offers is bounded
    /// by [`Config::max_cancellations`](crate::Config::max_cancellations).
    ///
    /// On loom (`--cfg loom`) the mark is ignored: no operation is cancelled.
    ///
    /// # Panics
    ///
    /// If the invocation is not asynchronous (made by [`new_async`](Self::new_async) or
    /// [`on_handle_async`](Self::on_handle_async)): only a future can be dropped while pending.
    ///
    /// ```
    /// use lineup_core::future::yield_now;
    /// use lineup_core::sync::Mutex;
    /// use lineup_core::{check, Config, Invocation, Subject, TestMatrix};
    ///
    /// #[derive(Default)]
    /// struct Counter(Mutex<u64>);
    ///
    /// impl Counter {
    ///     // Cancel-safe: the only `.await` comes before the update.
    ///     async fn add(&self) -> u64 {
    ///         yield_now().await;
    ///         let mut value = self.0.lock().unwrap();
    ///         *value += 1;
    ///         *value
    ///     }
    /// }
    ///
    /// let add = Invocation::new_async("add", Counter::add).cancellable();
    /// assert!(add.is_cancellable());
    /// let subject = Subject::new("Counter", Counter::default).with(add);
    /// let matrix = TestMatrix::new(vec![vec![0, 0], vec![0]]);
    /// assert!(check(&subject, &matrix, &Config::default()).unwrap().is_pass());
    /// ```
    pub fn cancellable(mut self) -> Self {
        assert!(
            self.asynchronous,
            "`cancellable()` on the synchronous invocation `{}`: only an asynchronous invocation \
             (`Invocation::new_async`, `on_handle_async`, an `async fn` under `#[invocations]`) has a \
             future to drop",
            self.label.name
        );
        self.cancellable = true;
        self
    }

    /// Whether the invocation is [`cancellable`](Self::cancellable).
    pub fn is_cancellable(&self) -> bool {
        self.cancellable
    }

    /// Whether the invocation is asynchronous ([`new_async`](Self::new_async),
    /// [`on_handle_async`](Self::on_handle_async)).
    pub fn is_async(&self) -> bool {
        self.asynchronous
    }
}

/// Hands an asynchronous operation's output to the visitor; a cancelled operation (no output)
/// hands `()`, which the harness replaces with the cancellation.
fn visit_output<R: fmt::Debug>(output: Option<R>, visit: &mut dyn FnMut(&dyn fmt::Debug)) {
    match output {
        Some(value) => visit(&value),
        None => visit(&()),
    }
}

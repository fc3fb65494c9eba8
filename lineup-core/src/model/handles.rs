//! Per-thread handles: a value that each thread of a matrix makes from the shared object when it
//! starts, owns while it runs its operations, and drops when it ends (a channel's `Sender`, an SPSC
//! ring's `Producer`, a deque's `Worker` or `Stealer`, or the thread's own state between its
//! operations: a guard, a ticket, a reservation).
//!
//! A [`Subject`](crate::Subject) gets its handles from [`Subject::with_handles`](crate::Subject::with_handles)
//! (or a `#[handles]` method under `#[lineup::invocations]`), and an invocation that uses the
//! calling thread's handle is made with [`Invocation::on_handle`](crate::Invocation::on_handle).
//!
//! When handles are made and dropped, and why: see [`Handles`].

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

use crate::model::groups::OperationGroups;
use crate::model::matrix::TestMatrix;
use crate::model::thread_id::ThreadId;

/// Where in a matrix a thread runs its operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    /// The main thread, running the initial operations before the workers start.
    Initial,
    /// Worker `i`, running column `i` of the matrix.
    Worker(usize),
    /// The main thread, running the final operations after every worker has finished.
    Final,
}

/// The thread a handle is made for: its [`Column`], and the operation groups
/// ([`Invocation::group`](crate::Invocation::group)) of the invocations it runs in this matrix.
/// A handle that only one thread may own (an SPSC ring's `Producer`) is made for the thread that
/// runs the group of its operations.
///
/// ```
/// use lineup_core::{Column, MatrixThread};
/// let thread = MatrixThread::new(Column::Worker(1), ["consumer"]);
/// assert_eq!(thread.column(), Column::Worker(1));
/// assert!(thread.runs_group("consumer"));
/// assert!(!thread.runs_group("producer"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixThread {
    column: Column,
    groups: Vec<String>,
}

impl MatrixThread {
    /// The thread of `column` whose invocations belong to `groups`.
    pub fn new<S: Into<String>>(column: Column, groups: impl IntoIterator<Item = S>) -> Self {
        Self {
            column,
            groups: groups.into_iter().map(Into::into).collect(),
        }
    }

    /// Where the thread runs.
    pub fn column(&self) -> Column {
        self.column
    }

    /// The thread as histories and reports name it (`main` for the initial and final operations).
    pub fn thread_id(&self) -> ThreadId {
        match self.column {
            Column::Worker(i) => ThreadId::Worker(i),
            Column::Initial | Column::Final => ThreadId::Main,
        }
    }

    /// Whether the thread runs invocations of group `name` in this matrix.
    pub fn runs_group(&self, name: &str) -> bool {
        self.groups.iter().any(|g| g == name)
    }

    /// The groups of the invocations the thread runs, in the order of the group names.
    pub fn groups(&self) -> &[String] {
        &self.groups
    }
}

/// The threads of a matrix, each with the groups it runs: what [`Handles`] are made for.
#[derive(Clone, Debug)]
pub(crate) struct MatrixThreads {
    pub initial: MatrixThread,
    pub workers: Vec<MatrixThread>,
    pub finals: MatrixThread,
}

impl MatrixThreads {
    /// The threads of `matrix` under `groups`.
    pub(crate) fn of(matrix: &TestMatrix, groups: &OperationGroups) -> Self {
        let thread = |column: Column, ops: &[usize]| {
            let names = groups
                .names()
                .iter()
                .enumerate()
                .filter(|&(g, _)| ops.iter().any(|&i| groups.group_of(i) == Some(g)))
                .map(|(_, name)| name.clone());
            MatrixThread::new(column, names)
        };
        Self {
            initial: thread(Column::Initial, &matrix.initial),
            workers: matrix
                .threads
                .iter()
                .enumerate()
                .map(|(i, ops)| thread(Column::Worker(i), ops))
                .collect(),
            finals: thread(Column::Final, &matrix.finals),
        }
    }
}

/// The type of a handle, named for errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HandleType {
    id: TypeId,
    /// `std::any::type_name` of the handle.
    pub name: &'static str,
}

impl HandleType {
    /// The type `H`.
    pub(crate) fn of<H: 'static>() -> Self {
        Self {
            id: TypeId::of::<H>(),
            name: std::any::type_name::<H>(),
        }
    }
}

type MakeHandle<O> = dyn Fn(&Arc<O>, &MatrixThread) -> Box<dyn Any + Send> + Send + Sync;

/// How each thread of a matrix makes its handle from the shared object. Made with
/// [`Handles::new`]; a [`Subject`](crate::Subject) takes it with
/// [`Subject::with_handles`](crate::Subject::with_handles), and `#[lineup::invocations]` makes it
/// from the block's `#[handles]` method.
///
/// # When handles are made and dropped
///
/// In every execution, after the object is built: the main thread makes the handle of the
/// initial operations (if there are any) and runs them; then it makes the handle of every worker,
/// in column order, and starts the workers, each owning its own; once they have all finished, it
/// makes the handle of the final operations (if any) and runs them. Making a handle belongs to no
/// operation (as building the object does). A worker drops its handle after its last operation,
/// as an operation of its own that the history shows as `drop(handle)` on the worker's thread
/// (numbered after the matrix's operations, with `()` or the drop's panic as its response): phase
/// 1 runs it alone, in every serial order with the other operations, and phase 2 interleaves its
/// steps with the other threads' like any operation's, so a race inside a `Drop` implementation is
/// found. It must be an operation of the history: what a drop does (a lease given back, a channel
/// end closed) is seen by the operations after it, so a drop that the history did not show would
/// make the specification nondeterministic, and a drop glued to the thread's last operation would
/// make that operation non-atomic (both false alarms). A handle whose type runs no code when
/// dropped (`std::mem::needs_drop`) adds no operation, and on shuttle a drop that reaches no
/// scheduling point (an `Arc` let go, an empty list of permits) touched nothing the model checker
/// sees: nothing can tell when it ran, so it is left out of that history (it would only add a
/// real-time order that nothing stands for) and costs phase 1 no extra serial orders. (The loom
/// backend records every drop.) The main thread drops the handle of the
/// initial operations after the last of them (before any worker starts), and that of the final
/// operations after the last of them, belonging to no operation.
///
/// ```
/// use std::sync::Arc;
/// use lineup_core::{Column, Handles, MatrixThread};
///
/// struct Counter;
/// let handles = Handles::new(|_: &Arc<Counter>, thread: &MatrixThread| thread.column() == Column::Initial);
/// assert_eq!(handles.type_name(), "bool");
/// ```
pub struct Handles<O> {
    make: Arc<MakeHandle<O>>,
    kind: HandleType,
    /// Whether dropping a handle runs code (`std::mem::needs_drop`): only then is a worker's drop
    /// a step of the execution of its own.
    needs_drop: bool,
}

impl<O> Clone for Handles<O> {
    fn clone(&self) -> Self {
        Self {
            make: Arc::clone(&self.make),
            kind: self.kind,
            needs_drop: self.needs_drop,
        }
    }
}

impl<O> fmt::Debug for Handles<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Handles<{}>", self.kind.name)
    }
}

impl<O> Handles<O> {
    /// Handles of type `H`, each made by `make` from the object and the thread it is for.
    pub fn new<H, F>(make: F) -> Self
    where
        H: Send + 'static,
        F: Fn(&Arc<O>, &MatrixThread) -> H + Send + Sync + 'static,
    {
        Self {
            make: Arc::new(move |object: &Arc<O>, thread: &MatrixThread| {
                Box::new(make(object, thread)) as Box<dyn Any + Send>
            }),
            kind: HandleType::of::<H>(),
            needs_drop: std::mem::needs_drop::<H>(),
        }
    }

    /// Whether dropping a handle runs code.
    pub(crate) fn needs_drop(&self) -> bool {
        self.needs_drop
    }

    /// The name of the handles' type (`std::any::type_name`).
    pub fn type_name(&self) -> &'static str {
        self.kind.name
    }

    /// The handles' type.
    pub(crate) fn kind(&self) -> HandleType {
        self.kind
    }

    /// Makes the handle of `thread`.
    pub(crate) fn make(&self, object: &Arc<O>, thread: &MatrixThread) -> ThreadHandle {
        ThreadHandle((self.make)(object, thread).into())
    }
}

/// The handle a thread holds during one execution: none for a subject without handles, and none
/// once it has been dropped.
#[derive(Default)]
pub(crate) struct ThreadHandle(Option<Box<dyn Any + Send>>);

impl ThreadHandle {
    /// The handle, for an invocation to downcast.
    pub(crate) fn as_any(&mut self) -> Option<&mut (dyn Any + Send)> {
        self.0.as_deref_mut()
    }

    /// Drops the handle now.
    pub(crate) fn drop_now(&mut self) {
        drop(self.0.take());
    }
}

/// The calling thread's handle as an `H`: what an invocation made by
/// [`Invocation::on_handle`](crate::Invocation::on_handle) is given. The subject's handle type is
/// checked against every invocation's before a check starts ([`Subject::validate`](crate::Subject::validate)),
/// so a mismatch here is a bug of lineup's or a call of [`Invocation::call`](crate::Invocation::call)
/// without a handle.
pub(crate) fn downcast<'a, H: 'static>(handle: Option<&'a mut (dyn Any + Send)>, operation: &str) -> &'a mut H {
    match handle {
        Some(handle) => match handle.downcast_mut::<H>() {
            Some(handle) => handle,
            None => panic!(
                "operation `{operation}` runs on a handle of type `{}`, but the thread holds another type",
                std::any::type_name::<H>()
            ),
        },
        None => panic!(
            "operation `{operation}` runs on a per-thread handle of type `{}`, and the thread has none (call it \
             with Invocation::call_on)",
            std::any::type_name::<H>()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thread_knows_the_groups_it_runs() {
        let groups = OperationGroups::new([None, Some("producer"), Some("consumer")]);
        let matrix = TestMatrix::new(vec![vec![0, 1], vec![2, 0], vec![0]])
            .with_initial(vec![1])
            .with_final(vec![2, 0]);
        let threads = MatrixThreads::of(&matrix, &groups);
        assert_eq!(threads.initial, MatrixThread::new(Column::Initial, ["producer"]));
        assert_eq!(threads.workers[0], MatrixThread::new(Column::Worker(0), ["producer"]));
        assert_eq!(threads.workers[1], MatrixThread::new(Column::Worker(1), ["consumer"]));
        assert_eq!(
            threads.workers[2],
            MatrixThread::new(Column::Worker(2), Vec::<String>::new())
        );
        assert_eq!(threads.finals.thread_id(), ThreadId::Main);
        assert!(threads.finals.runs_group("consumer"));
    }

    #[test]
    fn a_handle_is_made_for_its_thread_and_dropped_once() {
        let handles = Handles::new(|object: &Arc<u32>, thread: &MatrixThread| (**object, thread.column()));
        assert_eq!(handles.type_name(), std::any::type_name::<(u32, Column)>());
        let mut handle = handles.make(
            &Arc::new(7),
            &MatrixThread::new(Column::Worker(2), Vec::<String>::new()),
        );
        assert_eq!(
            *downcast::<(u32, Column)>(handle.as_any(), "op"),
            (7, Column::Worker(2))
        );
        handle.drop_now();
        assert!(handle.as_any().is_none());
    }

    #[test]
    #[should_panic(expected = "operation `push(1)` runs on a handle of type `u8`")]
    fn a_handle_of_another_type_is_named() {
        let handles = Handles::new(|_: &Arc<()>, _: &MatrixThread| 1u16);
        let mut handle = handles.make(&Arc::new(()), &MatrixThread::new(Column::Initial, Vec::<String>::new()));
        downcast::<u8>(handle.as_any(), "push(1)");
    }
}

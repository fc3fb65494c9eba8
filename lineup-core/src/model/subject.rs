//! The subject of a check: how to build the object, and its invocation set `I`.

use std::fmt;
use std::sync::Arc;

use crate::error::CheckError;
use crate::model::groups::OperationGroups;
use crate::model::handles::{Handles, MatrixThread, MatrixThreads, ThreadHandle};
use crate::model::history::{op_table, OpInfo, OpTable};
use crate::model::invocation::Invocation;
use crate::model::invocation::InvocationLabel;
use crate::model::matrix::TestMatrix;
use crate::model::thread_id::ThreadId;

type Factory<O> = dyn Fn() -> O + Send + Sync;

/// The object under test: a name, a function that builds a fresh object for every execution,
/// and the invocations to try (Line-Up's set `I`). The object must be built from primitives the
/// model checker controls: `lineup::sync`, `lineup::thread`, `lineup::hint`, `lineup::future`.
///
/// ```
/// use lineup_core::{Invocation, Subject};
/// use lineup_core::sync::atomic::{AtomicU64, Ordering};
///
/// let subject = Subject::new("atomic counter", || AtomicU64::new(0))
///     .with(Invocation::new("inc", |c: &AtomicU64| { c.fetch_add(1, Ordering::SeqCst); }))
///     .with(Invocation::new("get", |c: &AtomicU64| c.load(Ordering::SeqCst)));
/// assert_eq!(subject.invocations().len(), 2);
/// ```
pub struct Subject<O> {
    name: String,
    factory: Arc<Factory<O>>,
    invocations: Vec<Invocation<O>>,
    /// How each thread makes its handle, for a subject with per-thread handles.
    handles: Option<Handles<O>>,
    /// How a violation's report shows the object's state after each operation, if it does.
    state: Option<fn(&O) -> String>,
}

impl<O> Clone for Subject<O> {
    fn clone(&self) -> Self {
        Self {
            name: self.name.clone(),
            factory: Arc::clone(&self.factory),
            invocations: self.invocations.clone(),
            handles: self.handles.clone(),
            state: self.state,
        }
    }
}

impl<O> fmt::Debug for Subject<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subject")
            .field("name", &self.name)
            .field("invocations", &self.invocations)
            .field("handles", &self.handles)
            .finish()
    }
}

impl<O> Subject<O> {
    /// A subject with no invocations yet; `factory` builds a fresh object for each execution.
    pub fn new(name: impl Into<String>, factory: impl Fn() -> O + Send + Sync + 'static) -> Self {
        Self {
            name: name.into(),
            factory: Arc::new(factory),
            invocations: Vec::new(),
            handles: None,
            state: None,
        }
    }

    /// Shows the object's state (its `Debug`) after each operation of a violating history, in the
    /// report's "interleaving" section (`#[invocations(state)]` does the same). The state is taken
    /// only while the violating schedule is replayed for the report, never during the check.
    /// `Debug` must not block or take a lock of the model checker's (std's `Debug` of a `Mutex`, and
    /// lineup's, uses `try_lock`): a scheduling point there would change the replayed schedule, and
    /// the report then says the steps could not be recorded.
    pub fn with_state(self) -> Self
    where
        O: fmt::Debug,
    {
        self.showing_state(Some(|object: &O| format!("{object:?}")))
    }

    /// Shows the object's state after each operation with `state`, or not (`None`); see
    /// [`with_state`](Self::with_state).
    pub fn showing_state(mut self, state: Option<fn(&O) -> String>) -> Self {
        self.state = state;
        self
    }

    /// The object's state as the report shows it, if it shows it.
    pub(crate) fn state_of(&self, object: &O) -> Option<String> {
        self.state.map(|state| state(object))
    }

    /// Gives each thread of every execution its own handle, made by `make` from the shared object
    /// and the thread it is for ([`MatrixThread`]: its column, the operation groups it runs), and
    /// owned by the thread through its operations: invocations made with
    /// [`Invocation::on_handle`] get it as `&mut H`. A worker drops its handle after its last
    /// operation, as an operation of the history, `drop(handle)` (see [`Handles`] for when handles
    /// are made and dropped, and why). For split handles
    /// (a channel's `Sender` and `Receiver`, an SPSC ring's `Producer` and `Consumer`, a deque's
    /// `Worker` and `Stealer`) and for what a thread keeps between its operations (a guard, a
    /// ticket). Replaces handles given before.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use lineup_core::sync::mpsc::{channel, Receiver, Sender};
    /// use lineup_core::sync::Mutex;
    /// use lineup_core::{check, Config, Invocation, MatrixThread, Subject, TestMatrix};
    ///
    /// // A channel whose receiver goes to the thread that runs the `receiver` group.
    /// struct Channel {
    ///     sender: Sender<u32>,
    ///     receiver: Mutex<Option<Receiver<u32>>>,
    /// }
    /// struct End {
    ///     sender: Sender<u32>,
    ///     receiver: Option<Receiver<u32>>,
    /// }
    ///
    /// let subject = Subject::new("channel", || {
    ///     let (sender, receiver) = channel();
    ///     Channel { sender, receiver: Mutex::new(Some(receiver)) }
    /// })
    /// .with_handles(|channel: &Arc<Channel>, thread: &MatrixThread| End {
    ///     sender: channel.sender.clone(),
    ///     receiver: if thread.runs_group("receiver") { channel.receiver.lock().unwrap().take() } else { None },
    /// })
    /// .with(Invocation::on_handle("send", |_: &Channel, end: &mut End| end.sender.send(1).is_ok()).arg(1))
    /// .with(
    ///     Invocation::on_handle("try_recv", |_: &Channel, end: &mut End| end.receiver.as_ref().unwrap().try_recv().ok())
    ///         .group("receiver"),
    /// );
    /// let matrix = TestMatrix::new(vec![vec![0, 0], vec![1, 1]]);
    /// assert!(check(&subject, &matrix, &Config::default()).unwrap().is_pass());
    /// ```
    pub fn with_handles<H, F>(mut self, make: F) -> Self
    where
        H: Send + 'static,
        F: Fn(&Arc<O>, &MatrixThread) -> H + Send + Sync + 'static,
    {
        self.handles = Some(Handles::new(make));
        self
    }

    /// Gives each thread of every execution its own state of type `S`, starting at
    /// `S::default()`: the handles of [`with_handles`](Self::with_handles) for values a thread
    /// keeps between its operations (a guard that `lock` takes and a later `unlock` drops, a
    /// ticket, a reservation). A guard still held when the thread's last operation ends is dropped
    /// then, in the thread's `drop(handle)` operation.
    ///
    /// ```
    /// use lineup_core::{Invocation, Subject};
    /// let subject = Subject::new("tickets", || ()).with_thread_state::<Vec<u32>>()
    ///     .with(Invocation::on_handle("keep", |_: &(), kept: &mut Vec<u32>| kept.push(1)));
    /// assert_eq!(subject.handles().unwrap().type_name(), "alloc::vec::Vec<u32>");
    /// ```
    pub fn with_thread_state<S: Default + Send + 'static>(self) -> Self {
        self.with_handles(|_, _| S::default())
    }

    /// Sets how threads make their handles ([`with_handles`](Self::with_handles)), or none.
    pub fn handled_by(mut self, handles: Option<Handles<O>>) -> Self {
        self.handles = handles;
        self
    }

    /// How each thread makes its handle, if the subject has per-thread handles.
    pub fn handles(&self) -> Option<&Handles<O>> {
        self.handles.as_ref()
    }

    /// The handle of `thread` for one execution (none, for a subject without handles).
    pub(crate) fn handle_for(&self, object: &Arc<O>, thread: &MatrixThread) -> ThreadHandle {
        self.handles
            .as_ref()
            .map_or_else(ThreadHandle::default, |handles| handles.make(object, thread))
    }

    /// The operations an execution of `matrix` has besides the matrix's: one `drop(handle)` per
    /// worker whose handle runs code when dropped (numbered after the matrix's operations, in
    /// column order; see [`Handles`]).
    pub(crate) fn drop_steps(&self, matrix: &TestMatrix) -> usize {
        match &self.handles {
            Some(handles) if handles.needs_drop() => matrix.threads.len(),
            _ => 0,
        }
    }

    /// How many operations an execution of `matrix` has: the matrix's and the workers' handle
    /// drops.
    pub(crate) fn op_count(&self, matrix: &TestMatrix) -> usize {
        matrix.op_count() + self.drop_steps(matrix)
    }

    /// The operations of an execution of `matrix`: the matrix's, then the workers' handle drops
    /// (labelled `drop(handle)`).
    pub(crate) fn op_table(&self, matrix: &TestMatrix) -> OpTable {
        let matrix_ops = op_table(matrix, &self.labels());
        let drops = self.drop_steps(matrix);
        if drops == 0 {
            return matrix_ops;
        }
        let first = matrix.op_count() + 1;
        let drop = InvocationLabel::new("drop", vec!["handle".to_string()]);
        matrix_ops
            .iter()
            .cloned()
            .chain((0..drops).map(|t| OpInfo {
                id: first + t,
                thread: ThreadId::Worker(t),
                invocation: drop.clone(),
            }))
            .collect()
    }

    /// The threads of `matrix`, each with the groups it runs: what handles are made for.
    pub(crate) fn threads_of(&self, matrix: &TestMatrix) -> MatrixThreads {
        MatrixThreads::of(matrix, &self.groups())
    }

    /// Adds an invocation; matrices refer to invocations by their position in this list.
    pub fn with(mut self, invocation: Invocation<O>) -> Self {
        self.invocations.push(invocation);
        self
    }

    /// The subject's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The invocation set, in order.
    pub fn invocations(&self) -> &[Invocation<O>] {
        &self.invocations
    }

    /// The labels of the invocations, in order.
    pub fn labels(&self) -> Vec<InvocationLabel> {
        self.invocations.iter().map(|i| i.label().clone()).collect()
    }

    /// The operation groups of the invocations ([`Invocation::group`]): what every matrix
    /// lineup generates for this subject keeps.
    pub fn groups(&self) -> OperationGroups {
        OperationGroups::of(&self.invocations)
    }

    /// Builds a fresh object.
    pub fn build(&self) -> O {
        (self.factory)()
    }

    /// For each operation of `matrix` (indexed by `op - 1`), whether its invocation is
    /// [`nondeterministic`](Invocation::nondeterministic): the determinism check tolerates its
    /// different results.
    pub(crate) fn tolerated_ops(&self, matrix: &TestMatrix) -> Vec<bool> {
        let mut tolerated = vec![false; self.op_count(matrix)];
        for slot in matrix.slots() {
            tolerated[slot.id - 1] = self
                .invocations
                .get(slot.invocation)
                .is_some_and(|i| i.is_nondeterministic());
        }
        tolerated
    }

    /// Checks that every entry of `matrix` names an invocation of this subject, and that every
    /// invocation that runs on a per-thread handle ([`Invocation::on_handle`]) finds handles of
    /// its type.
    pub fn validate(&self, matrix: &TestMatrix) -> Result<(), CheckError> {
        if let Some(i) = matrix.max_invocation().filter(|&i| i >= self.invocations.len()) {
            return Err(CheckError::UnknownInvocation {
                index: i,
                subject: self.name.clone(),
                count: self.invocations.len(),
            });
        }
        self.validate_handles()
    }

    /// Checks that every invocation that runs on a handle finds handles of its type.
    fn validate_handles(&self) -> Result<(), CheckError> {
        let given = self.handles.as_ref().map(Handles::kind);
        for invocation in &self.invocations {
            let Some(wanted) = invocation.handle_type() else {
                continue;
            };
            if given != Some(wanted) {
                return Err(CheckError::HandleMismatch {
                    subject: self.name.clone(),
                    invocation: invocation.label().to_string(),
                    wanted: wanted.name,
                    given: given.map(|g| g.name),
                });
            }
        }
        Ok(())
    }
}

//! The test body that runs one execution of a matrix inside shuttle.
//!
//! The main thread builds the object, runs the initial operations, spawns one worker thread per
//! column, waits for the workers, and runs the final operations. Before each operation a worker
//! passes a *gate*, a scheduling point at which the scheduler decides which operation starts
//! next. Every call and return is appended to the [`recording`].
//!
//! In phase 2 a worker's gate is the first scheduling point of its operation (a switch there
//! leaves the operation not yet called). In phase 1 (`gate_points`) each gate after a worker's
//! first is a scheduling point of its own, before the operation runs: an operation that reaches
//! no scheduling point may still read what others wrote through a primitive that does not
//! switch (`OnceLock::get`, shuttle's `Once::is_completed`), so phase 1 must be able to run
//! another thread's operation between it and the one before it on its thread, or the
//! specification lacks a serial order that a concurrent history needs (a false alarm).

use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Once};

use crate::explore::abandonment;
use crate::explore::recording;
use crate::explore::role::Role;
use crate::explore::trace;
use crate::model::handles::{MatrixThread, ThreadHandle};
use crate::model::matrix::OpSlot;
use crate::model::matrix::TestMatrix;
use crate::model::subject::Subject;
use shuttle::current::{me, TaskId};
use std::fmt::Write as _;

/// Builds the body that shuttle runs once per execution; with `gate_points`, every gate after a
/// worker's first is a scheduling point of its own (phase 1).
pub(crate) fn test_body<O>(
    subject: Subject<O>,
    matrix: &TestMatrix,
    gate_points: bool,
) -> impl Fn() + Send + Sync + 'static
where
    O: Send + Sync + 'static,
{
    let slots = matrix.slots();
    let initial: Vec<OpSlot> = slots[..matrix.initial.len()].to_vec();
    let mut ops: Vec<Vec<OpSlot>> = Vec::new();
    let mut next = matrix.initial.len();
    for column in &matrix.threads {
        ops.push(slots[next..next + column.len()].to_vec());
        next += column.len();
    }
    let finals: Vec<OpSlot> = slots[next..].to_vec();
    let threads = subject.threads_of(matrix);
    let columns = Arc::new(Columns {
        ops,
        threads: threads.workers,
        first_drop: (subject.drop_steps(matrix) > 0).then_some(matrix.op_count() + 1),
        gate_points,
    });
    let subject = Arc::new(subject);
    move || {
        install_quiet_panic_hook();
        let main = me();
        recording::set_role(main, Role::Harness);
        // A task that is always runnable but never scheduled while anything else can run turns
        // "every thread is blocked" into a decision the scheduler sees (shuttle would otherwise
        // panic). While the workers run, the main thread waiting for them is that task; a matrix
        // with initial or final operations, which the main thread runs itself, needs a watchdog.
        let watchdog = (!initial.is_empty() || !finals.is_empty()).then(spawn_watchdog);
        // Threads the constructor spawns belong to the object, not to any operation.
        recording::set_role(main, Role::Background);
        let object = Arc::new(subject.build());
        recording::set_role(main, Role::Harness);
        run_main_ops(main, &subject, &object, &initial, &threads.initial);
        run_workers(main, &subject, &object, &columns);
        run_main_ops(main, &subject, &object, &finals, &threads.finals);
        drop_after_the_history(object);
        end_execution(watchdog);
    }
}

/// Spawns the watchdog: it yields until the last operation has returned (waking, while a stuck
/// execution is being abandoned, the waiters so that they unwind).
fn spawn_watchdog() -> shuttle::thread::JoinHandle<()> {
    let handle = shuttle::thread::spawn(|| {
        while !recording::with(|r| r.done) {
            shuttle::thread::yield_now();
            // A stuck execution is being abandoned: wake the waiters so that they unwind.
            if abandonment::is_abandoning() {
                abandonment::wake_waiters();
            }
        }
    });
    recording::set_role(task_of(&handle), Role::Watchdog);
    handle
}

/// Runs the main thread's initial or final operations (`slots`), with the handle of `thread`
/// if the subject has handles (made only if there are operations to run, and dropped after the
/// last of them, when no worker runs).
fn run_main_ops<O>(main: TaskId, subject: &Subject<O>, object: &Arc<O>, slots: &[OpSlot], thread: &MatrixThread) {
    if slots.is_empty() {
        return;
    }
    let mut handle = make_handle(main, subject, object, thread);
    for slot in slots {
        run_op(main, subject, object, slot, &mut handle);
    }
    // Like building the object, this belongs to no operation.
    recording::set_role(main, Role::Background);
    drop_after_the_history(handle);
    recording::set_role(main, Role::Harness);
}

/// Drops what the harness holds of the object (the object, a handle) outside any operation. While
/// a stuck or redundant execution is abandoned, after its history was taken, a panic of the drop
/// is no finding: the drop may see what the abandonment did (a thread of the object's that ended
/// with a quiet panic, whose `join` it unwraps; a channel whose other end went with an operation's
/// unwind), so the panic is caught and the execution ends as it would have.
fn drop_after_the_history<T>(value: T) {
    if abandonment::is_abandoning() {
        let _ = panic::catch_unwind(AssertUnwindSafe(|| drop(value)));
    } else {
        drop(value);
    }
}

/// Makes the handle of `thread` on the main thread: it belongs to no operation, as building the
/// object does (threads it spawns are the object's).
fn make_handle<O>(main: TaskId, subject: &Subject<O>, object: &Arc<O>, thread: &MatrixThread) -> ThreadHandle {
    if subject.handles().is_none() {
        return ThreadHandle::default();
    }
    recording::set_role(main, Role::Background);
    let handle = subject.handle_for(object, thread);
    recording::set_role(main, Role::Harness);
    handle
}

/// A worker drops its handle after its last operation: as operation `op` (`drop(handle)` in the
/// history, numbered after the matrix's operations), with `()` or the drop's panic as its
/// response, gated at its first scheduling point as an operation of phase 2 is (in both phases:
/// the scheduler decides there when it starts, and phase 1 may run other operations first). A drop
/// that reaches no scheduling point touches nothing the model checker sees, so nothing can tell
/// when it ran: it is left out of the history (it would only add a real-time order that nothing
/// stands for: after the operations before its return, and phase 1 runs it right after its
/// thread's last operation). Without an operation (a handle whose drop runs no code), at once.
fn drop_handle(me: TaskId, mut handle: ThreadHandle, op: Option<usize>) {
    let Some(op) = op.filter(|_| !abandonment::is_abandoning()) else {
        recording::set_role(me, Role::Harness);
        return drop_after_the_history(handle);
    };
    recording::set_role(me, Role::Gate(op));
    let result = panic::catch_unwind(AssertUnwindSafe(|| handle.drop_now()));
    if abandonment::is_abandoning() {
        recording::set_role(me, Role::Harness);
        return;
    }
    recording::with(|r| {
        let reached_a_scheduling_point = r.roles.get(usize::from(me)).copied().flatten() != Some(Role::Gate(op));
        match result {
            Ok(()) if !reached_a_scheduling_point => {}
            Ok(()) => {
                let response = r.interner.returned("()");
                r.ret(op, response);
            }
            Err(payload) => {
                let response = r.interner.panicked(panic_message(payload.as_ref()));
                if !reached_a_scheduling_point {
                    r.call_by(op, me);
                }
                r.ret(op, response);
            }
        }
        r.set_role(me, Role::Harness);
    });
}

/// The workers' columns of a matrix, fixed for the exploration.
struct Columns {
    /// Each worker's operations, in order.
    ops: Vec<Vec<OpSlot>>,
    /// Each worker's thread, for its handle.
    threads: Vec<MatrixThread>,
    /// The number of worker 0's `drop(handle)` operation (worker t's is `first_drop + t`), for
    /// handles whose drop runs code.
    first_drop: Option<usize>,
    /// Every gate after a worker's first is a scheduling point of its own (phase 1).
    gate_points: bool,
}

/// Spawns one worker per column, each owning its handle (made here, in column order, before the
/// first worker starts), and waits (yielding) until every worker has finished.
fn run_workers<O: Send + Sync + 'static>(
    main: TaskId,
    subject: &Arc<Subject<O>>,
    object: &Arc<O>,
    columns: &Arc<Columns>,
) {
    recording::with(|r| r.workers_unfinished = columns.ops.len());
    let handles: Vec<ThreadHandle> = columns
        .threads
        .iter()
        .map(|thread| make_handle(main, subject, object, thread))
        .collect();
    let workers: Vec<_> = handles
        .into_iter()
        .enumerate()
        .map(|(t, own)| {
            let first = columns.ops[t].first().map(|slot| slot.id);
            let (subject, object, columns) = (Arc::clone(subject), Arc::clone(object), Arc::clone(columns));
            let handle = shuttle::thread::spawn(move || run_column(&subject, &object, &columns, t, own));
            // A new worker waits at the gate of its first operation: shuttle creates it
            // without a scheduling point, so the scheduler first sees it after this.
            let role = first.map_or(Role::Harness, Role::Gate);
            recording::set_role(task_of(&handle), role);
            handle
        })
        .collect();
    recording::set_role(main, Role::Waiting);
    while recording::with(|r| r.workers_unfinished) > 0 {
        shuttle::thread::yield_now();
        if abandonment::is_abandoning() {
            abandonment::wake_waiters();
        }
    }
    recording::set_role(main, Role::Harness);
    // Every worker has finished (a join would only add scheduling points).
    drop(workers);
}

/// Worker `t`: its column's operations behind their gates, with its handle `own`, then its
/// handle's drop.
fn run_column<O>(subject: &Subject<O>, object: &O, columns: &Columns, t: usize, mut own: ThreadHandle) {
    let worker = me();
    for (i, slot) in columns.ops[t].iter().enumerate() {
        if i > 0 {
            recording::set_role(worker, Role::Gate(slot.id));
            if columns.gate_points {
                // The harness's own scheduling point, no step of the object's: for the record of
                // steps, a point inside a primitive that records nothing.
                let gate = trace::begin(None, None);
                let seen = crate::explore::footprint::announce_gate(worker);
                shuttle_engine::runtime::thread::switch();
                drop(seen);
                drop(gate);
            }
        }
        run_op(worker, subject, object, slot, &mut own);
    }
    drop_handle(worker, own, columns.first_drop.map(|first| first + t));
    recording::set_role(worker, Role::Harness);
    recording::with(|r| r.workers_unfinished -= 1);
    crate::explore::footprint::note_finishing();
}

/// After the last operation: the watchdog ends, and the object's own threads, if lineup's, are
/// let finish (the quiet end). Background threads of the object may run forever: if there are
/// any that are not lineup's, the scheduler stops the execution instead.
fn end_execution(watchdog: Option<shuttle::thread::JoinHandle<()>>) {
    recording::with(|r| r.done = true);
    if crate::explore::quiet_end::begin() {
        while recording::with(|r| r.own_threads_running()) {
            shuttle::thread::yield_now();
        }
    } else if crate::explore::quiet_end::begin_for_shuttle_threads() {
        while crate::explore::quiet_end::shuttle_threads_may_finish() {
            shuttle::thread::yield_now();
        }
    }
    // Joined, so that every task finishes and shuttle reuses their stacks.
    if let Some(watchdog) = watchdog {
        let _ = watchdog.join();
    }
}

/// The task of a thread the harness spawned.
fn task_of<T>(handle: &shuttle::thread::JoinHandle<T>) -> TaskId {
    TaskId::from(usize::from(handle.thread().id()))
}

/// Calls one operation with the thread's `handle`, recording its call and its return (or its
/// panic). A worker's operation starts at its gate (role [`Role::Gate`]): the scheduler records
/// the call when it lets the worker pass its first scheduling point. The main thread's operations
/// have no gate.
///
/// While a stuck execution is being abandoned (see [`abandonment`]), nothing is recorded any
/// more: an operation not begun is skipped, and one that unwinds with
/// [`Abandoned`](lineup_signals::abandonment::Abandoned) ends there.
fn run_op<O>(me: TaskId, subject: &Subject<O>, object: &O, slot: &OpSlot, handle: &mut ThreadHandle) {
    if abandonment::is_abandoning() {
        recording::set_role(me, Role::Harness);
        return;
    }
    recording::with(|r| match r.roles.get(usize::from(me)).copied().flatten() {
        // At its gate, or let through it already (a new worker is let through when it first runs).
        Some(Role::Gate(op)) | Some(Role::InOp(op)) if op == slot.id => {}
        _ => {
            r.set_role(me, Role::InOp(slot.id));
            r.call_by(slot.id, me);
        }
    });
    let invocation = &subject.invocations()[slot.invocation];
    if invocation.is_cancellable() {
        recording::with(|r| r.begin_cancellable(me));
    }
    let mut returned = None;
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        invocation.call_with(object, handle.as_any(), &mut |value| {
            // Rendered into the shared buffer and interned: no allocation for a response seen before.
            let mut buffer = recording::with(|r| std::mem::take(&mut r.buffer));
            buffer.clear();
            let _ = write!(buffer, "{value:?}");
            returned = Some(recording::with(|r| {
                let id = r.interner.returned(&buffer);
                r.buffer = buffer;
                id
            }));
        })
    }));
    // Only a cancellable operation was registered as one (above).
    let cancelled = if invocation.is_cancellable() {
        recording::with(|r| r.end_cancellable(me))
    } else {
        None
    };
    if abandonment::is_abandoning() {
        // The stuck history was taken when the execution got stuck; the operation unwound with
        // `Abandoned` (or ended otherwise): nothing more is recorded.
        drop(result);
        recording::set_role(me, Role::Harness);
        return;
    }
    let response = match (result, returned, cancelled) {
        // Phase 1's skip: the serial history in which the operation never ran.
        (Ok(()), _, Some(0)) => {
            recording::with(|r| {
                if r.roles.get(usize::from(me)).copied().flatten() == Some(Role::InOp(slot.id)) {
                    r.retract_call(slot.id);
                }
                r.set_role(me, Role::Harness);
            });
            return;
        }
        (Ok(()), _, Some(polls)) => recording::with(|r| r.interner.cancelled(polls)),
        (Ok(()), Some(id), None) => id,
        (Ok(()), None, None) => unreachable!("an invocation hands its result to the visitor"),
        (Err(payload), _, _) => recording::with(|r| r.interner.panicked(panic_message(payload.as_ref()))),
    };
    recording::with(|r| {
        if r.roles.get(usize::from(me)).copied().flatten() == Some(Role::Gate(slot.id)) {
            // The operation reached no scheduling point: it touched nothing shared, and its call
            // and return happen together.
            r.call_by(slot.id, me);
        }
        r.ret(slot.id, response);
        r.set_role(me, Role::Harness);
    });
    if trace::is_on() {
        if let Some(state) = subject.state_of(object) {
            trace::note_state(slot.id, state);
        }
    }
}

/// The message of a panic payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<panic payload that is not a string>".to_string()
    }
}

type PanicHook = dyn Fn(&panic::PanicHookInfo<'_>) + Send + Sync;

/// The panic hook the process had before shuttle installed its own (shuttle's hook prints a
/// schedule for every panic, even one outside any execution, such as a failed assertion after a
/// check).
static HOOK_BEFORE_SHUTTLE: std::sync::OnceLock<Arc<PanicHook>> = std::sync::OnceLock::new();

/// Remembers the process's panic hook before the first exploration lets shuttle install its own.
pub(crate) fn remember_panic_hook() {
    HOOK_BEFORE_SHUTTLE.get_or_init(|| {
        let before: Arc<PanicHook> = Arc::from(panic::take_hook());
        let forward = Arc::clone(&before);
        panic::set_hook(Box::new(move |info| forward(info)));
        before
    });
}

/// Wraps the process's panic hook (shuttle's) so that a panic inside an operation, which lineup
/// records as the operation's response, prints nothing, and one outside any execution prints as
/// it would without shuttle. Installed once, after shuttle has installed its own hook.
fn install_quiet_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let shuttle_hook = panic::take_hook();
        panic::set_hook(Box::new(move |info| match shuttle::current::try_get_current_task() {
            // The task runs an operation under `run_op`'s `catch_unwind`: the panic is a response.
            Some(me) if recording::with(|r| r.runs_operation(me)) => {}
            // A thread of lineup's that panics during the quiet end is ended silently, and so
            // is one of lineup's `vendor/shuttle-std` (it finishes: see `quiet_end`).
            Some(me) if recording::with(|r| r.is_told_to_end(me)) => {}
            Some(me) if recording::with(|r| r.own_threads.shuttle_quiet_end && r.is_thread_of_its_own(me)) => {}
            // So is any panic while a stuck (or redundant) execution is abandoned: its history
            // was taken already (the object's threads end quietly, and the harness catches a
            // panic of the object's drop: see `drop_after_the_history`).
            Some(_) if abandonment::is_abandoning() => {}
            Some(_) => shuttle_hook(info),
            None => match HOOK_BEFORE_SHUTTLE.get() {
                Some(before) => before(info),
                None => shuttle_hook(info),
            },
        }));
    });
}

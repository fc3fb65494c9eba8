//! The test body lineup runs under loom, in a child process: the object, the matrix's threads,
//! the recording of call and return events, and the panic hook that turns a loom deadlock or
//! branch-limit overflow into a stuck history before loom's engine unwinds (or aborts).

use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;

use super::child::report;
use super::steps;
use super::tracked_atomic;
use super::wait_registry::{self, Abandoned};
use super::wire::{Record, Tally, WireHistory};
use crate::judge::history_judge::judge;
use crate::model::handles::{MatrixThread, MatrixThreads, ThreadHandle};
use crate::model::history::Event;
use crate::model::history::OpTable;
use crate::model::matrix::TestMatrix;
use crate::model::response::Response;
use crate::model::stuck_kind::StuckKind;
use crate::model::subject::Subject;
use crate::model::thread_id::ThreadId;
use crate::spec::observation::ObservationSet;

/// The invocation index that stands for a worker's handle drop, `drop(handle)` in the history
/// (see [`Handles`](crate::Handles)).
const DROP_HANDLE: usize = usize::MAX;

/// The operations of a matrix by thread, as (operation number, invocation index); a worker whose
/// handle runs code when dropped ends with its drop ([`DROP_HANDLE`]).
pub(crate) struct Plan<O> {
    pub subject: Subject<O>,
    pub initial: Vec<(usize, usize)>,
    pub threads: Vec<Vec<(usize, usize)>>,
    pub finals: Vec<(usize, usize)>,
    pub op_count: usize,
    /// The matrix's threads, for the handles of a subject with handles.
    pub seats: MatrixThreads,
}

impl<O> Plan<O> {
    pub(crate) fn new(subject: &Subject<O>, matrix: &TestMatrix) -> Self {
        let mut plan = Plan {
            subject: subject.clone(),
            initial: Vec::new(),
            threads: vec![Vec::new(); matrix.threads.len()],
            finals: Vec::new(),
            op_count: subject.op_count(matrix),
            seats: subject.threads_of(matrix),
        };
        let first_final = matrix.op_count() - matrix.finals.len();
        for slot in matrix.slots() {
            match slot.thread {
                ThreadId::Main if slot.id <= matrix.initial.len() => plan.initial.push((slot.id, slot.invocation)),
                ThreadId::Main => {
                    debug_assert!(slot.id > first_final);
                    plan.finals.push((slot.id, slot.invocation))
                }
                ThreadId::Worker(t) => plan.threads[t].push((slot.id, slot.invocation)),
            }
        }
        for t in 0..subject.drop_steps(matrix) {
            plan.threads[t].push((matrix.op_count() + 1 + t, DROP_HANDLE));
        }
        plan
    }

    /// The worker operations of each thread (operation numbers).
    pub(crate) fn worker_ops(&self) -> Vec<Vec<usize>> {
        self.threads
            .iter()
            .map(|t| t.iter().map(|&(op, _)| op).collect())
            .collect()
    }

    fn thread_of(&self, op: usize) -> Option<usize> {
        self.threads.iter().position(|t| t.iter().any(|&(o, _)| o == op))
    }
}

#[derive(Default)]
struct Recording {
    events: Vec<Event>,
    responses: Vec<Option<Response>>,
    in_op: usize,
    /// The thread that runs each operation, indexed by `op - 1` (set at the call).
    op_threads: Vec<Option<loom::thread::ThreadId>>,
    /// Yields of each thread (by loom's thread number, see [`thread_number`]) since the last call
    /// or return anywhere: lineup's (`lineup::hint::spin_loop`, `lineup::thread::yield_now`) and
    /// loom's own (`loom::thread::yield_now`, `loom::hint::spin_loop`, seen by
    /// [`loom_yields`](super::loom_yields)), each counted once.
    yields: std::collections::HashMap<usize, u32>,
    /// The thread whose `lineup` yield was just counted: loom's event for the same yield, which
    /// comes next on that thread, is not counted again.
    own_yield: Option<usize>,
    /// The operation each loom thread (by number) runs now, between its call and its return.
    running: std::collections::HashMap<usize, usize>,
}

/// loom's number of a thread (the `n` of `ThreadId(n)`, the same as its runtime `Id(n)`).
fn thread_number(id: loom::thread::ThreadId) -> usize {
    super::loom_yields::thread_number(&format!("{id:?}")).expect("loom 0.7.2 writes a thread id as `ThreadId(n)`")
}

/// loom's number of the calling thread (a loom API: not from inside loom's execution).
pub(crate) fn current_thread() -> usize {
    thread_number(loom::thread::current().id())
}

/// The operation loom thread `thread` runs now, if any (the steps' operation). No loom API: the
/// step recording asks from inside loom's execution too.
pub(crate) fn op_of_thread(thread: usize) -> Option<usize> {
    RECORDING.with(|r| r.try_borrow().ok()?.running.get(&thread).copied())
}

/// How many call and return events the history has so far (the steps' place in it).
pub(crate) fn events_so_far() -> usize {
    RECORDING.with(|r| r.try_borrow().map(|r| r.events.len()).unwrap_or(0))
}

/// The calling thread yields (`lineup::hint::spin_loop`, `lineup::thread::yield_now`): evidence,
/// if loom's branch limit comes, that it spins waiting rather than runs unfairly on.
pub(crate) fn note_yield() {
    let me = thread_number(loom::thread::current().id());
    RECORDING.with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            *r.yields.entry(me).or_default() += 1;
            r.own_yield = Some(me);
        }
    });
}

/// loom's runtime yielded on loom thread `thread` (any caller: a crate's own
/// `loom::thread::yield_now` or `loom::hint::spin_loop`, or lineup's, already noted by
/// [`note_yield`]). Called inside loom's execution: no loom API here.
pub(crate) fn note_loom_yield(thread: usize) {
    RECORDING.with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            if r.own_yield.take_if(|&mut own| own == thread).is_none() {
                *r.yields.entry(thread).or_default() += 1;
            }
        }
    });
}

/// The yields the calling loom thread has been counted since the recording was cleared (tests).
#[cfg(test)]
pub(crate) fn yields_of_current() -> u32 {
    let me = thread_number(loom::thread::current().id());
    RECORDING.with(|r| r.borrow().yields.get(&me).copied().unwrap_or(0))
}

/// Clears the recorded yields of every thread (tests).
#[cfg(test)]
pub(crate) fn clear_yields() {
    RECORDING.with(|r| r.borrow_mut().yields.clear());
}

/// At loom's branch limit: whether the execution is a livelock rather than an unfair schedule.
/// It is when some operation is pending and the thread of every pending operation has, since the
/// last call or return anywhere, either yielded (so loom let the other threads run) or waits for
/// good in `lineup::sync`; in phase 1 also when no thread but the serial operation's could run
/// (the other workers wait for their turn, and no thread an operation spawned is running). A
/// thread that spins without yielding (`std::hint::spin_loop()`) may only be running because
/// loom's preemption budget is spent while the thread it waits for could run: that execution is
/// inconclusive, never a stuck history.
fn livelock_evidence() -> bool {
    let serial = HOOK.with(|c| {
        c.try_borrow()
            .is_ok_and(|c| matches!(c.as_ref().map(|ctx| &ctx.phase), Some(HookPhase::Serial { .. })))
    });
    if serial && !wait_registry::tracked_thread_could_run() {
        return RECORDING.with(|r| r.try_borrow().is_ok_and(|r| r.in_op > 0));
    }
    RECORDING.with(|r| {
        let Ok(r) = r.try_borrow() else { return false };
        let pending: Vec<usize> = r
            .events
            .iter()
            .filter_map(|e| match *e {
                Event::Call(op) if !r.events.contains(&Event::Return(op)) => Some(op),
                _ => None,
            })
            .collect();
        !pending.is_empty()
            && pending
                .iter()
                .all(|&op| match r.op_threads.get(op - 1).copied().flatten() {
                    Some(t) => r.yields.get(&thread_number(t)).is_some_and(|&n| n > 0) || wait_registry::waits(t),
                    None => false,
                })
    })
}

/// What the panic hook needs to turn a loom failure into a record.
pub(crate) struct HookContext {
    pub results: PathBuf,
    pub phase: HookPhase,
    pub executions: u64,
    pub distinct: HashSet<u64>,
    /// Phase 2: the histories (fingerprints) of violations that needed a weak-memory load. The
    /// first was reported; the exploration goes on, looking for a violation that needs none,
    /// which may be the same history reached again by an interleaving alone.
    pub weak_violations: HashSet<u64>,
    /// Phase 2: the distinct stuck histories (fingerprints), as shuttle's phase 2 counts them.
    pub stuck_histories: HashSet<u64>,
}

impl HookContext {
    /// What phase 2 explored so far.
    pub(crate) fn tally(&self) -> Tally {
        Tally {
            executions: self.executions,
            distinct: self.distinct.iter().copied().collect(),
            stuck_histories: self.stuck_histories.iter().copied().collect(),
        }
    }
}

pub(crate) enum HookPhase {
    /// Phase 1, running this serial order.
    Serial { order: Vec<usize> },
    /// Phase 2, judging against this specification.
    Concurrent {
        spec: Arc<ObservationSet>,
        ops: OpTable,
        check_stuck: bool,
        checkpoint: PathBuf,
    },
    /// A violation's replay, recording its steps: the first execution is reported as it is.
    Record,
}

thread_local! {
    // loom runs every thread of a model as a coroutine on this one OS thread.
    static RECORDING: RefCell<Recording> = RefCell::new(Recording::default());
    pub(crate) static HOOK: RefCell<Option<HookContext>> = const { RefCell::new(None) };
}

fn reset(op_count: usize) {
    RECORDING.with(|r| {
        *r.borrow_mut() = Recording {
            events: Vec::with_capacity(2 * op_count),
            responses: vec![None; op_count],
            in_op: 0,
            op_threads: vec![None; op_count],
            yields: std::collections::HashMap::new(),
            own_yield: None,
            running: std::collections::HashMap::new(),
        }
    });
    tracked_atomic::reset();
    steps::begin_execution();
    wait_registry::reset();
}

pub(crate) fn current(stuck: bool) -> WireHistory {
    RECORDING.with(|r| {
        let r = r.borrow();
        WireHistory::of(&r.events, &r.responses, stuck)
    })
}

fn fingerprint(h: &WireHistory) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    h.events.hash(&mut hasher);
    h.responses.hash(&mut hasher);
    h.stuck.hash(&mut hasher);
    hasher.finish()
}

/// The harness atomic that makes real-time order happens-before in phase 2
/// ([`Config::real_time_happens_before`](crate::Config::real_time_happens_before)): each call and
/// each return does an acquire-release read-modify-write of it, inside the operation's interval
/// (after the call is recorded, before the return is). A read-modify-write reads the latest value,
/// so when A's return is recorded before B's call, B's call tick reads from A's return tick (or a
/// later tick in its release sequence) and everything A did happens-before everything B does.
/// Operations that overlap gain nothing from it.
type Clock = loom::sync::atomic::AtomicUsize;

fn tick(clock: Option<&Clock>) {
    if let Some(clock) = clock {
        clock.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// [`tick`], recorded as no step of the object's (its scheduling point may still switch).
fn quiet_tick(clock: Option<&Clock>) {
    let _harness = steps::harness_steps();
    tick(clock);
}

/// Runs the main thread's initial or final operations with the handle of `thread` (made only if
/// there are operations to run, and dropped after the last of them).
fn run_main_ops<O>(subject: &Subject<O>, object: &Arc<O>, ops: &[(usize, usize)], thread: &MatrixThread) {
    if ops.is_empty() {
        return;
    }
    let mut handle = subject.handle_for(object, thread);
    for &(op, invocation) in ops {
        run_op(subject, object, (op, invocation), &mut handle, None);
    }
}

/// Every worker's handle, in column order, made before the first worker starts (as on shuttle):
/// a handle whose making is a loom operation must not run beside workers already started (one
/// could finish before the main thread watches it, and its end would be lost).
fn worker_handles<O>(plan: &Plan<O>, object: &Arc<O>) -> Vec<ThreadHandle> {
    plan.seats
        .workers
        .iter()
        .map(|thread| plan.subject.handle_for(object, thread))
        .collect()
}

/// Runs one operation, `(number, invocation)`, with the thread's `handle` and records its call,
/// response and return. `false`: the execution got stuck and the operation was abandoned (it
/// stays pending; see [`wait_registry`]). [`DROP_HANDLE`] drops the handle, with `()` as its
/// response.
fn run_op<O>(
    subject: &Subject<O>,
    object: &O,
    (op, invocation): (usize, usize),
    handle: &mut ThreadHandle,
    clock: Option<&Clock>,
) -> bool {
    let me = loom::thread::current().id();
    RECORDING.with(|r| {
        let mut r = r.borrow_mut();
        r.events.push(Event::Call(op));
        r.in_op += 1;
        r.op_threads[op - 1] = Some(me);
        r.running.insert(thread_number(me), op);
        r.yields.clear();
    });
    quiet_tick(clock);
    let outcome = catch_unwind(AssertUnwindSafe(|| match invocation {
        DROP_HANDLE => {
            handle.drop_now();
            Response::returned(&())
        }
        _ => subject.invocations()[invocation].call_in(object, handle.as_any()),
    }));
    let response = match outcome {
        Ok(response) => response,
        Err(payload) if payload.is::<Abandoned>() => {
            RECORDING.with(|r| {
                let mut r = r.borrow_mut();
                r.in_op -= 1;
                r.running.remove(&thread_number(me));
            });
            return false;
        }
        Err(payload) => Response::Panicked(panic_message(payload.as_ref())),
    };
    // No loom operation between this tick and the return's record: no switch can come between.
    quiet_tick(clock);
    RECORDING.with(|r| {
        let mut r = r.borrow_mut();
        r.in_op -= 1;
        r.running.remove(&thread_number(me));
        r.responses[op - 1] = Some(response);
        r.events.push(Event::Return(op));
        r.yields.clear();
    });
    true
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(a panic without a message)".to_string())
}

/// Joins the worker threads, runs the final operations and drops the object: the history of a
/// finished execution.
fn finish<O>(plan: &Plan<O>, object: Arc<O>, handles: Vec<loom::thread::JoinHandle<()>>) -> WireHistory {
    for h in handles {
        h.join().unwrap();
    }
    run_main_ops(&plan.subject, &object, &plan.finals, &plan.seats.finals);
    drop(object);
    current(false)
}

/// One serial execution of `order` (worker operation numbers): the initial operations, then each
/// operation on its own thread when its turn comes (a loom mutex and one condition variable per
/// thread hand the turn on, so every operation happens after the previous one), then the final
/// operations. Returns the history through [`current`].
pub(crate) fn serial_body<O: Send + Sync + 'static>(
    plan: Arc<Plan<O>>,
    order: Arc<Vec<usize>>,
) -> impl Fn() + Send + Sync {
    move || {
        reset(plan.op_count);
        // Threads the operations spawn are tracked from here on (see `wait_registry`); the
        // workers hand the turn on through loom's own primitives, and a blocked operation ends
        // in loom's deadlock assertion, as phase 1 needs.
        wait_registry::watch(std::iter::empty());
        let object = Arc::new(plan.subject.build());
        run_main_ops(&plan.subject, &object, &plan.initial, &plan.seats.initial);
        let turn = Arc::new(loom::sync::Mutex::new(0usize));
        let wake: Arc<Vec<loom::sync::Condvar>> =
            Arc::new((0..plan.threads.len()).map(|_| loom::sync::Condvar::new()).collect());
        let handles: Vec<_> = worker_handles(&plan, &object)
            .into_iter()
            .enumerate()
            .map(|(t, mut handle)| {
                let (plan, order, object, turn, wake) = (
                    Arc::clone(&plan),
                    Arc::clone(&order),
                    Arc::clone(&object),
                    Arc::clone(&turn),
                    Arc::clone(&wake),
                );
                loom::thread::spawn(move || {
                    for &(op, inv) in &plan.threads[t] {
                        {
                            let mut now = turn.lock().unwrap();
                            while order[*now] != op {
                                now = wake[t].wait(now).unwrap();
                            }
                        }
                        run_op(&plan.subject, &object, (op, inv), &mut handle, None);
                        let mut now = turn.lock().unwrap();
                        *now += 1;
                        if let Some(next) = order.get(*now).and_then(|&op| plan.thread_of(op)) {
                            if next != t {
                                wake[next].notify_one();
                            }
                        }
                    }
                })
            })
            .collect();
        let history = finish(&plan, object, handles);
        // A thread an operation spawned that waits for good once everything else has ended does
        // not make the serial history stuck.
        wait_registry::settle_helpers();
        HOOK.with(|c| {
            if let Some(ctx) = c.borrow_mut().as_mut() {
                ctx.executions += 1;
                report(
                    &ctx.results,
                    &Record::Serial {
                        order: order.to_vec(),
                        history,
                    },
                );
            }
        });
    }
}

/// One concurrent execution: the matrix's threads run freely under loom's scheduler; each
/// distinct history is judged against the specification; a violation is reported and ends the
/// child at once.
pub(crate) fn concurrent_body<O: Send + Sync + 'static>(
    plan: Arc<Plan<O>>,
    max_executions: Option<u64>,
    real_time: bool,
) -> impl Fn() + Send + Sync {
    move || {
        reset(plan.op_count);
        if let Some(max) = max_executions {
            let done = HOOK.with(|c| c.borrow().as_ref().map(|ctx| ctx.executions >= max).unwrap_or(false));
            if done {
                // The execution budget is spent: let the remaining executions run empty.
                loom::skip_branch();
                return;
            }
        }
        let object = Arc::new(plan.subject.build());
        // The initial operations happen-before the workers (spawn) and the final ones after them
        // (join): only the workers' operations need the clock.
        run_main_ops(&plan.subject, &object, &plan.initial, &plan.seats.initial);
        let clock = real_time.then(|| Arc::new(Clock::new(0)));
        let handles: Vec<_> = worker_handles(&plan, &object)
            .into_iter()
            .enumerate()
            .map(|(t, mut handle)| {
                let (plan, object, clock) = (Arc::clone(&plan), Arc::clone(&object), clock.clone());
                loom::thread::spawn(move || {
                    for &(op, inv) in &plan.threads[t] {
                        if !run_op(&plan.subject, &object, (op, inv), &mut handle, clock.as_deref()) {
                            break;
                        }
                    }
                    drop(handle);
                    wait_registry::finished();
                })
            })
            .collect();
        wait_registry::watch(handles.iter().map(|h| h.thread().id()));
        if wait_registry::await_workers() {
            // Every pending operation waits in lineup::sync for good: take the stuck history,
            // then end the execution normally so that loom's exploration goes on.
            let history = current(true);
            wait_registry::abandon_workers();
            for h in handles {
                h.join().unwrap();
            }
            drop(object);
            wait_registry::settle_helpers();
            judge_execution(history, Some(StuckKind::Deadlock));
            return;
        }
        let history = finish(&plan, object, handles);
        wait_registry::settle_helpers();
        judge_execution(history, None);
    }
}

/// Judges a finished or stuck execution of phase 2; reports and exits on a violation. A replay
/// that records its steps reports its first execution with them, unjudged, and exits.
fn judge_execution(history: WireHistory, stuck: Option<StuckKind>) {
    report_steps(&history, stuck);
    HOOK.with(|c| {
        let mut c = c.borrow_mut();
        let Some(ctx) = c.as_mut() else { return };
        let HookPhase::Concurrent {
            spec,
            ops,
            check_stuck,
            checkpoint,
        } = &ctx.phase
        else {
            return;
        };
        ctx.executions += 1;
        let print = fingerprint(&history);
        let new = ctx.distinct.insert(print);
        if new && stuck.is_some() {
            ctx.stuck_histories.insert(print);
        }
        // A history seen before is judged again only if it violated with weak loads and this
        // execution reaches it without any: that is the better evidence.
        let better_evidence = ctx.weak_violations.contains(&print) && tracked_atomic::weak_loads().is_empty();
        if !(new || better_evidence) {
            return;
        }
        let h = match history.history(ops) {
            Ok(h) => h,
            Err(e) => {
                report(
                    &ctx.results,
                    &Record::Failed {
                        message: format!("a malformed history: {e}"),
                    },
                );
                std::process::exit(0);
            }
        };
        if judge(spec, &h, stuck, *check_stuck).is_some() {
            let weak_loads = tracked_atomic::weak_loads()
                .into_iter()
                .map(|w| {
                    format!(
                        "a {} load of {} #{} returned {} while the latest store in the interleaving wrote {}",
                        w.ordering, w.atomic, w.number, w.returned, w.latest
                    )
                })
                .collect();
            let saved = std::fs::read_to_string(checkpoint).ok().map(|_| {
                let keep = checkpoint.with_extension("violation.json");
                let _ = std::fs::copy(checkpoint, &keep);
                keep.display().to_string()
            });
            let weak = !Vec::is_empty(&weak_loads);
            let already_reported = !ctx.weak_violations.is_empty();
            if weak {
                ctx.weak_violations.insert(print);
            }
            if weak && already_reported {
                return;
            }
            report(
                &ctx.results,
                &Record::Violation {
                    tally: ctx.tally(),
                    history,
                    stuck: stuck.map(|s| format!("{s:?}")),
                    weak_loads,
                    checkpoint: saved,
                },
            );
            if weak && stuck.is_none() {
                // Keep exploring: an interleaving-only violation, if there is one, is the better
                // evidence. The parent keeps this one in case there is none.
                return;
            }
            std::process::exit(0);
        }
    });
}

/// A replay with step recording on ([`HookPhase::Record`]): reports the execution's history
/// and steps, and exits.
fn report_steps(history: &WireHistory, stuck: Option<StuckKind>) {
    let results = HOOK.with(|c| {
        c.borrow()
            .as_ref()
            .filter(|ctx| matches!(ctx.phase, HookPhase::Record))
            .map(|ctx| ctx.results.clone())
    });
    let Some(results) = results else { return };
    let record = Record::Steps {
        history: history.clone(),
        stuck: stuck.map(|s| format!("{s:?}")),
        steps: steps::take().unwrap_or_default(),
    };
    report(&results, &record);
    std::process::exit(0);
}

/// Installs the child's panic hook: a loom deadlock, or a branch-limit overflow with evidence of
/// a livelock ([`livelock_evidence`]), becomes a stuck history (phase 1: a stuck serial history;
/// phase 2: judged by Def. 2), reported before loom's engine unwinds; a branch-limit overflow
/// without that evidence is inconclusive (phase 1: an error; phase 2: counted, not judged); the
/// child then exits. Panics inside operations are responses, reported
/// silently; any other panic is reported as a failure of the execution.
pub(crate) fn install_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let branch_limit = message.starts_with("Model exceeded maximum number of branches");
        if branch_limit && !livelock_evidence() {
            on_inconclusive();
        }
        let stuck = if message.starts_with("deadlock;") {
            Some(StuckKind::Deadlock)
        } else if branch_limit {
            Some(StuckKind::Livelock)
        } else {
            None
        };
        let in_op = RECORDING.with(|r| r.try_borrow().map(|r| r.in_op > 0).unwrap_or(false));
        match stuck {
            Some(kind) => on_stuck(kind),
            None if in_op => {}
            None => {
                default(info);
                HOOK.with(|c| {
                    if let Some(ctx) = c.borrow().as_ref() {
                        report(
                            &ctx.results,
                            &Record::Failed {
                                message: format!(
                                    "{message} ({})",
                                    info.location().map(|l| l.to_string()).unwrap_or_default()
                                ),
                            },
                        );
                    }
                });
                std::process::exit(0);
            }
        }
    }));
}

/// loom's branch limit without evidence of a livelock: reported as inconclusive; the child exits.
fn on_inconclusive() -> ! {
    HOOK.with(|c| {
        if let Some(ctx) = c.borrow_mut().as_mut() {
            let record = match &ctx.phase {
                HookPhase::Serial { order } => Record::SerialInconclusive { order: order.clone() },
                HookPhase::Concurrent { .. } | HookPhase::Record => {
                    ctx.executions += 1;
                    Record::Inconclusive { tally: ctx.tally() }
                }
            };
            report(&ctx.results, &record);
        }
    });
    std::process::exit(0);
}

fn on_stuck(kind: StuckKind) {
    let history = current(true);
    let serial = HOOK.with(|c| {
        c.borrow().as_ref().and_then(|ctx| match &ctx.phase {
            HookPhase::Serial { order } => Some((ctx.results.clone(), order.clone())),
            HookPhase::Concurrent { .. } | HookPhase::Record => None,
        })
    });
    match serial {
        Some((results, order)) => {
            // The stuck operation is the pending one; every order with the same prefix up to it
            // gets this same stuck history.
            let pending: Vec<i64> = history
                .events
                .iter()
                .copied()
                .filter(|&e| e > 0 && !history.events.contains(&-e))
                .collect();
            let prefix = match pending.first() {
                Some(&op) => match order.iter().position(|&o| o as i64 == op) {
                    Some(i) => order[..=i].to_vec(),
                    // An initial operation (every order shares it) or a final one (only this order).
                    None if history.events.iter().any(|&e| e > 0 && order.contains(&(e as usize))) => order.clone(),
                    None => Vec::new(),
                },
                None => order.clone(),
            };
            report(
                &results,
                &Record::SerialStuck {
                    prefix,
                    history,
                    kind: format!("{kind:?}"),
                },
            );
            std::process::exit(0);
        }
        None => {
            judge_execution(history, Some(kind));
            HOOK.with(|c| {
                if let Some(ctx) = c.borrow().as_ref() {
                    report(
                        &ctx.results,
                        &Record::StuckJustified {
                            tally: ctx.tally(),
                            kind: format!("{kind:?}"),
                        },
                    );
                }
            });
            std::process::exit(0);
        }
    }
}

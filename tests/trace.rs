//! The steps of a violating execution (the report's "interleaving" section): each kind of step is
//! recorded on the right thread, with the right values, at the right line of this file (so that a
//! lost `#[track_caller]` fails here), switches say why, primitives lineup does not wrap are
//! scheduling points and nothing more, and the record is the same every run.

use lineup::sync::atomic::{AtomicBool, AtomicU32, Ordering::SeqCst};
use lineup::sync::mpsc::{channel, Receiver, Sender};
use lineup::sync::{Condvar, Mutex};
use lineup::{check, invocations, Action, Config, Interleaving, Step, Subject, SwitchReason, TestMatrix, Violation};

/// The line of the first occurrence of `needle` in this file (so that the expected lines follow
/// the code when it moves).
fn line_of(needle: &str) -> u32 {
    let source = include_str!("trace.rs");
    let index = source
        .lines()
        .position(|line| line.contains(needle) && !line.contains("line_of("))
        .unwrap_or_else(|| panic!("`{needle}` is in this file"));
    index as u32 + 1
}

/// An object whose `racy` loses updates (a load, then a store), with one operation per kind of
/// atomic step and one that locks and notifies.
#[derive(Default, Debug)]
struct Kinds {
    x: AtomicU32,
    flag: AtomicBool,
    lock: Mutex<u32>,
    changed: Condvar,
}

#[invocations(state)]
impl Kinds {
    #[invoke]
    fn racy(&self) -> u32 {
        let v = self.x.load(SeqCst); // step: racy load
        self.x.store(v + 1, SeqCst); // step: racy store
        v
    }

    #[invoke]
    fn cas(&self) -> bool {
        self.x.compare_exchange(0, 10, SeqCst, SeqCst).is_ok() // step: cas
    }

    #[invoke]
    fn swap(&self) -> bool {
        self.flag.swap(true, SeqCst) // step: swap
    }

    #[invoke]
    fn fetch(&self) -> u32 {
        self.x.fetch_add(1, SeqCst) // step: fetch_add
    }

    #[invoke]
    fn locked(&self) -> u32 {
        let mut count = self.lock.lock().unwrap(); // step: lock
        *count += 1;
        self.changed.notify_all(); // step: notify
        *count
    }
}

/// racy, cas, swap | racy, fetch, locked
fn kinds_matrix() -> TestMatrix {
    TestMatrix::new(vec![vec![0, 1, 2], vec![0, 3, 4]])
}

fn violation_of<O: Send + Sync + 'static>(subject: &Subject<O>, matrix: &TestMatrix) -> Violation {
    let verdict = check(subject, matrix, &Config::default()).unwrap();
    verdict.violation().expect("the object is not linearizable").clone()
}

fn kinds_violation() -> Violation {
    violation_of(&Subject::of("Kinds", Kinds::default), &kinds_matrix())
}

fn interleaving(violation: &Violation) -> &Interleaving {
    violation
        .interleaving
        .as_ref()
        .unwrap_or_else(|| panic!("the steps are recorded:\n{violation}"))
}

/// The name of the invocation of `step`'s operation (`racy`, ...).
fn invocation_of(violation: &Violation, step: &Step) -> String {
    let op = step.op.expect("a step of an operation");
    violation.kind.history().op(op).invocation.name.clone()
}

/// The one step of `invocation`'s operation on thread `thread` that `matches`.
fn steps_where<'v>(violation: &'v Violation, invocation: &str, matches: impl Fn(&Action) -> bool) -> Vec<&'v Step> {
    interleaving(violation)
        .steps
        .iter()
        .filter(|s| s.op.is_some() && invocation_of(violation, s) == invocation && matches(&s.action))
        .collect()
}

/// The step is at `needle`'s line of this file.
fn assert_at(step: &Step, needle: &str) {
    let location = step
        .location
        .as_ref()
        .unwrap_or_else(|| panic!("{step:?} has a location"));
    assert!(
        location.file.ends_with("tests/trace.rs"),
        "the location is the user's code, not lineup's: {location}"
    );
    assert_eq!(location.line, line_of(needle), "{step:?}");
}

/// The response of `step`'s operation, as the report shows it.
fn response_of(violation: &Violation, step: &Step) -> String {
    violation
        .kind
        .history()
        .response(step.op.unwrap())
        .map(ToString::to_string)
        .unwrap_or_default()
}

#[test]
fn loads_and_stores_name_their_thread_values_and_line() {
    let violation = kinds_violation();
    let loads = steps_where(&violation, "racy", |a| matches!(a, Action::Load { .. }));
    assert_eq!(loads.len(), 2, "one load per racy operation");
    let history = violation.kind.history();
    let threads: Vec<_> = loads.iter().map(|s| history.op(s.op.unwrap()).thread).collect();
    assert_ne!(threads[0], threads[1], "one on each thread");
    for load in &loads {
        assert_at(load, "// step: racy load");
        let Action::Load { value } = &load.action else {
            unreachable!()
        };
        assert_eq!(*value, response_of(&violation, load), "racy returns what it loaded");
        assert_eq!(load.object.as_ref().unwrap().kind, "AtomicU32");
    }
    let stores = steps_where(&violation, "racy", |a| matches!(a, Action::Store { .. }));
    assert_eq!(stores.len(), 2);
    for store in &stores {
        assert_at(store, "// step: racy store");
        let Action::Store { value } = &store.action else {
            unreachable!()
        };
        let loaded: u32 = response_of(&violation, store).parse().unwrap();
        assert_eq!(*value, (loaded + 1).to_string(), "racy stores what it loaded, plus one");
    }
    // The load and the store touch one object, named the same.
    assert_eq!(loads[0].object, stores[0].object);
}

#[test]
fn read_modify_writes_show_what_they_read_and_wrote() {
    let violation = kinds_violation();
    let [cas] = steps_where(&violation, "cas", |a| matches!(a, Action::CompareExchange { .. }))[..] else {
        panic!("one compare-exchange");
    };
    assert_at(cas, "// step: cas");
    let Action::CompareExchange {
        expected,
        new,
        found,
        succeeded,
    } = &cas.action
    else {
        unreachable!()
    };
    assert_eq!((expected.as_str(), new.as_str()), ("0", "10"));
    assert_eq!(succeeded.to_string(), response_of(&violation, cas));
    assert_eq!(*succeeded, found == "0");

    let [swap] = steps_where(&violation, "swap", |a| matches!(a, Action::Swap { .. }))[..] else {
        panic!("one swap");
    };
    assert_at(swap, "// step: swap");
    assert_eq!(
        swap.action,
        Action::Swap {
            old: response_of(&violation, swap),
            new: "true".into()
        }
    );
    assert_eq!(swap.object.as_ref().unwrap().kind, "AtomicBool");

    let [fetch] = steps_where(&violation, "fetch", |a| matches!(a, Action::FetchOp { .. }))[..] else {
        panic!("one fetch_add");
    };
    assert_at(fetch, "// step: fetch_add");
    let old: u32 = response_of(&violation, fetch).parse().unwrap();
    assert_eq!(
        fetch.action,
        Action::FetchOp {
            op: "fetch_add",
            old: old.to_string(),
            new: Some((old + 1).to_string())
        }
    );
}

#[test]
fn locks_unlocks_and_notifications_are_steps_of_their_operation() {
    let violation = kinds_violation();
    let [lock] = steps_where(&violation, "locked", |a| matches!(a, Action::Lock { kind: "lock" }))[..] else {
        panic!("one lock");
    };
    assert_at(lock, "// step: lock");
    assert_eq!(lock.object.as_ref().unwrap().kind, "Mutex");
    let [notify] = steps_where(&violation, "locked", |a| {
        matches!(a, Action::Notify { kind: "notify_all" })
    })[..] else {
        panic!("one notify_all");
    };
    assert_at(notify, "// step: notify");
    assert_eq!(notify.object.as_ref().unwrap().kind, "Condvar");
    // The guard's drop is an unlock of the same mutex, after the notification; a drop has no
    // caller's location.
    let [unlock] = steps_where(&violation, "locked", |a| matches!(a, Action::Unlock))[..] else {
        panic!("one unlock");
    };
    assert_eq!(unlock.object, lock.object);
    assert_eq!(unlock.location, None);
    let steps = &interleaving(&violation).steps;
    let index = |step: &Step| steps.iter().position(|s| std::ptr::eq(s, step)).unwrap();
    assert!(index(lock) < index(notify) && index(notify) < index(unlock));
    // The object's creation is in this file too (the derived `Default` of `Kinds`).
    let created = lock.object.as_ref().unwrap().created_at.as_ref().unwrap();
    assert!(created.file.ends_with("tests/trace.rs"), "{created}");
}

#[test]
fn no_location_points_into_lineup() {
    let violation = kinds_violation();
    for step in &interleaving(&violation).steps {
        if let Some(location) = &step.location {
            assert!(location.file.ends_with("tests/trace.rs"), "{step:?}");
        }
    }
}

#[test]
fn switches_say_why_and_count_the_preemptions() {
    let violation = kinds_violation();
    let interleaving = interleaving(&violation);
    let preemptions = interleaving
        .steps
        .iter()
        .filter(|s| {
            matches!(
                s.action,
                Action::Switch {
                    reason: SwitchReason::Preemption,
                    ..
                }
            )
        })
        .count();
    assert!(preemptions >= 1, "a lost update needs a preemption:\n{violation}");
    assert_eq!(preemptions, interleaving.preemptions);
    let lineup::Phase::Concurrent { preemption_bound } = violation.replay.phase else {
        panic!("a phase-2 token");
    };
    assert!(preemptions <= preemption_bound as usize);
    // Between two steps of different tasks of the operations there is a switch.
    let actions: Vec<&Step> = interleaving
        .steps
        .iter()
        .filter(|s| s.op.is_some() || matches!(s.action, Action::Switch { .. }))
        .collect();
    for pair in actions.windows(2) {
        if pair[0].task != pair[1].task && !matches!(pair[0].action, Action::Switch { .. }) {
            let switched = interleaving.steps.iter().any(|s| {
                matches!(s.action, Action::Switch { to: Some(to), .. } if to == pair[1].task) && s.task == pair[0].task
            });
            assert!(switched, "{pair:?}");
        }
    }
}

#[test]
fn the_record_is_the_same_every_run() {
    let first = kinds_violation();
    let second = kinds_violation();
    assert_eq!(first.replay, second.replay);
    assert_eq!(first.interleaving, second.interleaving);
}

#[test]
fn the_report_shows_the_interleaving_and_the_state_after_each_operation() {
    let violation = kinds_violation();
    let report = violation.to_string();
    assert!(report.contains("\ninterleaving ("), "{report}");
    assert!(report.contains("load AtomicU32#"), "{report}");
    assert!(report.contains("-- preempted --"), "{report}");
    // `#[invocations(state)]`: the object's `Debug` after each operation.
    let states = &interleaving(&violation).states;
    assert_eq!(states.len(), violation.kind.history().called_ops().len(), "{report}");
    assert!(states.iter().all(|s| s.state.starts_with("Kinds {")), "{states:?}");
    assert!(report.contains("state: Kinds {"), "{report}");
    // Short: steps shown with the line of this file, not the full path.
    assert!(
        report.contains(&format!("trace.rs:{}", line_of("// step: racy load"))),
        "{report}"
    );
}

#[test]
fn the_full_trace_shows_every_step_on_a_line_of_its_own() {
    let violation = kinds_violation();
    let mut full = interleaving(&violation).clone();
    full.full = true;
    let rendered = full.render(violation.kind.history());
    let count = full.actions().count();
    assert_eq!(rendered.steps_shown, count);
    assert!(rendered.text.contains("LINEUP_TRACE=full"), "{}", rendered.text);
    let located = full.actions().filter(|s| s.location.is_some()).count();
    assert_eq!(
        rendered.text.matches("tests/trace.rs:").count(),
        located,
        "{}",
        rendered.text
    );
    let short = interleaving(&violation).render(violation.kind.history());
    assert!(short.text.lines().count() < rendered.text.lines().count());
}

/// A mailbox whose `take` gives up when the lock is busy, with a channel behind it.
struct Mailbox {
    sender: Mutex<Sender<u32>>,
    receiver: Mutex<Receiver<u32>>,
}

#[invocations]
impl Mailbox {
    #[invoke(1)]
    fn post(&self, value: u32) -> bool {
        self.sender.lock().unwrap().send(value).is_ok() // step: send
    }

    #[invoke]
    fn take(&self) -> Option<u32> {
        self.receiver.try_lock().ok()?.try_recv().ok() // step: try_recv
    }
}

fn mailbox() -> Mailbox {
    let (sender, receiver) = channel();
    Mailbox {
        sender: Mutex::new(sender),
        receiver: Mutex::new(receiver),
    }
}

#[test]
fn sends_and_receives_are_steps_on_the_channel() {
    // post | take, take: a take that finds the lock busy returns nothing though a message waits.
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![1]]);
    let violation = violation_of(&Subject::of("Mailbox", mailbox), &matrix);
    let sends = steps_where(&violation, "post", |a| matches!(a, Action::Send { ok: true }));
    assert_eq!(sends.len(), 1, "{violation}");
    assert_at(sends[0], "// step: send");
    assert_eq!(sends[0].object.as_ref().unwrap().kind, "channel");
    let receives = steps_where(&violation, "take", |a| matches!(a, Action::Receive { .. }));
    for receive in &receives {
        assert_at(receive, "// step: try_recv");
        let Action::Receive { got } = receive.action else {
            unreachable!()
        };
        assert_eq!(got, response_of(&violation, receive).starts_with("Some"));
    }
    let busy = steps_where(&violation, "take", |a| {
        matches!(a, Action::TryLock { acquired: false, .. })
    });
    assert!(!busy.is_empty(), "the violation is a busy lock:\n{violation}");
    assert_at(busy[0], "// step: try_recv");
}

/// A counter whose `add` spawns a thread for the load and joins it, then stores: a lost update,
/// with spawns, joins and yields on the way.
#[derive(Default)]
struct Spawner {
    x: std::sync::Arc<AtomicU32>,
}

#[invocations]
impl Spawner {
    #[invoke]
    fn add(&self) -> u32 {
        let x = std::sync::Arc::clone(&self.x);
        let reader = lineup::thread::spawn(move || x.load(SeqCst)); // step: spawn
        let v = reader.join().unwrap(); // step: join
        lineup::thread::yield_now(); // step: yield
        self.x.store(v + 1, SeqCst);
        v
    }
}

#[test]
fn spawns_joins_and_yields_are_steps_and_a_spawned_thread_belongs_to_its_operation() {
    let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
    let violation = violation_of(&Subject::of("Spawner", Spawner::default), &matrix);
    let spawns = steps_where(&violation, "add", |a| matches!(a, Action::Spawn { .. }));
    assert_eq!(spawns.len(), 2, "{violation}");
    for spawn in &spawns {
        assert_at(spawn, "// step: spawn");
        let Action::Spawn { task } = spawn.action else {
            unreachable!()
        };
        // The spawned thread's load is a step of the same operation, on its own task.
        let load = interleaving(&violation)
            .steps
            .iter()
            .find(|s| s.task == task && matches!(s.action, Action::Load { .. }))
            .unwrap_or_else(|| panic!("task {task} loads:\n{violation}"));
        assert_eq!(load.op, spawn.op);
        assert_at(load, "// step: spawn");
    }
    for join in steps_where(&violation, "add", |a| matches!(a, Action::Join)) {
        assert_at(join, "// step: join");
    }
    let yields = steps_where(&violation, "add", |a| matches!(a, Action::Yield));
    assert_eq!(yields.len(), 2, "{violation}");
    assert_at(yields[0], "// step: yield");
}

/// A flag set by one operation and awaited by another, through an `.await` that suspends.
#[derive(Default)]
struct Awaiting {
    x: AtomicU32,
}

#[invocations]
impl Awaiting {
    #[invoke]
    fn racy(&self) -> u32 {
        let v = self.x.load(SeqCst);
        lineup::future::block_on(lineup::future::yield_now()); // step: block_on
        self.x.store(v + 1, SeqCst);
        v
    }
}

#[test]
fn an_await_that_suspended_is_a_step() {
    let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
    let violation = violation_of(&Subject::of("Awaiting", Awaiting::default), &matrix);
    let awaits = steps_where(&violation, "racy", |a| matches!(a, Action::Await));
    assert!(!awaits.is_empty(), "{violation}");
    assert_at(awaits[0], "// step: block_on");
}

/// A lost update on shuttle's own atomics, which lineup does not wrap (the reduction sees them
/// through lineup's vendor/shuttle-std; the trace records nothing of them).
#[derive(Default)]
struct Unseen {
    x: lineup::shuttle::sync::atomic::AtomicU32,
}

#[invocations]
impl Unseen {
    #[invoke]
    fn racy(&self) -> u32 {
        let v = self.x.load(SeqCst);
        self.x.store(v + 1, SeqCst);
        v
    }
}

#[test]
fn steps_of_primitives_lineup_does_not_see_are_scheduling_points_only() {
    let matrix = TestMatrix::new(vec![vec![0], vec![0]]);
    let violation = violation_of(&Subject::of("Unseen", Unseen::default), &matrix);
    let interleaving = interleaving(&violation);
    let of_ops: Vec<&Step> = interleaving
        .steps
        .iter()
        .filter(|s| s.op.is_some() && !matches!(s.action, Action::Switch { .. }))
        .collect();
    assert!(!of_ops.is_empty(), "{violation}");
    for step in of_ops {
        assert_eq!(step.action, Action::Unseen, "nothing invented: {step:?}");
        assert_eq!((&step.object, &step.location), (&None, &None));
    }
    assert!(violation
        .to_string()
        .contains("scheduling point of a shuttle primitive (no values recorded)"));
}

/// A latch whose `wait` checks the flag before it takes the lock: a `set` in between is a lost
/// wake-up, and `wait` blocks for good (a stuck history).
#[derive(Default)]
struct LossyLatch {
    set: AtomicBool,
    lock: Mutex<()>,
    changed: Condvar,
}

#[invocations]
impl LossyLatch {
    #[invoke]
    fn wait(&self) {
        if !self.set.load(SeqCst) {
            let guard = self.lock.lock().unwrap();
            drop(self.changed.wait(guard).unwrap()); // step: wait
        }
    }

    #[invoke]
    fn set(&self) {
        self.set.store(true, SeqCst);
        let _guard = self.lock.lock().unwrap();
        self.changed.notify_all();
    }
}

#[test]
fn a_stuck_history_shows_the_wait_that_blocked_for_good() {
    let matrix = TestMatrix::new(vec![vec![0], vec![1]]);
    let violation = violation_of(&Subject::of("LossyLatch", LossyLatch::default), &matrix);
    assert!(violation.kind.history().is_stuck(), "{violation}");
    let interleaving = interleaving(&violation);
    // The wait released the lock (the unlock of the wait, at its line) and blocked.
    let unlocks = steps_where(&violation, "wait", |a| matches!(a, Action::Unlock));
    assert_eq!(unlocks.len(), 1, "{violation}");
    assert_at(unlocks[0], "// step: wait");
    let blocked = interleaving.steps.iter().any(|s| {
        s.task == unlocks[0].task
            && matches!(
                s.action,
                Action::Switch {
                    reason: SwitchReason::Blocked,
                    ..
                }
            )
    });
    assert!(blocked, "{violation}");
    assert!(violation.to_string().contains("-- blocked --"), "{violation}");
    // It never returned from the wait: no step says it did.
    assert!(steps_where(&violation, "wait", |a| matches!(a, Action::Wait { .. })).is_empty());
}

#[test]
fn the_html_report_lists_the_same_steps() {
    let violation = kinds_violation();
    let html = violation.to_html();
    assert!(
        html.contains("interleaving: every step of the violating execution"),
        "{html}"
    );
    let interleaving = interleaving(&violation);
    let mut full = interleaving.clone();
    full.full = true;
    let text = full.render(violation.kind.history()).text;
    // Every step of the full text section is a row of the page's table and a step of its step
    // timeline, each with its location.
    for step in interleaving.actions().filter(|s| s.location.is_some()) {
        let at = step.location.as_ref().unwrap().to_string();
        assert_eq!(
            html.matches(&at).count(),
            2 * text.matches(&at).count(),
            "{at} in the page's table and step timeline as in the text"
        );
    }
    let rows = html.matches("<tr><td>").count();
    assert!(rows >= interleaving.steps.len(), "{rows} rows");
}

/// The page draws the same steps on the threads' lanes: one dot per step (its hover text the
/// step and its source line), one arrow per switch (its reason), and one bar per operation that
/// names the operation its steps belong to (a click expands it into its steps' names).
#[test]
fn the_html_report_draws_the_steps_on_the_threads_lanes() {
    let violation = kinds_violation();
    let interleaving = interleaving(&violation);
    let picture = violation.picture();
    let timeline = picture.sections[0].step_timeline.as_ref().expect("the steps are drawn");
    assert_eq!(timeline.steps.len(), interleaving.actions().count());
    let switches = interleaving
        .steps
        .iter()
        .filter(|s| matches!(s.action, Action::Switch { .. }))
        .count();
    assert_eq!(timeline.switches.len(), switches);
    let history = violation.kind.history();
    assert_eq!(timeline.ops.len(), history.called_ops().len());
    // Positions: each operation's steps lie between its call and its return, on its lane.
    for step in &timeline.steps {
        let Some(op) = &step.op else { continue };
        let bar = timeline
            .ops
            .iter()
            .find(|o| &o.id == op)
            .expect("the step's operation has a bar");
        assert_eq!(bar.lane, step.lane, "{step:?} on its operation's lane");
        assert!(
            bar.call < step.at && bar.ret.is_none_or(|r| step.at < r),
            "{step:?} within {bar:?}"
        );
    }
    for switch in &timeline.switches {
        assert_ne!(
            Some(switch.from),
            switch.to,
            "a switch goes from one lane to another: {switch:?}"
        );
    }
    let html = violation.to_html();
    assert_eq!(html.matches("<g class=\"step\"").count(), timeline.steps.len());
    assert_eq!(html.matches("<g class=\"switch\"").count(), switches);
    for step in interleaving.actions().filter(|s| s.location.is_some()) {
        let at = step.location.as_ref().unwrap().to_string();
        assert!(html.contains(&format!("\n@ {at}</title>")), "{at} on hover");
    }
}

/// Every method of lineup's atomics that records a step carries `#[track_caller]`, so its step's
/// location is the user's line (the behavioural tests above cover one type each; this covers every
/// type and method), on shuttle and under loom (tests/loom_trace.rs runs those), and so does every
/// method of the loom mutex and condition variable. Only the methods that touch no shared state
/// (no step) go without.
#[test]
fn every_atomic_method_that_records_a_step_tracks_its_caller() {
    let sources = [
        (
            "primitives/atomic.rs",
            include_str!("../lineup-core/src/primitives/atomic.rs"),
            &["get_mut", "into_inner", "as_ptr"][..],
        ),
        (
            "loom_backend/tracked_atomic.rs",
            include_str!("../lineup-core/src/loom_backend/tracked_atomic.rs"),
            &["with_mut", "into_inner"][..],
        ),
        (
            "loom_backend/observable_mutex.rs",
            include_str!("../lineup-core/src/loom_backend/observable_mutex.rs"),
            &["new", "get_mut", "into_inner"][..],
        ),
    ];
    let mut missing = Vec::new();
    for (file, source, no_step) in sources {
        let lines: Vec<&str> = source.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("pub fn ") else {
                continue;
            };
            let name = rest.split(['(', '<']).next().unwrap_or_default();
            if no_step.contains(&name) {
                continue;
            }
            let attributes = lines[..i]
                .iter()
                .rev()
                .map(|l| l.trim())
                .take_while(|l| l.starts_with("///") || l.starts_with("#["));
            if !attributes.clone().any(|l| l == "#[track_caller]") {
                missing.push(format!("{file} line {}: {name}", i + 1));
            }
        }
    }
    assert!(missing.is_empty(), "without #[track_caller]: {missing:?}");
}

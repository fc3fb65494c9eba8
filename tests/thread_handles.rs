//! Per-thread handles (`Subject::with_handles`, `#[handles]`, `Invocation::on_handle`): each
//! thread makes its handle when it starts and drops it as part of its last operation, in both
//! phases; what the drop does is explored like the operation's own steps; the initial and final
//! operations get handles of their own; and a handle type the subject does not make is a setup
//! error.
//!
//! The objects here hand out *leases*: `take()` takes one on the calling thread's handle, and a
//! handle gives its leases back when it is dropped. The buggy one gives them back with a load and
//! a store instead of one `fetch_sub`, which loses a concurrent `take()` of another thread: only
//! an exploration that preempts inside the drop finds it.

use lineup::sync::atomic::{AtomicU32, Ordering::SeqCst};
use lineup::sync::{Condvar, Mutex};
use lineup::{check, invocations, CheckError, Config, Invocation, Subject, TestMatrix, ViolationKind};
use std::sync::Arc;

/// What a thread holds: the leases it took.
pub struct Leases<const LOAD_STORE: bool> {
    object: Arc<Leasing<LOAD_STORE>>,
    held: u32,
}

impl<const LOAD_STORE: bool> Drop for Leases<LOAD_STORE> {
    fn drop(&mut self) {
        if self.held == 0 {
            return;
        }
        if LOAD_STORE {
            // The bug: another thread's `take()` between the load and the store is lost.
            let out = self.object.out.load(SeqCst);
            self.object.out.store(out - self.held, SeqCst);
        } else {
            self.object.out.fetch_sub(self.held, SeqCst);
        }
    }
}

/// Leases out: how many the threads hold.
#[derive(Default)]
pub struct Leasing<const LOAD_STORE: bool> {
    out: AtomicU32,
}

#[invocations]
impl<const LOAD_STORE: bool> Leasing<LOAD_STORE> {
    /// The calling thread's leases, on the object.
    #[handles]
    fn leases(self: &Arc<Self>) -> Leases<LOAD_STORE> {
        Leases {
            object: Arc::clone(self),
            held: 0,
        }
    }

    /// Takes a lease; returns how many were out before.
    #[invoke]
    fn take(&self, mine: &mut Leases<LOAD_STORE>) -> u32 {
        mine.held += 1;
        self.out.fetch_add(1, SeqCst)
    }

    /// How many leases are out.
    #[invoke]
    fn count(&self) -> u32 {
        self.out.load(SeqCst)
    }
}

fn leasing() -> Subject<Leasing<false>> {
    Subject::of("Leasing", Leasing::default)
}

fn leasing_load_store() -> Subject<Leasing<true>> {
    Subject::of("LeasingLoadStore", Leasing::default)
}

/// take() | take(), count()
fn take_take_count() -> TestMatrix {
    TestMatrix::new(vec![vec![0], vec![0, 1]])
}

#[test]
fn the_derive_makes_handles_from_the_handles_method() {
    let subject = leasing();
    assert_eq!(
        subject.handles().map(|h| h.type_name()),
        Some(std::any::type_name::<Leases<false>>())
    );
    assert_eq!(
        subject.invocations()[0].handle_type_name(),
        Some(std::any::type_name::<Leases<false>>())
    );
    assert_eq!(subject.invocations()[1].handle_type_name(), None);
}

#[test]
fn a_handle_that_gives_its_leases_back_atomically_passes() {
    let verdict = check(&leasing(), &take_take_count(), &Config::default()).unwrap();
    assert!(verdict.is_pass(), "{verdict:?}");
    // Every handle is dropped by the end: the final count sees no lease out.
    let with_final = take_take_count().with_final(vec![1]);
    assert!(check(&leasing(), &with_final, &Config::default()).unwrap().is_pass());
}

#[test]
fn a_race_inside_a_handles_drop_is_found_and_replays() {
    let config = Config::default();
    let verdict = check(&leasing_load_store(), &take_take_count(), &config).unwrap();
    let violation = verdict
        .violation()
        .expect("the load-store drop loses a concurrent take()")
        .clone();
    assert!(
        matches!(violation.kind, ViolationKind::NotLinearizable { .. }),
        "a full history without a serial witness:\n{violation}"
    );
    // The handle drops are operations of the history, on their threads.
    let report = violation.to_string();
    assert!(report.contains("A     drop(handle)  -> ()"), "{report}");
    // (A loom execution is replayed by loom itself, from its checkpoint file.)
    #[cfg(not(loom))]
    {
        let replayed = lineup::replay(&leasing_load_store(), &take_take_count(), &violation.replay, &config).unwrap();
        assert_eq!(&replayed.history, violation.kind.history());
        assert!(
            replayed.violation.is_some(),
            "the replay violates the specification again"
        );
    }
}

/// The loom backend runs its executions in a child process, where these counts stay.
#[cfg(not(loom))]
mod counted {
    use super::*;
    use lineup::MatrixThread;

    /// Made from the thread's column; counts made and dropped handles in `counts`.
    struct Counted {
        counts: Arc<std::sync::Mutex<Counts>>,
    }

    #[derive(Default)]
    struct Counts {
        made: Vec<lineup::Column>,
        dropped: usize,
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            self.counts.lock().unwrap().dropped += 1;
        }
    }

    #[test]
    fn every_thread_gets_a_handle_and_drops_it_initial_and_final_included() {
        let counts = Arc::new(std::sync::Mutex::new(Counts::default()));
        let record = Arc::clone(&counts);
        let subject = Subject::new("counted", || AtomicU32::new(0))
            .with_handles(move |_, thread: &MatrixThread| {
                record.lock().unwrap().made.push(thread.column());
                Counted {
                    counts: Arc::clone(&record),
                }
            })
            .with(Invocation::on_handle("inc", |c: &AtomicU32, _: &mut Counted| {
                c.fetch_add(1, SeqCst)
            }));
        let matrix = TestMatrix::new(vec![vec![0, 0], vec![0]])
            .with_initial(vec![0])
            .with_final(vec![0]);
        assert!(check(&subject, &matrix, &Config::default()).unwrap().is_pass());
        let counts = counts.lock().unwrap();
        assert!(!counts.made.is_empty());
        assert_eq!(counts.made.len(), counts.dropped, "every handle made is dropped");
        use lineup::Column::*;
        let mut columns = counts.made.clone();
        columns.sort_by_key(|c| format!("{c:?}"));
        columns.dedup();
        assert_eq!(columns, [Final, Initial, Worker(0), Worker(1)]);
        // Per execution, in this order.
        assert_eq!(counts.made[..4], [Initial, Worker(0), Worker(1), Final]);
    }
}

#[test]
fn an_invocation_on_a_handle_the_subject_does_not_make_is_a_setup_error() {
    let take = || Invocation::on_handle("take", |_: &AtomicU32, mine: &mut u32| *mine);
    let none = Subject::new("no handles", || AtomicU32::new(0)).with(take());
    let message = match check(&none, &TestMatrix::new(vec![vec![0]]), &Config::default()) {
        Err(e @ CheckError::HandleMismatch { .. }) => e.to_string(),
        other => panic!("expected HandleMismatch, got {other:?}"),
    };
    assert!(message.contains("`take()`") && message.contains("`u32`"), "{message}");
    assert!(
        message.contains("with_handles") && message.contains("#[handles]"),
        "{message}"
    );

    let other = Subject::new("other handles", || AtomicU32::new(0))
        .with_handles(|_, _| 0u64)
        .with(take());
    let message = check(&other, &TestMatrix::new(vec![vec![0]]), &Config::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("handles are of type `u64`"), "{message}");
}

/// A counting semaphore whose permits are owned values: `acquire` keeps one in the calling
/// thread's state, `release` drops the oldest it holds, and a permit still held when the thread
/// ends is dropped in its `drop(handle)` operation (per-thread state between operations).
pub struct Semaphore<const NOTIFY: bool> {
    permits: Mutex<u32>,
    freed: Condvar,
}

/// A permit; dropping it gives it back (`NOTIFY = false`: without waking a waiter, a lost wake-up).
pub struct Permit<const NOTIFY: bool>(Arc<Semaphore<NOTIFY>>);

impl<const NOTIFY: bool> Drop for Permit<NOTIFY> {
    fn drop(&mut self) {
        *self.0.permits.lock().unwrap() += 1;
        if NOTIFY {
            self.0.freed.notify_one();
        }
    }
}

/// What a thread keeps between its operations: the semaphore, and the permits it holds.
pub struct Held<const NOTIFY: bool> {
    semaphore: Arc<Semaphore<NOTIFY>>,
    permits: Vec<Permit<NOTIFY>>,
}

#[invocations]
impl<const NOTIFY: bool> Semaphore<NOTIFY> {
    #[handles]
    fn held(self: &Arc<Self>) -> Held<NOTIFY> {
        Held {
            semaphore: Arc::clone(self),
            permits: Vec::new(),
        }
    }

    /// Waits for a permit and keeps it; returns how many the thread holds.
    #[invoke]
    fn acquire(&self, held: &mut Held<NOTIFY>) -> usize {
        let mut permits = self.permits.lock().unwrap();
        while *permits == 0 {
            permits = self.freed.wait(permits).unwrap();
        }
        *permits -= 1;
        drop(permits);
        held.permits.push(Permit(Arc::clone(&held.semaphore)));
        held.permits.len()
    }

    /// Gives back the oldest permit the thread holds; `false` if it holds none.
    #[invoke]
    fn release(&self, held: &mut Held<NOTIFY>) -> bool {
        if held.permits.is_empty() {
            return false;
        }
        drop(held.permits.remove(0));
        true
    }
}

/// A semaphore of one permit.
fn one_permit<const NOTIFY: bool>() -> Semaphore<NOTIFY> {
    Semaphore {
        permits: Mutex::new(1),
        freed: Condvar::new(),
    }
}

/// acquire() | acquire(), release(): B waits for the permit that A keeps until it ends.
fn held_to_the_end() -> TestMatrix {
    TestMatrix::new(vec![vec![0], vec![0, 1]])
}

#[test]
fn a_permit_kept_between_operations_is_given_back_when_its_thread_ends() {
    let subject = Subject::of("Semaphore", one_permit::<true>);
    let verdict = check(&subject, &held_to_the_end(), &Config::default()).unwrap();
    assert!(verdict.is_pass(), "{verdict:?}");
    // acquire, release on each thread too.
    let both = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
    assert!(check(&subject, &both, &Config::default()).unwrap().is_pass());
}

#[test]
fn a_permit_given_back_without_a_wake_up_is_a_stuck_history() {
    let subject = Subject::of("SemaphoreNoNotify", one_permit::<false>);
    let verdict = check(&subject, &held_to_the_end(), &Config::default()).unwrap();
    let violation = verdict.violation().expect("B waits for good for A's permit");
    assert!(
        matches!(violation.kind, ViolationKind::StuckNotLinearizable { .. }),
        "a stuck history without a stuck serial witness:\n{violation}"
    );
    assert!(violation.to_string().contains("drop(handle)"), "{violation}");
}

#[cfg(not(loom))] // Observation files are written from shuttle's phase 1.
#[test]
fn a_specification_with_drop_operations_goes_through_an_observation_file() {
    use lineup::observation_file::{from_xml_str, to_xml_string};
    let config = Config::default();
    let spec = lineup::synthesize_spec(&leasing(), &take_take_count(), &config)
        .unwrap()
        .spec;
    let xml = to_xml_string(&spec);
    assert!(xml.contains("drop"), "{xml}");
    let read = from_xml_str(&xml, "leasing.xml").unwrap();
    let verdict = lineup::check_against_spec(&leasing(), &take_take_count(), &read, &config).unwrap();
    assert!(verdict.is_pass(), "{verdict:?}");
    // The buggy twin against the correct one's specification fails as before.
    let buggy = Subject::of("Leasing", Leasing::<true>::default);
    let verdict = lineup::check_against_spec(&buggy, &take_take_count(), &read, &config).unwrap();
    assert!(!verdict.is_pass());
}

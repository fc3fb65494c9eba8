//! `#[lineup_test(...)]` used for real: tests that pass on correct objects, and tests that must
//! panic with lineup's report on buggy ones or on a wrong invocation label.

use std::collections::VecDeque;

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::shuttle::sync::{Condvar, Mutex};
use lineup::{invocations, lineup_test};
use objects::queues::{BlockingQueue, GiveUpQueue};

/// A lost wake-up: `add` signals only when the queue already held something, so a `take` that
/// waits on the empty queue sleeps forever. Every value returned is right; only the stuck-history
/// check (Def. 2) sees it.
#[derive(Default)]
struct LostWakeUpQueue {
    items: Mutex<VecDeque<u32>>,
    not_empty: Condvar,
}

#[invocations]
impl LostWakeUpQueue {
    #[invoke(200)]
    fn add(&self, value: u32) {
        let mut items = self.items.lock().unwrap();
        let was_empty = items.is_empty();
        items.push_back(value);
        // BUG: the waiters are exactly the ones that found the queue empty.
        if !was_empty {
            self.not_empty.notify_one();
        }
    }

    #[invoke]
    fn take(&self) -> u32 {
        let mut items = self.items.lock().unwrap();
        loop {
            if let Some(value) = items.pop_front() {
                return value;
            }
            items = self.not_empty.wait(items).unwrap();
        }
    }
}

/// Doc comments stay on the generated test. Explicit matrices, then a seeded random sample of
/// 2x2 matrices over `add(200)`, `add(400)`, `try_take()`, `take()`, on two workers.
#[lineup_test(
    time_budget = "off",
    threads = 2,
    ops = 2,
    samples = 8,
    seed = 11,
    workers = 2,
    matrix = [["add(200)", "try_take()"], ["add(400)", "try_take()"]],
    matrix = [["take()"], ["add(200)"], ["add(400)", "take()"]]
)]
fn blocking_queue_passes() -> BlockingQueue {
    BlockingQueue::default()
}

/// Initial and final operations, classic linearizability only, preemption bound 1, and a short
/// AutoCheck after the (empty) sample.
#[lineup_test(
    samples = 0,
    initial = ["add(400)"],
    final = ["try_take()"],
    check_stuck = false,
    preemption_bound = 1,
    time_budget_ms = 100,
    matrix = [["add(200)", "take()"], ["try_take()"]]
)]
fn blocking_queue_passes_with_initial_and_final_operations() -> BlockingQueue {
    BlockingQueue::default()
}

#[lineup_test(
    time_budget = "off",
    samples = 0,
    matrix = [["add(200)", "try_take()"], ["add(400)", "try_take()"]]
)]
#[should_panic(expected = "lineup_test `lineup_test_attr::give_up_queue_fails` FAILED on regression matrix #0")]
fn give_up_queue_fails() -> GiveUpQueue {
    GiveUpQueue::default()
}

#[should_panic(expected = "FULL HISTORY WITHOUT SERIAL WITNESS")]
#[lineup_test(time_budget = "off", samples = 0, matrix = [["add(200)", "try_take()"], ["add(400)", "try_take()"]])]
fn give_up_queue_fails_attribute_before() -> GiveUpQueue {
    GiveUpQueue::default()
}

/// Labels are matched exactly as they print.
#[lineup_test(time_budget = "off", samples = 0, matrix = [["add(300)"], ["try_take()"]])]
#[should_panic(expected = "`add(300)` is not an invocation of the object; it has add(200), add(400), try_take()")]
fn an_unknown_label_is_reported() -> GiveUpQueue {
    GiveUpQueue::default()
}

/// The lost wake-up blocks where no serial execution does: found with the stuck check on ...
#[lineup_test(time_budget = "off", samples = 0, matrix = [["take()"], ["add(200)"]])]
#[should_panic(expected = "STUCK HISTORY WITHOUT STUCK SERIAL WITNESS")]
fn lost_wake_up_fails_with_the_stuck_check() -> LostWakeUpQueue {
    LostWakeUpQueue::default()
}

/// ... and invisible to classic linearizability (`check_stuck = false`).
#[lineup_test(time_budget = "off", samples = 0, check_stuck = false, matrix = [["take()"], ["add(200)"]])]
fn lost_wake_up_passes_without_the_stuck_check() -> LostWakeUpQueue {
    LostWakeUpQueue::default()
}

/// The phase-1 specification of the explicit matrix is kept in
/// `observations/lineup_test_attr__blocking_queue_spec_is_committed-0.xml` and compared on
/// every run (re-bless with `LINEUP_BLESS=1`).
#[lineup_test(time_budget = "off", samples = 0, observations = "observations", matrix = [["add(200)", "take()"], ["try_take()"]])]
fn blocking_queue_spec_is_committed() -> BlockingQueue {
    BlockingQueue::default()
}

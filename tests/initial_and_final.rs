//! Matrices with initial and final operations (paper §4.3), which the main thread runs before the
//! workers start and after they are joined.

#[path = "../examples/objects/mod.rs"]
mod objects;

use lineup::observation_file::{from_xml_str, to_xml_string};
use lineup::{check, synthesize_spec, Config, Response, TestMatrix, ThreadId, Verdict};
use objects::counters::{atomic_counter, counter1};
use objects::queues::blocking_queue;

fn assert_pass(verdict: &Verdict) {
    if let Some(v) = verdict.violation() {
        panic!("expected PASS, got:\n{v}");
    }
}

#[test]
fn main_thread_operations_come_first_and_last_in_every_history() {
    // initial: add(400) | A: add(200), try_take() | B: take() | final: try_take()
    let matrix = TestMatrix::new(vec![vec![0, 2], vec![3]])
        .with_initial(vec![1])
        .with_final(vec![2]);
    let subject = blocking_queue();
    let synthesis = synthesize_spec(&subject, &matrix, &Config::default()).unwrap();
    assert!(synthesis.nondeterminism.is_none());
    let ops = synthesis.spec.ops();
    assert_eq!(ops[0].thread, ThreadId::Main);
    assert_eq!(ops[0].invocation.to_string(), "add(400)");
    assert_eq!(ops[4].thread, ThreadId::Main);
    assert_eq!(ops[4].invocation.to_string(), "try_take()");
    // With 400 in the queue, take() never blocks: A's 2 ops and B's 1 give 3 serial orders.
    assert_eq!(synthesis.spec.full_count(), 3);
    assert_eq!(synthesis.spec.stuck_count(), 0);
    for h in synthesis.spec.histories() {
        let order = h.serial_order();
        assert_eq!((order[0], order[4]), (1, 5), "{h}");
        // Two adds, two takes in between: the final try_take finds the queue empty.
        assert_eq!(h.response(5), Some(&Response::returned(&None::<u32>)), "{h}");
    }

    let xml = to_xml_string(&synthesis.spec);
    assert!(xml.contains(r#"<op id="1" thread="main" name="add">"#), "{xml}");
    assert_eq!(from_xml_str(&xml, "initial_and_final.xml").unwrap(), synthesis.spec);

    assert_pass(&check(&subject, &matrix, &Config::default()).unwrap());
}

#[test]
fn initial_operations_do_not_hide_a_lost_update() {
    // initial: inc() | A: inc(), get() | B: inc(), get()
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]).with_initial(vec![0]);
    let verdict = check(&counter1(), &matrix, &Config::default()).unwrap();
    let violation = verdict.violation().expect("Counter1 loses updates");
    assert!(
        matches!(violation.kind, lineup::ViolationKind::NotLinearizable { .. }),
        "{violation}"
    );
    assert!(violation.to_string().contains("initial:"), "{violation}");
}

/// Regression: the watchdog (spawned only for matrices with initial or final operations) once
/// inherited the role of the first initial operation and made phase 1 branch redundantly
/// (6 serial executions for 1 serial order). The harness now gives it its role at the spawn.
#[test]
fn phase_1_runs_one_execution_per_serial_order_with_initial_operations() {
    // initial: inc() | A: get(): exactly one serial order.
    let matrix = TestMatrix::new(vec![vec![1]]).with_initial(vec![0]);
    let verdict = check(&atomic_counter(), &matrix, &Config::default()).unwrap();
    assert_pass(&verdict);
    let stats = verdict.stats();
    assert_eq!(stats.serial_full, 1);
    assert_eq!(stats.serial_executions, 1, "{stats:?}");
}

#[test]
fn phase_1_runs_one_execution_per_serial_order_with_final_operations() {
    // A: inc() | final: get(): exactly one serial order.
    let matrix = TestMatrix::new(vec![vec![0]]).with_final(vec![1]);
    let verdict = check(&atomic_counter(), &matrix, &Config::default()).unwrap();
    assert_pass(&verdict);
    let stats = verdict.stats();
    assert_eq!(stats.serial_full, 1);
    assert_eq!(stats.serial_executions, 1, "{stats:?}");
}

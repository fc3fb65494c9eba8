//! Phase 1 chooses at every gate between a worker's operations (explore/harness.rs): an
//! operation with no scheduling point of its own that reads what another thread wrote through a
//! primitive that does not switch (`OnceLock::get`) must still be able to follow that thread's
//! operation in a serial execution, or the specification lacks a serial order that a concurrent
//! history needs, and a correct object fails.

use lineup::sync::atomic::{AtomicU64, Ordering};
use lineup::sync::OnceLock;
use lineup::{check, Config, Invocation, Reduction, Subject, TestMatrix, Verdict};

/// A cell set once: `init(1)`, `init(2)` (each returns the value the cell ends up with) and
/// `get()`, whose `OnceLock::get` reaches no scheduling point.
fn once_cell() -> Subject<OnceLock<u32>> {
    Subject::new("OnceLock<u32>", OnceLock::<u32>::new)
        .with(Invocation::new("init(1)", |cell: &OnceLock<u32>| {
            *cell.get_or_init(|| 1)
        }))
        .with(Invocation::new("init(2)", |cell: &OnceLock<u32>| {
            *cell.get_or_init(|| 2)
        }))
        .with(Invocation::new("get", |cell: &OnceLock<u32>| cell.get().copied()))
}

#[test]
fn an_operation_without_a_scheduling_point_can_follow_another_threads_in_phase_1() {
    // A: init(1); B: init(2) then get(). Serially: init(1) init(2) get(), init(2) init(1) get(),
    // init(2) get() init(1): three orders, and the second is the witness of the concurrent
    // history in which init(2) wins and init(1) returns first.
    let matrix = TestMatrix::new(vec![vec![0], vec![1, 2]]);
    for reduction in [Reduction::Off, Reduction::On] {
        let config = Config {
            reduction,
            ..Config::default()
        };
        let verdict = check(&once_cell(), &matrix, &config).unwrap();
        let Verdict::Pass(stats) = verdict else {
            panic!("{reduction:?}: a correct OnceLock failed: {verdict:?}");
        };
        assert_eq!(stats.serial_executions, 3, "{reduction:?}: {stats:?}");
    }
}

#[test]
fn gates_add_no_serial_execution_to_operations_that_switch() {
    // Two threads of two increments each: C(4, 2) = 6 serial orders, one execution each.
    let counter = Subject::new("counter", || AtomicU64::new(0))
        .with(Invocation::new("inc", |c: &AtomicU64| c.fetch_add(1, Ordering::SeqCst)));
    let matrix = TestMatrix::new(vec![vec![0, 0], vec![0, 0]]);
    let verdict = check(&counter, &matrix, &Config::default()).unwrap();
    let Verdict::Pass(stats) = verdict else {
        panic!("the counter failed: {verdict:?}");
    };
    assert_eq!(stats.serial_executions, 6, "{stats:?}");
}

//! The serial witness search (Def. 1) alone, on the queue histories of Herlihy and Wing's Fig. 1
//! (H1-H4 as modelled in /work/shared/papers/tla-linearizability.md): H1 and H3 are
//! linearizable, H2 and H4 are not.
//!
//! The specification is written by hand: every serial history of a sequential FIFO queue over
//! the history's own operation table, i.e. every interleaving of the threads' operation
//! sequences, each operation with the response the sequential queue gives it.

use std::collections::VecDeque;

use lineup::witness::find_witness;
use lineup::{Event, History, InvocationLabel, ObservationKey, Response, ThreadId};

const A: ThreadId = ThreadId::Worker(0);
const B: ThreadId = ThreadId::Worker(1);
const C: ThreadId = ThreadId::Worker(2);

/// `E(x)`: enqueue `x`.
fn enq(value: &str) -> InvocationLabel {
    InvocationLabel::new("E", vec![value.to_string()])
}

/// `D()`: dequeue.
fn deq() -> InvocationLabel {
    InvocationLabel::new("D", vec![])
}

/// What an enqueue returns.
fn ok() -> Response {
    Response::returned(&())
}

/// What a dequeue returns: the value dequeued, or `None` on an empty queue.
fn dequeued(value: Option<&str>) -> Response {
    Response::returned(&value)
}

/// The sequential FIFO queue: runs `order` (operation numbers of `h`'s table) on an empty queue
/// and returns every operation's response, indexed by `id - 1`.
fn run_queue_model(h: &History, order: &[usize]) -> Vec<Option<Response>> {
    let mut queue: VecDeque<&str> = VecDeque::new();
    let mut responses = vec![None; h.ops().len()];
    for &op in order {
        let invocation = &h.op(op).invocation;
        let response = match invocation.name.as_str() {
            "E" => {
                queue.push_back(&invocation.args[0]);
                ok()
            }
            "D" => dequeued(queue.pop_front()),
            other => panic!("the queue model has no operation `{other}`"),
        };
        responses[op - 1] = Some(response);
    }
    responses
}

/// Every interleaving of the per-thread sequences in `columns` (program order kept).
fn interleavings(columns: &[Vec<usize>]) -> Vec<Vec<usize>> {
    fn go(columns: &[Vec<usize>], next: &mut [usize], order: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        let mut any = false;
        for t in 0..columns.len() {
            if next[t] < columns[t].len() {
                any = true;
                order.push(columns[t][next[t]]);
                next[t] += 1;
                go(columns, next, order, out);
                next[t] -= 1;
                order.pop();
            }
        }
        if !any {
            out.push(order.clone());
        }
    }
    let mut out = Vec::new();
    go(columns, &mut vec![0; columns.len()], &mut Vec::new(), &mut out);
    out
}

/// The specification for `h`: every full serial history of the sequential queue over `h`'s
/// operation table (every operation of the table, called or not in `h`).
fn queue_spec(h: &History) -> Vec<History> {
    let columns: Vec<Vec<usize>> = h
        .threads()
        .into_iter()
        .map(|t| h.ops().iter().filter(|o| o.thread == t).map(|o| o.id).collect())
        .collect();
    interleavings(&columns)
        .into_iter()
        .map(|order| {
            let events = order
                .iter()
                .flat_map(|&op| [Event::Call(op), Event::Return(op)])
                .collect();
            History::new(h.ops().clone(), events, run_queue_model(h, &order), false)
                .expect("a serial history of the table is well formed")
        })
        .collect()
}

/// Checks that the first `k` operations of the serial history `s` are a serial witness for `h`
/// in the sense of Def. 1: `s` is serial, the prefix holds every completed operation of `h` and
/// only operations `h` called, with the same results, in each thread's order, and every pair of
/// operations ordered in real time in `h` (a return before a call) keeps its order.
fn assert_serial_witness(h: &History, s: &History, k: usize) {
    assert!(s.is_serial(), "the witness {s} is not serial");
    let prefix = &s.serial_order()[..k];
    let called = h.called_ops();
    for &op in prefix {
        assert!(called.contains(&op), "the witness runs {op}, which {h} never calls");
        if let Some(r) = h.response(op) {
            assert_eq!(s.response(op), Some(r), "op {op} has another result in the witness {s}");
        }
    }
    for op in called.iter().copied().filter(|&op| h.response(op).is_some()) {
        assert!(
            prefix.contains(&op),
            "the witness prefix leaves out the completed op {op}"
        );
    }
    for t in h.threads() {
        let in_witness: Vec<usize> = prefix.iter().copied().filter(|&op| h.op(op).thread == t).collect();
        let in_history: Vec<usize> = h.thread_ops(t).into_iter().filter(|op| prefix.contains(op)).collect();
        assert_eq!(
            in_witness, in_history,
            "thread {t} runs in another order in the witness"
        );
    }
    let position = |e: Event| h.events().iter().position(|&x| x == e);
    for (j, &later) in prefix.iter().enumerate() {
        for &earlier in &prefix[..j] {
            // `later` must not have returned before `earlier` was called.
            if let (Some(ret), Some(call)) = (position(Event::Return(later)), position(Event::Call(earlier))) {
                assert!(
                    ret > call,
                    "the witness runs {earlier} before {later}, but {later} returned before {earlier} was called in {h}"
                );
            }
        }
    }
}

/// H1 (Fig. 1a): A: E(x) overlaps B: E(y); B dequeues x, then A dequeues y; A's final E(z) is
/// pending. Linearizable: E(x) E(y) D->x D->y, without the pending E(z).
fn h1() -> History {
    let mut b = History::builder();
    let ex = b.call(A, enq("x"));
    let ey = b.call(B, enq("y"));
    b.ret(ey, ok());
    b.ret(ex, ok());
    let db = b.call(B, deq());
    b.ret(db, dequeued(Some("x")));
    let da = b.call(A, deq());
    b.ret(da, dequeued(Some("y")));
    b.call(A, enq("z"));
    b.finish()
}

/// H2 (Fig. 1b): E(x) returns before E(y) is called, yet A's dequeue (overlapping E(y)) returns y.
fn h2() -> History {
    let mut b = History::builder();
    let ex = b.call(A, enq("x"));
    b.ret(ex, ok());
    let ey = b.call(B, enq("y"));
    let da = b.call(A, deq());
    b.ret(ey, ok());
    b.ret(da, dequeued(Some("y")));
    b.finish()
}

/// H3 (Fig. 1c): B dequeues x while A's E(x) is still pending. Linearizable: E(x) takes effect
/// before the dequeue (Def. 1 completes the pending call).
fn h3() -> History {
    let mut b = History::builder();
    b.call(A, enq("x"));
    let db = b.call(B, deq());
    b.ret(db, dequeued(Some("x")));
    b.finish()
}

/// H4 (Fig. 1d): x and y are enqueued, then A and C both dequeue y.
fn h4() -> History {
    let mut b = History::builder();
    let ex = b.call(A, enq("x"));
    let ey = b.call(B, enq("y"));
    b.ret(ex, ok());
    b.ret(ey, ok());
    let da = b.call(A, deq());
    let dc = b.call(C, deq());
    b.ret(da, dequeued(Some("y")));
    b.ret(dc, dequeued(Some("y")));
    b.finish()
}

#[test]
fn the_histories_are_the_papers() {
    assert_eq!(h1().notation(), "1[ 2[ ]2 ]1 3[ ]3 4[ ]4 5[");
    assert_eq!(h1().pending_ops(), vec![5]);
    assert_eq!(h2().notation(), "1[ ]1 2[ 3[ ]2 ]3");
    assert_eq!(h3().notation(), "1[ 2[ ]2");
    assert_eq!(h3().pending_ops(), vec![1]);
    assert_eq!(h4().notation(), "1[ 2[ ]1 ]2 3[ 4[ ]3 ]4");
    for h in [h1(), h2(), h3(), h4()] {
        assert!(!h.is_serial(), "{h} overlaps");
    }
}

#[test]
fn the_specification_is_every_serial_history_of_the_queue() {
    // H1: A runs 3 ops, B 2: (3+2)!/(3!2!) = 10 interleavings. H4: A 2, B 1, C 1: 4!/2! = 12.
    assert_eq!(queue_spec(&h1()).len(), 10);
    assert_eq!(queue_spec(&h4()).len(), 12);
    for s in queue_spec(&h4()) {
        assert!(s.is_serial() && s.is_complete() && !s.is_stuck(), "{s}");
    }
    // The model: E(x) E(y) D D E(z) dequeues x, then y.
    let h = h1();
    let responses = run_queue_model(&h, &[1, 2, 3, 4, 5]);
    assert_eq!(responses[2], Some(dequeued(Some("x"))));
    assert_eq!(responses[3], Some(dequeued(Some("y"))));
    // A dequeue on an empty queue returns None.
    assert_eq!(run_queue_model(&h, &[3])[2], Some(dequeued(None)));
}

#[test]
fn h1_is_linearizable_without_its_pending_enqueue() {
    let h = h1();
    let spec = queue_spec(&h);
    let (witness, k) = find_witness(&h, spec.iter()).expect("H1 is linearizable");
    assert_serial_witness(&h, witness, k);
    // E(z) is pending: the shortest prefix with every completed operation has 4 of the 5.
    assert_eq!(k, 4, "witness {witness}");
    assert_eq!(&witness.serial_order()[..k], &[1, 2, 3, 4]);
}

#[test]
fn h2_is_not_linearizable_although_a_serial_history_has_its_results() {
    let h = h2();
    let spec = queue_spec(&h);
    assert!(find_witness(&h, spec.iter()).is_none(), "H2 has no serial witness");
    // E(y) E(x) D->y has exactly H2's per-thread results: only the real-time order
    // "E(x) returns before E(y) is called" rules it out.
    let same_results: Vec<&History> = spec
        .iter()
        .filter(|s| ObservationKey::of(s) == ObservationKey::of(&h))
        .collect();
    assert_eq!(same_results.len(), 1);
    assert_eq!(same_results[0].serial_order(), vec![2, 1, 3]);
}

#[test]
fn h3_is_linearizable_by_completing_its_pending_enqueue() {
    let h = h3();
    let spec = queue_spec(&h);
    let (witness, k) = find_witness(&h, spec.iter()).expect("H3 is linearizable");
    assert_serial_witness(&h, witness, k);
    // The pending E(x) must take effect before the dequeue that returned x.
    assert_eq!(&witness.serial_order()[..k], &[1, 2]);
}

#[test]
fn h4_is_not_linearizable() {
    let h = h4();
    let spec = queue_spec(&h);
    assert!(find_witness(&h, spec.iter()).is_none(), "H4 has no serial witness");
    // No sequential queue dequeues y twice: no serial history even has H4's results.
    assert!(spec.iter().all(|s| ObservationKey::of(s) != ObservationKey::of(&h)));
}

#[test]
fn a_specification_without_the_right_results_has_no_witness_for_h1() {
    // Drop the serial histories in which E(x) precedes E(y): nothing dequeues x first any more.
    let h = h1();
    let spec: Vec<History> = queue_spec(&h)
        .into_iter()
        .filter(|s| {
            let order = s.serial_order();
            order.iter().position(|&op| op == 2) < order.iter().position(|&op| op == 1)
        })
        .collect();
    // B's E(y) first, then A's three ops interleaved with B's dequeue: 4 serial histories.
    assert_eq!(spec.len(), 4);
    assert!(find_witness(&h, spec.iter()).is_none());
}

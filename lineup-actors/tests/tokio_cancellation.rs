//! tokio's `sync::{Mutex, Semaphore, mpsc}` (through shuttle-tokio, on the runtime lineup drives)
//! checked with cancellation: every `.await` of a cancellable operation may be where its caller
//! drops it (`Invocation::cancellable`). tokio documents these as cancel-safe (a `lock`, an
//! `acquire` or a `recv` dropped while waiting takes nothing and leaves nothing behind), and
//! lineup finds no violation: the verdicts recorded here are PASS.

use lineup::future::yield_now;
use lineup::{check, Config, Invocation, Subject, TestMatrix, Verdict};
use tokio::sync::{mpsc, Mutex, Semaphore};

/// The verdict's report: the violation's, or the statistics of a pass.
fn shown(verdict: &Verdict) -> String {
    match verdict.violation() {
        Some(violation) => violation.to_string(),
        None => format!("{:?}", verdict.stats()),
    }
}

/// A counter behind `tokio::sync::Mutex`: `incr` holds the guard across a scheduling point.
fn mutex_counter() -> Subject<Mutex<u64>> {
    Subject::new("tokio::sync::Mutex counter", || Mutex::new(0u64))
        .with(
            Invocation::new_async("incr", async |m: &Mutex<u64>| {
                let mut value = m.lock().await;
                let read = *value;
                yield_now().await;
                *value = read + 1;
                read + 1
            })
            .cancellable(),
        )
        .with(Invocation::new_async("get", async |m: &Mutex<u64>| *m.lock().await).cancellable())
}

#[test]
fn tokio_mutex_is_cancel_safe() {
    let matrix = TestMatrix::new(vec![vec![0, 1], vec![0, 1]]);
    let verdict = check(&mutex_counter(), &matrix, &Config::default()).unwrap();
    assert!(verdict.is_pass(), "{}", shown(&verdict));
    assert!(verdict.stats().cancellation_points > 0);
}

/// A one-permit `tokio::sync::Semaphore`: `use_permit` holds its permit across a scheduling
/// point.
fn one_permit() -> Subject<Semaphore> {
    Subject::new("tokio::sync::Semaphore", || Semaphore::new(1)).with(
        Invocation::new_async("use_permit", async |s: &Semaphore| {
            let _permit = s.acquire().await.unwrap();
            yield_now().await;
        })
        .cancellable(),
    )
}

#[test]
fn tokio_semaphore_is_cancel_safe() {
    let matrix = TestMatrix::new(vec![vec![0], vec![0, 0]]);
    let verdict = check(&one_permit(), &matrix, &Config::default()).unwrap();
    assert!(verdict.is_pass(), "{}", shown(&verdict));
    assert!(verdict.stats().cancellation_points > 0);
}

/// A bounded `tokio::sync::mpsc` channel of capacity 1; the receiver behind a
/// `tokio::sync::Mutex` so that operations on `&self` reach it.
struct Channel {
    tx: mpsc::Sender<u32>,
    rx: Mutex<mpsc::Receiver<u32>>,
}

fn bounded_channel() -> Subject<Channel> {
    Subject::new("tokio::sync::mpsc (capacity 1)", || {
        let (tx, rx) = mpsc::channel(1);
        Channel { tx, rx: Mutex::new(rx) }
    })
    .with(
        Invocation::new_async("send", async |c: &Channel| c.tx.send(1).await.is_ok())
            .arg(1)
            .cancellable(),
    )
    .with(
        Invocation::new_async("send", async |c: &Channel| c.tx.send(2).await.is_ok())
            .arg(2)
            .cancellable(),
    )
    .with(Invocation::new_async("recv", async |c: &Channel| c.rx.lock().await.recv().await).cancellable())
    .with(Invocation::new_async("try_recv", async |c: &Channel| {
        c.rx.lock().await.try_recv().ok()
    }))
}

#[test]
fn tokio_mpsc_is_cancel_safe() {
    // recv, try_recv on one thread; send(1), send(2) on the other (the second send waits for room).
    let matrix = TestMatrix::new(vec![vec![2, 3], vec![0, 1]]);
    let verdict = check(&bounded_channel(), &matrix, &Config::default()).unwrap();
    assert!(verdict.is_pass(), "{}", shown(&verdict));
    assert!(verdict.stats().cancellation_points > 0);
}

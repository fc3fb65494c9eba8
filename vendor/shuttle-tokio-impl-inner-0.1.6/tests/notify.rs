use shuttle::future;
use shuttle_tokio_impl_inner::sync::notify::Notify;
use std::collections::VecDeque;
use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc, Mutex,
};
use test_log::test;

fn check_dfs<F>(f: F)
where
    F: Fn() + Send + Sync + 'static,
{
    use shuttle::scheduler::DfsScheduler;
    let mut config = shuttle::Config::default();
    config.max_steps = shuttle::MaxSteps::FailAfter(1_000);

    let scheduler = DfsScheduler::new(None, true);
    let runner = shuttle::Runner::new(scheduler, config);
    runner.run(f);
}

#[test]
fn notify_mpsc_channel() {
    // Example from the tokio docs for Notify

    // Unbound multi-producer single-consumer (mpsc) channel.
    //
    // No wakeups can be lost when using this channel because the call to
    // `notify_one()` will store a permit in the `Notify`, which the following call
    // to `notified()` will consume.
    struct Channel<T> {
        values: Mutex<VecDeque<T>>,
        notify: Notify,
    }

    impl<T> Channel<T> {
        fn new() -> Self {
            Self {
                values: Mutex::new(VecDeque::new()),
                notify: Notify::new(),
            }
        }
        pub fn send(&self, value: T) {
            let mut values = self.values.lock().unwrap();
            values.push_back(value);
            drop(values);

            // Notify the consumer a value is available
            self.notify.notify_one();
        }

        // This is a single-consumer channel, so several concurrent calls to
        // `recv` are not allowed.
        pub async fn recv(&self) -> T {
            loop {
                // Drain values
                {
                    let mut values = self.values.lock().unwrap();
                    if let Some(value) = values.pop_front() {
                        return value;
                    }
                    drop(values);
                }

                // Wait for values to be available
                self.notify.notified().await;
            }
        }
    }

    check_dfs(|| {
        future::block_on(async {
            let tx1 = Arc::new(Channel::new());
            let tx2 = tx1.clone();
            let rx = tx1.clone();
            future::spawn(async move {
                tx1.send(1);
            });
            future::spawn(async move {
                tx2.send(2);
            });
            let mut v = rx.recv().await;
            v += rx.recv().await;
            assert_eq!(v, 3);
        });
    });
}

#[test]
fn notify_mpmc_channel() {
    // Example from the tokio docs for Notify
    // A multi-producer, multi-consumer channel

    struct Channel<T> {
        messages: Mutex<VecDeque<T>>,
        notify_on_sent: Notify,
    }

    impl<T> Channel<T> {
        fn new() -> Self {
            Self {
                messages: Mutex::new(VecDeque::new()),
                notify_on_sent: Notify::new(),
            }
        }

        pub fn send(&self, msg: T) {
            let mut locked_queue = self.messages.lock().unwrap();
            locked_queue.push_back(msg);
            drop(locked_queue);

            // Send a notification to one of the calls currently
            // waiting in a call to `recv`.
            self.notify_on_sent.notify_one();
        }

        pub fn try_recv(&self) -> Option<T> {
            let mut locked_queue = self.messages.lock().unwrap();
            locked_queue.pop_front()
        }

        pub async fn recv(&self) -> T {
            let mut future = self.notify_on_sent.notified();
            let mut future = unsafe { std::pin::Pin::new_unchecked(&mut future) };

            loop {
                // Make sure that no wakeup is lost if we get
                // `None` from `try_recv`.
                future.as_mut().enable();

                if let Some(msg) = self.try_recv() {
                    return msg;
                }

                // Wait for a call to `notify_one`.
                //
                // This uses `.as_mut()` to avoid consuming the future,
                // which lets us call `Pin::set` below.
                future.as_mut().await;

                // Reset the future in case another call to
                // `try_recv` got the message before us.
                future.set(self.notify_on_sent.notified());
            }
        }
    }

    check_dfs(|| {
        future::block_on(async {
            let counter = Arc::new(AtomicUsize::new(0));
            let counter1 = counter.clone();
            let counter2 = counter.clone();

            let tx1 = Arc::new(Channel::new());
            let tx2 = tx1.clone();
            let rx1 = tx1.clone();
            let rx2 = tx1.clone();
            future::spawn(async move {
                tx1.send(1);
            });
            future::spawn(async move {
                tx2.send(2);
            });
            let r1 = future::spawn(async move {
                let x = rx1.recv().await;
                counter1.fetch_add(x, Ordering::SeqCst);
            });
            let r2 = future::spawn(async move {
                let x = rx2.recv().await;
                counter2.fetch_add(x, Ordering::SeqCst);
            });
            r1.await.unwrap();
            r2.await.unwrap();
            assert_eq!(counter.load(Ordering::SeqCst), 3);
        });
    });
}

fn notify_mpmc_channel_2_test(do_enable: bool) {
    // Example from the tokio docs

    // Unbound multi-producer multi-consumer (mpmc) channel.
    //
    // The call to `enable` is important because otherwise if you have two
    // calls to `recv` and two calls to `send` in parallel, the following could
    // happen:
    //
    //  1. Both calls to `try_recv` return `None`.
    //  2. Both new elements are added to the vector.
    //  3. The `notify_one` method is called twice, adding only a single
    //     permit to the `Notify`.
    //  4. Both calls to `recv` reach the `Notified` future. One of them
    //     consumes the permit, and the other sleeps forever.
    //
    // By adding the `Notified` futures to the list by calling `enable` before
    // `try_recv`, the `notify_one` calls in step three would remove the
    // futures from the list and mark them notified instead of adding a permit
    // to the `Notify`. This ensures that both futures are woken.
    struct Channel<T> {
        messages: Mutex<VecDeque<T>>,
        notify_on_sent: Notify,
        do_enable: bool,
    }

    impl<T> Channel<T> {
        fn new(do_enable: bool) -> Self {
            Self {
                messages: Mutex::new(VecDeque::new()),
                notify_on_sent: Notify::new(),
                do_enable,
            }
        }

        pub fn send(&self, msg: T) {
            let mut locked_queue = self.messages.lock().unwrap();
            locked_queue.push_back(msg);
            drop(locked_queue);

            // Send a notification to one of the calls currently
            // waiting in a call to `recv`.
            self.notify_on_sent.notify_one();
        }

        pub fn try_recv(&self) -> Option<T> {
            let mut locked_queue = self.messages.lock().unwrap();
            locked_queue.pop_front()
        }

        pub async fn recv(&self) -> T {
            let mut future = self.notify_on_sent.notified();
            let mut future = unsafe { std::pin::Pin::new_unchecked(&mut future) };

            loop {
                if self.do_enable {
                    // Make sure that no wakeup is lost if we get `None` from `try_recv`.
                    future.as_mut().enable();
                }

                if let Some(msg) = self.try_recv() {
                    return msg;
                }

                // Force context switch before the future is polled
                shuttle::future::yield_now().await;

                // Wait for a call to `notify_one`.
                //
                // This uses `.as_mut()` to avoid consuming the future,
                // which lets us call `Pin::set` below.
                future.as_mut().await;

                // Reset the future in case another call to
                // `try_recv` got the message before us.
                future.set(self.notify_on_sent.notified());
            }
        }
    }

    check_dfs(move || {
        future::block_on(async {
            let counter = Arc::new(AtomicUsize::new(0));
            let counter1 = counter.clone();
            let counter2 = counter.clone();

            let tx1 = Arc::new(Channel::new(do_enable));
            let tx2 = tx1.clone();
            let rx1 = tx1.clone();
            let rx2 = tx1.clone();

            let mut h = vec![];

            h.push(future::spawn(async move {
                let x = rx1.recv().await;
                counter1.fetch_add(x, Ordering::SeqCst);
            }));
            h.push(future::spawn(async move {
                let x = rx2.recv().await;
                counter2.fetch_add(x, Ordering::SeqCst);
            }));
            h.push(future::spawn(async move {
                tx1.send(1);
            }));

            // The second send runs on this task rather than in a spawned one. This task has to
            // exist regardless and would otherwise do nothing but join, so spawning a fourth task
            // for it only adds a schedulable entity that multiplies the interleaving space without
            // adding any concurrency to the channel. Joining sequentially rather than with
            // `join_all` is likewise cheaper for the same reason. Together these keep the search
            // exhaustive while cutting it from 666,570 interleavings to a small fraction.
            tx2.send(2);

            for handle in h {
                handle.await.unwrap();
            }
            assert_eq!(counter.load(Ordering::SeqCst), 3);
        });
    });
}

#[test]
fn notify_mpmc_no_deadlock() {
    notify_mpmc_channel_2_test(true);
}

#[test]
#[should_panic(expected = "deadlock")]
fn notify_mpmc_deadlock() {
    notify_mpmc_channel_2_test(false);
}

// Regression test: `notify_one` must not panic when the `Notified` future is
// dropped after the waiter's flag is set to `NotifiedOne` but before the internal
// oneshot send completes.
//
// The race:
//   1. Spawned task polls `notified()`, enabling its waiter (flag = `Enabled`).
//   2. `handle.abort()` wakes the task so it is runnable for cancellation.
//   3. `notify_one()` finds the `Enabled` waiter, removes it, sets flag = `NotifiedOne`,
//      then calls `tx.send()` which yields before the actual send.
//   4. At that yield the DFS scheduler runs the aborted task, dropping the
//      `Notified` future (and its oneshot receiver) while flag is already `NotifiedOne`.
//   5. The send resumes and returns `Err` — `let _ =` handles it; `.unwrap()` panics.
#[test]
fn notify_one_drop_notified_before_send() {
    check_dfs(|| {
        future::block_on(async {
            let notify = Arc::new(Notify::new());
            let notify2 = notify.clone();

            let handle = future::spawn(async move {
                notify2.notified().await;
            });

            // Let the spawned task poll its Notified future, transitioning
            // the waiter from `Init` to `Enabled`.
            shuttle::future::yield_now().await;

            // Abort the task — this wakes it so it is runnable for
            // cancellation at the next scheduling point.
            handle.abort();

            // notify_one sets flag = `NotifiedOne` then yields inside tx.send().
            // The DFS scheduler may run the aborted task at that yield,
            // dropping the receiver before the send completes.
            notify.notify_one();

            let _ = handle.await;
        });
    });
}

/// Regression test: Shuttle must be able to schedule a notifier between a
/// waiter's check and its `notified()`.
///
/// The classic `Notify` misuse: check a condition, then create the `Notified`.
/// If the notifier sets the condition and calls `notify_waiters()` between the
/// two, the notification is lost and the waiter waits forever.
#[test]
#[should_panic(expected = "deadlock")]
fn notify_lost_wakeup_deadlock() {
    check_dfs(|| {
        let notify = Arc::new(Notify::new());
        let ready = Arc::new(shuttle::sync::Mutex::new(false));

        let waiter = {
            let (notify, ready) = (notify.clone(), ready.clone());
            shuttle::thread::spawn(move || {
                let is_ready = *ready.lock().unwrap();
                if !is_ready {
                    // BUG (in this test program): registers after checking.
                    future::block_on(notify.notified());
                }
            })
        };

        *ready.lock().unwrap() = true;
        notify.notify_waiters();

        waiter.join().unwrap();
    });
}

/// `notify_lost_wakeup_deadlock` with a future task that checks an atomic, so
/// that the scheduling point in `notified()` is taken in the middle of a poll.
#[test]
#[should_panic(expected = "deadlock")]
fn notify_lost_wakeup_deadlock_async() {
    check_dfs(|| {
        let notify = Arc::new(Notify::new());
        let ready = Arc::new(shuttle::sync::atomic::AtomicBool::new(false));

        let waiter = {
            let (notify, ready) = (notify.clone(), ready.clone());
            future::spawn(async move {
                if !ready.load(Ordering::SeqCst) {
                    // BUG (in this test program): registers after checking.
                    notify.notified().await;
                }
            })
        };

        ready.store(true, Ordering::SeqCst);
        notify.notify_waiters();

        future::block_on(waiter).unwrap();
    });
}

/// The fix for `notify_lost_wakeup_deadlock`: create the `Notified` before the
/// check. `notify_waiters` notifies it from then on, even before it is polled,
/// so no interleaving loses the wakeup.
#[test]
fn notify_register_before_check_no_deadlock() {
    check_dfs(|| {
        let notify = Arc::new(Notify::new());
        let ready = Arc::new(shuttle::sync::atomic::AtomicBool::new(false));

        let waiter = {
            let (notify, ready) = (notify.clone(), ready.clone());
            future::spawn(async move {
                let notified = notify.notified();
                if !ready.load(Ordering::SeqCst) {
                    notified.await;
                }
            })
        };

        ready.store(true, Ordering::SeqCst);
        notify.notify_waiters();

        future::block_on(waiter).unwrap();
    });
}

/// Regression test: `notify_waiters` must not discard a stored permit.
///
/// `notify_one()` with no waiter stores a permit. `notify_waiters()` notifies
/// only the waiters registered when it is called and leaves the permit in place,
/// so the later `notified()` takes it and completes at once.
#[test]
fn notify_waiters_keeps_stored_permit() {
    check_dfs(|| {
        let notify = Notify::new();
        notify.notify_one();
        notify.notify_waiters();
        future::block_on(notify.notified());
    });
}

/// A waiter that `notify_waiters()` notifies before its first poll completes
/// without the stored permit, which the next `notified()` then takes. This is
/// tokio's behavior since 1.51; before, a waiter's first poll took the permit.
#[test]
fn notify_waiters_leaves_permit_for_next_waiter() {
    check_dfs(|| {
        let notify = Notify::new();
        notify.notify_one();
        let first = notify.notified();
        notify.notify_waiters();
        future::block_on(first);
        future::block_on(notify.notified());
    });
}

/// Regression test: `notify_one()` notifies a `Notified`, and the `Notified` is dropped before it
/// completes. As in tokio, the drop passes the notification on to another waiter. Previously, the
/// notification was lost, and the other waiter waited forever.
#[test]
fn notify_one_to_dropped_waiter_is_passed_on() {
    check_dfs(|| {
        future::block_on(async {
            let notify = Arc::new(Notify::new());

            // `notify_one()` can choose this waiter. It is then dropped before it completes.
            let mut dropped = Box::pin(notify.notified());
            assert!(!dropped.as_mut().enable());

            let other = {
                let notify = notify.clone();
                future::spawn(async move { notify.notified().await })
            };

            notify.notify_one();
            drop(dropped);

            other.await.unwrap();
        });
    });
}

/// A completed `Notified` does not pass its notification on when it is dropped. Passing it on would
/// store a permit that no `notify_one()` call stored.
#[test]
fn notify_one_to_completed_waiter_is_not_passed_on() {
    check_dfs(|| {
        future::block_on(async {
            let notify = Arc::new(Notify::new());

            let mut first = Box::pin(notify.notified());
            assert!(!first.as_mut().enable());
            notify.notify_one();
            first.as_mut().await;
            drop(first);

            let mut second = Box::pin(notify.notified());
            assert!(!second.as_mut().enable(), "permit stored by a dropped waiter");
        });
    });
}

/// A `Notified` that `notify_one()` notified, and that is dropped after its execution ended, does
/// not panic. Outside an execution, the drop does not pass the notification on.
#[test]
fn notify_one_to_waiter_dropped_after_execution() {
    use shuttle_tokio_impl_inner::sync::notify::Notified;
    use std::pin::Pin;

    static KEPT: Mutex<Option<Pin<Box<Notified<'static>>>>> = Mutex::new(None);
    check_dfs(|| {
        let notify: &'static Notify = Box::leak(Box::new(Notify::new()));
        let mut notified = Box::pin(notify.notified());
        assert!(!notified.as_mut().enable());
        notify.notify_one();
        // Keep the notified `Notified` past the end of the execution.
        *KEPT.lock().unwrap() = Some(notified);
    });
    drop(KEPT.lock().unwrap().take());
}

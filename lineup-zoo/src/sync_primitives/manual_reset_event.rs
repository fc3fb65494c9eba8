//! `ManualResetEvent` (the .NET `ManualResetEventSlim` design): a state word with a *set* flag
//! and a waiter count, updated by compare-and-swap; `wait` registers as a waiter and blocks on a
//! condition variable until `set` wakes it, and spins once before it blocks again.
//!
//! The `Pre` variant reproduces root cause A of the paper (§5.2.1, Fig. 9).

use lineup::shuttle::hint::spin_loop;
use lineup::sync::atomic::{AtomicU32, Ordering::SeqCst};
use lineup::sync::{Condvar, Mutex};

/// The *set* flag of the state word.
const SET: u32 = 1;
/// One waiter in the waiter count (bits 1 and up of the state word).
const ONE_WAITER: u32 = 2;

/// A manual-reset event, correct (`SECOND_READ = false`, [`ManualResetEvent`]) or with bug A
/// (`SECOND_READ = true`, [`ManualResetEventPre`]). Use the aliases.
#[derive(Default)]
pub struct ManualResetEventImpl<const SECOND_READ: bool> {
    /// `SET` flag and waiter count.
    state: AtomicU32,
    /// Protects blocking: a waiter checks the flag and starts waiting under it.
    lock: Mutex<()>,
    /// Waiters block here; `set` wakes all of them.
    signaled: Condvar,
}

/// A correct manual-reset event: `set` opens it and wakes every waiter, `reset` closes it,
/// `wait` blocks while it is closed, `is_set` and `try_wait` (.NET `Wait(0)` / `WaitOne(0)`)
/// report whether it is open without blocking. Every update of the state word computes the new
/// state from the value the compare-and-swap then expects.
pub type ManualResetEvent = ManualResetEventImpl<false>;

/// Root cause A (.NET 4.0 CTP `ManualResetEvent`): the compare-and-swap loop that updates the
/// state word reads the word once into `local` and then computes the new state from a *second*
/// read of the shared word (`new = f(state)` instead of `new = f(local)`), the typing error the
/// paper shows. When the word changes between the two reads and changes back before the CAS
/// (an ABA), the CAS succeeds and writes a state computed from a value that is no longer
/// current. In the test of Fig. 9, `wait() | set(), reset(), set()`: the waiter is woken by the
/// first `set` and unregisters while the second `set` is between its first read (`local` = one
/// waiter) and its second read (zero waiters: `new` = set, zero waiters); the waiter spins,
/// finds the event reset, registers again and blocks (the word is back at `local`), and the
/// CAS succeeds: the waiter count is lost, `set` sees no waiter and wakes nobody, and the waiter
/// blocks forever although the event is set (two preemptions). Every value returned is right:
/// only the stuck-history check sees this. The same misuse also resurrects the *set* flag after
/// a `reset` (a waiter registering computes its new state from a read taken while the event
/// was set), a full-history violation, e.g. in `set() | reset() | wait(), wait()`. Serial
/// executions never change the word between the two reads, so they all behave correctly.
pub type ManualResetEventPre = ManualResetEventImpl<true>;

#[lineup::invocations]
impl<const SECOND_READ: bool> ManualResetEventImpl<SECOND_READ> {
    /// Opens the event and wakes every waiter (.NET `Set`).
    #[invoke]
    pub fn set(&self) {
        self.update_state(|s| s | SET);
        if self.state.load(SeqCst) >= ONE_WAITER {
            let _guard = self.lock.lock().unwrap();
            self.signaled.notify_all();
        }
    }

    /// Closes the event (.NET `Reset`).
    #[invoke]
    pub fn reset(&self) {
        self.update_state(|s| s & !SET);
    }

    /// Blocks until the event is open (.NET `Wait()`).
    #[invoke]
    pub fn wait(&self) {
        while !self.is_set() {
            self.update_state(|s| s.wrapping_add(ONE_WAITER));
            {
                let guard = self.lock.lock().unwrap();
                if !self.is_set() {
                    let _guard = self.signaled.wait(guard).unwrap();
                }
            }
            self.update_state(|s| s.wrapping_sub(ONE_WAITER));
            // Woken, but the event may have been reset again: give a `set` in progress the
            // chance to finish before checking again (the spin phase of a spin-then-block wait).
            spin_loop();
        }
    }

    /// Whether the event is open (.NET `IsSet`).
    #[invoke]
    pub fn is_set(&self) -> bool {
        self.state.load(SeqCst) & SET != 0
    }

    /// Waits with a zero timeout (.NET `Wait(0)`, `WaitOne(0)`): whether the event is open,
    /// without blocking.
    #[invoke]
    pub fn try_wait(&self) -> bool {
        self.is_set()
    }

    /// Atomically replaces the state word `s` by `f(s)`, retrying (with a spin) when another
    /// thread changed it; returns the new state.
    fn update_state(&self, f: impl Fn(u32) -> u32) -> u32 {
        loop {
            let local = self.state.load(SeqCst);
            // Bug A: the new state is computed from a second read of the shared word.
            let new = if SECOND_READ {
                f(self.state.load(SeqCst))
            } else {
                f(local)
            };
            if self.state.compare_exchange(local, new, SeqCst, SeqCst).is_ok() {
                return new;
            }
            spin_loop();
        }
    }
}

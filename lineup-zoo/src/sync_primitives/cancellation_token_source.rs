//! `CancellationTokenSource`: cancellation with registered callbacks. The paper checks
//! `Cancel` and a registered callback that increments a counter ("Increment"). One correct
//! version, and one that runs the callbacks after `cancel` has returned, for root cause K.

use lineup::sync::{Arc, Mutex};

/// A registered callback; it gets the user state it works on (the counter).
type Callback = Box<dyn FnOnce(&mut u64) + Send>;

#[derive(Default)]
struct State {
    cancelled: bool,
    /// Callbacks not run yet, in registration order.
    callbacks: Vec<Callback>,
    /// The counter the registered callbacks increment (user state, guarded by the source's
    /// lock so that a callback is one step).
    increments: u64,
}

impl State {
    /// Runs the callbacks, in reverse registration order as .NET does.
    fn run(&mut self, callbacks: Vec<Callback>) {
        for callback in callbacks.into_iter().rev() {
            callback(&mut self.increments);
        }
    }
}

/// The operations both versions have.
macro_rules! cts_invocations {
    ($ty:ty) => {
        #[lineup::invocations]
        impl $ty {
            /// Registers a callback that increments the counter when the source is cancelled;
            /// on a cancelled source it runs at once (.NET `Token.Register(callback)`).
            #[invoke]
            pub fn register_increment(&self) {
                let callback: Callback = Box::new(|counter| *counter += 1);
                let mut state = self.state.lock().unwrap();
                if state.cancelled {
                    callback(&mut state.increments);
                } else {
                    state.callbacks.push(callback);
                }
            }

            /// Requests cancellation and runs the registered callbacks (.NET `Cancel()`).
            #[invoke]
            pub fn cancel(&self) {
                self.cancel_and_run_callbacks();
            }

            /// Whether cancellation was requested (.NET `IsCancellationRequested`).
            #[invoke]
            pub fn is_cancellation_requested(&self) -> bool {
                self.state.lock().unwrap().cancelled
            }

            /// How many callbacks have run (the counter the callbacks increment).
            #[invoke]
            pub fn increments(&self) -> u64 {
                self.state.lock().unwrap().increments
            }
        }
    };
}

/// A correct cancellation source: `cancel` marks the source cancelled and runs every registered
/// callback (in reverse registration order, as .NET does) before it returns, under the state
/// lock, so that no operation sees a cancellation whose callbacks have only partly run. The
/// paper reports no root cause for it.
#[derive(Default)]
pub struct CancellationTokenSource {
    state: Mutex<State>,
}

impl CancellationTokenSource {
    fn cancel_and_run_callbacks(&self) {
        let mut state = self.state.lock().unwrap();
        if state.cancelled {
            return;
        }
        state.cancelled = true;
        let callbacks = std::mem::take(&mut state.callbacks);
        state.run(callbacks);
    }
}

cts_invocations!(CancellationTokenSource);

/// Root cause K (intentional non-linearizability, which the paper finds in the cancellation of
/// `BlockingCollection`, modelled here on the cancellation source itself): the effect of
/// cancellation takes place after `cancel` has returned. `cancel` marks the source cancelled
/// and hands the registered callbacks to a thread of their own (as an asynchronous
/// cancellation would hand them to the thread pool), so `increments()` right after `cancel()`,
/// in the same thread, may still see 0 although a callback was registered. Since such a thread
/// runs at any point in serial executions too, lineup reports the late effect in phase 1, as
/// nondeterminism: `register_increment(), cancel(), increments()` returns 0 or 1 serially.
#[derive(Default)]
pub struct LateCancellationTokenSource {
    state: Arc<Mutex<State>>,
}

impl LateCancellationTokenSource {
    fn cancel_and_run_callbacks(&self) {
        let callbacks = {
            let mut state = self.state.lock().unwrap();
            if state.cancelled {
                return;
            }
            state.cancelled = true;
            std::mem::take(&mut state.callbacks)
        };
        if !callbacks.is_empty() {
            // K: the callbacks run after `cancel` returns.
            let state = Arc::clone(&self.state);
            lineup::shuttle::thread::spawn(move || state.lock().unwrap().run(callbacks));
        }
    }
}

cts_invocations!(LateCancellationTokenSource);

//! Threads and spin hints for the object under test, from the backend lineup runs
//! on: shuttle's by default, loom's under `--cfg loom` (see [`sync`](crate::sync)).

/// Threads of the backend: `spawn`, `yield_now`, `JoinHandle`, ...
///
/// Under loom, `spawn` is loom's with the thread tracked while it runs, so that lineup can tell
/// when every thread of an execution waits for good in `lineup::sync` (and end that stuck
/// execution itself instead of loom's deadlock assertion, which would end the exploration).
/// Its `JoinHandle::join` returns `Err`, as for a panicked thread, if the thread was waiting
/// when lineup ended such an execution.
pub mod thread {
    #[cfg(not(loom))]
    use crate::explore::trace;
    #[cfg(not(loom))]
    use crate::explore::trace::Action;
    #[cfg(loom)]
    pub use crate::loom_backend::wait_registry::JoinHandle;
    #[cfg(loom)]
    pub use loom::thread::*;
    #[cfg(not(loom))]
    pub use shuttle::thread::*;
    #[cfg(not(loom))]
    use std::panic::Location;

    /// On shuttle: shuttle's `spawn`, which tells lineup's partial-order reduction that the
    /// spawning step and the new thread's last step are not shuttle primitives it cannot see, and
    /// lets lineup end the thread at the end of an execution: once the last operation has
    /// returned, a receive of `lineup::sync::mpsc` in such a thread reports the channel
    /// disconnected (the *quiet end*), so that an actor's loop ends and its thread finishes, and
    /// shuttle reuses its stack. A panic of the thread during the quiet end (an `unwrap` of that
    /// receive), or while a stuck execution is abandoned, ends it too, silently: its
    /// [`JoinHandle::join`] returns `Err`.
    #[cfg(not(loom))]
    #[track_caller]
    pub fn spawn<F, T>(f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        use crate::explore::recording;
        // Spawns commute with every step but other spawns (shuttle's own `spawn` too: they write
        // the same order of spawns).
        let _seen = crate::explore::footprint::announce_spawn();
        let step = trace::begin(None, Some(Location::caller()));
        let inner = shuttle::thread::spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            let me = shuttle::current::me();
            // Quiet also while the execution is being abandoned: the history was taken already.
            let quiet = recording::with(|r| {
                r.own_threads.finished(me);
                r.own_threads.quiet_end
            }) || crate::explore::abandonment::is_abandoning();
            crate::explore::footprint::note_finishing();
            match result {
                Ok(value) => Some(value),
                Err(_) if quiet => None,
                Err(payload) => std::panic::resume_unwind(payload),
            }
        });
        let task = shuttle::current::TaskId::from(usize::from(inner.thread().id()));
        recording::with(|r| r.own_threads.spawned(task));
        step.done(|| Action::Spawn {
            task: usize::from(task),
        });
        let thread = Thread {
            inner: inner.thread().clone(),
        };
        JoinHandle { inner, thread }
    }

    /// The handle of a thread spawned through [`spawn`] on shuttle.
    #[cfg(not(loom))]
    #[derive(Debug)]
    pub struct JoinHandle<T> {
        inner: shuttle::thread::JoinHandle<Option<T>>,
        thread: Thread,
    }

    /// On shuttle: a handle to a thread, the same as [`std::thread::Thread`]: shuttle's, whose
    /// [`unpark`](Self::unpark) lineup's partial-order reduction sees (a write of the thread's park
    /// token).
    #[cfg(not(loom))]
    #[derive(Debug, Clone)]
    pub struct Thread {
        inner: shuttle::thread::Thread,
    }

    #[cfg(not(loom))]
    impl Thread {
        /// The thread's name, if it has one.
        pub fn name(&self) -> Option<&str> {
            self.inner.name()
        }

        /// The thread's identifier.
        pub fn id(&self) -> ThreadId {
            self.inner.id()
        }

        /// Makes the thread's park token available (waking it if it is parked): shuttle's, a
        /// scheduling point, announced as a write of the thread's token.
        #[track_caller]
        pub fn unpark(&self) {
            let task = shuttle::current::TaskId::from(usize::from(self.inner.id()));
            let _seen = crate::explore::footprint::announce_token(task, false);
            let step = trace::begin(None, Some(Location::caller()));
            self.inner.unpark();
            step.done(|| Action::Notify { kind: "unpark" });
        }
    }

    /// On shuttle: the handle of the thread that calls it (shuttle's, see [`Thread`]).
    #[cfg(not(loom))]
    pub fn current() -> Thread {
        Thread {
            inner: shuttle::thread::current(),
        }
    }

    /// On shuttle: blocks until the current thread's park token is available, and takes it
    /// (shuttle's: it may wake spuriously, and has a scheduling point only if it blocks),
    /// announced as a write of the token; a thread parking inside an operation of a stuck
    /// execution unwinds after it (see [`yield_now`]).
    #[cfg(not(loom))]
    #[track_caller]
    pub fn park() {
        let seen = crate::explore::footprint::announce_token(shuttle::current::me(), true);
        let step = trace::begin(None, Some(Location::caller()));
        shuttle::thread::park();
        drop(seen);
        step.done(|| Action::Wait { kind: "park" });
        crate::explore::abandonment::abandon_here();
    }

    /// On shuttle: [`park`] (shuttle does not model time: the timeout never fires, and a thread
    /// that parks for good is stuck).
    #[cfg(not(loom))]
    #[track_caller]
    pub fn park_timeout(_dur: std::time::Duration) {
        park();
    }

    /// Under loom: [`park`] (loom does not model time: the timeout never fires).
    #[cfg(loom)]
    pub fn park_timeout(_dur: std::time::Duration) {
        loom::thread::park();
    }

    #[cfg(not(loom))]
    impl<T> JoinHandle<T> {
        /// Waits for the thread to end: its result, or `Err` with the payload if it panicked (or,
        /// only after the last operation returned, if lineup ended it: see [`spawn`]).
        #[track_caller]
        pub fn join(self) -> std::thread::Result<T> {
            let step = trace::begin(None, Some(Location::caller()));
            let result = self.inner.join();
            step.done(|| Action::Join);
            match result {
                Ok(Some(value)) => Ok(value),
                Ok(None) => Err(Box::new("lineup ended the thread at the end of the execution")),
                Err(payload) => Err(payload),
            }
        }

        /// The thread's handle.
        pub fn thread(&self) -> &Thread {
            &self.thread
        }
    }

    /// On shuttle: shuttle's `yield_now`, after which a thread spinning inside an operation of a
    /// stuck execution unwinds, so that lineup ends the execution cleanly.
    #[cfg(not(loom))]
    #[track_caller]
    pub fn yield_now() {
        let step = trace::begin(None, Some(Location::caller()));
        shuttle::thread::yield_now();
        step.done(|| Action::Yield);
        crate::explore::abandonment::abandon_here();
    }

    /// Under loom: loom's `yield_now`, noted by lineup, so that a branch-limit overflow in which
    /// every pending operation's thread yields is told apart from an unfair schedule.
    #[cfg(loom)]
    pub fn yield_now() {
        crate::loom_backend::harness::note_yield();
        loom::thread::yield_now();
    }

    /// Spawns a thread of the backend (under loom, tracked: see the module).
    #[cfg(loom)]
    pub fn spawn<F, T>(f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        crate::loom_backend::wait_registry::spawn(f)
    }
}

/// Spin-loop hints of the backend.
pub mod hint {
    #[cfg(loom)]
    pub use loom::hint::*;
    #[cfg(not(loom))]
    pub use shuttle::hint::*;

    /// On shuttle: shuttle's `spin_loop` (a yield), after which a thread spinning inside an
    /// operation of a stuck execution unwinds (see [`thread::yield_now`](super::thread::yield_now)).
    #[cfg(not(loom))]
    #[track_caller]
    pub fn spin_loop() {
        let step = crate::explore::trace::begin(None, Some(std::panic::Location::caller()));
        shuttle::hint::spin_loop();
        step.done(|| crate::explore::trace::Action::Yield);
        crate::explore::abandonment::abandon_here();
    }

    /// Under loom: loom's `spin_loop` (a yield), noted by lineup (see
    /// [`thread::yield_now`](super::thread::yield_now)).
    #[cfg(loom)]
    pub fn spin_loop() {
        crate::loom_backend::harness::note_yield();
        loom::hint::spin_loop();
    }
}

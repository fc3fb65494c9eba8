//! What lineup tells the threads that lineup's `vendor/shuttle-std` spawns, as a label on their
//! shuttle task (`shuttle::current::set_label_for_task`): a type that both crates name, so that
//! neither depends on the other; the [`abandonment`] of a stuck execution, which the waits of
//! lineup's primitives and of lineup's `vendor/shuttle-std` both take part in; whether the
//! [`quiet_end`] is on, which lineup's `vendor/shuttle-tokio-impl-inner` reads in its receives;
//! the [`footprint`] of a step, which lineup's vendored crates name to the reduction; and which
//! `tracing` subscriber a [`dispatch`]er holds, which lineup's `vendor/shuttle-engine` asks at
//! every switch.
//!
//! ```
//! use lineup_signals::{Guarded, QuietEnd};
//! assert_eq!(format!("{Guarded:?} {QuietEnd:?}"), "Guarded QuietEnd");
//! ```

/// Put by lineup's `vendor/shuttle-std` on every thread it spawns: a panic of the thread's
/// function while the thread has the label [`QuietEnd`] ends it quietly. lineup lets the object's
/// threads finish at the end of an execution only if every one of them has this label (a thread
/// of the published shuttle-std that panicked then would fail the execution).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guarded;

/// The execution's history is complete and the object is gone: lineup lets the object's threads
/// finish (its *quiet end*), so that shuttle reuses their stacks. A thread with this label that
/// panics (an actor that unwraps the receive of a mailbox whose last sender went with the object)
/// ends quietly instead of failing the execution: it finishes, and the panic is what its `join`
/// returns. So does any thread of lineup's `vendor/shuttle-std` that panics while lineup abandons
/// a stuck execution (see [`abandonment`]), whose history was taken already (a reply to an
/// operation that unwound).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QuietEnd;

pub mod footprint;

pub mod quiet_end {
    //! Whether the *quiet end* of shuttle's threads is on in the execution in progress on this OS
    //! thread: the history is complete, the object is gone, and lineup lets the object's tasks
    //! (those with the label [`QuietEnd`](crate::QuietEnd)) finish so that shuttle reuses their
    //! stacks. lineup's `vendor/shuttle-tokio-impl-inner` reads it in every receive, a plain flag,
    //! before it looks at the task's labels: in the quiet end, a receive of such a task that would
    //! wait is told its channel is closed, and a receive after one that ended (told, or on a
    //! channel that closed) waits for good, so that no task spins on a closed mailbox.
    //!
    //! ```
    //! use lineup_signals::quiet_end;
    //! assert!(!quiet_end::is_on());
    //! quiet_end::begin();
    //! assert!(quiet_end::is_on());
    //! quiet_end::end();
    //! assert!(!quiet_end::is_on());
    //! ```

    use std::cell::Cell;

    thread_local! {
        static ON: Cell<bool> = const { Cell::new(false) };
    }

    /// Whether the quiet end of the execution in progress on this OS thread is on.
    #[inline]
    pub fn is_on() -> bool {
        ON.with(Cell::get)
    }

    /// lineup begins the quiet end of the execution in progress.
    pub fn begin() {
        ON.with(|on| on.set(true));
    }

    /// lineup forgets the quiet end of the execution that just ended: called at the start of every
    /// execution.
    pub fn end() {
        ON.with(|on| on.set(false));
    }
}

pub mod dispatch {
    //! Which `tracing` subscriber a dispatcher holds, for lineup's `vendor/shuttle-engine`.
    //!
    //! shuttle runs every task on one OS thread, whose default dispatcher `tracing` keeps per
    //! thread; so at each switch shuttle *parks* the running task's default and reinstates the
    //! execution's, unless it can tell that they are the same. It can tell only for a global
    //! default, and lineup installs its subscriber as a scoped one (while the reduction is on):
    //! every switch then installed a default and dropped it again, and each of those writes one
    //! counter that `tracing` shares between all threads and reads on every event, so that two
    //! workers were slower than one on shuttle's channels.
    //!
    //! A subscriber that answers `downcast_raw(TypeId::of::<Identity>())` with its own address
    //! says which subscriber it is: two dispatchers that answer with one address hold one
    //! subscriber ([`same`]), and the engine does not park.
    //!
    //! ```
    //! // A dispatcher whose subscriber does not answer is the same as no other.
    //! let a = tracing_core::Dispatch::none();
    //! assert!(!lineup_signals::dispatch::same(&a, &a.clone()));
    //! ```

    /// A type of which no value exists: the [`TypeId`](std::any::TypeId) a subscriber answers
    /// with its own address (see the module).
    #[derive(Debug)]
    pub struct Identity {
        _none: (),
    }

    /// Whether both dispatchers hold one subscriber that says which it is.
    pub fn same(a: &tracing_core::Dispatch, b: &tracing_core::Dispatch) -> bool {
        let address = |d: &tracing_core::Dispatch| d.downcast_ref::<Identity>().map(|i| i as *const Identity as usize);
        matches!((address(a), address(b)), (Some(x), Some(y)) if x == y)
    }
}

pub mod abandonment {
    //! The abandonment of a stuck execution, shared by lineup and its `vendor/shuttle-std`.
    //!
    //! When lineup finds a shuttle execution stuck (every pending operation blocks for good), it
    //! records the stuck history and then *abandons* the execution instead of stopping it, so that
    //! every task finishes and shuttle reuses the tasks' stacks: lineup [`begin`]s the abandonment,
    //! wakes the tasks that wait in an abandonable wait and run one of the harness's operations
    //! ([`wake_where`]: it then unblocks them in shuttle), and each of them, back from its wait,
    //! finds that it was woken to unwind ([`end_wait_or_unwind`]) and unwinds with the payload
    //! [`Abandoned`], which the harness catches.
    //!
    //! A wait is abandonable when it registers itself ([`begin_wait`] before it blocks) and can
    //! unwind from where it blocked, leaving its primitive as if it never waited: the waits of
    //! `lineup::sync` and those of lineup's `vendor/shuttle-std` (a `Mutex`'s or `RwLock`'s lock, a
    //! `Condvar`'s wait, a `Barrier`'s, a blocking `mpsc` receive or send, `future::block_on`'s). A shuttle execution runs
    //! every task on one OS thread, so the state is a thread local; lineup resets it at the start
    //! of every execution ([`end`]). Tasks are named by their shuttle `TaskId` as a `usize`.
    //!
    //! ```
    //! use lineup_signals::abandonment;
    //! abandonment::begin_wait(3);
    //! assert!(abandonment::is_waiting(3));
    //! abandonment::begin();
    //! assert_eq!(abandonment::wake_where(|task| task == 3), vec![3]);
    //! // Back from its wait, task 3 learns that it was woken to unwind.
    //! assert!(abandonment::end_wait(3));
    //! assert!(!abandonment::is_waiting(3));
    //! abandonment::end();
    //! assert!(!abandonment::is_abandoning());
    //! ```

    use std::cell::{Cell, RefCell};
    use std::panic::resume_unwind;

    /// The unwind payload of an abandoned operation: the execution got stuck and lineup ends it.
    /// Raised with `resume_unwind`, so that no panic hook runs.
    #[derive(Debug)]
    pub struct Abandoned;

    /// The abandonable waits of the execution in progress on this OS thread.
    struct Waits {
        /// Tasks blocked in an abandonable wait.
        waiting: Vec<usize>,
        /// Waiting tasks that lineup woke to unwind (each one is also in `waiting` until it
        /// returns from its wait).
        woken: Vec<usize>,
    }

    thread_local! {
        /// The execution in progress is being abandoned: read at every abandonment point, a plain
        /// flag apart from the waits.
        static ABANDONING: Cell<bool> = const { Cell::new(false) };
        static WAITS: RefCell<Waits> = const {
            RefCell::new(Waits {
                waiting: Vec::new(),
                woken: Vec::new(),
            })
        };
    }

    /// Whether the execution in progress on this OS thread is being abandoned.
    #[inline]
    pub fn is_abandoning() -> bool {
        ABANDONING.with(Cell::get)
    }

    /// lineup begins abandoning the execution in progress.
    pub fn begin() {
        ABANDONING.with(|flag| flag.set(true));
    }

    /// lineup forgets the abandonment of the execution that just ended, if any, and every wait
    /// registered in it: called at the start of every execution (and after the last one).
    pub fn end() {
        ABANDONING.with(|flag| flag.set(false));
        WAITS.with(|waits| {
            let mut waits = waits.borrow_mut();
            waits.waiting.clear();
            waits.woken.clear();
        });
    }

    /// `task` is about to block in an abandonable wait. A wait that a destructor starts while its
    /// thread unwinds is not registered: a second unwind would abort the process, so that wait
    /// cannot be abandoned.
    pub fn begin_wait(task: usize) {
        if !std::thread::panicking() {
            WAITS.with(|waits| waits.borrow_mut().waiting.push(task));
        }
    }

    /// `task` returned from (or unwinds out of) its wait: whether lineup woke it to unwind.
    pub fn end_wait(task: usize) -> bool {
        WAITS.with(|waits| {
            let mut waits = waits.borrow_mut();
            waits.waiting.retain(|&t| t != task);
            let woken = waits.woken.contains(&task);
            waits.woken.retain(|&t| t != task);
            woken
        })
    }

    /// `task` returned from its wait: it unwinds with [`Abandoned`] if lineup woke it to.
    pub fn end_wait_or_unwind(task: usize) {
        if end_wait(task) {
            unwind();
        }
    }

    /// Whether `task` waits in an abandonable wait.
    pub fn is_waiting(task: usize) -> bool {
        WAITS.with(|waits| waits.borrow().waiting.contains(&task))
    }

    /// lineup wakes the waiting tasks for which `wake` holds and that it did not wake already: it
    /// gets them, to unblock them in shuttle. Each unwinds when it returns from its wait.
    pub fn wake_where(mut wake: impl FnMut(usize) -> bool) -> Vec<usize> {
        WAITS.with(|waits| {
            let mut waits = waits.borrow_mut();
            let new: Vec<usize> = waits
                .waiting
                .iter()
                .copied()
                .filter(|&t| !waits.woken.contains(&t) && wake(t))
                .collect();
            waits.woken.extend(&new);
            new
        })
    }

    /// Unwinds the current task with the [`Abandoned`] payload.
    pub fn unwind() -> ! {
        resume_unwind(Box::new(Abandoned))
    }
}

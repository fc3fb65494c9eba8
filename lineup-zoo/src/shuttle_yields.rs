//! An object that waits in a spin loop that yields, written twice: with shuttle's own
//! `thread::yield_now` (`lineup::shuttle::thread` used directly) and with `lineup::thread`'s. A
//! yield is a decision that gives way for lineup's scheduler whichever primitive yields (the
//! scheduler sees the yield request, not the call: `explore/sleep.rs`), so that the two explore
//! the same executions, with the reduction and without it (tests/shuttle_yields.rs). Each
//! operation of [`SpinHandOff`] hands its increment to a helper thread (`lineup::thread::spawn`)
//! and spins, yielding, until the helper raises a flag; it comes correct and with the flag raised
//! before the count is handed over, which lineup must find.

use std::sync::Arc;

use lineup::sync::atomic::{AtomicBool, AtomicU32, Ordering::SeqCst};
use lineup::thread;
use lineup::{invocations, Subject};

/// Whose `yield_now` the spin loop calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yields {
    /// `lineup::shuttle::thread::yield_now`, shuttle's own.
    Shuttle,
    /// `lineup::thread::yield_now`.
    Lineup,
}

impl Yields {
    fn yield_now(self) {
        match self {
            Yields::Shuttle => lineup::shuttle::thread::yield_now(),
            Yields::Lineup => thread::yield_now(),
        }
    }
}

/// A counter whose `add()` has a helper thread add one and hand the count over in a slot, raising
/// a flag after it; the operation spins on the flag, yielding, and returns the slot. With
/// `early_flag`, the helper raises the flag before it fills the slot: the operation may return 0.
pub struct SpinHandOff {
    count: Arc<AtomicU32>,
    yields: Yields,
    early_flag: bool,
}

impl SpinHandOff {
    /// A counter at 0 whose spin loops yield with `yields`; with `early_flag`, the buggy one.
    pub fn new(yields: Yields, early_flag: bool) -> Self {
        Self {
            count: Arc::new(AtomicU32::new(0)),
            yields,
            early_flag,
        }
    }
}

#[invocations]
impl SpinHandOff {
    /// Adds one through a helper thread: the count after it.
    #[invoke]
    pub fn add(&self) -> u32 {
        let slot = Arc::new(AtomicU32::new(0));
        let flag = Arc::new(AtomicBool::new(false));
        let (count, early_flag) = (self.count.clone(), self.early_flag);
        let (helper_slot, helper_flag) = (slot.clone(), flag.clone());
        let helper = thread::spawn(move || {
            let n = count.fetch_add(1, SeqCst) + 1;
            if early_flag {
                helper_flag.store(true, SeqCst);
                helper_slot.store(n, SeqCst);
            } else {
                helper_slot.store(n, SeqCst);
                helper_flag.store(true, SeqCst);
            }
        });
        while !flag.load(SeqCst) {
            self.yields.yield_now();
        }
        let n = slot.load(SeqCst);
        helper.join().expect("the helper returns");
        n
    }

    /// The count.
    #[invoke]
    pub fn get(&self) -> u32 {
        self.count.load(SeqCst)
    }
}

/// The hand-off with the spin loops of `yields`, correct (`false`) or with the early flag: `add()`,
/// `get()`.
pub fn spin_hand_off(yields: Yields, early_flag: bool) -> Subject<SpinHandOff> {
    let name = match (yields, early_flag) {
        (Yields::Shuttle, false) => "SpinHandOff(shuttle's yield_now)",
        (Yields::Shuttle, true) => "SpinHandOff(shuttle's yield_now, early flag)",
        (Yields::Lineup, false) => "SpinHandOff(lineup's yield_now)",
        (Yields::Lineup, true) => "SpinHandOff(lineup's yield_now, early flag)",
    };
    Subject::of(name, move || SpinHandOff::new(yields, early_flag))
}

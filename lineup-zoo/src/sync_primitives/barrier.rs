//! `Barrier`: a cyclic barrier with a changing number of participants. Root cause L of the
//! paper: a barrier is not linearizable, so the correct one fails Line-Up.

use lineup::sync::{Condvar, Mutex};

struct State {
    participants: u32,
    /// Participants that have not yet signaled in the current phase.
    remaining: u32,
    phase: u64,
}

/// A correct barrier (.NET `Barrier`) starting with [`Barrier::INITIAL_PARTICIPANTS`] participants.
/// `signal_and_wait` blocks until every participant has signaled in the current phase; the
/// last one to arrive ends the phase (the phase number increments) and releases the others.
/// `add_participant` (returns the current phase number) and `remove_participant` change the
/// number of participants; removing the last one still awaited ends the phase.
///
/// Root cause L (intentional non-linearizability): `signal_and_wait` returns only when every
/// participant has called it, so in `signal_and_wait() | signal_and_wait()` both calls return
/// concurrently while every serial execution blocks in the first one. No serial history
/// explains the concurrent one, and lineup reports it, as the paper does: the barrier is
/// correct and fails by design.
pub struct Barrier {
    state: Mutex<State>,
    phase_done: Condvar,
}

impl Default for Barrier {
    fn default() -> Self {
        Self {
            state: Mutex::new(State {
                participants: Self::INITIAL_PARTICIPANTS,
                remaining: Self::INITIAL_PARTICIPANTS,
                phase: 0,
            }),
            phase_done: Condvar::new(),
        }
    }
}

impl Barrier {
    /// The participants a new barrier has (.NET `new Barrier(2)`).
    pub const INITIAL_PARTICIPANTS: u32 = 2;

    /// Ends the current phase: the next one awaits every participant again.
    fn finish_phase(&self, state: &mut State) {
        state.phase += 1;
        state.remaining = state.participants;
        self.phase_done.notify_all();
    }
}

#[lineup::invocations]
impl Barrier {
    /// Signals arrival and blocks until every participant has arrived (.NET `SignalAndWait()`).
    ///
    /// # Panics
    ///
    /// If the barrier has no participants, as .NET throws.
    #[invoke]
    pub fn signal_and_wait(&self) {
        let mut state = self.state.lock().unwrap();
        if state.participants == 0 {
            drop(state);
            panic!("InvalidOperationException: The barrier has no registered participants.");
        }
        state.remaining -= 1;
        if state.remaining == 0 {
            self.finish_phase(&mut state);
            return;
        }
        let phase = state.phase;
        while state.phase == phase {
            state = self.phase_done.wait(state).unwrap();
        }
    }

    /// Participants that have not yet arrived in the current phase (.NET
    /// `ParticipantsRemaining`).
    #[invoke]
    pub fn participants_remaining(&self) -> u32 {
        self.state.lock().unwrap().remaining
    }

    /// Adds a participant; the current phase number (.NET `AddParticipant()`).
    #[invoke]
    pub fn add_participant(&self) -> u64 {
        let mut state = self.state.lock().unwrap();
        state.participants += 1;
        state.remaining += 1;
        state.phase
    }

    /// Removes a participant that has not arrived in the current phase (.NET
    /// `RemoveParticipant()`); if it was the last one awaited, the phase ends.
    ///
    /// # Panics
    ///
    /// If the barrier has no participants, as .NET throws.
    #[invoke]
    pub fn remove_participant(&self) {
        let mut state = self.state.lock().unwrap();
        if state.participants == 0 {
            drop(state);
            panic!("InvalidOperationException: The barrier has no registered participants.");
        }
        state.participants -= 1;
        state.remaining -= 1;
        if state.remaining == 0 && state.participants > 0 {
            self.finish_phase(&mut state);
        }
    }

    /// The number of the current phase, from 0 (.NET `CurrentPhaseNumber`).
    #[invoke]
    pub fn current_phase_number(&self) -> u64 {
        self.state.lock().unwrap().phase
    }

    /// The number of participants (.NET `ParticipantCount`).
    #[invoke]
    pub fn participant_count(&self) -> u32 {
        self.state.lock().unwrap().participants
    }
}

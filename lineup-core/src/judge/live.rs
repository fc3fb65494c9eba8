//! Executions ended so far in this process, per phase: what a progress display shows while one
//! long matrix is still being checked (phase 1 included). Counted by the exploration at the end of
//! every execution; read by [`Progress`](crate::runner::progress::Progress). Only a display: no
//! verdict or count of a check depends on it.

use std::sync::atomic::{AtomicU64, Ordering};

static SERIAL: AtomicU64 = AtomicU64::new(0);
static CONCURRENT: AtomicU64 = AtomicU64::new(0);

/// One execution of phase 1 (`serial`) or phase 2 ended.
pub(crate) fn execution_ended(serial: bool) {
    let counter = if serial { &SERIAL } else { &CONCURRENT };
    counter.fetch_add(1, Ordering::Relaxed);
}

/// Executions of phase 1 and of phase 2 ended so far in this process.
pub(crate) fn executions() -> (u64, u64) {
    (SERIAL.load(Ordering::Relaxed), CONCURRENT.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_phase_is_counted_on_its_own() {
        let (serial, concurrent) = executions();
        execution_ended(true);
        execution_ended(false);
        execution_ended(false);
        let (s, c) = executions();
        // Other tests of this process may count too.
        assert!(s > serial && c >= concurrent + 2);
    }
}

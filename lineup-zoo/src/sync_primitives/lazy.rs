//! Lazy initialization (.NET `Lazy<T>` in `ExecutionAndPublication` mode): the value is
//! computed once, by the first `value` call, under a lock, with a double-checked fast path.

use lineup::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use lineup::sync::Mutex;

/// A correct lazily initialized value: `value` runs the factory once (later calls, and
/// concurrent ones, return the same value), `is_value_created` reports whether it has run, and
/// `to_string` renders the value or .NET's "Value is not created.". The factory counts its
/// runs and returns [`Lazy::VALUE`] plus its earlier runs, so a second run would show as another value. The paper
/// reports no root cause for it.
#[derive(Default)]
pub struct Lazy {
    created: AtomicBool,
    value: Mutex<Option<u64>>,
    factory_runs: AtomicU64,
}

impl Lazy {
    /// The value the factory computes the first time it runs.
    pub const VALUE: u64 = 42;

    /// The factory: [`Lazy::VALUE`] plus the number of earlier runs.
    fn factory(&self) -> u64 {
        Self::VALUE + self.factory_runs.fetch_add(1, SeqCst)
    }
}

#[lineup::invocations]
impl Lazy {
    /// The value, computed by the first call (.NET `Value`).
    #[invoke]
    pub fn value(&self) -> u64 {
        if self.created.load(SeqCst) {
            return self.value.lock().unwrap().expect("created");
        }
        let mut slot = self.value.lock().unwrap();
        match *slot {
            Some(value) => value,
            None => {
                let value = self.factory();
                *slot = Some(value);
                self.created.store(true, SeqCst);
                value
            }
        }
    }

    /// Whether the value has been computed (.NET `IsValueCreated`).
    #[invoke]
    pub fn is_value_created(&self) -> bool {
        self.created.load(SeqCst)
    }

    /// The value as text, or "Value is not created." (.NET `ToString()`); does not compute it.
    #[invoke]
    #[allow(clippy::inherent_to_string)]
    pub fn to_string(&self) -> String {
        match *self.value.lock().unwrap() {
            Some(value) => value.to_string(),
            None => "Value is not created.".to_string(),
        }
    }
}

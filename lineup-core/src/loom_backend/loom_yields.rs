//! loom's own yields seen by the harness: a crate under test that spins with
//! `loom::thread::yield_now()` or `loom::hint::spin_loop()` calls loom's runtime directly, past
//! `lineup::thread::yield_now`. loom 0.7.2's `rt::yield_now` emits a `tracing` event
//! (`trace!(?thread, ?switch, "yield_now")`, `thread` being the runtime's `Id(n)`); the child
//! process installs [`watch`]'s subscriber, which counts that event as a yield of loom thread `n`
//! ([`note_loom_yield`](super::harness::note_loom_yield)) and forwards everything else, unchanged,
//! to the subscriber that was the default before (a user's own, or none).
//!
//! The event comes while loom's execution is borrowed: the subscriber calls no loom API, it only
//! records into the harness's thread-local recording.

use std::fmt::{Debug, Write as _};

use tracing::dispatcher::{self, DefaultGuard, Dispatch};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_core::span::Current;

use super::harness::note_loom_yield;

/// Makes the watching subscriber the default of this thread (the one loom runs every model
/// thread on) until the guard drops. Scoped, so it cannot fail or clash with a user's global
/// subscriber, which keeps receiving every event and span it received before.
pub(crate) fn watch() -> DefaultGuard {
    let inner = dispatcher::get_default(Dispatch::clone);
    dispatcher::set_default(&Dispatch::new(YieldWatch { inner }))
}

/// The subscriber: loom's yield events, and the previous default for everything else.
struct YieldWatch {
    inner: Dispatch,
}

/// Whether `meta` may be the callsite of loom's `rt::yield_now` event: loom's runtime module, at
/// trace level, with exactly the fields `thread`, `switch` and the message (`thread_done:
/// terminate` has the same fields; [`YieldEvent`] tells them apart by the message).
fn loom_yield_callsite(meta: &Metadata<'_>) -> bool {
    meta.is_event()
        && meta.target() == "loom::rt"
        && *meta.level() == Level::TRACE
        && meta.fields().len() == 3
        && ["thread", "switch", "message"]
            .iter()
            .all(|name| meta.fields().field(name).is_some())
}

/// The fields of one candidate event.
#[derive(Default)]
struct YieldEvent {
    message: String,
    thread: Option<usize>,
}

impl Visit for YieldEvent {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        match field.name() {
            "message" => {
                let _ = write!(self.message, "{value:?}");
            }
            "thread" => self.thread = thread_number(&format!("{value:?}")),
            _ => {}
        }
    }
}

/// `n` of loom's `Debug` of a thread: `Id(n)` (the runtime's) or `ThreadId(n)` (the public one,
/// the same `n`).
pub(crate) fn thread_number(debug: &str) -> Option<usize> {
    let open = debug.find('(')?;
    debug.get(open + 1..debug.len().checked_sub(1)?)?.parse().ok()
}

impl Subscriber for YieldWatch {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if loom_yield_callsite(meta) {
            Interest::always()
        } else {
            self.inner.register_callsite(meta)
        }
    }

    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        loom_yield_callsite(meta) || self.inner.enabled(meta)
    }

    fn event(&self, event: &Event<'_>) {
        let meta = event.metadata();
        if loom_yield_callsite(meta) {
            let mut fields = YieldEvent::default();
            event.record(&mut fields);
            if let (true, Some(thread)) = (fields.message == "yield_now", fields.thread) {
                note_loom_yield(thread);
            }
            if !self.inner.enabled(meta) {
                return;
            }
        }
        self.inner.event(event);
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        self.inner.new_span(span)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        self.inner.record(span, values)
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        self.inner.record_follows_from(span, follows)
    }

    fn enter(&self, span: &Id) {
        self.inner.enter(span)
    }

    fn exit(&self, span: &Id) {
        self.inner.exit(span)
    }

    fn clone_span(&self, id: &Id) -> Id {
        self.inner.clone_span(id)
    }

    fn try_close(&self, id: Id) -> bool {
        self.inner.try_close(id)
    }

    fn current_span(&self) -> Current {
        self.inner.current_span()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing::dispatcher::{self, Dispatch};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    use super::{thread_number, watch};
    use crate::loom_backend::harness::{clear_yields, note_yield, yields_of_current};

    #[test]
    fn the_runtime_id_and_the_public_thread_id_give_the_same_number() {
        assert_eq!(thread_number("Id(3)"), Some(3));
        assert_eq!(thread_number("ThreadId(3)"), Some(3));
        assert_eq!(thread_number(&format!("{:?}", 12usize)), None);
        assert_eq!(thread_number("Id()"), None);
    }

    #[test]
    fn loom_s_own_yields_count_once_each_and_lineup_s_are_not_counted_twice() {
        let _watch = watch();
        loom::model::Builder::new().check(|| {
            clear_yields();
            note_yield(); // lineup's own yield: noted, then loom's yield_now, one yield in all
            loom::thread::yield_now();
            assert_eq!(yields_of_current(), 1);
            loom::thread::yield_now();
            loom::hint::spin_loop();
            assert_eq!(yields_of_current(), 3);
            let other = loom::thread::spawn(|| {
                loom::thread::yield_now();
                yields_of_current()
            });
            assert_eq!(other.join().unwrap(), 1, "counted for the spawned thread's own number");
            assert_eq!(yields_of_current(), 3);
        });
    }

    /// A user's subscriber: every event's message.
    struct Messages(Arc<Mutex<Vec<String>>>);

    impl Subscriber for Messages {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            let mut fields = super::YieldEvent::default();
            event.record(&mut fields);
            self.0.lock().unwrap().push(fields.message);
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    #[test]
    fn the_previous_subscriber_still_gets_every_event() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        dispatcher::with_default(&Dispatch::new(Messages(Arc::clone(&seen))), || {
            let _watch = watch();
            loom::model::Builder::new().check(|| {
                clear_yields();
                tracing::info!("the user's own event");
                loom::thread::yield_now();
                assert_eq!(yields_of_current(), 1);
            });
        });
        let seen = seen.lock().unwrap();
        assert!(seen.iter().any(|m| m == "the user's own event"), "{seen:?}");
        assert!(seen.iter().any(|m| m == "yield_now"), "{seen:?}");
    }
}

//! The trait that describes an object type's invocation set.

use crate::model::handles::Handles;
use crate::model::invocation::Invocation;
use crate::model::subject::Subject;

/// An object type that knows its invocations: Line-Up's invocation set `I`, the operations to
/// try with the argument values to try them with.
///
/// `#[lineup::invocations]` on an `impl` block generates this implementation from
/// `#[invoke(...)]` attributes on its methods; the macro does nothing else, and a person can
/// write the same by hand:
///
/// ```
/// use lineup_core::{Invocation, Invocations};
/// use lineup_core::sync::Mutex;
///
/// #[derive(Default)]
/// struct Queue(Mutex<std::collections::VecDeque<u32>>);
///
/// impl Queue {
///     fn add(&self, value: u32) {
///         self.0.lock().unwrap().push_back(value);
///     }
///     fn try_take(&self) -> Option<u32> {
///         self.0.lock().unwrap().pop_front()
///     }
/// }
///
/// impl Invocations for Queue {
///     fn invocations() -> Vec<Invocation<Self>> {
///         let mut set = Vec::new();
///         for value in [200u32, 400] {
///             set.push(Invocation::new("add", move |q: &Queue| q.add(value)).arg(value));
///         }
///         set.push(Invocation::new("try_take", Queue::try_take));
///         set
///     }
/// }
///
/// let labels: Vec<String> = Queue::invocations().iter().map(|i| i.label().to_string()).collect();
/// assert_eq!(labels, ["add(200)", "add(400)", "try_take()"]);
/// ```
pub trait Invocations: Sized + Send + Sync + 'static {
    /// The invocations to try, in a fixed order (matrices refer to them by position).
    fn invocations() -> Vec<Invocation<Self>>;

    /// How each thread makes its own handle from the object, for invocations made with
    /// [`Invocation::on_handle`] (see [`Subject::with_handles`]); `None` (the default) for an
    /// object whose operations all take `&Self`. `#[lineup::invocations]` returns the block's
    /// `#[handles]` method here.
    fn handles() -> Option<Handles<Self>> {
        None
    }

    /// How a violation's report shows the object's state after each operation, if it does:
    /// `#[invocations(state)]` makes it the object's `Debug` (see [`Subject::with_state`]).
    fn shows_state() -> Option<fn(&Self) -> String> {
        None
    }
}

impl<O: Invocations> Subject<O> {
    /// The subject of a type that implements [`Invocations`], built by `factory`.
    pub fn of(name: impl Into<String>, factory: impl Fn() -> O + Send + Sync + 'static) -> Self {
        O::invocations()
            .into_iter()
            .fold(Subject::new(name, factory), Subject::with)
            .handled_by(O::handles())
            .showing_state(O::shows_state())
    }
}

//! What an operation returned.

use std::fmt;

/// The response of a completed operation, compared by its canonical rendering.
///
/// A returned value is rendered with its `Debug` implementation, which for the standard library's
/// types (integers, floats, strings, `Option`, `Result`, tuples, collections) is exact: two
/// responses are equal exactly when their renderings are. A panic inside an operation is a
/// response too, never a crash of the tester.
///
/// ```
/// use lineup_core::Response;
/// assert_eq!(Response::returned(&Some(200)).to_string(), "Some(200)");
/// assert_eq!(Response::Panicked("boom".into()).to_string(), "panicked: \"boom\"");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Response {
    /// The operation returned; the `Debug` rendering of the value.
    Returned(String),
    /// The operation panicked; the panic message.
    Panicked(String),
    /// The operation was [cancellable](crate::Invocation::cancellable) and its caller dropped its
    /// future after poll number `polls` (from 1) returned `Pending`: it never returned. A history
    /// records its cancellation where its return would be, so that the thread's next operation
    /// follows it; the judge treats it as a pending operation of Def. 1 that may have taken effect
    /// (a witness completes it, with any result) or not (a witness leaves it out), never as
    /// returned.
    Cancelled {
        /// The poll after which the future was dropped (from 1).
        polls: u32,
    },
}

impl Response {
    /// The response for a returned value, rendered with `Debug`.
    pub fn returned<T: fmt::Debug + ?Sized>(value: &T) -> Self {
        Response::Returned(format!("{value:?}"))
    }

    /// Whether the operation was cancelled (see [`Response::Cancelled`]).
    ///
    /// ```
    /// use lineup_core::Response;
    /// assert!(Response::Cancelled { polls: 2 }.is_cancelled());
    /// assert_eq!(Response::Cancelled { polls: 2 }.to_string(), "cancelled after poll 2");
    /// assert!(!Response::returned(&1).is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        matches!(self, Response::Cancelled { .. })
    }
}

impl fmt::Display for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Returned(v) => f.write_str(v),
            Response::Panicked(msg) => write!(f, "panicked: {msg:?}"),
            Response::Cancelled { polls } => write!(f, "cancelled after poll {polls}"),
        }
    }
}

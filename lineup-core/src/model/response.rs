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
}

impl Response {
    /// The response for a returned value, rendered with `Debug`.
    pub fn returned<T: fmt::Debug + ?Sized>(value: &T) -> Self {
        Response::Returned(format!("{value:?}"))
    }
}

impl fmt::Display for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Returned(v) => f.write_str(v),
            Response::Panicked(msg) => write!(f, "panicked: {msg:?}"),
        }
    }
}

//! The values that recorded histories carry, independent of the file format.

use std::fmt;

/// A value read from a history file: an argument or a result of an operation.
///
/// The three formats map onto it: EDN `nil`/JSON `null` is [`Value::Nil`], integers are
/// [`Value::Int`], strings [`Value::Str`], EDN keywords (`:timed-out`) [`Value::Keyword`]
/// (without the colon), EDN vectors and lists and JSON arrays [`Value::List`].
///
/// ```
/// use lineup_histories::formats::Value;
/// let cas = Value::List(vec![Value::Int(1), Value::Int(2)]);
/// assert_eq!(cas.to_string(), "[1 2]");
/// assert_eq!(Value::Str("x 0 1 y".into()).to_string(), "\"x 0 1 y\"");
/// // `Debug` is the same EDN-like rendering, so that model states and timelines read well.
/// assert_eq!(format!("{:?}", Some(Value::Nil)), "Some(nil)");
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    /// EDN `nil`, JSON `null`: no value.
    Nil,
    /// A boolean.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A string.
    Str(String),
    /// An EDN keyword, without its leading colon (`:timed-out` is `Keyword("timed-out")`).
    Keyword(String),
    /// An EDN vector or list, a JSON array.
    List(Vec<Value>),
}

impl Value {
    /// A short description of the kind of value, for error messages ("an integer", "nil", ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Str(_) => "a string",
            Value::Keyword(_) => "a keyword",
            Value::List(_) => "a list",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => f.write_str("nil"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Keyword(k) => write!(f, ":{k}"),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

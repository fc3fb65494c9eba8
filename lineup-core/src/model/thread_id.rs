//! Which thread of a test performed an operation.

use std::fmt;
use std::str::FromStr;

/// The thread of a test that performs an operation.
///
/// The main thread runs the matrix's initial operations before the worker threads start and its
/// final operations after they are all joined (paper §4.3). Worker `i` runs column `i` of the
/// matrix. Workers are named `A`, `B`, `C`, ... as in the paper; after `Z` they are `T26`, `T27`, ...
///
/// ```
/// use lineup_core::ThreadId;
/// assert_eq!(ThreadId::Worker(0).to_string(), "A");
/// assert_eq!(ThreadId::Main.to_string(), "main");
/// assert_eq!("B".parse::<ThreadId>().unwrap(), ThreadId::Worker(1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ThreadId {
    /// The thread that builds the object, runs the initial and final operations and joins the workers.
    Main,
    /// Worker thread `i` (column `i` of the test matrix).
    Worker(usize),
}

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ThreadId::Main => f.write_str("main"),
            ThreadId::Worker(i) if i < 26 => write!(f, "{}", (b'A' + i as u8) as char),
            ThreadId::Worker(i) => write!(f, "T{i}"),
        }
    }
}

/// The error for a thread name that is neither `main`, a letter `A`..`Z`, nor `T<number>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a thread name (expected `main`, a capital letter A-Z, or T<number>)")]
pub struct ThreadIdParseError(pub String);

impl FromStr for ThreadId {
    type Err = ThreadIdParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ThreadIdParseError(s.to_string());
        if s == "main" {
            return Ok(ThreadId::Main);
        }
        let bytes = s.as_bytes();
        if bytes.len() == 1 && bytes[0].is_ascii_uppercase() {
            return Ok(ThreadId::Worker((bytes[0] - b'A') as usize));
        }
        match s.strip_prefix('T').map(str::parse::<usize>) {
            Some(Ok(i)) if i >= 26 => Ok(ThreadId::Worker(i)),
            _ => Err(err()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in [
            ThreadId::Main,
            ThreadId::Worker(0),
            ThreadId::Worker(25),
            ThreadId::Worker(26),
            ThreadId::Worker(99),
        ] {
            assert_eq!(t.to_string().parse::<ThreadId>().unwrap(), t);
        }
        assert!("T3".parse::<ThreadId>().is_err(), "T3 would alias D");
        assert!("a".parse::<ThreadId>().is_err());
    }
}

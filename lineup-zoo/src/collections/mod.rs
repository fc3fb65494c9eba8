//! Collections of Table 1: ConcurrentQueue, ConcurrentStack (also lock-free, Treiber style), a
//! concurrent linked list, BlockingCollection, ConcurrentBag and ConcurrentDictionary.

use crate::ZooEntry;

/// The Table 2 entries of this module.
pub fn entries() -> Vec<ZooEntry> {
    Vec::new()
}

//! Collections of Table 1: ConcurrentQueue, ConcurrentStack (also lock-free, Treiber style), a
//! concurrent linked list, BlockingCollection, ConcurrentBag and ConcurrentDictionary, each
//! correct and in the variants with the paper's root causes B, C, D, E (bugs), H, I, J
//! (intentional nondeterminism) and K (intentional non-linearizability). Every planted defect
//! is invisible serially: it needs another thread to act inside an operation.

pub mod blocking_collection;
pub mod concurrent_bag;
pub mod concurrent_dictionary;
pub mod concurrent_linked_list;
pub mod concurrent_queue;
pub mod concurrent_stack;

pub use blocking_collection::{BlockingCollection, BlockingCollectionBeta2, BlockingCollectionPre};
pub use concurrent_bag::{ConcurrentBag, ConcurrentBagBeta2, ConcurrentBagPre};
pub use concurrent_dictionary::ConcurrentDictionary;
pub use concurrent_linked_list::{ConcurrentLinkedList, ConcurrentLinkedListPre};
pub use concurrent_queue::{ConcurrentQueue, ConcurrentQueuePre};
pub use concurrent_stack::{ConcurrentStack, TreiberStack};

use crate::{Expected, ZooEntry};

/// The Table 2 entries of this module, in the paper's row order (the correct versions the paper
/// did not list follow their class's rows).
pub fn entries() -> Vec<ZooEntry> {
    use Expected::{Fail, Pass};
    vec![
        ZooEntry::of::<ConcurrentDictionary>("ConcurrentDictionary", "correct", Pass, 2),
        ZooEntry::of::<ConcurrentQueuePre>("ConcurrentQueue", "Pre", Fail, 2).bugs("B"),
        ZooEntry::of::<ConcurrentQueue>("ConcurrentQueue", "correct", Pass, 2),
        ZooEntry::of::<ConcurrentLinkedListPre>("ConcurrentLinkedList", "Pre", Fail, 2).bugs("C"),
        ZooEntry::of::<ConcurrentLinkedList>("ConcurrentLinkedList", "correct", Pass, 2),
        ZooEntry::of::<ConcurrentStack>("ConcurrentStack", "correct", Pass, 2),
        ZooEntry::of::<TreiberStack>("ConcurrentStack", "lock-free", Pass, 2),
        ZooEntry::of::<BlockingCollectionPre>("BlockingCollection", "Pre", Fail, 2)
            .bugs("D")
            .nonlinearizability("K"),
        ZooEntry::of::<BlockingCollectionBeta2>("BlockingCollection", "beta2", Fail, 2)
            .nondeterminism("HI")
            .nonlinearizability("K"),
        ZooEntry::of::<BlockingCollection>("BlockingCollection", "correct", Pass, 2),
        ZooEntry::of::<ConcurrentBagPre>("ConcurrentBag", "Pre", Fail, 2)
            .bugs("E")
            .nondeterminism("J"),
        ZooEntry::of::<ConcurrentBagBeta2>("ConcurrentBag", "beta2", Fail, 2).nondeterminism("J"),
        ZooEntry::of::<ConcurrentBag>("ConcurrentBag", "correct", Pass, 2),
    ]
}

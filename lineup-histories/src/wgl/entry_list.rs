//! The history as a doubly-linked list of call and return entries, with O(1) lift and unlift
//! (Horn & Kroening, Algorithm 2).

use crate::history::History;

/// No entry.
pub(crate) const NIL: u32 = u32::MAX;
/// The sentinel before the first entry.
pub(crate) const HEAD: u32 = 0;

/// Entries `1..` are the calls and returns sorted by time (a call before a return at equal
/// times: equal times are concurrent). An operation with an unknown outcome has a call entry
/// and no return entry (the Herlihy–Wing extension: it may take effect at any time after its
/// call, or never).
pub(crate) struct EntryList {
    next: Vec<u32>,
    prev: Vec<u32>,
    /// The operation of each entry, with the top bit set for a return entry.
    tag: Vec<u32>,
    /// The call entry of each operation.
    call_entry: Vec<u32>,
    /// The return entry of each operation ([`NIL`] for an unknown outcome).
    ret_entry: Vec<u32>,
}

const RETURN_BIT: u32 = 1 << 31;

impl EntryList {
    /// The list of a history's entries. Operation ids must fit in 31 bits.
    pub(crate) fn new<I, O>(history: &History<I, O>) -> EntryList {
        let ops = history.operations();
        assert!(
            ops.len() < (RETURN_BIT as usize) / 2,
            "history too long: {} operations",
            ops.len()
        );
        // (time, kind: 0 = call, 1 = return, op)
        let mut keys: Vec<(u64, u8, u32)> = Vec::with_capacity(ops.len() * 2);
        for (i, op) in ops.iter().enumerate() {
            keys.push((op.call, 0, i as u32));
            if !op.outcome.is_unknown() {
                keys.push((op.ret, 1, i as u32));
            }
        }
        keys.sort_unstable();
        let n = keys.len() + 1;
        let mut list = EntryList {
            next: Vec::with_capacity(n),
            prev: Vec::with_capacity(n),
            tag: Vec::with_capacity(n),
            call_entry: vec![NIL; ops.len()],
            ret_entry: vec![NIL; ops.len()],
        };
        list.tag.push(NIL);
        for (k, &(_, kind, op)) in keys.iter().enumerate() {
            let entry = (k + 1) as u32;
            if kind == 0 {
                list.call_entry[op as usize] = entry;
                list.tag.push(op);
            } else {
                list.ret_entry[op as usize] = entry;
                list.tag.push(op | RETURN_BIT);
            }
        }
        for e in 0..n {
            list.next.push(if e + 1 < n { (e + 1) as u32 } else { NIL });
            list.prev.push(if e == 0 { NIL } else { (e - 1) as u32 });
        }
        list
    }

    /// The entry after `entry` ([`NIL`] at the end).
    #[inline]
    pub(crate) fn next(&self, entry: u32) -> u32 {
        self.next[entry as usize]
    }

    /// Whether `entry` is a call entry.
    #[inline]
    pub(crate) fn is_call(&self, entry: u32) -> bool {
        self.tag[entry as usize] & RETURN_BIT == 0
    }

    /// The operation of `entry`.
    #[inline]
    pub(crate) fn op(&self, entry: u32) -> u32 {
        self.tag[entry as usize] & !RETURN_BIT
    }

    /// The call entry of `op`.
    #[inline]
    pub(crate) fn call_entry(&self, op: u32) -> u32 {
        self.call_entry[op as usize]
    }

    #[inline]
    fn unlink(&mut self, entry: u32) {
        let (prev, next) = (self.prev[entry as usize], self.next[entry as usize]);
        self.next[prev as usize] = next;
        if next != NIL {
            self.prev[next as usize] = prev;
        }
    }

    #[inline]
    fn relink(&mut self, entry: u32) {
        let (prev, next) = (self.prev[entry as usize], self.next[entry as usize]);
        self.next[prev as usize] = entry;
        if next != NIL {
            self.prev[next as usize] = entry;
        }
    }

    /// Removes the call and return entries of `op` (they keep their own links).
    #[inline]
    pub(crate) fn lift(&mut self, op: u32) {
        self.unlink(self.call_entry[op as usize]);
        let ret = self.ret_entry[op as usize];
        if ret != NIL {
            self.unlink(ret);
        }
    }

    /// Undoes the last [`EntryList::lift`] of `op` (lifts must be undone in reverse order).
    #[inline]
    pub(crate) fn unlift(&mut self, op: u32) {
        let ret = self.ret_entry[op as usize];
        if ret != NIL {
            self.relink(ret);
        }
        self.relink(self.call_entry[op as usize]);
    }
}

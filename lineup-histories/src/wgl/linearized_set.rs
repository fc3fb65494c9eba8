//! The set of linearized operations: a compact bitset with an incrementally maintained
//! Zobrist (XOR) hash and a frontier below which every operation is linearized.

/// A 64-bit mix (splitmix64 finalizer): the Zobrist key of a slot.
#[inline]
pub(crate) fn mix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Operations are in two slot spaces: *definite* operations (numbered by call order) and
/// operations with an *unknown* outcome. All definite slots below `frontier` are set, so a
/// configuration is identified by the frontier, the few definite bits above it (the
/// *window*: operations linearized ahead of a still-open earlier one), and the unknown bits.
pub(crate) struct LinearizedSet {
    definite: Vec<u64>,
    unknown: Vec<u64>,
    frontier: usize,
    definite_count: usize,
    hash: u64,
}

impl LinearizedSet {
    pub(crate) fn new(definite: usize, unknown: usize) -> Self {
        LinearizedSet {
            definite: vec![0; definite.div_ceil(64) + 1],
            unknown: vec![0; unknown.div_ceil(64)],
            frontier: 0,
            definite_count: 0,
            hash: 0,
        }
    }

    #[inline]
    fn zobrist(slot: u32, unknown: bool) -> u64 {
        mix64(((slot as u64) << 1) | unknown as u64)
    }

    /// The XOR of the Zobrist keys of the members.
    #[inline]
    pub(crate) fn hash(&self) -> u64 {
        self.hash
    }

    pub(crate) fn frontier(&self) -> usize {
        self.frontier
    }

    pub(crate) fn definite_count(&self) -> usize {
        self.definite_count
    }

    pub(crate) fn unknown_words(&self) -> &[u64] {
        &self.unknown
    }

    /// Adds a slot (which must be absent).
    #[inline]
    pub(crate) fn insert(&mut self, slot: u32, unknown: bool) {
        self.hash ^= Self::zobrist(slot, unknown);
        let s = slot as usize;
        if unknown {
            self.unknown[s / 64] |= 1 << (s % 64);
            return;
        }
        self.definite[s / 64] |= 1 << (s % 64);
        self.definite_count += 1;
        if s == self.frontier {
            // Advance past the set bits (amortized by the words skipped).
            let mut f = s + 1;
            loop {
                let word = self.definite[f / 64] >> (f % 64);
                let ones = (!word).trailing_zeros() as usize;
                let room = 64 - f % 64;
                if ones < room {
                    f += ones;
                    break;
                }
                f += room;
            }
            self.frontier = f;
        }
    }

    /// Removes a slot (which must be present).
    #[inline]
    pub(crate) fn remove(&mut self, slot: u32, unknown: bool) {
        self.hash ^= Self::zobrist(slot, unknown);
        let s = slot as usize;
        if unknown {
            self.unknown[s / 64] &= !(1 << (s % 64));
            return;
        }
        self.definite[s / 64] &= !(1 << (s % 64));
        self.definite_count -= 1;
        self.frontier = self.frontier.min(s);
    }

    /// Word `w` of the window: definite bits `frontier + 64 w ..`.
    #[inline]
    pub(crate) fn window_word(&self, w: usize) -> u64 {
        let bit = self.frontier + 64 * w;
        let (i, shift) = (bit / 64, bit % 64);
        let low = self.definite.get(i).copied().unwrap_or(0) >> shift;
        if shift == 0 {
            low
        } else {
            low | (self.definite.get(i + 1).copied().unwrap_or(0) << (64 - shift))
        }
    }

    /// The window: the words from the frontier up to the last set definite bit.
    pub(crate) fn window(&self) -> Vec<u64> {
        let mut left = self.definite_count - self.frontier;
        let mut words = Vec::new();
        let mut w = 0;
        while left > 0 {
            let word = self.window_word(w);
            left -= word.count_ones() as usize;
            words.push(word);
            w += 1;
        }
        words
    }
}

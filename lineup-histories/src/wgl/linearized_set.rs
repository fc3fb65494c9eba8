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

    /// Appends the window to `words`: the words from the frontier up to the last set definite
    /// bit.
    #[inline]
    pub(crate) fn push_window(&self, words: &mut Vec<u64>) {
        let mut left = self.definite_count - self.frontier;
        let mut w = 0;
        while left > 0 {
            let word = self.window_word(w);
            left -= word.count_ones() as usize;
            words.push(word);
            w += 1;
        }
    }

    /// The window: the words from the frontier up to the last set definite bit.
    #[cfg(test)]
    pub(crate) fn window(&self) -> Vec<u64> {
        let mut words = Vec::new();
        self.push_window(&mut words);
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator (no dependency): xorshift.
    fn next(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn frontier_window_and_hash_match_a_plain_set() {
        let (definite, unknown) = (200usize, 70usize);
        let mut set = LinearizedSet::new(definite, unknown);
        let mut plain_d = vec![false; definite];
        let mut plain_u = vec![false; unknown];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut seen_hashes = std::collections::HashMap::new();
        for step in 0..20_000 {
            let r = next(&mut x);
            let is_unknown = r % 5 == 0;
            // Bias towards low slots, so that the frontier moves.
            let range = if is_unknown {
                unknown
            } else {
                definite.min(8 + step / 50)
            };
            let slot = (next(&mut x) as usize) % range;
            let plain = if is_unknown { &mut plain_u } else { &mut plain_d };
            if plain[slot] {
                set.remove(slot as u32, is_unknown);
            } else {
                set.insert(slot as u32, is_unknown);
            }
            plain[slot] = !plain[slot];
            let frontier = plain_d.iter().position(|b| !b).unwrap_or(definite);
            assert_eq!(set.frontier(), frontier, "step {step}");
            assert_eq!(set.definite_count(), plain_d.iter().filter(|b| **b).count());
            // The window holds exactly the definite bits above the frontier.
            let window = set.window();
            let mut from_window = Vec::new();
            for (w, word) in window.iter().enumerate() {
                for bit in 0..64 {
                    if word >> bit & 1 == 1 {
                        from_window.push(frontier + 64 * w + bit);
                    }
                }
            }
            let above: Vec<usize> = (frontier..definite).filter(|&i| plain_d[i]).collect();
            assert_eq!(from_window, above, "step {step}");
            assert!(window.last().is_none_or(|word| *word != 0), "the window is trimmed");
            // The hash depends on the set only.
            let key = (plain_d.clone(), plain_u.clone());
            let hash = *seen_hashes.entry(key).or_insert(set.hash());
            assert_eq!(set.hash(), hash, "step {step}");
        }
    }
}

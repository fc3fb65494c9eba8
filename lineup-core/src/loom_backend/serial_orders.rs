//! Every serial order of a matrix's worker operations, in depth-first order, resumable after a
//! prefix (phase 1 under loom skips every order that extends a stuck prefix).

/// The serial orders of the operations `per_thread[t]` (operation numbers, in program order).
#[derive(Clone, Debug)]
pub(crate) struct SerialOrders {
    per_thread: Vec<Vec<usize>>,
}

impl SerialOrders {
    pub(crate) fn new(per_thread: Vec<Vec<usize>>) -> Self {
        Self { per_thread }
    }

    fn thread_of(&self, op: usize) -> Option<usize> {
        self.per_thread.iter().position(|ops| ops.contains(&op))
    }

    /// The first order (`None` only if the prefix is malformed, which never happens here).
    pub(crate) fn first(&self) -> Option<Vec<usize>> {
        self.complete(Vec::new())
    }

    /// The first order after every order that starts with `prefix`; `None` when there is none.
    pub(crate) fn next_after(&self, prefix: &[usize]) -> Option<Vec<usize>> {
        let mut choices: Vec<usize> = prefix.iter().map(|&op| self.thread_of(op)).collect::<Option<_>>()?;
        while let Some(last) = choices.pop() {
            let mut used = vec![0usize; self.per_thread.len()];
            for &t in &choices {
                used[t] += 1;
            }
            if let Some(t) = (last + 1..self.per_thread.len()).find(|&t| used[t] < self.per_thread[t].len()) {
                choices.push(t);
                return self.complete(choices);
            }
        }
        None
    }

    fn complete(&self, mut choices: Vec<usize>) -> Option<Vec<usize>> {
        let mut used = vec![0usize; self.per_thread.len()];
        for &t in &choices {
            used[t] += 1;
        }
        while let Some(t) = (0..self.per_thread.len()).find(|&t| used[t] < self.per_thread[t].len()) {
            choices.push(t);
            used[t] += 1;
        }
        let mut next = vec![0usize; self.per_thread.len()];
        Some(
            choices
                .into_iter()
                .map(|t| {
                    next[t] += 1;
                    self.per_thread[t][next[t] - 1]
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumerates_every_interleaving_once_and_skips_prefixes() {
        let orders = SerialOrders::new(vec![vec![1, 2], vec![3, 4], vec![5]]);
        let mut all = Vec::new();
        let mut next = orders.first();
        while let Some(o) = next {
            next = orders.next_after(&o);
            all.push(o);
        }
        assert_eq!(all.len(), 30); // 5! / (2! 2! 1!)
        let mut dedup = all.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), 30);
        // Skipping the prefix [3]: the next order starts with 5.
        assert_eq!(orders.next_after(&[3]), Some(vec![5, 1, 2, 3, 4]));
        assert_eq!(orders.next_after(&[5]), None);
        assert_eq!(orders.next_after(&[]), None);
    }
}

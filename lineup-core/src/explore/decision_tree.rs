//! Depth-first enumeration of scheduling decisions for a stateless model checker.
//!
//! Every execution replays the decisions of the path to its last branch point and then takes
//! the first option at every new branch point. After the execution, [`DecisionTree::advance`]
//! moves to the next untried option of the deepest branch point that has one. Only decisions
//! with more than one option are recorded, so the path is also a compact replay token.

/// One branch point on the current path.
#[derive(Clone, Copy, Debug)]
struct Branch {
    /// How many options there were (`0`: unknown, when replaying a token).
    options: u32,
    chosen: u32,
}

/// The schedule took a different shape on replay than when it was first explored: the code
/// under test does something the model checker does not control (time, OS randomness, `std`
/// synchronization, global state kept across executions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Divergence {
    pub depth: usize,
    pub expected_options: u32,
    pub found_options: u32,
    /// The choices came from a replay token that does not fit the execution (a choice out of
    /// range, or more choices than branch points), rather than from an earlier execution.
    pub from_token: bool,
}

/// The tree of scheduling decisions explored so far (its current path).
#[derive(Clone, Debug, Default)]
pub(crate) struct DecisionTree {
    path: Vec<Branch>,
    depth: usize,
    /// Replaying a fixed token: never branch beyond it.
    replay: bool,
}

impl DecisionTree {
    /// A tree that explores every schedule.
    pub fn new() -> Self {
        Self::default()
    }

    /// A tree that follows `choices` once (a replay token).
    pub fn replaying(choices: &[u32]) -> Self {
        Self {
            path: choices.iter().map(|&chosen| Branch { options: 0, chosen }).collect(),
            depth: 0,
            replay: true,
        }
    }

    /// Picks one of `options` (> 1) at the next branch point of this execution.
    pub fn choose(&mut self, options: usize) -> Result<usize, Divergence> {
        let options = options as u32;
        let chosen = match self.path.get_mut(self.depth) {
            Some(branch) if branch.options == 0 => {
                branch.options = options;
                if branch.chosen >= options {
                    return Err(Divergence {
                        depth: self.depth,
                        expected_options: branch.chosen + 1,
                        found_options: options,
                        from_token: true,
                    });
                }
                branch.chosen
            }
            Some(branch) if branch.options != options => {
                return Err(Divergence {
                    depth: self.depth,
                    expected_options: branch.options,
                    found_options: options,
                    from_token: false,
                });
            }
            Some(branch) => branch.chosen,
            None => {
                // Beyond a replay token the first option is taken, as it was when it was explored.
                if !self.replay {
                    self.path.push(Branch { options, chosen: 0 });
                }
                0
            }
        };
        self.depth += 1;
        Ok(chosen as usize)
    }

    /// After a replayed execution: the replay token's choices that it did not use, if any (a
    /// token of another schedule or matrix).
    pub fn unused_replay_choices(&self) -> Option<Divergence> {
        (self.replay && self.depth < self.path.len()).then_some(Divergence {
            depth: self.depth,
            expected_options: 0,
            found_options: 0,
            from_token: true,
        })
    }

    /// Moves to the next unexplored path; `false` when every path has been explored.
    pub fn advance(&mut self) -> bool {
        self.depth = 0;
        if self.replay {
            return false;
        }
        while let Some(branch) = self.path.last_mut() {
            if branch.chosen + 1 < branch.options {
                branch.chosen += 1;
                return true;
            }
            self.path.pop();
        }
        false
    }

    /// The choices made so far in this execution: its replay token.
    pub fn choices(&self) -> Vec<u32> {
        self.path[..self.depth.min(self.path.len())]
            .iter()
            .map(|b| b.chosen)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Enumerates a fixed tree of shape [2, then 3 under option 0, nothing under option 1].
    #[test]
    fn enumerates_every_leaf_once() {
        let mut tree = DecisionTree::new();
        let mut leaves = vec![];
        loop {
            let a = tree.choose(2).unwrap();
            let leaf = if a == 0 {
                vec![a, tree.choose(3).unwrap()]
            } else {
                vec![a]
            };
            assert_eq!(tree.choices().iter().map(|&c| c as usize).collect::<Vec<_>>(), leaf);
            leaves.push(leaf);
            if !tree.advance() {
                break;
            }
        }
        assert_eq!(leaves, vec![vec![0, 0], vec![0, 1], vec![0, 2], vec![1]]);
    }

    #[test]
    fn a_changed_shape_is_a_divergence() {
        let mut tree = DecisionTree::new();
        tree.choose(2).unwrap();
        assert!(tree.advance());
        assert_eq!(
            tree.choose(3),
            Err(Divergence {
                depth: 0,
                expected_options: 2,
                found_options: 3,
                from_token: false
            })
        );
    }

    #[test]
    fn replays_a_token() {
        let mut tree = DecisionTree::replaying(&[1, 2]);
        assert_eq!(tree.choose(2), Ok(1));
        assert_eq!(tree.choose(3), Ok(2));
        assert_eq!(tree.choose(4), Ok(0));
        assert!(!tree.advance());
    }
}
